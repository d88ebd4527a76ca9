"""SmolLM3 (`SmolLM3ForCausalLM`): Llama's layer with NoPE layers and an optional sliding window.

Fixed by the architecture: Llama's layer (two RMSNorms of [d_model] per layer, a gated FFN,
GQA); `attention_bias` (default false) puts a bias on Q, K, V and O alike, `mlp_bias` (default
false) on the FFN's three matrices. Class defaults for absent fields: num_key_value_heads 4
(null: the heads), head_dim hidden_size / heads (the class reads a head_dim when config.json
has one), a tied head.

No parameters and no matmuls: the NoPE layers. `no_rope_layers` holds one flag per layer (0:
no rotary on that layer's queries and keys; absent, every `no_rope_layer_interval`-th layer,
default 4); rotary positions have no parameters either way. Sliding windows: `layer_types`
says which layers slide over `sliding_window` tokens (default none); without it, with
`use_sliding_window` and a `sliding_window`, the NoPE layers slide (SmolLM3Config). A mask
for the FLOPs (eager attention multiplies the full S x S square); the cache of a sliding
layer keeps its last window - 1 tokens.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import (
    LLAMA_NAMING,
    Reader,
    check_listed,
    decoder,
    layer_types,
    window_fields,
)
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "SmolLM3ForCausalLM"

# transformers 5.24.0 SmolLM3Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 36,
    "hidden_size": 2048,
    "num_attention_heads": 16,
    "num_key_value_heads": 4,
    "intermediate_size": 11008,
    "vocab_size": 128256,
}
# Its token embedding takes pad_token_id (class default 128004) as padding_idx.
PAD_DEFAULT: int | None = 128004


def rope_flags(r: Reader, layers: int) -> list[int]:
    """`no_rope_layers` (1: rotary, 0: NoPE), one per layer; absent, every
    `no_rope_layer_interval`-th layer is NoPE. Each layer's attention reads its own entry, so
    a shorter list is refused."""
    value = r.data.get("no_rope_layers")
    if value is None:
        every = r.integer("no_rope_layer_interval", 4) or 4
        return [int((i + 1) % every != 0) for i in range(layers)]
    if (
        not isinstance(value, list)
        or len(value) < layers
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in value)
    ):
        raise ConfigError(
            _(
                "{where}: {field} = {value}: expected a list of integers, one per layer "
                "(at least {layers})."
            ).format(
                where=r.where("no_rope_layers"),
                field="no_rope_layers",
                value=shown(value),
                layers=layers,
            )
        )
    return value


def windows(r: Reader) -> dict[str, Any]:
    """The sliding layers: `layer_types`, else (with use_sliding_window and a sliding_window)
    the NoPE layers."""
    layers = check_listed(r, "num_hidden_layers", r.req("num_hidden_layers"))
    rope = rope_flags(r, layers)
    slide = r.boolean("use_sliding_window", False) and r.data.get("sliding_window") is not None
    pattern = [
        "sliding_attention" if slide and not rope[i] else "full_attention" for i in range(layers)
    ]
    return window_fields(
        r, layer_types(r, layers, pattern), "sliding_attention", "sliding_window", None
    )


def fields(r: Reader) -> dict[str, Any]:
    return decoder(
        r,
        "smollm3",
        **windows(r),
        attention_bias=r.boolean("attention_bias", False),
        ffn_bias=r.boolean("mlp_bias", False),
        tie_embeddings=r.boolean("tie_word_embeddings", True),
    )


def naming(cfg: ModelConfig) -> Naming:
    return LLAMA_NAMING
