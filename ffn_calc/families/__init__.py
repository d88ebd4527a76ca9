"""Model families: one module per Hugging Face `model_type`, registered in one table.

A family module holds what is specific to that family and nothing else; the code reads
three names from it:

- `ARCHITECTURE`: the transformers class whose instance the counts equal (ffn_calc.families.hf names
  it in the model's source and warns when config.json names another);
- `fields(r)`: how its config.json maps to ModelConfig fields (`r` is a `base.Reader`;
  ffn_calc.families.hf); a family without a config.json (OTHER_FAMILIES) has none;
- `naming(cfg)`: a `Naming`, how the reference implementation names and lays out each tensor
  of that model (ffn_calc.reference.instantiate, `tensors`, `verify`).

Anything else in a module (a `NAMING` constant that `naming` returns, a `NOTE` that `fields`
puts in the model's notes) is its own business.

The counting code never imports a family; `family_module` imports only the one asked for,
so start-up does not grow with the number of families. Adding a family: one module, one row
in REGISTRY, its test data and its README row.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

# model_type (and ModelConfig.family) -> module in this package.
REGISTRY: dict[str, str] = {
    "gpt2": "gpt2",
    "llama": "llama",
    "mistral": "mistral",
    "mixtral": "mixtral",
    "qwen2": "qwen2",
    "bert": "bert",
    "gemma": "gemma",
    "gemma2": "gemma2",
    "gemma3_text": "gemma3_text",
    "qwen3": "qwen3",
    "olmo2": "olmo2",
    "phi3": "phi3",
    "starcoder2": "starcoder2",
    "granite": "granite",
    "cohere": "cohere",
    "gpt_neox": "gpt_neox",
    "falcon": "falcon",
    "gpt_bigcode": "gpt_bigcode",
    "gptj": "gptj",
    "opt": "opt",
    "roberta": "roberta",
    "distilbert": "distilbert",
    "albert": "albert",
    "t5": "t5",
    "bart": "bart",
    "deepseek_v3": "deepseek_v3",
    "deepseek_v2": "deepseek_v2",
    "qwen2_moe": "qwen2_moe",
    "qwen3_moe": "qwen3_moe",
    "olmoe": "olmoe",
    "gpt_oss": "gpt_oss",
    "llama4_text": "llama4_text",
    "glm4_moe": "glm4_moe",
    "ernie4_5_moe": "ernie4_5_moe",
}
# Families with tensor names but no config.json: torch.nn.Transformer; "custom" has neither.
OTHER_FAMILIES: dict[str, str | None] = {"transformer": "transformer", "custom": None}


def family_names() -> list[str]:
    """Every value ModelConfig.family may take."""
    return sorted([*REGISTRY, *OTHER_FAMILIES])


def family_module(family: str) -> ModuleType | None:
    """The module of a family (None for 'custom' or an unknown name)."""
    name = REGISTRY.get(family) or OTHER_FAMILIES.get(family)
    return import_module(f"{__name__}.{name}") if name else None
