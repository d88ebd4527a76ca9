"""Llama (`LlamaForCausalLM`): RMSNorm, rotary, SwiGLU, GQA; optional attention / MLP biases."""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, Reader, decoder
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "LlamaForCausalLM"

# transformers 5.24.0 LlamaConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "intermediate_size": 11008,
    "vocab_size": 32000,
}
# Its token embedding takes pad_token_id (class default None) as padding_idx.
PAD_DEFAULT: int | None = None


def fields(r: Reader) -> dict[str, Any]:
    return decoder(
        r,
        "llama",
        attention_bias=r.boolean("attention_bias", False),
        ffn_bias=r.boolean("mlp_bias", False),
    )


def naming(cfg: ModelConfig) -> Naming:
    return LLAMA_NAMING
