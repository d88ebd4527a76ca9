"""GPT-2 (`GPT2LMHeadModel`): Conv1D weights stored [in, out], fused c_attn, learned positions."""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import PLAIN_ACT, Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "GPT2LMHeadModel"

# transformers 5.24.0 GPT2Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "n_embd": 768,
    "n_layer": 12,
    "n_head": 12,
    "n_positions": 1024,
    "vocab_size": 50257,
}


def fields(r: Reader) -> dict[str, Any]:
    d = r.req("n_embd")
    return {
        "family": "gpt2",
        "architecture": "decoder-only",
        "n_layers": r.req("n_layer"),
        "d_model": d,
        "n_heads": r.req("n_head"),
        "d_ff": r.integer("n_inner", 4 * d),
        "activation": r.choice("activation_function", PLAIN_ACT, "gelu_new"),
        "attention_bias": True,
        "ffn_bias": True,
        "norm": "layernorm",
        "positions": "learned",
        "max_positions": r.req("n_positions"),
        "vocab_size": r.req("vocab_size"),
        "tie_embeddings": r.boolean("tie_word_embeddings", True),
    }


NAMING = Naming(
    layer="transformer.h.{i}.",
    q="",
    k="",
    v="",
    fused_qkv="attn.c_attn",
    o="attn.c_proj",
    up="mlp.c_fc",
    down="mlp.c_proj",
    gate="mlp.c_gate",
    norm_attn="ln_1",
    norm_ffn="ln_2",
    final_norm="transformer.ln_f",
    tok="transformer.wte",
    pos="transformer.wpe",
    conv1d=True,
    prefixes=("transformer.",),
    architecture="decoder-only",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
