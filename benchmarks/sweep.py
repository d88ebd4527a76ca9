"""Sweep throughput: configurations counted per second through the API, beside a plain closed form.

Standard library only (and ffn-calc). Run from a checkout with the package installed:

    python benchmarks/sweep.py [--variants 20000] [--rows 100000] [--repeat 5]

1. The API: `ffn_calc.sweep` over llama-style variants of Llama-2-7B (d_ff x n_kv_heads), each
   validated as a new model and counted (total parameters and forward FLOPs at S = 2048).
2. The floor: the same two counts written out by hand for this one architecture (a plain
   Python closed form, no validation), over the same variants, in the same run.
3. A CLI sweep of --rows rows to CSV, in a subprocess, with its counting alone timed in process:
   the output should cost less than the counting.

Targets: at least 50,000 configurations a second through the API, within 20x of the floor;
output under half of the CLI sweep's time. Best of --repeat runs each.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import ffn_calc

TARGET_RATE = 50_000
TARGET_RATIO = 20.0
S = 2048
KV_HEADS = [1, 2, 4, 8, 16, 32]


def closed_form(d_ff: int, kv: int) -> tuple[int, int]:
    """Llama-2-7B with another d_ff and KV-head count, by hand: (parameters, forward FLOPs)."""
    d, layers, heads, vocab = 4096, 32, 32, 32000
    hd = d // heads
    attn = d * d + 2 * d * kv * hd + d * d  # Q, K, V, O
    ffn = 3 * d * d_ff  # gate, up, down
    params = 2 * vocab * d + layers * (attn + ffn + 2 * d) + d  # embeddings, head, norms
    fwd = layers * (2 * S * attn + 2 * 2 * heads * S * S * hd + 2 * S * ffn) + 2 * S * d * vocab
    return params, fwd


def variants(n: int) -> dict[str, range | list[int]]:
    per = -(-n // len(KV_HEADS))
    return {"d_ff": range(8192, 8192 + per), "n_kv_heads": KV_HEADS}


def best(runs: list[float]) -> float:
    return min(runs)


def api_rate(base: ffn_calc.ModelConfig, n: int, repeat: int) -> tuple[float, int, list[dict]]:
    times, rows = [], []
    for _ in range(repeat):
        sweep = ffn_calc.sweep(base, variants(n), ["total_params", f"forward_flops@{S}"])
        start = time.perf_counter()
        rows = list(sweep)
        times.append(time.perf_counter() - start)
    return len(rows) / best(times), len(rows), rows


def floor_rate(n: int, repeat: int) -> tuple[float, list[tuple[int, int]]]:
    v = variants(n)
    times, out = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        out = [closed_form(f, kv) for f in v["d_ff"] for kv in v["n_kv_heads"]]
        times.append(time.perf_counter() - start)
    return len(out) / best(times), out


def entry_point() -> list[str]:
    script = Path(sys.executable).parent / "ffn-calc"
    return [str(script)] if script.exists() else [sys.executable, "-m", "ffn_calc"]


def cli_sweep(base: ffn_calc.ModelConfig, rows: int, repeat: int) -> tuple[float, float]:
    """(seconds for the CLI process writing CSV to /dev/null, seconds counting the same rows)."""
    per = -(-rows // len(KV_HEADS))
    args = [*entry_point(), "sweep", "--preset", "llama-2-7b",
            "--vary", f"d_ff=8192:{8192 + per - 1}", "--vary", "n_kv_heads=" + ",".join(map(str, KV_HEADS)),
            "--metric", "total_params", "--metric", f"forward_flops@{S}", "--format", "csv"]  # fmt: skip
    cli, count = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        with open(os.devnull, "w") as sink:
            subprocess.run(args, stdout=sink, stderr=subprocess.DEVNULL, check=True)
        cli.append(time.perf_counter() - start)
        sweep = ffn_calc.sweep(base, variants(rows), ["total_params", f"forward_flops@{S}"])
        start = time.perf_counter()
        for _ in sweep:
            pass
        count.append(time.perf_counter() - start)
    return best(cli), best(count)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--variants", type=int, default=20_000, help="API variants (default 20,000)"
    )
    parser.add_argument(
        "--rows", type=int, default=100_000, help="CLI sweep rows (default 100,000)"
    )
    parser.add_argument("--repeat", type=int, default=5, help="runs of each, best kept (default 5)")
    args = parser.parse_args()
    base = ffn_calc.load(preset="llama-2-7b")

    rate, n, rows = api_rate(base, args.variants, args.repeat)
    floor, plain = floor_rate(args.variants, args.repeat)
    mismatches = sum(
        (r["total_params"], r[f"forward_flops@{S}"]) != p for r, p in zip(rows, plain, strict=True)
    )
    ratio = floor / rate
    print(f"API sweep:        {n:,} llama-style variants, {rate:,.0f} configs/s "
          f"(params + forward FLOPs at S = {S}, validation included)")  # fmt: skip
    print(f"plain closed form: {floor:,.0f} configs/s (the same counts by hand, no validation)")
    print(f"ratio:             {ratio:.1f}x the plain closed form; counts equal: {mismatches == 0}")

    cli, count = cli_sweep(base, args.rows, max(1, args.repeat // 2))
    output = max(0.0, cli - count)
    print(f"CLI sweep to CSV:  {args.rows:,} rows in {cli:.2f} s; counting {count:.2f} s, "
          f"start-up and output {output:.2f} s ({output / cli:.0%})")  # fmt: skip

    ok = mismatches == 0 and rate >= TARGET_RATE and ratio <= TARGET_RATIO and output < count
    print(f"targets: >= {TARGET_RATE:,} configs/s, <= {TARGET_RATIO:.0f}x the floor, "
          f"output < counting: {'met' if ok else 'NOT MET'}")  # fmt: skip
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
