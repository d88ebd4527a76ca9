"""Qwen2 (`Qwen2ForCausalLM`): Llama's layout with biases on Q, K and V only (none on O)."""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, Reader, decoder, qwen_windows
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Qwen2ForCausalLM"


def fields(r: Reader) -> dict[str, Any]:
    return decoder(r, "qwen2", **qwen_windows(r), attention_bias=True, attention_out_bias=False)


def naming(cfg: ModelConfig) -> Naming:
    return LLAMA_NAMING
