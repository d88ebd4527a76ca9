"""ffn_calc.counts.totals equals the term path (counts.params.components, counts.flops.flop_components).

The term path is checked against PyTorch and transformers elsewhere; here the fast sums must
give the same dicts (same keys, same order, same values) on every preset, every family's real
config.json (tests/data/coverage.json), hand-picked corners and random valid configurations.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA
from hypothesis import given, settings
from pydantic import ValidationError
from strategies import model_configs, workloads

from ffn_calc.counts import flops as flop_counts
from ffn_calc.counts import params as param_counts
from ffn_calc.counts import totals
from ffn_calc.counts.flops import Workload
from ffn_calc.families.resolve import resolve_model
from ffn_calc.model import sources as presets
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.families import REGISTRY

WORKLOADS = [
    Workload(batch=1, seq_len=1),
    Workload(batch=1, seq_len=2048),
    Workload(batch=2, seq_len=2048, causal=True),
    Workload(batch=3, seq_len=100, lm_head=False),
    Workload(batch=2, seq_len=512, target_len=77),
    Workload(batch=1, seq_len=64, target_len=300, causal=True, lm_head=False),
]
COVERAGE: list[dict[str, Any]] = [
    c
    for c in json.loads((DATA / "coverage.json").read_text())["cases"]
    if c["model_type"] in REGISTRY
]


def assert_same(cfg: ModelConfig, workloads: list[Workload]) -> None:
    """Same keys in the same order and the same values as the term path."""
    fast, slow = totals.param_components(cfg), param_counts.components(cfg)
    assert list(fast.items()) == list(slow.items()), cfg
    for w in workloads:
        fast, slow = totals.flop_components(cfg, w), flop_counts.flop_components(cfg, w)
        assert list(fast.items()) == list(slow.items()), (cfg, w)


@pytest.mark.parametrize("name", presets.preset_names())
def test_presets(name: str) -> None:
    assert_same(resolve_model(preset=name), WORKLOADS)


@pytest.mark.parametrize("case", COVERAGE, ids=[c["name"] for c in COVERAGE])
def test_family_configs(case: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(case["hf_config"]))
    assert_same(resolve_model(hf_config=path), WORKLOADS)


def test_families_all_covered() -> None:
    assert len(COVERAGE) >= 25
    assert len(presets.preset_names()) >= 30


def test_gpt2_small_golden() -> None:
    # transformers GPT2LMHeadModel (gpt2, tied head): sum(p.numel() for p in parameters())
    # = 124,439,808.
    cfg = resolve_model(preset="gpt2-small")
    assert sum(totals.param_components(cfg).values()) == 124_439_808


# fmt: off
LLAMA: dict[str, Any] = {
    "name": "x", "n_layers": 32, "d_model": 4096, "n_heads": 32, "n_kv_heads": 8,
    "d_ff": 11008, "activation": "swiglu", "norm": "rmsnorm", "positions": "rotary",
    "vocab_size": 32000,
}
MOE: dict[str, Any] = {
    "n_experts": 4, "experts_per_token": 2, "dense_ffn_layers": [0, 3], "dense_d_ff": 96,
}
CORNERS: dict[str, dict[str, Any]] = {
    "llama": LLAMA,
    # Shared layers with every layer local: one layer kind, unique_layers layers of parameters.
    "albert-every-layer-local": {**LLAMA, "n_layers": 5, "unique_layers": 2,
                                 "attention_window": 8},
    "albert-moe": {**LLAMA, "n_layers": 6, "unique_layers": 2, "n_experts": 4,
                   "experts_per_token": 2},
    # Encoder-decoder MoE whose dense layers fit the shorter decoder.
    "t5-moe-short-decoder": {
        **LLAMA, "architecture": "encoder-decoder", "n_layers": 4, "n_decoder_layers": 1,
        **MOE, "dense_ffn_layers": [0],
    },
    # A narrow embedding projected in and out, both projections with biases (no preset has them).
    "opt-projection-biases": {
        **LLAMA, "embedding_dim": 1024, "embedding_projection_bias": True,
        "positions": "learned", "max_positions": 2048, "lm_head_bias": True,
    },
    "mla-biases": {
        **LLAMA, "n_layers": 2, "attention": "mla", "q_lora_rank": 64, "kv_lora_rank": 32,
        "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 24, "attention_bias": True,
    },
    # Sparse attention's lightning indexer (DeepSeek-V3.2, GLM-5) with MoE and dense layers.
    "mla-indexer-moe": {
        **LLAMA, "n_layers": 3, "attention": "mla", "q_lora_rank": 64, "kv_lora_rank": 32,
        "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 24, "indexer_heads": 4,
        "indexer_head_dim": 8, "indexer_topk": 16, **MOE, "dense_ffn_layers": [0],
    },
}
# Combinations no count is defined for: refused by the config's invariants.
REFUSED: dict[str, tuple[dict[str, Any], str]] = {
    "albert-moe-dense-layers": ({**LLAMA, "n_layers": 6, "unique_layers": 2, **MOE},
                                "unique_layers (layers sharing parameters) cannot be combined"),
    "albert-windows": ({**LLAMA, "n_layers": 5, "unique_layers": 2, "attention_window": 8,
                        "window_layers": [1, 2]}, "cannot be combined with dense_ffn_layers or"),
    "t5-moe-dense-past-the-decoder": (
        {**LLAMA, "architecture": "encoder-decoder", "n_layers": 4, "n_decoder_layers": 1,
         **MOE, "dense_ffn_layers": [0, 1, 2]},
        "dense_ffn_layers index 2 is past the decoder's 1 layer:"),
    "mla-encdec": ({**LLAMA, "architecture": "encoder-decoder", "n_layers": 2,
                    "attention": "mla", "kv_lora_rank": 32, "qk_nope_head_dim": 16,
                    "qk_rope_head_dim": 8, "v_head_dim": 24}, "'mla' goes with one stack"),
    "mla-qk-norm": ({**LLAMA, "attention": "mla", "kv_lora_rank": 32, "qk_nope_head_dim": 16,
                     "qk_rope_head_dim": 8, "v_head_dim": 24, "qk_norm": "head"},
                    "no qk_norm"),
    "indexer-without-q-lora": ({**LLAMA, "attention": "mla", "kv_lora_rank": 32,
                                "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 24,
                                "indexer_heads": 4, "indexer_head_dim": 8, "indexer_topk": 16},
                               "a q_lora_rank (the indexer's queries read the query latent)"),
    "indexer-without-mla": ({**LLAMA, "indexer_heads": 4, "indexer_head_dim": 8,
                             "indexer_topk": 16}, "indexer_topk go together, with attention"),
    "indexer-narrower-than-rope": ({**LLAMA, "attention": "mla", "q_lora_rank": 64,
                                    "kv_lora_rank": 32, "qk_nope_head_dim": 16,
                                    "qk_rope_head_dim": 8, "v_head_dim": 24, "indexer_heads": 4,
                                    "indexer_head_dim": 4, "indexer_topk": 16},
                                   "indexer_head_dim at least qk_rope_head_dim"),
    "indexer-without-topk": ({**LLAMA, "attention": "mla", "q_lora_rank": 64, "kv_lora_rank": 32,
                              "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 24,
                              "indexer_heads": 4, "indexer_head_dim": 8},
                             "indexer_heads, indexer_head_dim and indexer_topk go together"),
    "mla-out-bias": ({**LLAMA, "attention": "mla", "kv_lora_rank": 32, "qk_nope_head_dim": 16,
                      "qk_rope_head_dim": 8, "v_head_dim": 24, "attention_out_bias": True},
                     "no attention_out_bias"),
}
# fmt: on


@pytest.mark.parametrize("fields", CORNERS.values(), ids=list(CORNERS))
def test_corners(fields: dict[str, Any]) -> None:
    assert_same(ModelConfig.model_validate(fields), WORKLOADS)


@pytest.mark.parametrize(("fields", "message"), REFUSED.values(), ids=list(REFUSED))
def test_refused_combinations(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(message)):
        ModelConfig.model_validate(fields)


@settings(max_examples=300, deadline=None)
@given(cfg=model_configs(), w=workloads())
def test_random_configs(cfg: ModelConfig, w: Workload) -> None:
    assert_same(cfg, [w])
