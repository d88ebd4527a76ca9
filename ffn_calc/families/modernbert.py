"""ModernBERT (`ModernBertForMaskedLM`): a pre-norm encoder with rotary positions, a fused
gated FFN and alternating global and local attention.

Fixed by the architecture: the token embedding `model.embeddings.tok_embeddings`, then a
LayerNorm `model.embeddings.norm`; no position or token-type tables (rotary positions). Each
layer: `attn_norm`, the fused `attn.Wqkv` [3 hidden, hidden] and `attn.Wo` [hidden, hidden]
(both with biases only under attention_bias; hidden_size must be a multiple of the heads),
`mlp_norm`, the gated FFN `mlp.Wi` [2 intermediate, hidden] (its two halves the input and the
gate, act(input) x gate) and `mlp.Wo` [hidden, intermediate] (biases only under mlp_bias).
Layer 0's attn_norm is an Identity (no parameters): ModelConfig.first_layer_norms = 1. Every
LayerNorm has a weight, and a bias only under norm_bias (default false). `model.final_norm`
after the last layer. The head: `head.dense` [hidden, hidden] (bias under classifier_bias,
default false), the classifier activation, `head.norm`; then `decoder` [vocab_size, hidden],
tied to the token embedding under tie_word_embeddings (default true), with a [vocab_size]
bias `decoder.bias` under decoder_bias (default true).

Attention: layer_types, or when absent every global_attn_every_n_layers-th layer (default 3,
from layer 0) global and the others local. A local layer attends within local_attention // 2
tokens on either side (transformers' bidirectional sliding-window mask, |i - j| <= window):
2 x (local_attention // 2) + 1 tokens, ffn-calc's attention_window with window_kind
"bidirectional" (local_attention 128: 129 tokens). Eager attention computes the whole S x S
score matrix and masks it, so local layers count the same FLOPs as global ones.

No parameters and no matmuls: the rotary tables, the dropouts, sparse_prediction (which drops
unmasked positions only when labels are given).
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import GATED_ACT, Reader, check_listed, layer_types
from ffn_calc.families.tensor_names import Naming
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "ModernBertForMaskedLM"

# transformers 5.24.0 ModernBertConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 22,
    "hidden_size": 768,
    "num_attention_heads": 12,
    "intermediate_size": 1152,
    "vocab_size": 50368,
}
# Its token embedding takes pad_token_id (class default 50,283) as padding_idx.
PAD_DEFAULT: int | None = 50283


def fields(r: Reader) -> dict[str, Any]:
    layers = check_listed(r, "num_hidden_layers", r.req("num_hidden_layers"))
    d, heads = r.req("hidden_size"), r.req("num_attention_heads")
    if d % heads:
        raise ConfigError(
            _(
                "{where}: hidden_size = {d} is not a multiple of num_attention_heads = {heads}; "
                "{architecture} refuses it."
            ).format(where=r.where("hidden_size"), d=d, heads=heads, architecture=ARCHITECTURE)
        )
    every = r.integer("global_attn_every_n_layers", 3)
    assert every is not None
    pattern = ["sliding_attention" if i % every else "full_attention" for i in range(layers)]
    types = layer_types(r, layers, pattern)
    local = [i for i, t in enumerate(types) if t == "sliding_attention"]
    out: dict[str, Any] = {}
    if local:
        half = r.index("local_attention", 128) // 2  # tokens on either side
        out["attention_window"] = 2 * half + 1
        out["window_kind"] = "bidirectional"
        if len(local) < layers:
            out["window_layers"] = local
    return {
        "family": "modernbert",
        "architecture": "encoder-only",
        "n_layers": layers,
        "d_model": d,
        "n_heads": heads,
        "d_ff": r.req("intermediate_size"),
        "activation": r.choice("hidden_activation", GATED_ACT, "gelu"),
        "attention_bias": r.boolean("attention_bias", False),
        "ffn_bias": r.boolean("mlp_bias", False),
        "norm": "layernorm",
        "norm_bias": r.boolean("norm_bias", False),
        "first_layer_norms": 1,
        "final_norm": True,
        "embedding_norm": True,
        "positions": "rotary",
        "vocab_size": r.req("vocab_size"),
        "lm_head": True,
        "lm_head_transform": True,
        "lm_head_transform_bias": r.boolean("classifier_bias", False),
        "lm_head_bias": r.boolean("decoder_bias", True),
        "tie_embeddings": r.boolean("tie_word_embeddings", True),
        **out,
    }


NAMING = Naming(
    layer="model.layers.{i}.",
    q="attn.Wq",
    k="attn.Wk",
    v="attn.Wv",
    o="attn.Wo",
    fused_qkv="attn.Wqkv",
    up="mlp.Wi",
    gate="mlp.Wi",
    fused_gate_up="mlp.Wi",
    down="mlp.Wo",
    norm_attn="attn_norm",
    norm_ffn="mlp_norm",
    final_norm="model.final_norm",
    tok="model.embeddings.tok_embeddings",
    emb_norm="model.embeddings.norm",
    head_dense="head.dense",
    head_norm="head.norm",
    lm_head="decoder",
    lm_head_bias="decoder.bias",
    prefixes=("model.",),
    architecture="encoder-only",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
