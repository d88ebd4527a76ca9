"""Llama (`LlamaForCausalLM`): RMSNorm, rotary, SwiGLU, GQA; optional attention / MLP biases."""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, Reader, decoder
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "LlamaForCausalLM"


def fields(r: Reader) -> dict[str, Any]:
    return decoder(
        r,
        "llama",
        attention_bias=r.boolean("attention_bias", False),
        ffn_bias=r.boolean("mlp_bias", False),
    )


def naming(cfg: ModelConfig) -> Naming:
    return LLAMA_NAMING
