"""Gemma 2 (`Gemma2ForCausalLM`): Gemma with four norms per layer, pre and post each block.

Fixed by the architecture: four RMSNorms of [d_model] per layer (input_layernorm and
post_attention_layernorm around attention, pre_feedforward_layernorm and
post_feedforward_layernorm around the FFN), a gated FFN without biases, rotary positions;
`attention_bias` on Q, K, V and O alike. Class defaults for absent fields: head_dim 256,
num_key_value_heads 4, a tied head, `hidden_activation` gelu_pytorch_tanh (`hidden_act` is
not read).

No parameters and no matmuls: the embedding scaling by sqrt(hidden_size), attention and
final-logit soft-capping (tanh), query_pre_attn_scalar, sliding-window layers (a mask; eager
attention still multiplies the full S x S square).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.families.base import (
    GATED_ACT,
    LLAMA_NAMING,
    Reader,
    check_listed,
    decoder,
    layer_types,
    window_fields,
)
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Gemma2ForCausalLM"

# transformers 5.24.0 Gemma2Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 26,
    "hidden_size": 2304,
    "num_attention_heads": 8,
    "intermediate_size": 9216,
    "vocab_size": 256000,
}
# Its token embedding takes pad_token_id (class default 0) as padding_idx.
PAD_DEFAULT: int | None = 0

NAMING = replace(
    LLAMA_NAMING,
    norms={
        4: (
            "input_layernorm",
            "post_attention_layernorm",
            "pre_feedforward_layernorm",
            "post_feedforward_layernorm",
        )
    },
)


def windows(r: Reader, every: int) -> dict[str, Any]:
    """The sliding-window layers: `layer_types`, else every layer but each `every`-th
    (Gemma2Config alternates, every = 2; Gemma3TextConfig's sliding_window_pattern, 6)."""
    layers = check_listed(r, "num_hidden_layers", r.req("num_hidden_layers"))
    pattern = ["sliding_attention" if (i + 1) % every else "full_attention" for i in range(layers)]
    return window_fields(
        r, layer_types(r, layers, pattern), "sliding_attention", "sliding_window", 4096
    )


def fields(r: Reader, every: int = 2) -> dict[str, Any]:
    return decoder(
        r,
        "gemma2",
        **windows(r, every),
        n_kv_heads=r.integer("num_key_value_heads", 4),
        head_dim=r.integer("head_dim", 256),
        activation=r.choice("hidden_activation", GATED_ACT, "gelu_pytorch_tanh"),
        tie_embeddings=r.boolean("tie_word_embeddings", True),
        attention_bias=r.boolean("attention_bias", False),
        layer_norms=4,
    )


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
