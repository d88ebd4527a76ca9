"""Answers: the exact one an exercise computes, one as a person writes it, and the verdict.

An answer is right when its unit fits the question, it carries enough significant figures, and
the exact answer lies within half a unit of its last written digit. Judging knows nothing of
exercises: it takes the computed Answer, the figures the question needs and what it asks for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal, localcontext
from fractions import Fraction
from typing import Literal

from ffn_calc.errors import FfnCalcError

Kind = Literal["int", "ratio", "percent", "number"]


# An answer must carry at least this many significant figures (an exercise may ask for more):
# half a unit of the last of two figures is at most 5% of the answer, so 1e8 is not taken for
# 134,217,728 while 1.3e8 is.
MIN_SIG_FIGS = 2


@dataclass(frozen=True)
class Answer:
    value: Fraction
    kind: Kind
    steps: list[str]

    def text(self) -> str:
        return format_value(self.value, self.kind)

    def plain(self) -> int | float:
        return int(self.value) if self.value.denominator == 1 else float(self.value)


def _figures(x: float) -> str:
    """Two decimals, and never fewer than 4 significant figures: 45.54, 1.999, 0.04334."""
    return f"{x:,.2f}" if abs(x) >= 10 else f"{x:#.4g}"


def format_value(value: Fraction, kind: Kind) -> str:
    """The exact answer for people, to more figures than any answer needs to be right."""
    if kind == "int" and value.denominator == 1:
        return f"{int(value):,}"
    if kind == "ratio":
        return f"{_figures(float(value))}x"
    if kind == "percent":
        return f"{_figures(100 * float(value))}%"
    return f"{float(value):,.7g}"


# --- reading answers as people write them --------------------------------------------------------

_ANSWER = re.compile(
    r"(?P<sign>[+-]?)(?P<int>\d{1,3}(?:,\d{3})+|\d+)?(?:\.(?P<frac>\d*))?"
    r"(?:[eE](?P<exp>[+-]?\d{1,9}))?\s*(?P<unit>[kKMGBT%xX\u00d7]?)"
)
_SCALE = {"k": 3, "M": 6, "G": 9, "B": 9, "T": 12}
_UNIT = {"K": "k", "X": "x", "\u00d7": "x"}
# The units each kind of answer may carry besides none: % only on a share, x only on a ratio,
# the multipliers k, M, G, B, T only on counts and other plain numbers.
_FITS: dict[Kind, str] = {"int": "kMGBT", "number": "kMGBT", "ratio": "x", "percent": "%"}
_WRITE: dict[Kind, str] = {
    "int": "write it plain or with k, M, G, B or T",
    "number": "write it plain or with k, M, G, B or T",
    "ratio": "write it plain or with x",
    "percent": "write it as a fraction or with %",
}


@dataclass(frozen=True)
class Given:
    """An answer as written: its exact value, half a unit of its last written digit, its
    significant figures (from the first non-zero digit to the last written one; 0 for zero)
    and its unit ("", "%", "x" or a multiplier k, M, G, B, T)."""

    value: Decimal
    tolerance: Decimal
    sig_figs: int
    unit: str


def _unreadable(text: str) -> FfnCalcError:
    return FfnCalcError(
        f"cannot read the answer '{text[:100]}': write a number such as 134217728, 134,217,728, "
        "134.2M, 1.342e8, 28.4x or 46%."
    )


def parse_answer(text: str) -> Given:
    """134217728, 134,217,728, 134.2M, 1.342e8, 28.4x, 46%, -0.16, 134217728. (a whole number)."""
    m = _ANSWER.fullmatch(text.strip())
    if not m or not (m["int"] or m["frac"]):
        raise _unreadable(text)
    digits = (m["int"] or "").replace(",", "") + (m["frac"] or "")
    unit = _UNIT.get(m["unit"], m["unit"])
    exp = int(m["exp"] or 0) + _SCALE.get(unit, 0) - len(m["frac"] or "")
    return Given(
        value=Decimal(f"{m['sign']}{digits}E{exp}"),  # exact: no context rounds a constructor
        tolerance=Decimal(f"5E{exp - 1}"),
        sig_figs=len(digits.lstrip("0")),
        unit=unit,
    )


# --- judging a written answer against the exact one ----------------------------------------------


@dataclass(frozen=True)
class Verdict:
    correct: bool
    reason: str | None = None  # why, when the value alone does not say it


def _expected(a: Answer, given: Given) -> Decimal:
    """The exact answer in the units the answer was written in (a share: fraction or %)."""
    expected = Decimal(a.value.numerator) / Decimal(a.value.denominator)
    if a.kind == "percent" and (given.unit == "%" or given.value > 1):
        expected *= 100  # 46% or 45.5 against a share of 0.455
    return expected


def _example(expected: Decimal, figures: int, a: Answer, given: Given) -> str:
    """The exact answer to `figures` significant figures, as an answer of that form: 1.3e8."""
    mantissa, _, exp = f"{float(expected):#.{figures}g}".partition("e")
    text = mantissa.rstrip(".") + (f"e{int(exp)}" if exp else "")
    percent = a.kind == "percent" and (given.unit == "%" or given.value > 1)
    return text + ("%" if percent else "x" if given.unit == "x" else "")


def _misfit(kind: Kind, given: Given, text: str, asks: str) -> str | None:
    """Why the answer's unit does not fit the question, if it does not."""
    if not given.unit or given.unit in _FITS[kind]:
        return None
    what = {"%": "is a percentage", "x": "is a ratio"}.get(
        given.unit, f"has the multiplier {given.unit}"
    )
    return f"{text} {what}, but the question asks for {asks} ({_WRITE[kind]})"


def _judge(a: Answer, given: Given, text: str, sig_figs: int, asks: str) -> Verdict:
    """Right or wrong, and why when the value alone does not say it."""
    if misfit := _misfit(a.kind, given, text, asks):
        return Verdict(False, misfit)
    expected = _expected(a, given)
    if not given.value:
        if not expected:
            return Verdict(True)
        return Verdict(False, f"{text} is zero, and zero never matches a non-zero answer")
    if not expected or (given.value < 0) != (expected < 0):
        return Verdict(False)
    if given.sig_figs < sig_figs:
        n = given.sig_figs
        return Verdict(
            False,
            f"{text} has {n} significant figure{'' if n == 1 else 's'}; give at least "
            f"{sig_figs} (e.g. {_example(expected, sig_figs, a, given)})",
        )
    return Verdict(abs(given.value - expected) <= given.tolerance)


def check(a: Answer, text: str, *, sig_figs: int, asks: str) -> Verdict:
    """Whether `text` is right: its unit fits the question (which asks for `asks`: "a share"),
    it carries at least `sig_figs` significant figures, and the exact answer `a` lies within
    half a unit of its last digit."""
    given = parse_answer(text)
    # Exact enough for any answer: the given value is exact, the expected one is rounded far
    # below the answer's last digit; exponents as large as the answer may write them.
    precision = given.sig_figs + 40
    with localcontext(Context(prec=precision, Emax=MAX_EMAX, Emin=MIN_EMIN)):
        return _judge(a, given, text.strip(), sig_figs, asks)
