"""Falcon (`FalconForCausalLM`): one fused QKV whose K/V width depends on the variant.

Fixed by the architecture: LayerNorm (weight and bias); Q, K and V in one fused
`query_key_value` of [(n_heads + 2 x kv) x head_dim, d_model], run as one matmul, where kv is
`num_kv_heads` (default: the head count) with `new_decoder_architecture`, else 1 with
`multi_query` (default true), else the head count; head_dim = hidden_size / heads. `bias`
(default false) puts a bias on the fused QKV, the output `dense` and both MLP matrices
(`dense_h_to_4h` [ffn_hidden_size, d_model], `dense_4h_to_h`; ffn_hidden_size default
4 x hidden_size). Norms per layer: with `parallel_attn` (default true) one `input_layernorm`,
or `ln_attn` and `ln_mlp` when `num_ln_in_parallel_attn` is 2 (its default with
`new_decoder_architecture`); without it `input_layernorm` and `post_attention_layernorm`.
A final `ln_f`; the head is tied to the token embedding unless tie_word_embeddings is false.
Rotary positions and ALiBi (`alibi`) hold 0 parameters. `n_embed`, when present, is the
hidden size (as the class reads it).

The cache: with `new_decoder_architecture` FalconAttention broadcasts K and V to every query
head before it updates the cache (`_split_heads`, then `num_kv_heads = self.num_heads`), so the
cache holds n_heads heads per layer, not num_kv_heads (Falcon-40B: 128 instead of 8).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.families.base import PLAIN_ACT, Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "FalconForCausalLM"

# transformers 5.24.0 FalconConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 32,
    "hidden_size": 4544,
    "num_attention_heads": 71,
    "vocab_size": 65024,
}


def fields(r: Reader) -> dict[str, Any]:
    d = r.req("n_embed") if r.data.get("n_embed") is not None else r.req("hidden_size")
    heads = r.req("num_attention_heads")
    new_arch = r.boolean("new_decoder_architecture", False)
    if new_arch:  # K and V of num_kv_heads heads (GQA)
        kv = r.integer("num_kv_heads", heads)
    else:  # multi-query: one K and one V head; else multi-head
        kv = 1 if r.boolean("multi_query", True) else heads
    parallel = r.boolean("parallel_attn", True)
    lns = r.integer("num_ln_in_parallel_attn", 2 if new_arch else None, required=False)
    bias = r.boolean("bias", False)
    return {
        "family": "falcon",
        "architecture": "decoder-only",
        "n_layers": r.req("num_hidden_layers"),
        "d_model": d,
        "n_heads": heads,
        "n_kv_heads": kv,
        "d_ff": r.integer("ffn_hidden_size", 4 * d),
        "activation": r.choice("activation", PLAIN_ACT, "gelu"),
        "cache_broadcast_kv": new_arch,
        "attention_bias": bias,
        "ffn_bias": bias,
        "norm": "layernorm",
        "layer_norms": 1 if parallel and lns != 2 else 2,
        "parallel_block": parallel,
        "positions": "none" if r.boolean("alibi", False) else "rotary",
        "vocab_size": r.req("vocab_size"),
        "tie_embeddings": r.boolean("tie_word_embeddings", True),
    }


NAMING = Naming(
    layer="transformer.h.{i}.",
    q="",
    k="",
    v="",
    fused_qkv="self_attention.query_key_value",
    o="self_attention.dense",
    up="mlp.dense_h_to_4h",
    down="mlp.dense_4h_to_h",
    gate="",
    norm_attn="input_layernorm",
    norm_ffn="post_attention_layernorm",
    final_norm="transformer.ln_f",
    tok="transformer.word_embeddings",
    prefixes=("transformer.",),
    architecture="decoder-only",
)
# Parallel attention with two norms: one before attention, one before the MLP.
PARALLEL = replace(NAMING, norms={2: ("ln_attn", "ln_mlp")})


def naming(cfg: ModelConfig) -> Naming:
    return PARALLEL if cfg.parallel_block else NAMING
