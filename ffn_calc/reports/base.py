"""The base of every result model that `--format json` dumps."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, ClassVar, Self

from pydantic import BaseModel, ConfigDict, PrivateAttr

from ffn_calc.counts.terms import Term
from ffn_calc.i18n.translate import Text
from ffn_calc.model.layer_kinds import LayerKind


class Result(BaseModel):
    """A JSON result. Validation schemas are built on first use, not at import: a command
    pays only for the result models it returns."""

    model_config = ConfigDict(defer_build=True)

    # How a notebook shows a result: set by ffn_calc.api (the tables live above this layer).
    display_markdown: ClassVar[Callable[[Result], str | None] | None] = None

    def __eq__(self, other: object) -> bool:
        """Results are equal when they hold the same data (what JSON holds): the messages a
        report keeps for its views (private attributes) do not count, so a report equals
        itself read back from JSON."""
        if not isinstance(other, BaseModel):
            return NotImplemented
        return type(self) is type(other) and self.__dict__ == other.__dict__

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


class Stated(Result):
    """A result whose `convention` (JSON: one English string) is made of sentences, kept as
    messages (not in JSON) for a view to show in the reader's language."""

    _sentences: tuple[Text, ...] = PrivateAttr(())  # immutable default: see ParamsReport

    def stated(self, sentences: Sequence[Text]) -> Self:
        self._sentences = tuple(sentences)
        return self

    def sentences(self) -> tuple[str | Text, ...]:
        """The convention's sentences; for a report read back from JSON, its English as read."""
        return self._sentences or (str(getattr(self, "convention", "")),)


def english(sentences: Sequence[Text]) -> str:
    """Sentences as JSON holds them: English, a space between them."""
    return " ".join(map(str, sentences))


class TermReport(Result):
    name: str
    group: str
    formula: str
    numbers: str
    value: int
    # The formula as a message where it has words (not in JSON), for a view to show in the
    # reader's language; None: symbols only, or a term read back from JSON.
    _formula: Text | None = PrivateAttr(None)

    def shown_formula(self) -> str | Text:
        return self.formula if self._formula is None else self._formula

    @classmethod
    def of(cls, t: Term, macs: bool = False) -> TermReport:
        """The term as counted; in multiply-adds, the FLOP term halved (every one is even)."""
        if not macs:
            out = cls(
                name=t.name, group=t.group, formula=t.formula, numbers=t.numbers, value=t.value
            )
        elif t.factors[0] == 2 and t.formula.startswith("2 x ") and t.message is None:
            # drop the 2 FLOPs per MAC
            return cls.of(Term(t.name, t.formula.removeprefix("2 x "), t.factors[1:], t.group))
        else:
            out = cls(name=t.name, group=t.group, formula=f"({t.formula}) / 2",
                      numbers=f"({t.numbers}) / 2", value=t.value // 2)  # fmt: skip
        if t.message is not None:
            out._formula = Text("({formula}) / 2", (("formula", t.message),)) if macs else t.message
        return out
