"""Cohere Command-R (`CohereForCausalLM`): a parallel block under one weight-only LayerNorm.

Fixed by the architecture: one `input_layernorm` per layer, a LayerNorm with a weight and no
bias, read by attention and the SwiGLU MLP in parallel (their outputs are added to the
residual together); the same weight-only LayerNorm after the last layer; rotary positions
(0 parameters); no MLP biases; `attention_bias` (default false) on Q, K, V and O. With
`use_qk_norm`, queries and keys get weight-only LayerNorms of one weight per head:
q_norm [n_heads, head_dim] and k_norm [n_kv_heads, head_dim]. The head is tied to the token
embedding unless tie_word_embeddings is false; `logit_scale` multiplies the logits
(0 parameters, no matmul).
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, Reader, decoder
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "CohereForCausalLM"

# transformers 5.24.0 CohereConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 40,
    "hidden_size": 8192,
    "num_attention_heads": 64,
    "intermediate_size": 22528,
    "vocab_size": 256000,
}
# Its token embedding takes pad_token_id (class default 0) as padding_idx.
PAD_DEFAULT: int | None = 0


def fields(r: Reader) -> dict[str, Any]:
    return decoder(
        r,
        "cohere",
        norm="layernorm",
        norm_bias=False,
        layer_norms=1,
        parallel_block=True,
        qk_norm="per_head" if r.boolean("use_qk_norm", False) else "none",
        attention_bias=r.boolean("attention_bias", False),
        tie_embeddings=r.boolean("tie_word_embeddings", True),
    )


def naming(cfg: ModelConfig) -> Naming:
    return LLAMA_NAMING
