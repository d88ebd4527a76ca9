"""Mistral (`MistralForCausalLM`): Llama's layout without biases; sliding window (no parameters)."""

from __future__ import annotations

from typing import Any

from ffn_calc.config import ModelConfig
from ffn_calc.families.base import LLAMA_NAMING, Reader, decoder
from ffn_calc.naming import Naming

ARCHITECTURE = "MistralForCausalLM"


def fields(r: Reader) -> dict[str, Any]:
    return decoder(r, "mistral")


def naming(cfg: ModelConfig) -> Naming:
    return LLAMA_NAMING
