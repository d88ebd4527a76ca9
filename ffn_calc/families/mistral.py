"""Mistral (`MistralForCausalLM`): Llama's layout without biases; sliding window (no parameters)."""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, Reader, decoder, every_layer_window
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "MistralForCausalLM"


def fields(r: Reader) -> dict[str, Any]:
    # MistralConfig: sliding_window 4,096 when absent; every layer slides (null: none).
    return decoder(r, "mistral", **every_layer_window(r, 4096))


def naming(cfg: ModelConfig) -> Naming:
    return LLAMA_NAMING
