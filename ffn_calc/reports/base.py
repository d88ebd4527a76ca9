"""The base of every result model that `--format json` dumps."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from ffn_calc.counts.terms import Term


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
