"""`ffn-calc roofline`: FLOPs equal to `flops` / `flops --decode` per component, bytes against
hand-derived cases per layer kind, the bound, a published worked example, crossovers, errors.

Bytes (docs/roofline.md): a linear layer reads its weight once per step and its input rows,
and writes its output rows; QK^T reads the queries and each sequence's keys, AV its values and
writes the output (fused: no score matrix); bf16 = 2 bytes everywhere here.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from conftest import run

from ffn_calc.counts import roofline as rl
from ffn_calc.counts.flops import Workload, flop_components
from ffn_calc.counts.inference import decode_components
from ffn_calc.families.resolve import resolve_model
from ffn_calc.model.accelerators import ACCELERATORS

BF16 = rl.Dtypes()


def model(name: str):  # type: ignore[no-untyped-def]
    return resolve_model(preset=name)


def by_name(p: rl.Phase) -> dict[str, rl.Component]:
    return {c.name: c for c in p.components}


def groups(p: rl.Phase) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in p.components:
        out[c.group] = out.get(c.group, 0) + c.flops
    return out


PRESETS = [
    "gpt2-small",
    "llama-3-8b",
    "mixtral-8x7b",
    "gemma-3-1b",
    "deepseek-v2-lite",
    "deepseek-v3.2",
    "t5-base",
    "gpt-oss-20b",
    "qwen1.5-moe-a2.7b",
]


@pytest.mark.parametrize("name", PRESETS)
def test_flops_are_the_flop_terms(name: str) -> None:
    """Per group and in total, the same FLOPs as `flops` (prefill) and `flops --decode`."""
    cfg = model(name)
    pre = rl.prefill(cfg, 2, 64, BF16)
    want = {k: v for k, v in flop_components(cfg, Workload(2, 64)).items() if v}
    assert groups(pre) == want
    dec = rl.decode(cfg, 3, 100, BF16)
    assert groups(dec) == {k: v for k, v in decode_components(cfg, 3, 100).items() if v}


def test_flops_through_the_cli() -> None:
    r = run(
        "roofline",
        "-p",
        "llama-3-8b",
        "--gpu",
        "h100-sxm",
        "-s",
        "128",
        "-L",
        "512",
        "-b",
        "4",
        "-f",
        "json",
    ).json()
    f = run("flops", "-p", "llama-3-8b", "-s", "128", "-b", "4", "-f", "json").json()
    d = run("flops", "-p", "llama-3-8b", "--decode", "-L", "512", "-b", "4", "-f", "json").json()
    pre, dec = r["phases"]
    assert (pre["phase"], pre["seq_len"], dec["phase"], dec["context"]) == (
        "prefill",
        128,
        "decode",
        512,
    )
    assert pre["flops"] == f["forward_flops"] and dec["flops"] == d["decode_flops"]
    for key in (
        "model",
        "accelerator",
        "batch",
        "dtype",
        "peak_flops",
        "bandwidth_bytes",
        "ridge_point",
    ):
        assert key in r
    for c in dec["components"]:
        assert set(c) >= {"name", "group", "flops", "bytes", "intensity", "bound", "time_s"}


def test_dense_mha_decode_bytes() -> None:
    """llama-2-7b (MHA: 32 KV heads of 128), one step, B = 1, L = 100, bf16, 32 layers:
    Q reads 4096 x 4096 weights and the 4096 input, writes 4096 out: 2 x (4096^2 + 8192);
    QK^T reads the query (32 x 128) and 101 cached keys (the new one included: written by K)
    of 32 x 128: 2 x (4096 + 101 x 4096); AV reads 101 values and writes 4096."""
    p = by_name(rl.decode(model("llama-2-7b"), 1, 100, BF16))
    assert p["Q"].bytes == 32 * 2 * (4096 * 4096 + 8192)
    assert p["gate"].bytes == 32 * 2 * (4096 * 11008 + 4096 + 11008)
    assert p["QK^T"].bytes == 32 * 2 * (4096 + 101 * 4096)
    assert p["AV"].bytes == 32 * 2 * (101 * 4096 + 4096)
    assert p["lm_head"].bytes == 2 * (4096 * 32000 + 4096 + 32000)


def test_gqa_decode_bytes_grow_per_sequence() -> None:
    """llama-3-8b (8 KV heads of 128), B = 2, L = 100: K's weight 4096 x 1024 once, its rows
    per sequence; each sequence reads its own 101 cached keys of 8 x 128."""
    p = by_name(rl.decode(model("llama-3-8b"), 2, 100, BF16))
    assert p["K"].bytes == 32 * 2 * (4096 * 1024 + 2 * (4096 + 1024))
    assert p["QK^T"].bytes == 32 * 2 * (2 * 4096 + 2 * 101 * 1024)
    # the cache reads' intensity: 2 x 32 heads x 128 per key over 8 x 128 x 2 bytes = 4
    assert rl.kv_intensity_limit(model("llama-3-8b"), BF16) == 4


def test_sliding_window_reads_at_most_the_window() -> None:
    """gemma-3-1b: 22 local layers (window 512: 511 cached + the new token) and 4 global ones
    (2,048 + 1), one KV head of 256; QK^T at B = 1 reads 4 x 256 query and the keys."""
    p = by_name(rl.decode(model("gemma-3-1b"), 1, 2048, BF16))
    assert p["QK^T"].bytes == 2 * (26 * 4 * 256 + 22 * 512 * 256 + 4 * 2049 * 256)


def test_mla_reads_its_latent() -> None:
    """deepseek-v2-lite (27 MLA layers, kv_lora_rank 512, rope 64): a step at L = 100 reads the
    100 cached latents through kv_b_proj over the cache, and the 101 rotary keys in QK^T; AV
    reads nothing more from memory (expanded on chip) and writes 16 x 128."""
    p = by_name(rl.decode(model("deepseek-v2-lite"), 1, 100, BF16))
    assert p["kv_b_proj over the cache"].bytes == 27 * 2 * 100 * 512
    assert p["QK^T"].bytes == 27 * 2 * (16 * 192 + 101 * 64)
    assert p["AV"].bytes == 27 * 2 * (16 * 128)


def test_moe_reads_the_experts_a_batch_touches() -> None:
    """mixtral-8x7b (8 experts, 2 per token, 3 matrices of 4096 x 14336): at B = 4 a step
    touches 8 (1 - (6/8)^4) = 5.46875 experts in expectation; every routed row goes in and
    out of each of the 3 matrices."""
    cfg = model("mixtral-8x7b")
    assert rl.distinct_experts(8, 2, 4) == 8 * (1 - 0.75**4) == 5.46875
    p = by_name(rl.decode(cfg, 4, 100, BF16))
    per_layer = Fraction(5.46875) * 3 * 4096 * 14336 * 2 + 4 * 2 * 3 * (4096 + 14336) * 2
    assert p["experts"].bytes == 32 * per_layer
    # batch 1: exactly k experts; a large batch: every expert
    assert rl.distinct_experts(8, 2, 1) == 2
    assert rl.distinct_experts(8, 2, 4096) == pytest.approx(8)


def test_bound_is_the_max_of_the_two_times() -> None:
    dev = rl.Device("h100", 989.4e12, 3.35e12)
    for b in (1, 64, 4096):
        p = rl.decode(model("llama-3-8b"), b, 4096, BF16)
        for c in p.components:
            compute, memory = c.flops / dev.peak, float(c.bytes) / dev.bandwidth
            assert c.time(dev, 1) == max(compute, memory)
            assert c.bound(dev, 1) == ("compute" if compute >= memory else "memory")
        assert p.time(dev) == sum(c.time(dev, 1) for c in p.components)


def test_llama_2_7b_decode_on_a100_and_databricks_mbu() -> None:
    """A decode step of Llama-2-7B at batch 1 reads its weights: 6,738,415,616 parameters in
    bf16, 13.5 GB, over the A100 80GB's 2,039 GB/s: about 6.6 ms. The step does not read the
    131,072,000-element embedding table (a lookup of one row), so the bound is
    (6,738,415,616 - 131,072,000) x 2 bytes / 2.039e12 = 6.48 ms, plus the cache and rows
    (norm weights are not counted: 65 x 4,096 of them).
    Databricks, "LLM Inference Performance Engineering: Best Practices" (2023), MBU: a 7B
    model in 16 bits with a time per output token of 14 ms moves 14 GB in 14 ms, 1 TB/s: on a
    2 TB/s machine, an MBU of 50% (ffn-calc: 13.2 GB per step, 47%)."""
    r = run("roofline", "-p", "llama-2-7b", "--gpu", "a100-80gb", "-L", "16", "-f", "json").json()
    step = r["phases"][0]
    # the matrices: all parameters less the embedding table and the 65 x 4,096 norm weights
    weights = (6_738_415_616 - 131_072_000 - 65 * 4096) * 2
    # ... and the cache (32 layers x 17 tokens x 2 x 4,096 x 2 bytes) and the rows in and out
    assert weights + 32 * 17 * 2 * 4096 * 2 < step["bytes"] < weights * 1.0015
    assert step["time_s"] == pytest.approx(6.48e-3, rel=0.01)
    m = run(
        "roofline",
        "-p",
        "llama-2-7b",
        "--peak-flops",
        "312e12",
        "--bandwidth",
        "2e12",
        "-L",
        "16",
        "--measured",
        str(1000 / 14),
        "-f",
        "json",
    ).json()["measured"]
    assert m["mbu"] == pytest.approx(0.5, abs=0.035)


def test_palm_mfu_convention() -> None:
    """PaLM's 6N + 12 L H Q T per token (N non-embedding), and 6N + 6 L H Q T causal."""
    cfg = model("llama-2-7b")
    n = 6_738_415_616 - 2 * 131_072_000  # embedding and the untied head... N as given
    full, causal = rl.palm_training_flops_per_token(cfg, n, 4096)
    assert full - causal == 6 * 32 * 32 * 128 * 4096
    r = run(
        "roofline",
        "-p",
        "llama-2-7b",
        "--gpu",
        "a100-80gb",
        "-s",
        "4096",
        "--measured",
        "3000",
        "--measured-phase",
        "training",
        "-f",
        "json",
    ).json()
    m = r["measured"]
    assert m["mfu"] > m["mfu_causal"] > 0


def test_crossovers_in_time() -> None:
    cfg, dev = model("llama-3-8b"), rl.Device("h100", 989.4e12, 3.35e12)
    b = rl.batch_crossover(cfg, 4096, BF16, dev)
    assert b is not None

    def gap(batch: int) -> float:
        p = rl.decode(cfg, batch, 4096, BF16)
        return p.group_time(dev, rl.ATTENTION) - p.group_time(dev, rl.FFN)

    assert gap(b) >= 0 > gap(b - 1)
    # the cache reads' intensity does not grow with the batch
    p1, p64 = by_name(rl.decode(cfg, 1, 4096, BF16)), by_name(rl.decode(cfg, 64, 4096, BF16))
    assert p1["QK^T"].intensity() == pytest.approx(p64["QK^T"].intensity(), rel=1e-3)
    assert p64["QK^T"].bound(dev, 1) == "memory"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--gpu", "nope", "-L", "5"], "--gpu nope"),
        (["--peak-flops", "-1", "--bandwidth", "1e12", "-L", "5"], "--peak-flops"),
        (["--gpu", "l4", "--bandwidth", "0", "-L", "5"], "--bandwidth"),
        (["--gpu", "l4", "--efficiency", "0", "-L", "5"], "--efficiency"),
        (["--gpu", "l4"], "--seq-len"),
        (["-L", "5"], "--gpu"),
        (["--gpu", "l4", "-L", "5", "--measured", "-3"], "--measured"),
    ],
)
def test_bad_input_exits_2(args: list[str], words: str) -> None:
    r = run("roofline", "-p", "gpt2-small", *args)
    assert r.exit_code == 2 and words in r.stderr and r.stdout == ""
    assert "Traceback" not in r.stderr


def test_encoder_only_has_no_decode_step() -> None:
    r = run("roofline", "-p", "bert-base", "--gpu", "l4", "-L", "5")
    assert r.exit_code == 2 and "encoder-only" in r.stderr and r.stdout == ""
    ok = run("roofline", "-p", "bert-base", "--gpu", "l4", "-s", "128", "-f", "json")
    assert ok.exit_code == 0


def test_accelerators_are_dense_and_sourced() -> None:
    for a in ACCELERATORS.values():
        assert a.source and a.bandwidth > 0 and a.memory > 0 and a.peaks["bf16"] > 0
    # dense, never the 2:4-sparse figure: H100 SXM's datasheet prints 1,979 TFLOPS (sparse)
    assert ACCELERATORS["h100-sxm"].peaks["bf16"] == 989.4e12


def test_tp_divides_time() -> None:
    one = run("roofline", "-p", "llama-3-8b", "--gpu", "h100-sxm", "-L", "64", "-f", "json").json()
    two = run(
        "roofline", "-p", "llama-3-8b", "--gpu", "h100-sxm", "-L", "64", "--tp", "2", "-f", "json"
    ).json()
    assert two["phases"][0]["time_s"] == pytest.approx(one["phases"][0]["time_s"] / 2)
    assert any("not modelled" in n for n in two["notes"])


@pytest.mark.parametrize("fmt", ["table", "csv", "markdown"])
def test_formats(fmt: str) -> None:
    r = run(
        "roofline", "-p", "mixtral-8x7b", "--gpu", "h100-sxm", "-s", "64", "-L", "64", "-f", fmt
    )
    assert r.exit_code == 0 and "experts" in r.stdout


@pytest.mark.parametrize(
    ("marker", "args"),
    [
        (
            "`ffn-calc roofline --preset llama-3-8b --gpu h100-sxm --context 2048 --batch 1`:",
            [
                "roofline",
                "-p",
                "llama-3-8b",
                "--gpu",
                "h100-sxm",
                "--context",
                "2048",
                "--batch",
                "1",
            ],
        ),
        (
            "`ffn-calc roofline --preset llama-3-8b --gpu h100-sxm --context 2048 --batch 64`:",
            [
                "roofline",
                "-p",
                "llama-3-8b",
                "--gpu",
                "h100-sxm",
                "--context",
                "2048",
                "--batch",
                "64",
            ],
        ),
        (
            "For the example above at batch 64:",
            [
                "roofline",
                "-p",
                "llama-3-8b",
                "--gpu",
                "h100-sxm",
                "--context",
                "2048",
                "--batch",
                "64",
            ],
        ),
    ],
)
def test_the_docs_examples_are_current(marker: str, args: list[str]) -> None:
    """docs/roofline.md shows runs of lines cut from today's output (120 columns)."""
    from conftest import readme_block, shown

    block = readme_block(marker).split("\n")
    out = shown(args, 120).split("\n")
    runs = (out[i : i + len(block)] for i in range(len(out) - len(block) + 1))
    assert block in runs, f"the example after {marker!r} is not in today's output"


def test_api_and_sweep_metrics_agree_with_the_command() -> None:
    import ffn_calc
    from ffn_calc.sweeps.metrics import METRICS

    m = ffn_calc.load(preset="llama-3-8b")
    r = ffn_calc.roofline(m, seq_len=256, context=1024, batch=4)
    cli = run("roofline", "-p", "llama-3-8b", "--gpu", "h100-sxm", "-s", "256", "-L", "1024",
              "-b", "4", "-f", "json").json()  # fmt: skip
    assert r.model_dump(mode="json") == cli
    pre, dec = cli["phases"]
    cache = {"batch": 4}
    assert METRICS["decode_time"].compute(m, cache, 1024) == pytest.approx(dec["time_s"] * 1e6)
    assert METRICS["prefill_time"].compute(m, cache, 256) == pytest.approx(pre["time_s"] * 1e6)
    with pytest.raises(ffn_calc.UsageError):
        ffn_calc.roofline(m, context=16, gpu="h100")


def test_require_on_roofline() -> None:
    ok = run("roofline", "-p", "llama-3-8b", "--gpu", "h100-sxm", "-L", "2048",
             "--require", "decode_time<5000", "-f", "json")  # fmt: skip
    assert ok.exit_code == 0 and ok.json()["requirements"][0]["holds"]
    bad = run("roofline", "-p", "llama-3-8b", "--gpu", "h100-sxm", "-L", "2048",
              "--require", "decode_time<4000", "-f", "json")  # fmt: skip
    assert bad.exit_code == 1
    other = run("roofline", "-p", "llama-3-8b", "--gpu", "l4", "-L", "2048",
                "--require", "decode_time<4000")  # fmt: skip
    assert other.exit_code == 2 and "H100 SXM" in other.stderr and other.stdout == ""


def test_plot_draws_the_decode_step_over_the_context(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "roofline.svg"
    r = run("roofline", "-p", "gemma-3-1b", "--gpu", "l4", "-L", "1024", "-b", "8",
            "--plot", str(out), "-f", "json")  # fmt: skip
    assert r.exit_code == 0 and out.stat().st_size > 0 and r.json()["phases"]
    bad = run("roofline", "-p", "gpt2-small", "--gpu", "l4", "-s", "64", "--plot", str(out))
    assert bad.exit_code == 2 and "--context" in bad.stderr and bad.stdout == ""
