"""The roofline of hybrid models: every token mixer's components carry the FLOPs `flops` and
`flops --decode` count (per component group, equal), and bytes by the rules of
ffn_calc/counts/mixers/traffic.py, checked here against hand-derived counts per mixer kind
(bf16: 2 bytes for weights, activations and states alike; one layer x its count).

Sizes come from the model files (the presets) and the Hugging Face
configs in tests/data/frontier.json, quoted in each test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import DATA, run

from ffn_calc import load
from ffn_calc.counts import roofline as rl
from ffn_calc.counts.flops import Workload, flop_components
from ffn_calc.counts.inference import decode_components
from ffn_calc.counts.mixers import counts_of
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.layer_kinds import MIXERS

BF16 = rl.Dtypes()
FRONTIER = {
    c["hf_config"]["model_type"]: c["hf_config"]
    for c in json.loads((DATA / "frontier.json").read_text())["cases"]
}


def model(name: str, tmp: Path) -> ModelConfig:
    """A hybrid by name: a model file, a preset, or a frontier.json config (by model_type)."""
    if name in FRONTIER:
        path = tmp / f"{name}.json"
        path.write_text(json.dumps(FRONTIER[name]))
        return load(hf_config=path)
    return load(preset=name)


HYBRIDS = [
    "nemotron-h-8b", "granite-4.0-h-tiny", "falcon-h1", "mamba-codestral-7b", "lfm2-1.2b",
    "jamba-mini-1.5", "minimax-text-01", "qwen3_next", "kimi_linear",
]  # fmt: skip


def groups(p: rl.Phase) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in p.components:
        out[c.group] = out.get(c.group, 0) + c.flops
    return out


def comp(p: rl.Phase, name: str) -> rl.Component:
    (c,) = [c for c in p.components if c.group == "mixer" and c.name == name]
    return c


@pytest.mark.parametrize("name", HYBRIDS)
def test_flops_equal_flops_and_every_mixer_kernel_has_bytes(name: str, tmp_path: Path) -> None:
    cfg = model(name, tmp_path)
    pre = rl.prefill(cfg, 2, 300, BF16)
    want = {k: v for k, v in flop_components(cfg, Workload(2, 300)).items() if v}
    assert {k: v for k, v in groups(pre).items() if v} == want
    dec = rl.decode(cfg, 3, 500, BF16)
    want = {k: v for k, v in decode_components(cfg, 3, 500).items() if v}
    assert {k: v for k, v in groups(dec).items() if v} == want
    for phase in (pre, dec):
        mixers = [c for c in phase.components if c.group == "mixer"]
        assert mixers and all(c.modelled for c in mixers)
        assert any(c.bytes for c in mixers)


def test_every_mixer_term_has_a_bytes_rule(tmp_path: Path) -> None:
    """Each mixer's terms are its LINEAR layers or a kernel of its traffic (no term left)."""
    for name in HYBRIDS:
        cfg = model(name, tmp_path)
        for kind in {k for k in cfg.layer_mixers}:
            counts = counts_of(MIXERS.get(kind))
            if counts is None or counts.traffic is None:
                continue
            for decode, terms in ((False, counts.prefill(cfg, 1, 700, False)),
                                  (True, counts.decode(cfg, 1))):  # fmt: skip
                known = set(counts.traffic(cfg, 1, 1 if decode else 700, decode).terms)
                assert {t.name for t in terms} <= known | set(counts.linear), (name, kind)


def test_mamba2_decode_bytes(tmp_path: Path) -> None:
    """Nemotron-H 8B, 24 Mamba-2 layers, batch 1: conv_dim = 8192 + 2 x 8 x 128 = 10,240,
    K = 4: the conv weight 10,240 x 4, the row in and out 2 x 10,240, the conv state read and
    written 2 x 10,240 x 4; the read-out reads x (128 x 64), B and C (2 x 8 x 128), dt (128),
    writes y (128 x 64), reads and writes the state 2 x 128 x 64 x 128 in float32 (4 bytes:
    transformers keeps the SSM state in float32 whatever the model's dtype)."""
    dec = rl.decode(model("nemotron-h-8b", tmp_path), 1, 4096, BF16)
    conv = 10240 * 4 + 2 * 10240 + 2 * 10240 * 4
    assert comp(dec, "conv1d").bytes == 24 * 2 * conv
    readout = 128 * 64 + 2 * 8 * 128 + 128 + 128 * 64
    assert comp(dec, "SSM state read-out").bytes == 24 * (2 * readout + 4 * 2 * 128 * 64 * 128)
    # in_proj [4096 -> 8192 x 2 + 2 x 8 x 128 + 128]: the weight, the row in and out
    width = 2 * 8192 + 2 * 8 * 128 + 128
    assert comp(dec, "in_proj").bytes == 24 * 2 * (4096 * width + 4096 + width)


def test_mamba2_prefill_bytes(tmp_path: Path) -> None:
    """Nemotron-H, B = 2, S = 300 (600 rows): C B^T reads B and C (2 x 8 x 128 per row), the
    intra-chunk product reads x and dt and writes y (2 x 128 x 64 + 128); the chunk states,
    state passing and inter-chunk products stay on chip."""
    pre = rl.prefill(model("nemotron-h-8b", tmp_path), 2, 300, BF16)
    assert comp(pre, "SSD C B^T").bytes == 24 * 2 * 600 * 2 * 8 * 128
    assert comp(pre, "SSD intra-chunk").bytes == 24 * 2 * 600 * (2 * 128 * 64 + 128)
    assert comp(pre, "SSD inter-chunk").bytes == 0
    assert comp(pre, "conv1d").bytes == 24 * 2 * (10240 * 4 + 2 * 600 * 10240)


def test_gated_deltanet_decode_bytes(tmp_path: Path) -> None:
    """Qwen3-Next: 36 gated DeltaNet layers (3 in 4 of 48); key_dim 16 x 128 = 2048,
    value_dim 32 x 128 = 4096, conv_dim 2 x 2048 + 4096 = 8192, K = 4. The recurrent step
    (0 FLOPs) reads q, k, v, beta, g (2 x 2048 + 4096 + 2 x 32), writes o (4096), reads and
    writes the state 2 x 32 x 128 x 128 in float32 (as transformers keeps it)."""
    dec = rl.decode(model("qwen3_next", tmp_path), 1, 4096, BF16)
    step = comp(dec, "delta rule step")
    assert step.flops == 0
    assert step.bytes == 36 * (2 * (2 * 2048 + 4096 + 2 * 32 + 4096) + 4 * 2 * 32 * 128 * 128)
    assert comp(dec, "conv1d").bytes == 36 * 2 * (8192 * 4 + 2 * 8192 + 2 * 8192 * 4)


def test_gated_deltanet_prefill_bytes(tmp_path: Path) -> None:
    """Qwen3-Next, 1 x 300 rows: beta K K^T reads k, beta, g (2048 + 2 x 32); Q K^T reads q
    (2048); the intra-chunk output reads v and writes o (2 x 4096)."""
    pre = rl.prefill(model("qwen3_next", tmp_path), 1, 300, BF16)
    assert comp(pre, "delta rule beta K K^T").bytes == 36 * 2 * 300 * (2048 + 64)
    assert comp(pre, "delta rule Q K^T").bytes == 36 * 2 * 300 * 2048
    assert comp(pre, "delta rule intra-chunk output").bytes == 36 * 2 * 300 * 2 * 4096
    assert comp(pre, "delta rule state update").bytes == 0


def test_kda_decode_bytes(tmp_path: Path) -> None:
    """Kimi Linear: 20 KDA layers (of 27), W = 32 x 128 = 4096, K = 4: the conv over
    q, k, v (3 W) and its state; the step reads q, k, v, g (4 W) and beta (32), writes o (W),
    reads and writes the state 2 x 32 x 128 x 128 in float32 (as transformers keeps it)."""
    cfg = model("kimi_linear", tmp_path)
    n = cfg.layer_mixers.count("kda")
    dec = rl.decode(cfg, 1, 4096, BF16)
    w = 4096
    assert comp(dec, "conv1d").bytes == n * 2 * (3 * w * 4 + 2 * 3 * w + 2 * 3 * w * 4)
    assert comp(dec, "KDA step").bytes == n * (2 * (4 * w + 32 + w) + 4 * 2 * 32 * 128 * 128)
    pre = rl.prefill(cfg, 1, 100, BF16)
    assert comp(pre, "KDA UT keys").bytes == n * 2 * 100 * 2 * w


def test_short_conv_bytes(tmp_path: Path) -> None:
    """LFM2-1.2B: 10 short-convolution layers, d_model 2048, K = 3: decode, the weight
    2048 x 3, the row in and out 2 x 2048, the state read and written 2 x 2048 x 3; a
    prefill of 4 x 50 rows: the weight and 2 x 200 x 2048."""
    cfg = model("lfm2-1.2b", tmp_path)
    dec = rl.decode(cfg, 1, 4096, BF16)
    assert comp(dec, "conv").bytes == 10 * 2 * (2048 * 3 + 2 * 2048 + 2 * 2048 * 3)
    pre = rl.prefill(cfg, 4, 50, BF16)
    assert comp(pre, "conv").bytes == 10 * 2 * (2048 * 3 + 2 * 200 * 2048)


def test_mamba_selective_scan_bytes(tmp_path: Path) -> None:
    """Jamba-Mini: 28 Mamba layers (of 32), inner 8192, N = 16: the scan reads A (8192 x 16)
    and D (8192), x and dt (2 x 8192), B and C (2 x 16), writes y (8192); a decode step also
    reads and writes the state 2 x 8192 x 16 in float32 (as transformers keeps it)."""
    cfg = model("jamba-mini-1.5", tmp_path)
    dec = rl.decode(cfg, 1, 4096, BF16)
    scan = 8192 * 16 + 8192 + (2 * 8192 + 2 * 16) + 8192
    assert comp(dec, "scan read-out").bytes == 28 * (2 * scan + 4 * 2 * 8192 * 16)
    pre = rl.prefill(cfg, 1, 10, BF16)
    scan = 8192 * 16 + 8192 + 10 * (3 * 8192 + 2 * 16)
    assert comp(pre, "scan read-out").bytes == 28 * 2 * scan


def test_lightning_bytes(tmp_path: Path) -> None:
    """MiniMax-Text-01: 70 lightning layers (of 80), 64 heads x 128 = 8192: decode reads q, k,
    v and writes o (4 x 8192), reads and writes the state 2 x 64 x 128 x 128; the intra-block
    kernel of a prefill reads and writes 4 x 8192 per row, the inter-block one nothing more."""
    cfg = model("minimax-text-01", tmp_path)
    dec = rl.decode(cfg, 1, 4096, BF16)
    assert comp(dec, "lightning state").bytes == 70 * 2 * (4 * 8192 + 2 * 64 * 128 * 128)
    pre = rl.prefill(cfg, 1, 300, BF16)
    assert comp(pre, "lightning intra-block").bytes == 70 * 2 * 300 * 4 * 8192
    assert comp(pre, "lightning inter-block").bytes == 0


def test_states_in_the_kv_dtype(tmp_path: Path) -> None:
    """The SSM state is float32 whatever --kv-dtype (transformers keeps it so): --kv-dtype
    fp32 leaves the read-out's bytes as they are; the conv state follows --kv-dtype (2 x B x
    conv_dim x K read and written: 2 more bytes per element in fp32)."""
    cfg = model("nemotron-h-8b", tmp_path)
    a = comp(rl.decode(cfg, 1, 4096, BF16), "SSM state read-out").bytes
    b = comp(rl.decode(cfg, 1, 4096, rl.Dtypes(kv="fp32")), "SSM state read-out").bytes
    assert b == a
    c = comp(rl.decode(cfg, 1, 4096, BF16), "conv1d").bytes
    d = comp(rl.decode(cfg, 1, 4096, rl.Dtypes(kv="fp32")), "conv1d").bytes
    assert d - c == 24 * 2 * 10240 * 4 * 2


def test_no_attention_no_time_crossovers() -> None:
    r = run(
        "roofline", "--preset", "mamba-codestral-7b", "--gpu",
        "h100-sxm", "-L", "4096", "-f", "json",
    )  # fmt: skip
    assert r.exit_code == 0
    out = r.json()
    assert out["crossovers"] is None
    assert any("no layer of mamba-codestral-7b attends" in n for n in out["notes"])
    assert out["phases"][0]["time_shares"]["mixer"] > 0.5
    for lang in ("ja", "zh"):
        r = run(
            "roofline", "--preset", "nemotron-h-8b", "--gpu",
            "h100-sxm", "-L", "4096", "-s", "512", "--lang", lang,
        )  # fmt: skip
        assert (
            r.exit_code == 0
            and "Token mixers" not in r.stdout
            and "mixer time share" not in r.stdout
        )
