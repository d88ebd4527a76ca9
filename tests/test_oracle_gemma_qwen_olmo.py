"""Differential tests: Gemma, Gemma 2, Gemma 3 (text), Qwen3 and OLMo 2 against `transformers`.

Optional, as tests/test_torch_oracle.py: they need torch and transformers and skip cleanly
without them. Each case is a config.json as the Hub holds it (some fields absent, so the class
defaults apply: Gemma's head_dim 256 and 16 or 4 kv heads, Qwen3's head_dim 128 and 32 kv
heads); ffn-calc reads it with `--hf-config`, transformers builds the class named in
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

CLASSES = classes("test_oracle_gemma_qwen_olmo")
FAMILIES = sorted(CLASSES)
# The configuration classes' num_key_value_heads for an absent field (None: the head count).
KV_DEFAULT = {"gemma": 16, "gemma2": 4, "gemma3_text": 4, "qwen3": 32, "olmo2": None}
# The activation field each class reads (Gemma 2 and 3 read hidden_activation only).
ACT_KEY = {"gemma2": "hidden_activation", "gemma3_text": "hidden_activation"}


def build(data: dict[str, Any], device: str = "cpu") -> Any:
    """The class named in `architectures`, built by transformers from the config.json fields."""
    fields = {k: v for k, v in data.items() if k != "model_type"}
    return build_hf(*CLASSES[data["model_type"]], fields, device)


# --- random small config.json files per family ----------------------------------------------


@st.composite
def config_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny config.json: d_model <= 64, <= 3 layers, vocab <= 100, the family's flags drawn."""
    kv_default = KV_DEFAULT[family]
    # The class's kv default among the head counts, so an absent field can be drawn.
    heads = draw(st.sampled_from(sorted({1, 2, 3, 4, kv_default or 4})))
    kv = draw(st.sampled_from([k for k in range(1, heads + 1) if heads % k == 0]))
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "num_hidden_layers": draw(st.integers(1, 3)), "num_attention_heads": heads,
        "intermediate_size": draw(st.integers(1, 48)), "vocab_size": draw(st.integers(8, 100)),
        "max_position_embeddings": 64, "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None,
    }  # fmt: skip
    if kv_default is not None and heads % kv_default:  # absent would not divide the heads
        out["num_key_value_heads"] = kv
    else:
        maybe(draw, out, "num_key_value_heads", kv)
    head_dim = draw(st.sampled_from([2, 4, 8]))  # rotary needs an even head_dim
    # Gemma2Config and Gemma3TextConfig refuse a hidden_size that is no multiple of the heads.
    multiple = heads if family in ("gemma2", "gemma3_text") else 2
    hidden = multiple * draw(st.integers(1, 64 // multiple))
    if draw(st.booleans()):  # head_dim given: d_model free of heads x head_dim
        out |= {"hidden_size": hidden, "head_dim": head_dim}
    elif family == "olmo2":  # absent: hidden_size / heads
        out["hidden_size"] = heads * head_dim
    else:  # absent: the class default (256 for Gemma, 128 for Qwen3)
        out["hidden_size"] = hidden
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    maybe(draw, out, "attention_bias", draw(st.booleans()))
    if family != "olmo2":
        acts = ["gelu_pytorch_tanh", "gelu", "silu"] if family != "qwen3" else ["silu", "gelu"]
        maybe(draw, out, ACT_KEY.get(family, "hidden_act"), draw(st.sampled_from(acts)))
    if family in ("gemma2", "gemma3_text"):  # no parameters, no matmuls
        maybe(draw, out, "sliding_window", draw(st.integers(1, 8)))
        maybe(draw, out, "query_pre_attn_scalar", draw(st.sampled_from([1, 16, 256])))
        for key in ("attn_logit_softcapping", "final_logit_softcapping"):
            maybe(draw, out, key, draw(st.sampled_from([None, 30.0, 50.0])))
    if family == "gemma3_text":
        maybe(draw, out, "use_bidirectional_attention", draw(st.booleans()))
        maybe(draw, out, "sliding_window_pattern", draw(st.integers(1, 3)))
    if family == "qwen3":  # a sliding-window mask only
        maybe(draw, out, "use_sliding_window", draw(st.booleans()))
        maybe(draw, out, "sliding_window", draw(st.integers(1, 8)))
        maybe(draw, out, "max_window_layers", draw(st.integers(0, 3)))
    return out


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """The harness's random configs (tests/test_oracle_cases.py)."""
    return config_jsons(family)


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """One case through the harness: parameters, names and shapes, FLOPs, the cache, a
    decode step, generate() and a save_pretrained checkpoint (`check_hub_config`)."""
    check_hub_config(data, build, batch, s, tmp)


def test_variants_change_the_counts(tmp_path: Path) -> None:
    """The flags and class defaults read are honoured: each changes the count as it should."""
    gemma = case("gemma defaults: head_dim 256, 16 kv heads, tied")
    cfg = read(gemma, tmp_path)
    assert (cfg.head_size, cfg.kv_heads, cfg.tie_embeddings) == (256, 16, True)
    # Per layer Q, K, V, O = 4 x 32 x (16 x 256) = 524,288; gate/up/down 3 x 32 x 24 = 2,304;
    # 2 norms of 32; 2 layers: 1,053,312; + embedding 40 x 32 + final norm 32 = 1,054,624.
    assert total_params(cfg) == 1_054_624
    untied = read({**gemma, "tie_word_embeddings": False}, tmp_path)
    assert total_params(untied) - total_params(cfg) == 40 * 32  # lm_head [vocab, d_model]
    # The same sizes in Gemma 2 and 3 (whose absent kv heads would be 4, not 16).
    g2, g3 = (
        {**gemma, "model_type": m, "num_key_value_heads": 16} for m in ("gemma2", "gemma3_text")
    )
    # Gemma 2 over Gemma: pre- and post-FFN norms, 2 x 32 per layer, 2 layers.
    assert total_params(read(g2, tmp_path)) - total_params(cfg) == 2 * 2 * 32
    # Gemma 3 over Gemma 2: q_norm and k_norm of [head_dim = 256] per layer, 2 layers.
    assert total_params(read(g3, tmp_path)) - total_params(read(g2, tmp_path)) == 2 * 2 * 256
    qwen = case("qwen3 defaults: head_dim 128, 32 kv heads")
    cfg = read(qwen, tmp_path)
    assert (cfg.head_size, cfg.kv_heads, cfg.tie_embeddings) == (128, 32, False)
    null_kv = case("qwen3 null kv heads, biased, tied, sliding window")
    assert read(null_kv, tmp_path).kv_heads == 3  # null: the number of heads
    olmo = case("olmo2 GQA, head_dim, biased, tied")
    # Both have two [d_model] norms per layer; OLMo 2's q_norm is over 4 heads x 6 = 24 and its
    # k_norm over 2 x 6 = 12, Qwen3's are one [head_dim = 6] each: 2 layers x (36 - 12).
    as_qwen = read({**olmo, "model_type": "qwen3"}, tmp_path)
    assert total_params(read(olmo, tmp_path)) - total_params(as_qwen) == 2 * (24 + 12 - 6 - 6)


# --- the real-size configs and the presets on the meta device: names, FLOPs at S = 64 ---------

COVERAGE = {
    c["model_type"]: c
    for c in json.loads((DATA / "coverage.json").read_text())["cases"]
    if c["model_type"] in CLASSES
}
# The shipped presets: each is the real-size config of its family.
PRESET = {"gemma2": "gemma-2-9b", "gemma3_text": "gemma-3-1b", "qwen3": "qwen3-8b",
          "olmo2": "olmo-2-7b"}  # fmt: skip


@pytest.mark.parametrize("family", FAMILIES)
def test_real_size_names_and_flops(family: str, tmp_path: Path) -> None:
    data = COVERAGE[family]["hf_config"]
    model = build(data, "meta")
    flops = counted_flops(model, input_ids=token_ids(8, 1, 64, "meta"))
    names = param_shapes(model)
    # Golden: tests/data/coverage.json total_params (transformers 5.24.0, meta device).
    assert sum(p.numel() for p in model.parameters()) == COVERAGE[family]["total_params"]
    configs = [read(data, tmp_path)]
    if family in PRESET:
        configs.append(resolve_model(preset=PRESET[family]))
    for cfg in configs:
        assert total_params(cfg) == COVERAGE[family]["total_params"]
        assert names == inventory_names(cfg)
        assert flops == forward_flops(cfg, Workload(1, 64))
