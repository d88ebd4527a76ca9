"""What the instantiation yields: parameter tensors and matmuls as name templates with the
range of each index, and the inventory of one model (its tensors, its matmuls, the prefixes
and renames its checkpoints may use). The walk that builds it is reference/instantiate.py."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from math import prod
from typing import TypeAlias

# The values an index takes: n (0 .. n-1), a range (MoE layers 3..60, every second layer) or
# the indices themselves (a MoE model's dense layers).
Span: TypeAlias = int | range | tuple[int, ...]
# The indices of a name template, outermost first: (("i", 32), ("e", 8)) is {i} in 0..31 and
# {e} in 0..7, 32 x 8 copies.
Ranges: TypeAlias = tuple[tuple[str, Span], ...]


def values(span: Span) -> range | tuple[int, ...]:
    """The indices of a span, in order (a range for n, never a list of n numbers)."""
    return range(span) if isinstance(span, int) else span


def index_set(indices: Sequence[int]) -> range | tuple[int, ...]:
    """Sorted indices as a range when they step evenly (3..60; 1, 3, 5 ...), else a tuple."""
    if isinstance(indices, range):
        return indices
    xs = sorted(indices)
    if len(xs) > 1 and all(b - a == xs[1] - xs[0] for a, b in itertools.pairwise(xs)):
        return range(xs[0], xs[-1] + 1, xs[1] - xs[0])
    return range(xs[0], xs[0] + 1) if len(xs) == 1 else tuple(xs)


def span_text(span: Span) -> str:
    """An index set as shell braces: `5`, `{0..31}`, `{1..47..2}`, `{0,1,5}`."""
    vs = values(span)
    if len(vs) == 1:
        return str(vs[0])
    step = vs[1] - vs[0]
    if isinstance(vs, range) or all(b - a == step for a, b in itertools.pairwise(vs)):
        return f"{{{vs[0]}..{vs[-1]}}}" if step == 1 else f"{{{vs[0]}..{vs[-1]}..{step}}}"
    parts, start = [], 0  # runs of 3 or more consecutive indices as nested {a..b}
    for i in range(1, len(vs) + 1):
        if i == len(vs) or vs[i] != vs[i - 1] + 1:
            run = vs[start:i]
            parts += [f"{{{run[0]}..{run[-1]}}}"] if len(run) > 2 else [str(v) for v in run]
            start = i
    return "{" + ",".join(parts) + "}"


def spell(template: str, spans: Mapping[str, Span]) -> str:
    """A template with each index's values written out: range(0, 32) -> `{0..31}`, (5,) -> `5`."""
    return template.format_map({key: span_text(span) for key, span in spans.items()})


def label(template: str, ranges: Ranges) -> str:
    """The name of every copy at once: `model.layers.{0..31}.mlp.up_proj.weight`."""
    return template.format_map({key: span_text(values(span)) for key, span in ranges})


@dataclass(frozen=True)
class Tensor:
    """One parameter as a state_dict holds it, once for every index in `ranges`."""

    name: str  # a template when ranges is not empty
    shape: tuple[int, ...]
    component: str
    tied_to: str | None = None  # a tied tensor shares its storage and counts once
    ranges: Ranges = ()

    @property
    def numel(self) -> int:
        """Parameters of one copy."""
        return prod(self.shape)

    @property
    def count(self) -> int:
        """How many tensors the template stands for."""
        return prod(len(values(span)) for _, span in self.ranges)

    @property
    def label(self) -> str:
        return label(self.name, self.ranges)


@dataclass(frozen=True)
class Matmul:
    """[m, k] x [k, n], `count` times per copy (e.g. once per batch element and head)."""

    name: str
    component: str
    m: int
    k: int
    n: int
    count: int = 1
    ranges: Ranges = ()  # the layers that run it

    @property
    def times(self) -> int:
        """How often the forward pass runs it: count x copies."""
        return self.count * prod(len(values(span)) for _, span in self.ranges)

    @property
    def flops(self) -> int:
        return 2 * self.m * self.k * self.n * self.times

    @property
    def label(self) -> str:
        return label(self.name, self.ranges)


@dataclass
class Inventory:
    """The parameter tensors and forward matmuls of one model, as templates with counts."""

    tensors: list[Tensor] = field(default_factory=list)
    matmuls: list[Matmul] = field(default_factory=list)
    # Prefixes the family's checkpoints may add or leave out (`model.`, `transformer.`).
    prefixes: tuple[str, ...] = ()
    # Prefixes checkpoints store in place of the reference's: stored -> reference (Naming.renames).
    renames: Mapping[str, str] = field(default_factory=dict)
    # Tensors a checkpoint may hold that the model drops on load (a KV-shared layer's K and V
    # projections), and prefixes of parts not counted (Gemma 3n's timm vision tower): `verify
    # --checkpoint` lists them apart, neither expected nor unexpected.
    ignored: list[Tensor] = field(default_factory=list)
    ignored_prefixes: tuple[str, ...] = ()

    def params(self, component: str | None = None) -> int:
        return sum(
            t.numel * t.count for t in self.tensors
            if t.tied_to is None and (component is None or t.component == component)
        )  # fmt: skip

    def flops(self, component: str | None = None) -> int:
        return sum(m.flops for m in self.matmuls if component is None or m.component == component)
