"""Term: one named product in a formula, kept with its symbols and numbers for --explain."""

from __future__ import annotations

from dataclasses import dataclass
from math import prod


@dataclass(frozen=True)
class Term:
    """One line of a count: `name: formula = numbers = value`."""

    name: str
    formula: str
    factors: tuple[int, ...]
    group: str = ""

    @property
    def value(self) -> int:
        return prod(self.factors)

    @property
    def numbers(self) -> str:
        return " x ".join(f"{f:,}" for f in self.factors)

    def explain(self) -> str:
        """`W1: d_model x d_ff = 768 x 3,072 = 2,359,296`."""
        if len(self.factors) == 1:
            return f"{self.name}: {self.formula} = {self.value:,}"
        return f"{self.name}: {self.formula} = {self.numbers} = {self.value:,}"


def term(group: str, name: str, formula: str, *factors: int) -> Term:
    """Build a term of `group` whose value is the product of `factors`."""
    return Term(name=name, formula=formula, factors=tuple(factors), group=group)


def total(terms: list[Term], group: str | None = None) -> int:
    """Sum of the terms (of one group, if given)."""
    return sum(t.value for t in terms if group is None or t.group == group)
