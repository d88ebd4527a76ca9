"""Start-up benchmark: whole-process wall times of ffn-calc commands against the import floor.

Standard library only. Run from a checkout with the package installed:

    python benchmarks/startup.py [--runs 15]

The floor is `python -c "import typer, pydantic, rich.table"` with the same interpreter. Each
round runs the floor and every command once, in a rotated order, after one warm-up round;
medians and ratios to the floor's median are printed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

FLOOR = [sys.executable, "-c", "import typer, pydantic, rich.table"]

# Reference points (not targets): what the dependencies cost once they are used, not only
# imported. A Typer command with two options, and one validated Pydantic model.
TYPER_APP = (
    "import typer\n"
    "app = typer.Typer()\n"
    "@app.command()\n"
    "def main(x: int = 1, fmt: str = 'json') -> None:\n"
    "    pass\n"
    "app(['--x', '3'])\n"
)
PYDANTIC_MODEL = (
    "import typer, pydantic, rich.table\nclass A(pydantic.BaseModel):\n    x: int\nA(x=1)\n"
)
TYPER_AND_MODEL = (
    "import typer, pydantic\n"
    "class A(pydantic.BaseModel):\n"
    "    x: int\n"
    "app = typer.Typer()\n"
    "@app.command()\n"
    "def main(x: int = 1, fmt: str = 'json') -> None:\n"
    "    print(A(x=x).model_dump_json())\n"
    "app(['--x', '3'])\n"
)
REFERENCES = {
    "ref: a 2-option Typer command": [sys.executable, "-c", TYPER_APP],
    "ref: floor + one Pydantic model": [sys.executable, "-c", PYDANTIC_MODEL],
    "ref: a Typer command printing a model's JSON": [sys.executable, "-c", TYPER_AND_MODEL],
}

COMMANDS: dict[str, tuple[list[str], float]] = {
    # label: (arguments, target ratio to the floor)
    "params --preset gpt2-small": (["params", "--preset", "gpt2-small"], 1.15),
    "params --preset gpt2-small --format json": (["params", "--preset", "gpt2-small", "--format", "json"], 1.0),
    "flops --preset llama-2-7b --seq-len 4096": (["flops", "--preset", "llama-2-7b", "--seq-len", "4096"], 1.3),
    "crossover --preset gpt2-small": (["crossover", "--preset", "gpt2-small"], 1.3),
    "presets": (["presets"], 1.3),
    "--help": (["--help"], 1.3),
}  # fmt: skip


def entry_point() -> list[str]:
    """The installed console script beside this interpreter, else `python -m ffn_calc`."""
    script = Path(sys.executable).parent / "ffn-calc"
    if script.exists():
        return [str(script)]
    found = shutil.which("ffn-calc")
    return [found] if found else [sys.executable, "-m", "ffn_calc"]


# Byte-code caching on, as for an installed package: with PYTHONDONTWRITEBYTECODE set, an
# editable install would recompile every module of ffn-calc at every start (its dependencies,
# compiled by pip at install time, would not), and the comparison would be unfair.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=ENV)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="measured rounds (default 15)")
    args = parser.parse_args()
    base = entry_point()
    jobs = {"floor: import typer, pydantic, rich.table": FLOOR}
    jobs |= REFERENCES
    jobs |= {label: base + argv for label, (argv, _) in COMMANDS.items()}
    labels = list(jobs)
    times: dict[str, list[float]] = {label: [] for label in labels}
    for label in labels:  # warm-up: page cache, .pyc files
        timed(jobs[label])
    for i in range(args.runs):
        order = labels[i % len(labels) :] + labels[: i % len(labels)]
        for label in order:
            times[label].append(timed(jobs[label]))
    floor = statistics.median(times[labels[0]])
    print(f"{'command':48} {'median ms':>10} {'ratio':>7} {'target':>7}")
    failed = False
    for label in labels:
        med = statistics.median(times[label])
        target = COMMANDS.get(label, (None, None))[1]
        ok = target is None or med / floor <= target
        failed |= not ok
        tgt = f"{target:.2f}" if target else ""
        print(f"{label:48} {1000 * med:10.1f} {med / floor:7.3f} {tgt:>7} {'' if ok else 'OVER'}")
    print(f"{args.runs} alternating rounds after a warm-up; entry point: {' '.join(base)}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
