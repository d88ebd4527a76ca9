"""The README's Python example, type-checked with mypy --strict by tests/test_api.py."""

from __future__ import annotations

import ffn_calc

model = ffn_calc.load(preset="gpt2-small")
report = ffn_calc.params(model)
print(f"{model.name}: {report.total_params:,} parameters, FFN {report.shares['ffn']:.1%}")

flops = ffn_calc.flops(model, seq_len=1024)
print(f"forward at S = 1,024: {flops.forward_flops:,} FLOPs")
# GPT-2's crossovers lie past its 1,024 learned positions: `crossover` holds None for them and
# `unbounded` the S the formula gives.
print(f"scores = FFN at S = {ffn_calc.crossover(model).unbounded['scores_vs_ffn']:,}")

# Every d_ff from 8,192 to 16,384 and a few KV-head counts of a Llama-2-7B: which stay
# under 7B parameters?
llama = ffn_calc.load(preset="llama-2-7b")
sweep = ffn_calc.sweep(
    llama,
    vary={"d_ff": range(8192, 16385, 1024), "n_kv_heads": [1, 3, 8, 32]},
    metrics=["total_params", "forward_flops@4096"],
    where=["total_params<=7e9"],
)
rows = list(sweep)
for row in rows[:3]:
    print(row["d_ff"], row["n_kv_heads"], f"{row['total_params']:,}")
print(f"{sweep.matched} kept, {sweep.filtered_out} over 7B, skipped: {dict(sweep.skipped)}")

try:
    ffn_calc.load(preset="gpt-3")
except ffn_calc.ConfigError as exc:
    print("error:", str(exc).split(".")[0])
