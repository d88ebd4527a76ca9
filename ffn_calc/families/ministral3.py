"""Ministral 3 (`Ministral3ForCausalLM`): Mistral's layout, head_dim 128 by default.

transformers 5.24's `ministral3` is a text model of its own (Ministral3ForCausalLM, built on
MistralForCausalLM), and also the `text_config` of the released Ministral 3 checkpoints,
whose top-level config.json is `mistral3` (Mistral3ForConditionalGeneration, a vision tower
and projector around it): a `ministral3` config.json is counted as Ministral3ForCausalLM.

Fixed by the architecture: Llama's pre-norm layer (RMSNorm `input_layernorm` and
`post_attention_layernorm`), rotary positions, GQA, SwiGLU, no bias anywhere; the head is
untied unless `tie_word_embeddings`. Class defaults for absent fields: head_dim 128,
num_key_value_heads 8, pad_token_id 11, no sliding window (`sliding_window`, when given, makes
every layer slide, as Mistral's). A null head_dim or num_key_value_heads, which transformers
5.24's strict Ministral3Config refuses, is read as its __post_init__ means it: hidden_size /
heads, the heads.

No parameters and no matmuls: the position-dependent query scaling (`llama_4_scaling_beta`),
YaRN rotary scaling.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, Reader, decoder, every_layer_window
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Ministral3ForCausalLM"

# transformers 5.24.0 Ministral3Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 34,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 131072,
}
# Its token embedding takes pad_token_id (class default 11) as padding_idx.
PAD_DEFAULT: int | None = 11


def head_dim(r: Reader, default: int) -> int | None:
    """head_dim: absent, the class default; null, hidden_size / heads (the class's
    __post_init__; None here, ModelConfig's own default)."""
    if "head_dim" in r.data and r.data["head_dim"] is None:
        return None
    return r.integer("head_dim", default)


def fields(r: Reader) -> dict[str, Any]:
    return decoder(r, "ministral3", **every_layer_window(r), head_dim=head_dim(r, 128))


def naming(cfg: ModelConfig) -> Naming:
    return LLAMA_NAMING
