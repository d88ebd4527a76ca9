"""Mixture of experts and latent attention in the closed form and the instantiation.

Golden figures: tests/data/coverage.json, DeepSeek-V3 (transformers 5.24.0
DeepseekV3ForCausalLM on the meta device): 671,026,404,352 parameters, 37,552,282,624 active.
The config below is that case's config.json written in ffn-calc's schema by hand, so the core
is checked apart from any family module.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, run
from pydantic import ValidationError

from ffn_calc.counts import flops as fl
from ffn_calc.counts import params as pm
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.layer_kinds import layer_kinds
from ffn_calc.reference.instantiate import instantiate
from ffn_calc.reports.verify import model_checks

COVERAGE = json.loads((DATA / "coverage.json").read_text())["cases"]

DEEPSEEK_V3: dict[str, Any] = {
    "n_layers": 61, "d_model": 7168, "n_heads": 128, "d_ff": 2048, "dense_d_ff": 18432,
    "activation": "swiglu", "norm": "rmsnorm", "positions": "rotary", "vocab_size": 129280,
    "n_experts": 256, "experts_per_token": 8, "dense_ffn_layers": [0, 1, 2],
    "shared_expert_d_ff": 2048, "router_score_bias": "buffer", "attention": "mla",
    "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
    "v_head_dim": 128,
}  # fmt: skip


def test_deepseek_v3_total_active_and_checkpoint_elements() -> None:
    cfg = ModelConfig(**DEEPSEEK_V3)
    assert pm.total_params(cfg) == 671_026_404_352
    assert pm.active_params(cfg) == 37_552_282_624
    # The released checkpoint also stores e_score_correction_bias [256] in 58 MoE layers.
    assert pm.total_params(cfg) + pm.stored_buffers(cfg) == 671_026_419_200
    kinds = [(str(x.kind), x.count) for x in pm.layer_counts(cfg)]
    assert kinds == [("dense FFN", 3), ("MoE", 58)]
    assert [(x.kind.is_dense_ffn, x.kind.is_moe) for x in pm.layer_counts(cfg)] == [
        (True, False), (False, True)
    ]  # fmt: skip


def test_closed_form_equals_instantiation_for_moe_and_mla() -> None:
    for extra in ({}, {"q_lora_rank": None}, {"dense_ffn_layers": [1, 4, 60]},
                  {"shared_expert_gate": True, "router_bias": True, "ffn_bias": True},
                  {"attention": "standard", "q_lora_rank": None, "kv_lora_rank": None,
                   "qk_nope_head_dim": None, "qk_rope_head_dim": None, "v_head_dim": None,
                   "attention_sinks": True, "attention_bias": True,
                   "router_score_bias": "parameter"}):  # fmt: skip
        cfg = ModelConfig(**{**DEEPSEEK_V3, **extra})
        checks = model_checks(cfg, 2, 7)
        assert all(c.ok for c in checks), [c for c in checks if not c.ok]


def test_mla_scores_use_both_head_widths() -> None:
    cfg = ModelConfig(**DEEPSEEK_V3)
    w = fl.Workload(batch=1, seq_len=10)
    layer = fl.layer_flops(cfg, w)[1]
    qk = next(t for t in layer.terms if t.name == "QK^T").value
    av = next(t for t in layer.terms if t.name == "AV").value
    assert qk == 2 * 128 * 10 * 10 * (128 + 64)  # 2 x H x S^2 x (nope + rope)
    assert av == 2 * 128 * 10 * 10 * 128  # 2 x H x S^2 x v_head_dim
    assert fl.per_token(cfg).scores_slope == 2 * 128 * (192 + 128)
    assert fl.crossover_layer(cfg).kind.is_moe and str(fl.crossover_layer(cfg).kind) == "MoE"


def test_dense_and_moe_layers_are_named_by_their_indices() -> None:
    cfg = ModelConfig(**{**DEEPSEEK_V3, "dense_ffn_layers": [0, 2, 4]})
    labels = {t.label for t in instantiate(cfg).tensors}
    assert "decoder.layers.{0..4..2}.mlp.up_proj.weight" in labels
    assert "decoder.layers.{1,3,{5..60}}.mlp.router.weight" in labels  # bash brace syntax


def test_active_parameters_add_up_term_by_term() -> None:
    """`params --explain`: one routed expert, each layer kind less its idle experts, the rest."""
    lines = [str(line) for line in pm.active_lines(ModelConfig(**DEEPSEEK_V3))]
    # One expert: 3 x 7,168 x 2,048; a dense layer 583,483,392 and a MoE layer 11,507,286,016
    # (params --explain's layer tables); embeddings 2 x 129,280 x 7,168 + the final norm 7,168.
    assert lines == [
        "one routed expert: 3 x d_model x d_ff = 3 x 7,168 x 2,048 = 44,040,192",
        "active, decoder layers, dense FFN: 3 x 583,483,392 = 1,750,450,176",
        "active, decoder layers, MoE: 58 x (11,507,286,016 - (256 - 8) idle experts x "
        "44,040,192) = 33,948,467,200",
        "active, outside the layers (embeddings, final norm, head): 1,853,365,248",
        "active = 1,750,450,176 + 33,948,467,200 + 1,853,365,248 = 37,552,282,624",
    ]


def test_expert_bias_apart_from_the_dense_and_shared_biases() -> None:
    biased = ModelConfig(**{**DEEPSEEK_V3, "ffn_bias": True})
    unbiased_experts = ModelConfig(**{**DEEPSEEK_V3, "ffn_bias": True, "expert_bias": False})
    # Per MoE layer (58), 256 experts x (2 x 2048 + 7168) gate/up/down biases go; the dense
    # layers' and the shared expert's biases stay.
    assert pm.total_params(biased) - pm.total_params(unbiased_experts) == 58 * 256 * (
        2 * 2048 + 7168
    )
    # The idle experts lose their biases too: active differs by the 8 routed experts' only.
    assert pm.active_params(biased) - pm.active_params(unbiased_experts) == 58 * 8 * (
        2 * 2048 + 7168
    )


def test_huge_layer_counts_never_walk_every_layer(tmp_path: Path) -> None:
    # A run of first dense layers over 2^40 layers is a range: exact and immediate.
    r = run("params", "-p", "deepseek-v3", "--n-layers", str(2**40), "-f", "json")
    assert r.exit_code == 0
    assert [x["kind"] for x in r.json()["layers"]] == ["dense FFN", "MoE"]
    r = run("tensors", "-p", "deepseek-v3", "--n-layers", str(2**40), "-f", "json")
    assert r.exit_code == 0
    # A layer pattern worked out layer by layer is refused past a million layers.
    case = next(c for c in COVERAGE if c["model_type"] == "ernie4_5_moe")
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**case["hf_config"], "num_hidden_layers": 2**40}))
    r = run("params", "--hf-config", str(path))
    assert r.exit_code == 2 and "up to 1,000,000 layers" in r.stderr
    # Scattered dense layers over more than a million layers are refused by the config.
    cfg = {**DEEPSEEK_V3, "n_layers": 2_000_000, "dense_ffn_layers": [0, 5]}
    with pytest.raises(ValidationError, match="scattered"):
        ModelConfig(**cfg)


def test_local_and_global_attention_layers_are_kinds_of_their_own() -> None:
    # gpt-oss-20b: layer_types alternate sliding (128 tokens) and full attention, 12 each
    # (GptOssConfig's pattern); the parameters do not change (coverage.json: 20,914,757,184).
    data = run("params", "-p", "gpt-oss-20b", "-f", "json").json()
    kinds = [(x["kind"], x["count"]) for x in data["layers"]]
    assert kinds == [("sliding-window attention over 128 tokens", 12), ("full attention", 12)]
    assert data["total_params"] == 20_914_757_184
    assert data["layers"][0]["total"] == data["layers"][1]["total"]
    # Llama 4 Scout: 36 chunked layers (8,192 tokens) and 12 NoPE layers with full attention.
    data = run("params", "-p", "llama-4-scout-text", "-f", "json").json()
    assert [(x["kind"], x["count"]) for x in data["layers"]] == [
        ("chunked attention over 8,192 tokens", 36), ("full attention", 12)
    ]  # fmt: skip
    crossover = run("crossover", "-p", "llama-4-scout-text", "-f", "json").json()
    assert crossover["layer"] == "decoder (chunked attention over 8,192 tokens)"
    flops = run("flops", "-p", "gpt-oss-20b", "-s", "64", "-f", "json").json()
    assert [x["count"] for x in flops["layers"]] == [12, 12]


def test_window_layers_need_a_window_and_a_listable_stack() -> None:
    base = {"n_layers": 4, "d_model": 8, "n_heads": 2, "d_ff": 8}
    with pytest.raises(ValidationError, match="attention_window"):
        ModelConfig(**base, window_layers=[0])
    with pytest.raises(ValidationError, match="attention_window"):
        ModelConfig(**{**base, "n_layers": 2_000_000}, window_layers=[0], attention_window=4)
    cfg = ModelConfig(**base, window_layers=[0, 2], attention_window=4)
    kinds = layer_kinds(cfg, 4)
    assert [(str(k), n) for k, n in kinds] == [
        ("sliding-window attention over 4 tokens", 2), ("full attention", 2)
    ]  # fmt: skip
    assert [(k.is_local, k.window, k.names_ffn) for k, _n in kinds] == [
        (True, 4, False), (False, None, False)
    ]  # fmt: skip


def test_gemma_sliding_and_global_layers() -> None:
    # Gemma 2 alternates sliding (4,096 tokens) and global layers; Gemma 3 1B has one global
    # layer in six (coverage.json layer_types). Totals unchanged: 9,241,705,984 / 999,885,952.
    for preset, kinds, total in (
        ("gemma-2-9b", [("sliding-window attention over 4,096 tokens", 21), ("full attention", 21)], 9_241_705_984),
        ("gemma-3-1b", [("sliding-window attention over 512 tokens", 22), ("full attention", 4)], 999_885_952),
    ):  # fmt: skip
        data = run("params", "-p", preset, "-f", "json").json()
        assert [(x["kind"], x["count"]) for x in data["layers"]] == kinds
        assert data["total_params"] == total
