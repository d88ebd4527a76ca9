"""The console script (`ffn-calc`, `python -m ffn_calc`): the command line, tuned for a
short-lived process."""

import gc


def main() -> None:
    """Run the command line. A command is a short process that makes many objects (imports,
    schemas) and few reference cycles: the youngest generation is collected every 100,000
    allocations instead of every 700, so that no command's start pays for a collection of
    its young objects (a command allocates 55,000-65,000; one collection of that many takes
    about 10 ms, and a long sweep still collects), and at exit what is left is handed to the
    operating system instead of being walked object by object. Together about 50 ms of a
    200 ms start (see benchmarks/startup.py)."""
    gc.set_threshold(100_000, 20, 100)
    try:
        from ffn_calc.cli import main as run

        run()
    finally:
        gc.freeze()
