"""The base of every result model that `--format json` dumps."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, ClassVar, Self

from pydantic import BaseModel, ConfigDict, PrivateAttr

from ffn_calc.counts.terms import Term
from ffn_calc.model.layer_kinds import LayerKind


class Result(BaseModel):
    """A JSON result. Validation schemas are built on first use, not at import: a command
    pays only for the result models it returns."""

    model_config = ConfigDict(defer_build=True)

    # How a notebook shows a result: set by ffn_calc.api (the tables live above this layer).
    display_markdown: ClassVar[Callable[[Result], str | None] | None] = None

    def _repr_markdown_(self) -> str | None:
        """In Jupyter, the command's tables (IPython calls this for display)."""
        show = type(self).display_markdown
        return show(self) if show is not None else None


class KindResult(Result):
    """A result about one layer kind: its `kind` (JSON) is the English label, str(LayerKind);
    the value itself is kept beside it, out of JSON, for a view to word in the reader's
    language. A result read back from JSON has the label only."""

    if TYPE_CHECKING:  # each result declares it, in its place in the JSON
        kind: str

    _kind: LayerKind | None = PrivateAttr(None)

    def with_kind(self, kind: LayerKind) -> Self:
        self._kind = kind
        return self

    def layer_kind(self) -> LayerKind | str:
        """The kind as a value (the English label, for a result read back from JSON)."""
        return self.kind if self._kind is None else self._kind


class LayerResult(Result):
    """A result about the layer kind its `layer` names ("decoder (MoE)", JSON): the stack and
    the kind themselves are kept beside it, out of JSON, for a view to word."""

    if TYPE_CHECKING:  # each result declares it, in its place in the JSON
        layer: str

    _layer: tuple[str, LayerKind] | None = PrivateAttr(None)

    def with_layer(self, stack: str, kind: LayerKind) -> Self:
        self._layer = (stack, kind)
        return self

    def layer_of(self) -> tuple[str, LayerKind] | str:
        """(stack, kind) (the English label, for a result read back from JSON)."""
        return self.layer if self._layer is None else self._layer


Number = int | float


def num(x: Fraction | int) -> Number:
    """An exact integer when the value is one, else the nearest float."""
    x = Fraction(x)
    return int(x) if x.denominator == 1 else float(x)


def exact(x: Fraction | int) -> str:
    """The exact value as text: "284812800", or a fraction in lowest terms, "32768/3"."""
    return str(Fraction(x))


def share(part: int | Fraction, whole: int | Fraction) -> float:
    return float(Fraction(part) / Fraction(whole)) if whole else 0.0


class TermReport(Result):
    name: str
    group: str
    formula: str
    numbers: str
    value: int

    @classmethod
    def of(cls, t: Term, macs: bool = False) -> TermReport:
        """The term as counted; in multiply-adds, the FLOP term halved (every one is even)."""
        if not macs:
            return cls(
                name=t.name, group=t.group, formula=t.formula, numbers=t.numbers, value=t.value
            )
        if t.factors[0] == 2 and t.formula.startswith("2 x "):  # drop the 2 FLOPs per MAC
            half = Term(t.name, t.formula.removeprefix("2 x "), t.factors[1:], t.group)
            return cls.of(half)
        return cls(name=t.name, group=t.group, formula=f"({t.formula}) / 2",
                   numbers=f"({t.numbers}) / 2", value=t.value // 2)  # fmt: skip
