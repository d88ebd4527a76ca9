"""A notebook loop through the API against a sweep of the same variants, in one process.

Standard library only (and ffn-calc). Run from a checkout with the package installed:

    python benchmarks/api_loop.py [--variants 2000] [--repeat 5]

1. The loop: `ffn_calc.params(ffn_calc.load(preset="llama-2-7b", d_ff=f)).total_params` for
   --variants values of d_ff, each loaded from the preset, validated and reported.
2. The sweep: `ffn_calc.sweep` over the same d_ff values, total parameters only.

A report's totals should not cost the term lists only --explain and the tables read, nor a
re-read of the preset: the loop should run at least 15% of the sweep's rate. Best of --repeat
runs each; the totals must agree.
"""

from __future__ import annotations

import argparse
import time

import ffn_calc

TARGET_SHARE = 0.15
PRESET = "llama-2-7b"
FIRST_D_FF = 8192


def loop_rate(n: int, repeat: int) -> tuple[float, list[int]]:
    times, out = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        out = [
            ffn_calc.params(ffn_calc.load(preset=PRESET, d_ff=f)).total_params
            for f in range(FIRST_D_FF, FIRST_D_FF + n)
        ]
        times.append(time.perf_counter() - start)
    return n / min(times), out


def sweep_rate(n: int, repeat: int) -> tuple[float, list[int]]:
    base = ffn_calc.load(preset=PRESET)
    times, out = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        sweep = ffn_calc.sweep(base, {"d_ff": range(FIRST_D_FF, FIRST_D_FF + n)}, ["total_params"])
        out = [row["total_params"] for row in sweep]
        times.append(time.perf_counter() - start)
    return n / min(times), out


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--variants", type=int, default=2_000, help="d_ff values (default 2,000)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each, best kept (default 5)")
    args = parser.parse_args()

    loop, looped = loop_rate(args.variants, args.repeat)
    sweep, swept = sweep_rate(args.variants, args.repeat)
    equal = looped == swept
    share = loop / sweep
    print(f"API loop:  {args.variants:,} d_ff values of {PRESET}, {loop:,.0f} configs/s "
          f"(load(preset=..., d_ff=f), params(...).total_params)")  # fmt: skip
    print(f"sweep:     the same values, {sweep:,.0f} rows/s (total_params)")
    print(f"ratio:     the loop at {share:.1%} of the sweep's rate; totals equal: {equal}")
    ok = equal and share >= TARGET_SHARE
    print(f"target: the loop at >= {TARGET_SHARE:.0%} of the sweep: {'met' if ok else 'NOT MET'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
