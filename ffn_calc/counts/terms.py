"""Term: one named product in a formula, kept with its symbols and numbers for --explain."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from math import prod
from typing import TYPE_CHECKING

from ffn_calc.i18n.translate import N_, Text, say

if TYPE_CHECKING:  # annotations only
    from ffn_calc.model.config import ModelConfig


@dataclass(frozen=True)
class Term:
    """One line of a count: `name: formula = numbers = value`."""

    name: str
    formula: str  # English, as JSON holds it
    factors: tuple[int, ...]
    group: str = ""
    # The formula as a message where it has words ("n_experts x (biases of one expert)"), for
    # a view to show in the reader's language; None: symbols only, read alike in every language.
    message: Text | None = None

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


def term(group: str, name: str, formula: str | Text, *factors: int) -> Term:
    """Build a term of `group` whose value is the product of `factors`; a formula with words
    is a message (str() is its English)."""
    if isinstance(formula, Text):
        return Term(name, str(formula), tuple(factors), group, formula)
    return Term(name=name, formula=formula, factors=tuple(factors), group=group)


def total(terms: list[Term], group: str | None = None) -> int:
    """Sum of the terms (of one group, if given)."""
    return sum(t.value for t in terms if group is None or t.group == group)


def norm_terms(
    cfg: ModelConfig, group: str, name: str, width: int | None = None, symbol: str = "d_model"
) -> list[Term]:
    """One norm over `width` (default d_model): weight and bias, or a weight only."""
    w = cfg.d_model if width is None else width
    if cfg.norm == "layernorm" and cfg.norm_bias:
        return [term(group, name, norm_formula(symbol, bias=True), 2, w)]
    return [term(group, name, norm_formula(symbol), w)]


def norm_formula(symbol: str, bias: bool = False) -> Text:
    """A norm's formula, its words a message: `2 x d_model (weight, bias)`, `d_model (weight)`."""
    if bias:
        return say(N_("2 x {symbol} (weight, bias)"), symbol=symbol)
    return say(N_("{symbol} (weight)"), symbol=symbol)


def decoder_symbols(cfg: ModelConfig, terms: list[Term]) -> list[Term]:
    """An encoder-decoder's decoder terms with the symbols of the decoder's own sizes where it
    has them: d_ff as decoder_d_ff, n_heads as decoder_n_heads (the numbers are the
    decoder's already: its terms are counted over cfg.stack("decoder"))."""
    names = [f for f in ("decoder_d_ff", "decoder_n_heads") if getattr(cfg, f) is not None]
    if not names:
        return terms
    pattern = re.compile(r"\b(" + "|".join(n.removeprefix("decoder_") for n in names) + r")\b")
    return [
        t if t.message is not None else replace(t, formula=pattern.sub(r"decoder_\1", t.formula))
        for t in terms
    ]
