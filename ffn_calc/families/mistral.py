"""Mistral (`MistralForCausalLM`): Llama's layout without biases; sliding window (no parameters)."""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, Reader, decoder, every_layer_window
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "MistralForCausalLM"

# transformers 5.24.0 MistralConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 32000,
}
# Its token embedding takes pad_token_id (class default None) as padding_idx.
PAD_DEFAULT: int | None = None


def fields(r: Reader) -> dict[str, Any]:
    # MistralConfig: sliding_window 4,096 when absent; every layer slides (null: none).
    return decoder(r, "mistral", **every_layer_window(r, 4096))


def naming(cfg: ModelConfig) -> Naming:
    return LLAMA_NAMING
