"""GPT-NeoX (`GPTNeoXForCausalLM`): fused QKV, two LayerNorms per layer, an untied head.

Fixed by the architecture: LayerNorm (weight and bias) before attention (`input_layernorm`)
and before the MLP (`post_attention_layernorm`) in every layer, whether or not
`use_parallel_residual` (default true) makes them read the same input, and after the last
layer; Q, K and V in one fused `query_key_value` of [3 x d_model, d_model], run as one matmul;
`attention_bias` (default true) puts a bias on it and on the output `dense`; the MLP
(`dense_h_to_4h`, `dense_4h_to_h`) always has biases; head_dim = hidden_size / heads, no GQA.
Rotary positions, partial or not (`rotary_pct`, `partial_rotary_factor`), hold 0 parameters.
The head (`lm_head`, stored as `embed_out` in checkpoints) is untied unless
tie_word_embeddings is true.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import PLAIN_ACT, Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "GPTNeoXForCausalLM"

# transformers 5.24.0 GPTNeoXConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 44,
    "hidden_size": 6144,
    "num_attention_heads": 64,
    "intermediate_size": 24576,
    "vocab_size": 50432,
}


def fields(r: Reader) -> dict[str, Any]:
    bias = r.boolean("attention_bias", True)
    return {
        "family": "gpt_neox",
        "architecture": "decoder-only",
        "n_layers": r.req("num_hidden_layers"),
        "d_model": r.req("hidden_size"),
        "n_heads": r.req("num_attention_heads"),
        "d_ff": r.req("intermediate_size"),
        "activation": r.choice("hidden_act", PLAIN_ACT, "gelu"),
        "attention_bias": bias,
        "ffn_bias": True,
        "norm": "layernorm",
        "positions": "rotary",
        "parallel_block": r.boolean("use_parallel_residual", True),
        "vocab_size": r.req("vocab_size"),
        "tie_embeddings": r.boolean("tie_word_embeddings", False),
    }


NAMING = Naming(
    layer="gpt_neox.layers.{i}.",
    q="",
    k="",
    v="",
    fused_qkv="attention.query_key_value",
    o="attention.dense",
    up="mlp.dense_h_to_4h",
    down="mlp.dense_4h_to_h",
    gate="",
    norm_attn="input_layernorm",
    norm_ffn="post_attention_layernorm",
    final_norm="gpt_neox.final_layer_norm",
    tok="gpt_neox.embed_in",
    renames={"embed_out.": "lm_head."},
    prefixes=("gpt_neox.",),
    architecture="decoder-only",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
