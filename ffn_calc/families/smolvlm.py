"""SmolVLM (`SmolVLMForConditionalGeneration`): Idefics3's model under another name (a Llama
language model, the smolvlm_vision tower, the pixel-shuffle connector); see
ffn_calc.families.idefics3. SmolVLMConfig's defaults are Idefics3Config's."""

from __future__ import annotations

from typing import Any

from ffn_calc.families import idefics3
from ffn_calc.families.base import Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "SmolVLMForConditionalGeneration"

DEFAULTS: dict[str, int | None] = dict(idefics3.DEFAULTS)


def fields(r: Reader) -> dict[str, Any]:
    return idefics3.read(r, "smolvlm", "smolvlm_vision")


def naming(cfg: ModelConfig) -> Naming:
    return idefics3.naming(cfg)
