"""XLM-RoBERTa, ModernBERT and DeBERTa-v2 without torch: the structure ffn-calc reads from their
config.json files and presets, their FLOPs at real size, and the fields they brought
(first_layer_norms, lm_head_transform_bias, the bidirectional window, the relative position
table and the disentangled scores).

Golden figures: tests/data/frontier.json (parameters) and FlopCounterMode over the
transformers 5.24.0 class on the meta device, eager attention (FLOPs; the oracle module
tests/test_oracle_encoders_2025.py measures them again against these closed forms).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, run

from ffn_calc.counts.flops import Workload, flop_components, forward_flops, layer_flops
from ffn_calc.counts.params import layer_counts, total_params
from ffn_calc.counts.totals import flop_components as fast_flops
from ffn_calc.counts.totals import param_components
from ffn_calc.families.resolve import resolve_model
from ffn_calc.model.config import ModelConfig
from ffn_calc.reference.instantiate import instantiate
from ffn_calc.reference.safetensors import Entry
from ffn_calc.reports.verify import compare_checkpoint

FRONTIER = {c["name"]: c for c in json.loads((DATA / "frontier.json").read_text())["cases"]}
PRESETS = {
    "xlm-roberta-base": "FacebookAI/xlm-roberta-base",
    "modernbert-base": "answerdotai/ModernBERT-base",
    "deberta-v3-base": "microsoft/deberta-v3-base",
}

# FlopCounterMode over the transformers 5.24.0 class built from the frontier.json config on the
# meta device, eager attention, (batch, S) -> forward FLOPs.
MEASURED = {
    "xlm-roberta-base": {(1, 128): 71_650_639_872, (2, 512): 587_700_633_600},
    "modernbert-base": {(1, 128): 39_397_097_472, (2, 512): 341_751_889_920},
    "deberta-v3-base": {(1, 128): 64_595_165_184, (2, 512): 429_788_233_728},
}


def _hf(name: str, tmp_path: Path, **changes: Any) -> ModelConfig:
    data = {**FRONTIER[name]["hf_config"], **changes}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    return resolve_model(hf_config=path)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_preset_equals_its_config_json(preset: str, tmp_path: Path) -> None:
    cfg = resolve_model(preset=preset)
    hf = _hf(PRESETS[preset], tmp_path)
    # Golden: frontier.json total_params (transformers 5.24.0, sum of parameters(), meta).
    assert total_params(cfg) == total_params(hf) == FRONTIER[PRESETS[preset]]["total_params"]
    assert param_components(cfg) == param_components(hf)
    for (batch, s), flops in MEASURED[preset].items():
        w = Workload(batch=batch, seq_len=s)
        assert forward_flops(cfg, w) == forward_flops(hf, w) == flops
        assert fast_flops(cfg, w) == flop_components(cfg, w)


def test_modernbert_layer_0_has_no_attention_norm() -> None:
    cfg = resolve_model(preset="modernbert-base")
    layers = [(str(x.kind), x.count, x.group("norm")) for x in layer_counts(cfg)]
    # 22 layers, global every 3rd from 0 (8: layer 0 and 7 more), 14 local; layer 0 keeps only
    # mlp_norm [768] (its attn_norm is an Identity), the others attn_norm and mlp_norm.
    assert layers == [
        ("full attention", 7, 2 * 768),
        ("bidirectional sliding-window attention over 129 tokens", 14, 2 * 768),
        ("layer 0, full attention", 1, 768),
    ]
    names = {t.label for t in instantiate(cfg).tensors}
    assert "model.layers.{1..21}.attn_norm.weight" in names
    assert "model.layers.{0..21}.mlp_norm.weight" in names
    # FLOPs: one kind per mixer (the missing norm is no matmul).
    assert [(str(x.kind), x.count) for x in layer_flops(cfg, Workload(1, 8))] == [
        ("full attention", 8),
        ("bidirectional sliding-window attention over 129 tokens", 14),
    ]


@pytest.mark.parametrize(("local", "window"), [(128, 129), (127, 127), (2, 3), (1, 1)])
def test_modernbert_window_is_symmetric(local: int, window: int, tmp_path: Path) -> None:
    # transformers: |i - j| <= local_attention // 2, so 2 x (local_attention // 2) + 1 tokens.
    cfg = _hf("answerdotai/ModernBERT-base", tmp_path, local_attention=local)
    assert (cfg.attention_window, cfg.window_kind) == (window, "bidirectional")
    # Eager attention computes the whole S x S square: the window changes no FLOP count.
    base = resolve_model(preset="modernbert-base")
    assert forward_flops(cfg, Workload(1, 300)) == forward_flops(base, Workload(1, 300))


def test_modernbert_flags(tmp_path: Path) -> None:
    base = _hf("answerdotai/ModernBERT-base", tmp_path)
    d, f, v, layers = 768, 1152, 50368, 22
    flagged = _hf(
        "answerdotai/ModernBERT-base", tmp_path, attention_bias=True, mlp_bias=True,
        norm_bias=True, classifier_bias=True, decoder_bias=False,
    )  # fmt: skip
    # Wqkv [3d] and Wo [d] biases, Wi [2f] and Wo [d] biases per layer; norm biases: 21 attn,
    # 22 mlp, embedding, final, head norms; head dense bias [d]; less the decoder bias [v].
    extra = layers * (4 * d + 2 * f + d) + (21 + 22 + 3) * d + d - v
    assert total_params(flagged) - total_params(base) == extra
    untied = _hf("answerdotai/ModernBERT-base", tmp_path, tie_word_embeddings=False)
    assert total_params(untied) - total_params(base) == v * d
    # layer_types given: the file's pattern wins over global_attn_every_n_layers.
    every = _hf("answerdotai/ModernBERT-base", tmp_path, global_attn_every_n_layers=2)
    assert every.window_layers == base.window_layers
    data = {k: v for k, v in FRONTIER["answerdotai/ModernBERT-base"]["hf_config"].items()
            if k != "layer_types"}  # fmt: skip
    path = tmp_path / "every2.json"
    path.write_text(json.dumps({**data, "global_attn_every_n_layers": 2}))
    assert resolve_model(hf_config=path).window_layers == list(range(1, 22, 2))


def test_deberta_scores_are_attention_score_terms() -> None:
    cfg = resolve_model(preset="deberta-v3-base")
    w = Workload(batch=2, seq_len=100)
    (layer,) = layer_flops(cfg, w)
    terms = {t.name: (t.group, t.value) for t in layer.terms}
    # c2p: [S, head_dim] x [head_dim, 2 x 256] per batch element and head; p2c: the keys.
    assert terms["c2p (Q x position keys^T)"] == ("attention_scores", 2 * 2 * 12 * 100 * 512 * 64)
    assert terms["p2c (K x position queries^T)"] == (
        "attention_scores",
        2 * 2 * 12 * 100 * 512 * 64,
    )
    # share_att_key: each layer's query_proj and key_proj also project the 512-row table,
    # once per forward pass whatever the batch: 12 x 2 x 2 x 512 x 768 x 768.
    inv = instantiate(cfg, 2, 100)
    table = [m for m in inv.matmuls if m.name.endswith("[positions]")]
    assert sum(m.flops for m in table) == 12 * 2 * 2 * 512 * 768 * 768
    own = resolve_model(preset="deberta-v3-base").varied({"shared_position_projections": False})
    # pos_key_proj and pos_query_proj, [768, 768] with biases, in each of 12 layers.
    assert total_params(own) - total_params(cfg) == 12 * 2 * (768 * 768 + 768)
    assert forward_flops(own, w) == forward_flops(cfg, w)  # two projections of the table either way


def test_deberta_reads_its_fields(tmp_path: Path) -> None:
    name = "microsoft/deberta-v3-base"
    cfg = _hf(name, tmp_path)
    assert (cfg.relative_position_rows, cfg.relative_position_norm, cfg.position_scores) == (
        512, True, ["c2p", "p2c"],
    )  # fmt: skip
    # No buckets: 2 x max_relative_positions (below 1: max_position_embeddings).
    assert _hf(name, tmp_path, position_buckets=-1).relative_position_rows == 2 * 512
    assert (
        _hf(name, tmp_path, position_buckets=0, max_relative_positions=7).relative_position_rows
        == 14
    )
    assert _hf(name, tmp_path, pos_att_type="c2p|p2p").position_scores == ["c2p"]
    off = _hf(name, tmp_path, relative_attention=False)
    # The table [512, 768] goes; the LayerNorm over it stays (built, unused): transformers.
    assert total_params(cfg) - total_params(off) == 512 * 768
    assert off.relative_position_norm
    positions = _hf(name, tmp_path, position_biased_input=True)
    assert total_params(positions) - total_params(cfg) == 512 * 768
    assert positions.position_limit == 512


@pytest.mark.parametrize(
    ("change", "field"),
    [({"legacy": False}, "legacy"), ({"embedding_size": 128}, "embedding_size"),
     ({"conv_kernel_size": 3}, "conv_kernel_size"), ({"attention_head_size": 32}, "attention_head_size"),
     ({"position_buckets": 1}, "position_buckets"), ({"pos_att_type": 3}, "pos_att_type")],
)  # fmt: skip
def test_deberta_refuses_what_it_does_not_count(
    change: dict[str, Any], field: str, tmp_path: Path
) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**FRONTIER["microsoft/deberta-v3-base"]["hf_config"], **change}))
    r = run("params", "--hf-config", str(path))
    assert r.exit_code == 2 and r.stdout == "" and field in r.stderr


def test_modernbert_refuses_heads_that_do_not_divide(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    data = {**FRONTIER["answerdotai/ModernBERT-base"]["hf_config"], "num_attention_heads": 7}
    path.write_text(json.dumps(data))
    r = run("params", "--hf-config", str(path))
    assert r.exit_code == 2 and r.stdout == "" and "num_attention_heads" in r.stderr


@pytest.mark.parametrize(
    "changes",
    [{"first_layer_norms": 2}, {"family": "custom", "architecture": "decoder-only"},
     {"n_experts": 4, "experts_per_token": 2, "dense_ffn_layers": [0]}],
)  # fmt: skip
def test_first_layer_norms_rules(changes: dict[str, Any]) -> None:
    base = resolve_model(preset="modernbert-base").model_dump()
    if changes.get("architecture") == "decoder-only":  # allowed in one stack of any kind
        ModelConfig(**{**base, **changes})
        return
    with pytest.raises(ValueError, match="first_layer_norms"):
        ModelConfig(**{**base, **changes})


@pytest.mark.parametrize(
    "changes",
    [{"relative_position_rows": None}, {"architecture": "decoder-only"}],
)
def test_relative_position_rules(changes: dict[str, Any]) -> None:
    base = resolve_model(preset="deberta-v3-base").model_dump()
    with pytest.raises(ValueError, match="relative_position_rows"):
        ModelConfig(**{**base, **changes})


def _entries(cfg: ModelConfig, rename: dict[str, str]) -> list[Entry]:
    """A checkpoint header holding every untied tensor of `cfg`, some under other names."""
    out = []
    for t in instantiate(cfg).tensors:
        if t.tied_to is None and not t.ranges:
            name = rename.get(t.name, t.name)
            out.append(Entry(name, "F32", t.shape, 4 * t.numel, "model.safetensors"))
    return out


def test_verify_takes_a_tied_pair_under_either_name(tmp_path: Path) -> None:
    # XLMRobertaForMaskedLM: named_parameters() lists lm_head.decoder.weight,
    # save_pretrained writes roberta.embeddings.word_embeddings.weight: the same tensor.
    cfg = resolve_model(preset="xlm-roberta-base").varied({"n_layers": 1})
    tied = {t.name: t.tied_to for t in instantiate(cfg).tensors if t.tied_to}
    assert tied["roberta.embeddings.word_embeddings.weight"] == "lm_head.decoder.weight"
    inv = instantiate(cfg)
    layer = [
        Entry(t.name.format(i=0), "F32", t.shape, 4 * t.numel, "model.safetensors")
        for t in inv.tensors if t.ranges
    ]  # fmt: skip
    for rename in ({}, {"lm_head.decoder.weight": "roberta.embeddings.word_embeddings.weight"}):
        report = compare_checkpoint("ckpt", inv, _entries(cfg, rename) + layer)
        assert report.ok, report
        assert report.checkpoint_params == total_params(cfg)
    # Neither name: missing.
    entries = [e for e in _entries(cfg, {}) if e.name != "lm_head.decoder.weight"] + layer
    report = compare_checkpoint("ckpt", inv, entries)
    assert not report.ok and report.missing == ["lm_head.decoder.weight"]
