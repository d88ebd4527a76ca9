"""HunYuan dense (`HunYuanDenseV1ForCausalLM`): Llama's layout plus q/k RMSNorms over head_dim.

Fixed by the architecture: Llama's pre-norm layer (RMSNorm `input_layernorm` and
`post_attention_layernorm`), rotary positions, GQA, a bias-free SwiGLU MLP, and an RMSNorm of
[head_dim] on the queries and one on the keys after rotary (`self_attn.query_layernorm` /
`key_layernorm`, shared by every head). `attention_bias` (default false) puts a bias on Q, K,
V and O alike. The head is untied unless `tie_word_embeddings`. Class defaults for absent
fields: num_key_value_heads = heads, pad_token_id 0. `head_dim` is required: its class default
(null) leaves the attention without a head width (transformers 5.24 fails to build the model,
computing null ** -0.5), so a config.json without one is refused.

The class has no sliding window; transformers' cache still reads a `sliding_window` (or
`layer_types`) that a config.json carries, so ffn-calc does too (see minimax_m2). No
parameters: the NTK-alpha rotary scaling (`rope_parameters` alpha), pretraining_tp.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, Reader, decoder, every_layer_window
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "HunYuanDenseV1ForCausalLM"

# transformers 5.24.0 HunYuanDenseV1Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "intermediate_size": 11008,
    "vocab_size": 290943,
}
# Its token embedding takes pad_token_id (class default 0) as padding_idx.
PAD_DEFAULT: int | None = 0

NAMING = replace(LLAMA_NAMING, q_norm="self_attn.query_layernorm", k_norm="self_attn.key_layernorm")


def attention(r: Reader) -> dict[str, Any]:
    """The attention both HunYuan V1 classes share (LlamaAttention with [head_dim] q/k norms)."""
    bias = r.boolean("attention_bias", False)
    return {
        **every_layer_window(r),
        "head_dim": r.integer("head_dim"),  # required: the class's null builds no model
        "attention_bias": bias,
        "attention_out_bias": bias,
        "qk_norm": "head",
    }


def fields(r: Reader) -> dict[str, Any]:
    return decoder(r, "hunyuan_v1_dense", **attention(r))


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
