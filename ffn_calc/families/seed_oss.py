"""Seed-OSS (`SeedOssForCausalLM`): Llama's layer with Q/K/V biases and none on O by default.

Fixed by the architecture: Llama's layer (two RMSNorms of [d_model] per layer, a gated FFN,
GQA, rotary positions). Biases: `attention_bias` (default true) on Q, K and V,
`attention_out_bias` (default false) on O, separately; `mlp_bias` (default false) on the
FFN's three matrices. Class defaults for absent fields: head_dim 128 (null: hidden_size //
heads), num_key_value_heads 8 (null: the heads), an untied head.

No parameters and no matmuls: the residual dropouts (attention_dropout, residual_dropout;
off in inference).
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, Reader, decoder
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "SeedOssForCausalLM"

# transformers 5.24.0 SeedOssConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 64,
    "hidden_size": 4096,
    "num_attention_heads": 80,
    "num_key_value_heads": 8,
    "intermediate_size": 27648,
    "vocab_size": 155136,
}
# Its token embedding takes pad_token_id (class default 1) as padding_idx.
PAD_DEFAULT: int | None = 1


def head_dim(r: Reader) -> int:
    """head_dim: absent, the class default 128; null, hidden_size // heads (__post_init__)."""
    if "head_dim" in r.data and r.data["head_dim"] is None:
        return r.req("hidden_size") // r.req("num_attention_heads")
    value = r.integer("head_dim", 128)
    assert value is not None
    return value


def fields(r: Reader) -> dict[str, Any]:
    return decoder(
        r,
        "seed_oss",
        head_dim=head_dim(r),
        attention_bias=r.boolean("attention_bias", True),
        attention_out_bias=r.boolean("attention_out_bias", False),
        ffn_bias=r.boolean("mlp_bias", False),
    )


def naming(cfg: ModelConfig) -> Naming:
    return LLAMA_NAMING
