"""The parameters of a multimodal wrapper's towers and projectors (model.towers), given how
a stack is counted: `stack` is counts.params.components (the terms) or
counts.totals.param_components (the fast closed form), so that each counts a tower's stack as it
counts any model, and the two agree for wrappers as for every model."""

from __future__ import annotations

from collections.abc import Callable

from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import Tower

Components = Callable[[ModelConfig], dict[str, int]]

# A tower's own components, as a stack's (it has no head).
TOWER_GROUPS = ("embedding", "attention", "ffn", "norm")


def tower_components(t: Tower, stack: Components) -> dict[str, int]:
    """The tower's parameters by group: its stack's and its own parts' (not the projector)."""
    comps = stack(t.stack)
    out = {g: comps[g] for g in TOWER_GROUPS}
    for p in t.own_parts:
        out[p.group] += p.numel
    return out


def tower_params(t: Tower, stack: Components) -> int:
    return sum(tower_components(t, stack).values())


def projector_params(t: Tower) -> int:
    """The parameters of the projector that maps this tower's output into the language model."""
    return sum(p.numel for p in t.projector_parts)


def wrapper_components(cfg: ModelConfig, stack: Components) -> dict[str, int]:
    """One key per tower (its name) and `projector`; empty for a language model alone."""
    out: dict[str, int] = {}
    if not cfg.towers:
        return out
    for t in cfg.towers:
        out[t.name] = out.get(t.name, 0) + tower_params(t, stack)
    out["projector"] = sum(projector_params(t) for t in cfg.towers)
    # A projector with no tower counted beside it (Gemma 3n's embed_vision: its timm tower
    # is not counted) is one of the model's parts.
    out["projector"] += sum(p.numel for p in cfg.model_parts if p.projector)
    return out
