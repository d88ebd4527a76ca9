"""Token mixers other than attention, as data: each mixer's counts in a module of its own,
found through MIXER_MODULES by the mixer's row (model.layer_kinds). Counting code asks the
table, never the family: adding a mixer is a module and a row here.

Every function takes the ModelConfig (the mixer reads its own nested sizes, e.g.
`cfg.mamba2`). Terms use the group "mixer" for the mixer's weights and FLOPs ("norm" for its
norms), beside the attention's groups.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

from ffn_calc.counts.terms import Term
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.layer_kinds import (
    FULL_MAMBA2,
    GATED_DELTANET,
    KDA,
    LIGHTNING,
    MAMBA,
    MAMBA2,
    NO_MIXER,
    SHARED_MAMBA2,
    SHORT_CONV,
    Mixer,
)

if TYPE_CHECKING:
    from ffn_calc.counts.mixers.state import StateTensor
    from ffn_calc.counts.mixers.traffic import Traffic


@dataclass(frozen=True)
class MixerCounts:
    """One token mixer's counts per layer.

    params(cfg): its parameter terms. prefill(cfg, B, S, cached): its forward FLOP terms over
    B sequences of S tokens, as the reference torch path computes them (cached: with a cache,
    as generate()'s prefill runs). decode(cfg, B): one
    recurrent step (a new token per sequence) with the state in the cache. state(cfg): the
    cache's constant-size tensors of one layer and one sequence, each a StateTensor (name,
    elements, and its dtype rule: the cache's dtype, or float32 as transformers keeps it).
    attends: the layer also has self-attention (counted by the attention code: Falcon-H1's
    attention beside its Mamba-2). projections: the attention's Q, K, V and O are the layer's
    own; false where they are shared weights given as model_parts (Zamba2's shared block),
    which count their parameters and their FLOPs per use: the layer counts its scores and its
    keys and values in the cache only."""

    params: Callable[[ModelConfig], list[Term]]
    prefill: Callable[[ModelConfig, int, int, bool], list[Term]]
    decode: Callable[[ModelConfig, int], list[Term]]
    state: Callable[[ModelConfig], list[StateTensor]]
    attends: bool = False
    # The roofline (counts.mixers.traffic): what each kernel moves, traffic(cfg, B, S,
    # decode); `linear`: the terms that are linear layers (the roofline's linear rule).
    traffic: Callable[[ModelConfig, int, int, bool], Traffic] | None = None
    linear: tuple[str, ...] = ()
    projections: bool = True


def _nothing(*_args: object) -> list:  # type: ignore[type-arg]
    return []


NONE_COUNTS = MixerCounts(_nothing, _nothing, _nothing, _nothing)


def _counts(module: ModuleType, attends: bool = False, projections: bool = True) -> MixerCounts:
    """A mixer module's counts: params, prefill, decode, state, traffic and LINEAR."""
    return MixerCounts(
        module.params, module.prefill, module.decode, module.state, attends,
        module.traffic, module.LINEAR, projections,
    )  # fmt: skip


# The row of each mixer that is not (only) attention -> its counting module, whether the
# layer also attends and whether its attention projections are its own. A module is imported the first time a model uses its mixer: a command
# loads only the mixers it counts.
MIXER_MODULES: dict[Mixer, tuple[str, bool, bool]] = {
    MAMBA2: ("ffn_calc.counts.mixers.mamba2", False, True),
    GATED_DELTANET: ("ffn_calc.counts.mixers.gated_deltanet", False, True),
    KDA: ("ffn_calc.counts.mixers.kda", False, True),
    LIGHTNING: ("ffn_calc.counts.mixers.lightning", False, True),
    MAMBA: ("ffn_calc.counts.mixers.mamba", False, True),
    SHORT_CONV: ("ffn_calc.counts.mixers.short_conv", False, True),
    FULL_MAMBA2: ("ffn_calc.counts.mixers.mamba2", True, True),
    SHARED_MAMBA2: ("ffn_calc.counts.mixers.mamba2", True, False),
}

_LOADED: dict[Mixer, MixerCounts] = {NO_MIXER: NONE_COUNTS}


def counts_of(mixer: Mixer | None) -> MixerCounts | None:
    """The mixer's counts, or None for attention alone (the attention code counts it)."""
    if mixer is None:
        return None
    found = _LOADED.get(mixer)
    if found is None and mixer in MIXER_MODULES:
        name, attends, projections = MIXER_MODULES[mixer]
        found = _LOADED[mixer] = _counts(importlib.import_module(name), attends, projections)
    return found


def state_elements(cfg: ModelConfig, mixer: Mixer | None) -> int:
    """One layer's constant-size cache elements per sequence (0 for attention alone)."""
    c = counts_of(mixer)
    return 0 if c is None else sum(t.elements for t in c.state(cfg))
