"""Gemma 3 text (`Gemma3ForCausalLM`): Gemma 2's four norms per layer plus q/k norms over head_dim.

Fixed by the architecture: four RMSNorms of [d_model] per layer (as Gemma 2), an RMSNorm of
[head_dim] on the queries and one on the keys (self_attn.q_norm / k_norm, shared by every
head), a gated FFN without biases, rotary positions; `attention_bias` on Q, K, V and O alike.
Class defaults for absent fields: head_dim 256, num_key_value_heads 4, a tied head,
`hidden_activation` gelu_pytorch_tanh.

No parameters and no matmuls: the embedding scaling, soft-capping, query_pre_attn_scalar,
local (sliding-window) and global layers with their own rotary bases, bidirectional attention
(masks only; eager attention multiplies the full S x S square in every layer).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.config import ModelConfig
from ffn_calc.families.base import GATED_ACT, LLAMA_NAMING, Reader, decoder
from ffn_calc.naming import Naming

ARCHITECTURE = "Gemma3ForCausalLM"

NAMING = replace(
    LLAMA_NAMING,
    norms={4: ("input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
               "post_feedforward_layernorm")},
)  # fmt: skip


def fields(r: Reader) -> dict[str, Any]:
    return decoder(
        r, "gemma3_text", n_kv_heads=r.integer("num_key_value_heads", 4),
        head_dim=r.integer("head_dim", 256),
        activation=r.choice("hidden_activation", GATED_ACT, "gelu_pytorch_tanh"),
        tie_embeddings=r.boolean("tie_word_embeddings", True),
        attention_bias=r.boolean("attention_bias", False), layer_norms=4, qk_norm="head",
    )  # fmt: skip


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
