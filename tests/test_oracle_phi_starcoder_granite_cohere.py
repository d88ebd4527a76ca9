"""Differential tests: Phi-3, StarCoder2, Granite and Cohere against `transformers`.

Optional, as tests/test_torch_oracle.py: they need torch and transformers and skip cleanly
without them. Each case is a config.json as the Hub holds it (some fields absent, so the class
defaults apply); ffn-calc reads it with `--hf-config`, transformers builds the class named in
`architectures` from the same fields. Parameters come from `parameters()`, tensor names from
`named_parameters()`, FLOPs from `torch.utils.flop_counter.FlopCounterMode` over a forward pass
with eager attention, checkpoints from `save_pretrained`.

The family's random tiny configs (`configs`) and the check of one case (`check_case`) run in
the one harness, tests/test_oracle_cases.py, over the cases in tests/oracle_cases.py (random
draws and explicit variants); this module holds them and the family's own tests.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from conftest import DATA  # noqa: E402
from oracle_cases import case, classes  # noqa: E402
from oracle_support import (  # noqa: E402
    build_hf,
    check_counts,
    check_hub_config,
    counted_flops,
    inventory_names,
    maybe,
    param_shapes,
    read,
    token_ids,
)

from ffn_calc.counts.flops import Workload, forward_flops  # noqa: E402
from ffn_calc.counts.params import total_params  # noqa: E402
from ffn_calc.families.resolve import resolve_model  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CLASSES = classes("test_oracle_phi_starcoder_granite_cohere")
FAMILIES = sorted(CLASSES)


def build(data: dict[str, Any], device: str = "cpu") -> Any:
    """The class named in `architectures`, built by transformers from the config.json fields."""
    fields = {k: v for k, v in data.items() if k != "model_type"}
    return build_hf(*CLASSES[data["model_type"]], fields, device)


# --- random small config.json files per family ----------------------------------------------


@st.composite
def config_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny config.json: d_model <= 64, <= 3 layers, vocab <= 100, the family's flags drawn."""
    heads = draw(st.integers(1, 4))
    kv = draw(st.sampled_from([k for k in range(1, heads + 1) if heads % k == 0]))
    head_dim = draw(st.sampled_from([2, 4, 8, 16]))  # rotary needs an even head_dim
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "num_hidden_layers": draw(st.integers(1, 3)), "num_attention_heads": heads,
        "intermediate_size": draw(st.integers(1, 48)), "vocab_size": draw(st.integers(8, 100)),
        "max_position_embeddings": 64, "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None,
    }  # fmt: skip
    if draw(st.booleans()):  # head_dim given: d_model free of heads x head_dim
        out |= {"hidden_size": 2 * draw(st.integers(1, 32)), "head_dim": head_dim}
    else:
        out["hidden_size"] = heads * head_dim
    if family == "starcoder2":  # absent num_key_value_heads means 2 here, not the head count
        if heads % 2 or draw(st.booleans()):
            out["num_key_value_heads"] = kv
    else:
        maybe(draw, out, "num_key_value_heads", kv)
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    if family in ("phi3", "starcoder2"):  # masks only: eager attention runs the full square
        maybe(draw, out, "sliding_window", draw(st.integers(1, 8)))
    if family == "phi3":
        factor = draw(st.sampled_from([0.5, 1.0]))  # partial rotary: no parameters
        out["rope_parameters"] = {"rope_type": "default", "rope_theta": 10000.0,
                                  "partial_rotary_factor": factor}  # fmt: skip
    elif family == "starcoder2":
        maybe(draw, out, "use_bias", draw(st.booleans()))
        acts = ["gelu_pytorch_tanh", "gelu", "gelu_new", "relu", "silu"]
        maybe(draw, out, "hidden_act", draw(st.sampled_from(acts)))
    elif family == "granite":
        maybe(draw, out, "attention_bias", draw(st.booleans()))
        maybe(draw, out, "mlp_bias", draw(st.booleans()))
        for key in ("embedding_multiplier", "residual_multiplier", "attention_multiplier",
                    "logits_scaling"):  # fmt: skip
            maybe(draw, out, key, draw(st.floats(0.1, 4.0)))
    else:
        maybe(draw, out, "use_qk_norm", draw(st.booleans()))
        maybe(draw, out, "attention_bias", draw(st.booleans()))
        maybe(draw, out, "logit_scale", draw(st.floats(0.01, 1.0)))
    return out


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """The harness's random configs (tests/test_oracle_cases.py)."""
    return config_jsons(family)


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """One case through the harness (tests/test_oracle_cases.py)."""
    check_hub_config(data, build, batch, s, tmp)


def test_variants_change_the_counts(tmp_path: Path) -> None:
    """The flags read are honoured: each changes the count by the tensors it adds."""
    cohere = case("cohere qk-norm, GQA, biased, untied")
    plain = read({**cohere, "use_qk_norm": False}, tmp_path)
    # CohereAttention: q_norm [4, 8] + k_norm [2, 8], weight only, 2 layers: 2 x (32 + 16) = 96.
    assert total_params(read(cohere, tmp_path)) - total_params(plain) == 96
    starcoder = case("starcoder2 default kv heads (2), no bias, untied")
    # Starcoder2Config.use_bias absent (true), num_key_value_heads absent (2; head_dim 8): per
    # layer q 32 + k 16 + v 16 + o 32 + c_fc 24 + c_proj 32 = 152 bias entries; 2 layers: 304.
    del starcoder["use_bias"]
    biased, plain = read(starcoder, tmp_path), read({**starcoder, "use_bias": False}, tmp_path)
    assert biased.kv_heads == 2
    assert total_params(biased) - total_params(plain) == 304


# --- the real-size configs on the meta device: every tensor name, FLOPs at S = 64 -------------

COVERAGE = {
    c["model_type"]: c
    for c in json.loads((DATA / "coverage.json").read_text())["cases"]
    if c["model_type"] in CLASSES
}
PRESETS = {"phi-3-mini": "phi3", "starcoder2-3b": "starcoder2"}


@pytest.mark.parametrize("family", FAMILIES)
def test_real_size_names_and_flops(family: str, tmp_path: Path) -> None:
    data = COVERAGE[family]["hf_config"]
    cfg = read(data, tmp_path)
    model = build(data, "meta")
    # Golden: tests/data/coverage.json total_params (transformers 5.24.0, meta device).
    assert sum(p.numel() for p in model.parameters()) == COVERAGE[family]["total_params"]
    assert total_params(cfg) == COVERAGE[family]["total_params"]
    assert param_shapes(model) == inventory_names(cfg)
    got = counted_flops(model, input_ids=token_ids(8, 1, 64, "meta"))
    assert got == forward_flops(cfg, Workload(1, 64))


@pytest.mark.parametrize("preset", PRESETS)
def test_presets_are_the_instantiated_models(preset: str) -> None:
    data = COVERAGE[PRESETS[preset]]["hf_config"]
    cfg = resolve_model(preset=preset)
    model = build(data, "meta")
    check_counts(model, cfg, token_ids(8, 1, 64, "meta"))
