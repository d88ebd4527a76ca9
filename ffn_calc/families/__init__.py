"""Model families: one module per Hugging Face `model_type`, registered in one table.

A family module holds what is specific to that family and nothing else; the code reads
these names from it:

- `ARCHITECTURE`: the transformers class whose instance the counts equal (ffn_calc.families.hf names
  it in the model's source and warns when config.json names another);
- `fields(r)`: how its config.json maps to ModelConfig fields (`r` is a `base.Reader`;
  ffn_calc.families.hf); a family without a config.json (`OTHER_FAMILIES`) has none;
- `DEFAULTS` (with `fields`): the configuration class's defaults for the sizes `r.req` reads,
  and `PAD_DEFAULT` where the token embedding takes pad_token_id as its padding index;
- `naming(cfg)`: a `Naming`, how the reference implementation names and lays out each tensor
  of that model (ffn_calc.reference.instantiate, `tensors`, `verify`).

Anything else in a module (a `NAMING` constant that `naming` returns, a `NOTE` that `fields`
puts in the model's notes) is its own business.

The names are data in the model layer (ffn_calc.model.families: `REGISTRY` maps each
`model_type` to its module here, `OTHER_FAMILIES` the families without a config.json), so
ModelConfig checks its `family` without importing this package. A multimodal wrapper (gemma3,
llava) is a REGISTRY row whose `fields` reads text_config with its language model's module and
each tower's config with a tower module (`TOWER_FAMILIES`: `tower(r, prefix)` gives a
model.towers.Tower's fields; families/wrappers.py holds what the wrappers share). The counting code never
imports a family; `family_module` imports only the one asked for, so start-up does not grow
with the number of families. Adding a family: one module here, one row in REGISTRY, its test
data and its README row.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

from ffn_calc.model.families import OTHER_FAMILIES, REGISTRY, TOWER_FAMILIES


def family_module(family: str) -> ModuleType | None:
    """The module of a family (None for 'custom' or an unknown name)."""
    name = REGISTRY.get(family) or TOWER_FAMILIES.get(family) or OTHER_FAMILIES.get(family)
    return import_module(f"{__name__}.{name}") if name else None
