"""`roofline --training`: a training step's time bound per component. FLOPs: forward +
backward (2x forward, the project's convention: training = 3 x forward) + the recomputed
forward; bytes hand-derived per kernel; the optimizer step; the gradients' ring all-reduce
over --interconnect; MFU from the step's own FLOPs; Narayanan et al. 2021's closed form.

Bytes (docs/roofline.md, "Training"): a weight's forward reads it (weights' dtype) and its
rows in and out; its backward dX = dY W^T reads W and dY and writes dX, dW = X^T dY reads X
and dY and writes the fp32 gradient: forward + rows in and out + 4 x weight elements. The
fused scores' backward reads Q, K, V, O, dO and writes dQ, dK, dV: 2 x the forward's bytes.
Adam's step: 16 bytes read + 12 written per parameter, + the bf16 copy (2) = 30.
"""

from __future__ import annotations

import json

import pytest
from conftest import run

from ffn_calc.counts import roofline as rl
from ffn_calc.counts.flops import Workload, flop_components
from ffn_calc.counts.params import total_params
from ffn_calc.families.resolve import resolve_model
from ffn_calc.model.accelerators import ACCELERATORS

BF16 = rl.Dtypes()
H100 = ACCELERATORS["h100-sxm"]
DEV = rl.Device("h100-sxm", H100.peaks["bf16"], H100.bandwidth)


def model(name: str, **flags: object):  # type: ignore[no-untyped-def]
    return resolve_model(preset=name, flags=flags or None)


def step(cfg, batch: int = 2, s: int = 64, **kw: object) -> rl.Phase:  # type: ignore[no-untyped-def]
    return rl.training(cfg, batch, s, BF16, total_params(cfg), **kw)  # type: ignore[arg-type]


def by_name(p: rl.Phase) -> dict[str, rl.Component]:
    return {c.name: c for c in p.components}


@pytest.mark.parametrize(
    "name", ["gpt2-small", "llama-3-8b", "mixtral-8x7b", "gemma-3-1b", "t5-base",
             "deepseek-v2-lite", "qwen1.5-moe-a2.7b", "bert-base"],
)  # fmt: skip
def test_flops_are_three_forwards(name: str) -> None:
    """No recompute: 3 x `flops`'s forward_flops per group, at the replica's batch."""
    cfg = model(name)
    p = step(cfg, 4, 64, dp=2)
    want = {k: 3 * v for k, v in flop_components(cfg, Workload(2, 64)).items() if v}
    got: dict[str, int] = {}
    for c in p.components:
        if c.flops:
            got[c.group] = got.get(c.group, 0) + c.flops
    assert got == want
    assert p.recompute_flops == 0 and p.tokens == 4 * 64


def test_narayanan_closed_form() -> None:
    """Narayanan et al. 2021 (arXiv:2104.04473), eq. 3: a GPT model with full activation
    recomputation runs 96 B s l h^2 (1 + s / 6h + V / 16 l h) FLOPs per iteration (= 96Bslh^2
    + 16Bs^2lh + 6BshV); without recomputation 72Bslh^2 + 12Bs^2lh + 6BshV (3 x forward).
    gpt2-small: h 768, l = n 12 layers, V 50257, d_ff 4h, tied head."""
    cfg = model("gpt2-small")
    b, s, n, h, v = 3, 512, 12, 768, 50257
    full = step(cfg, b, s, recompute="full")
    assert full.flops == 96 * b * s * n * h * h + 16 * b * s * s * n * h + 6 * b * s * h * v
    none = step(cfg, b, s)
    assert none.flops == 72 * b * s * n * h * h + 12 * b * s * s * n * h + 6 * b * s * h * v
    again = 24 * b * s * n * h * h + 4 * b * s * s * n * h
    assert full.recompute_flops == full.flops - none.flops == again


def test_selective_recomputes_the_scores() -> None:
    """Selective: one more forward of QK^T and AV (2 B S^2 d each, 12 layers), nothing else."""
    cfg = model("gpt2-small")
    sel, none = by_name(step(cfg, 2, 128, recompute="selective")), by_name(step(cfg, 2, 128))
    for name, c in sel.items():
        extra = 12 * 2 * 2 * 128 * 128 * 768 if name in ("QK^T", "AV") else 0
        assert c.flops - none[name].flops == extra, name


def test_linear_bytes_by_hand() -> None:
    """gpt2-small's Q at B=2, S=8 (16 rows, 768 -> 768), 12 layers: forward 768^2 x 2 +
    16 x (768 + 768) x 2 = 1,228,800; backward that + 49,152 + 768^2 x 4 = 3,637,248;
    12 x 4,866,048 = 58,392,576."""
    q = by_name(step(model("gpt2-small"), 2, 8))["Q"]
    w, act = 768 * 768, 16 * (768 + 768) * 2
    fwd = 2 * w + act
    assert fwd == 1_228_800
    assert q.bytes == 12 * (fwd + fwd + act + 4 * w) == 58_392_576


def test_scores_bytes_by_hand() -> None:
    """Fused QK^T: reads Q and K, B S H d_head each (bf16): forward 2 x 2 x 8 x 768 x 2 =
    49,152 per layer, backward twice that; 12 layers x 3 = 1,769,472."""
    qk = by_name(step(model("gpt2-small"), 2, 8))["QK^T"]
    fwd = (2 * 8 * 768 + 2 * 8 * 768) * 2
    assert qk.bytes == 12 * 3 * fwd == 1_769_472


def test_full_recompute_reads_a_forward_again() -> None:
    cfg = model("gpt2-small")
    full, none = by_name(step(cfg, 2, 8, recompute="full")), by_name(step(cfg, 2, 8))
    q_fwd = 2 * 768 * 768 + 16 * (768 + 768) * 2
    assert full["Q"].bytes - none["Q"].bytes == 12 * q_fwd
    assert full["lm_head"].bytes == none["lm_head"].bytes  # the head is not recomputed


def test_optimizer_step_bytes() -> None:
    """Adam: 30 bytes per parameter with bf16 weights, 28 with fp32 weights (no copy)."""
    cfg = model("gpt2-small")
    p = 124_439_808  # `params -p gpt2-small`
    assert by_name(step(cfg))["optimizer step"].bytes == 30 * p
    fp32 = rl.training(cfg, 2, 64, rl.Dtypes("fp32", "fp32", "fp32"), p)
    assert by_name(fp32)["optimizer step"].bytes == 28 * p


def test_ring_all_reduce() -> None:
    """2 (N - 1) / N x 4 bytes x P over the link: N = 4, P = 124,439,808 -> 746,638,848 bytes;
    at 100 GB/s, 7.46638848 ms; no link, no component."""
    cfg = model("gpt2-small")
    ar = by_name(step(cfg, 4, 64, dp=4, link=100e9))["gradient all-reduce"]
    assert ar.bytes == 746_638_848 and ar.flops == 0
    assert ar.time(DEV, 1) == pytest.approx(746_638_848 / 100e9)
    assert "gradient all-reduce" not in by_name(step(cfg, 4, 64, dp=4))


def test_time_is_the_larger_bound_per_component() -> None:
    cfg = model("llama-3-8b")
    p = step(cfg, 4, 1024)
    for c in p.components:
        assert c.time(DEV, 2) == max(c.flops / 2 / DEV.peak, float(c.bytes) / 2 / DEV.bandwidth)
    assert p.time(DEV, 2) == pytest.approx(sum(c.time(DEV, 2) for c in p.components))
    assert by_name(p)["gate"].bound(DEV, 1) == "compute"  # 4 x 1024 rows: far above the ridge
    assert by_name(p)["optimizer step"].bound(DEV, 1) == "memory"


def _json(*args: str) -> dict:  # type: ignore[type-arg]
    r = run("roofline", *args, "--format", "json")
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)  # type: ignore[no-any-return]


def test_json_shape_and_totals() -> None:
    r = _json("-p", "llama-3-8b", "--gpu", "h100-sxm", "--training", "-s", "1024", "-b", "8",
              "--dp", "4", "--recompute", "selective", "--interconnect", "450e9")  # fmt: skip
    (t,) = r["phases"]
    assert t["phase"] == "training" and t["seq_len"] == 1024 and t["dp"] == 4
    assert t["replica_batch"] == 2 and t["recompute"] == "selective"
    assert t["flops"] == t["forward_flops"] + t["backward_flops"] + t["recompute_flops"]
    assert t["backward_flops"] == 2 * t["forward_flops"]
    assert t["tokens_per_s"] == pytest.approx(8 * 1024 / t["time_s"])
    names = [c["name"] for c in t["components"]]
    assert names[-2:] == ["optimizer step", "gradient all-reduce"]


def test_measured_mfu_from_the_step() -> None:
    """MFU = tokens/s / (B S) x one replica's FLOPs (no recompute) / (peak x tp); HFU with
    the recompute; PaLM's convention over --dp x --tp devices."""
    r = _json("-p", "gpt2-small", "--gpu", "a100-80gb", "--training", "-s", "1024", "-b", "8",
              "--dp", "2", "--tp", "2", "--recompute", "full", "--measured", "50000")  # fmt: skip
    (t,), m = r["phases"], r["measured"]
    steps = 50000 / (8 * 1024)
    peak = 312e12
    assert m["phase"] == "training" and m["devices"] == 4
    assert m["mfu_counted"] == pytest.approx(
        steps * (t["flops"] - t["recompute_flops"]) / (peak * 2)
    )
    assert m["hfu"] == pytest.approx(steps * t["flops"] / (peak * 2))
    assert m["mbu"] == pytest.approx(steps * t["bytes"] / (2.039e12 * 2))
    n = 124_439_808 - 38_597_376 - 786_432  # non-embedding: minus wte and wpe
    palm = 6 * n + 12 * 12 * 12 * 64 * 1024
    assert m["mfu"] == pytest.approx(50000 * palm / (peak * 4))


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--training"], "--training needs --seq-len"),
        (["-s", "64", "--dp", "2"], "--dp goes with --training"),
        (["-s", "64", "--recompute", "full"], "--recompute goes with --training"),
        (["--training", "-s", "64", "-b", "3", "--dp", "2"], "not a multiple of --dp 2"),
        (["--training", "-s", "64", "--interconnect", "1e11"], "--interconnect goes with --dp"),
        (
            ["--training", "-s", "64", "-b", "2", "--dp", "2", "--interconnect", "-5"],
            "--interconnect",
        ),
    ],
)
def test_bad_input(args: list[str], needle: str) -> None:
    r = run("roofline", "-p", "gpt2-small", "--gpu", "h100-sxm", *args)
    assert r.exit_code == 2, r.output
    assert needle in r.stderr and r.stdout == ""


def test_api_and_sweep_metric_agree() -> None:
    import ffn_calc
    from ffn_calc.sweeps.metrics import METRICS

    m = ffn_calc.load(preset="gpt2-small")
    r = ffn_calc.roofline(m, seq_len=256, context=None, batch=2, training=True)
    cli = _json("-p", "gpt2-small", "--gpu", "h100-sxm", "-s", "256", "-b", "2", "--training")
    assert r.model_dump(mode="json") == cli
    t = cli["phases"][0]["time_s"]
    assert METRICS["training_time"].compute(m, {"batch": 2}, 256) == pytest.approx(t * 1e6)


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv"])
@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_every_format_and_language(fmt: str, lang: str) -> None:
    r = run("roofline", "-p", "gpt2-small", "--gpu", "h100-sxm", "--training", "-s", "128",
            "-b", "4", "--dp", "2", "--interconnect", "1e11", "--measured", "1e5", "-f", fmt,
            "--lang", lang)  # fmt: skip
    assert r.exit_code == 0, r.stderr
    assert "all-reduce" in r.stdout


DOC = ["roofline", "-p", "llama-3-8b", "--gpu", "h100-sxm", "--training", "--seq-len", "4096",
       "--batch", "64", "--dp", "8", "--recompute", "selective", "--interconnect", "450e9"]  # fmt: skip


def test_the_docs_example_is_current() -> None:
    """docs/roofline.md, "A training step": the table, and the figures its text quotes."""
    from conftest import readme_block, shown

    marker = ("`ffn-calc roofline --preset llama-3-8b --gpu h100-sxm --training --seq-len 4096 "
              "--batch 64 --dp 8 --recompute selective --interconnect 450e9`:")  # fmt: skip
    block = readme_block(marker).split("\n")
    out = shown(DOC, 120).split("\n")
    assert any(out[i : i + len(block)] == block for i in range(len(out) - len(block) + 1))
    r = _json(*DOC[1:], "--measured", "80000")
    (t,), m = r["phases"], r["measured"]
    assert round(t["tokens_per_s"]) == 132_892 and round(t["time_s"], 2) == 1.97
    assert [round(100 * m[k], 1) for k in ("mfu", "mfu_causal", "mfu_counted", "hfu")] == [
        52.0, 48.8, 52.0, 54.2,
    ]  # fmt: skip


def test_plot_draws_the_training_step_over_s(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("matplotlib")
    out = tmp_path / "training.svg"
    r = run("roofline", "-p", "gpt2-small", "--gpu", "l4", "--training", "-s", "512", "-b", "4",
            "--dp", "2", "--interconnect", "1e11", "--plot", str(out), "-f", "json")  # fmt: skip
    assert r.exit_code == 0, r.stderr
    assert out.stat().st_size > 0 and "all-reduce" in out.read_text()


def test_measured_prefill_with_training() -> None:
    r = run("roofline", "-p", "gpt2-small", "--gpu", "l4", "--training", "-s", "64",
            "--measured", "1000", "--measured-phase", "prefill")  # fmt: skip
    assert r.exit_code == 2 and "--measured-phase training" in r.stderr and r.stdout == ""
