"""Answers: the exact one an exercise computes, one as a person writes it, and the verdict.

An answer is right when its unit fits the question, it carries enough significant figures, and
the exact answer lies within half a unit of its last written digit. Judging knows nothing of
exercises: it takes the computed Answer, the figures the question needs and what it asks for.

How answers are read, the same in every language (`--lang` changes only the verdict's words):

- The text is normalised with Unicode NFKC first, so full-width digits, signs, points, commas,
  spaces and percent signs (U+FF01 to U+FF5E, U+3000) read as their ASCII forms (full-width
  1.34億 is 1.34億) and half-width katakana as full-width. Other compatibility characters that
  NFKC would turn into digits (superscripts as in 10⁸, fractions as ½, circled ①) are refused,
  not misread (10⁸ is not 108).
- 約, 约, 大約, 大约 or およそ (about) in front of any answer changes nothing: 約1.34億 is 1.34億.
- 倍 is a ratio unit like x (28.4倍 is 28.4x); full-width %, パーセント (after the number) and 百分之
  (before it: 百分之45.5) mark a percentage like %. Significant figures and the window are
  those of the ASCII form: 28.4倍 has 3 figures and stands for 28.35 to 28.45.
- 万 (10^4), 億 or 亿 (10^8) and 兆 (10^12) (萬 is read as 万) are multipliers like k, M, G, T,
  and fit the same questions. They are used alone (1.34億, 13421.7728万, 3400万) or composed,
  largest first (1億3400万, 1億3421万7728): each unit follows a number, every number after the
  first is below the step to the unit before it (under 10^4 after 億 before 万; a plain number
  at the end is below the last unit), and only the last number may have decimals. In these
  forms zeros ending the whole number are not significant, since 万-grouping writes them as
  placeholders: the figures run from the first non-zero digit to the last non-zero one, and the
  window is half a unit of that digit. 約1億3400万 has 3 figures (1, 3, 4) and stands for
  133,500,000 to 134,500,000; 1億 has 1 figure. Digits written after a decimal point are
  significant as usual: 1.30億 has 3 figures, 0.50万 has 2.
- What may follow the number changes nothing: a closing 。 or です, an "about" (左右, 前后,
  程度, ほど, くらい: zeros ending a whole number are then placeholders, as after 約: 約134000000
  has 3 figures), a counter or unit word (個, 个, パラメータ, 参数, トークン, 词元, parameters),
  which fits only counts and plain numbers (28.4個 on a ratio is wrong and says why).
- 割 and 成 are tenths: 4.6割 is 46%. ちょうど, 丁度, 正好 or 恰好 (exactly) in front make the
  answer exact: right only when it equals the answer (ちょうど2倍 for exactly 2).
- A fraction is exact, right only when equal: 2/3, its full-width form, a vulgar fraction
  standing alone (not after a digit: 1½ is refused), 3分の2, 三分之二 (Chinese numerals up to
  9,999). 0.666 stays wrong for 2/3 (0.00067 away, more than half its last digit).
- A width (SwiGLU parity) also takes the floor and the ceiling of its exact value, written as
  whole numbers (Answer.whole). A tensor shape is read by `parse_shape`: (1, 8, 2048),
  [1, 8, 2048], torch.Size([1, 8, 2048]), 1x8x2048.
- Anything else cannot be read (exit 2): 1億億, 万3400, 1.2.3億, 1万1億, 2万倍, 百分之45%.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from decimal import MAX_EMAX, MIN_EMIN, ROUND_HALF_EVEN, Context, Decimal, localcontext
from fractions import Fraction
from itertools import pairwise
from typing import Literal

from ffn_calc.counts.terms import Term
from ffn_calc.errors import FfnCalcError
from ffn_calc.i18n.translate import N_, Text, _, say, shown

__all__ = ["Text", "say", "shown"]  # the message type, kept here for its users

Kind = Literal["int", "ratio", "percent", "number"]


# An answer must carry at least this many significant figures (an exercise may ask for more):
# half a unit of the last of two figures is at most 5% of the answer, so 1e8 is not taken for
# 134,217,728 while 1.3e8 is.
MIN_SIG_FIGS = 2


# One line of a worked solution: a sentence (Text, or plain symbols), or a formula's term, which
# the views word as `--explain` does (its name and any words of its formula translated).
Step = str | Text | Term


def english(step: Step) -> str:
    """A step as JSON holds it: `W1: d_model x d_ff = 768 x 3,072 = 2,359,296`."""
    return step.explain() if isinstance(step, Term) else str(step)


@dataclass(frozen=True)
class Answer:
    value: Fraction
    kind: Kind
    steps: list[Step]  # the worked solution: english(step) for JSON, the view's words for people
    # Whole numbers also right, written exactly: the floor and ceiling of a width (d_ff) that
    # is not a whole number, since a layer has a whole number of units.
    whole: tuple[int, ...] = ()
    shape: tuple[int, ...] | None = None  # a tensor shape asked for instead of a number

    def text(self) -> str:
        if self.shape is not None:
            return "[" + ", ".join(str(n) for n in self.shape) + "]"
        return format_value(self.value, self.kind)

    def plain(self) -> int | float | list[int]:
        if self.shape is not None:
            return list(self.shape)
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


def shown_text(text: str) -> str:
    """An answer's text in the reader's language: 28.44x is 28.44倍 in Japanese and Chinese."""
    from ffn_calc.i18n.translate import language

    if language() in ("ja", "zh") and text.endswith("x") and text[:-1][-1:].isdigit():
        return text[:-1] + "倍"
    return text


# --- reading answers as people write them --------------------------------------------------------

# Every run of spaces or digits is possessive (`\s*+`, `\d++`): two runs of spaces with only
# optional parts between them would otherwise be tried in every split on a failed match, which
# took minutes on 百分之 followed by a long run of spaces.
_ANSWER = re.compile(
    r"(?P<pre>百分之)?\s*+(?P<sign>[+-]?)(?P<int>\d{1,3}(?:,\d{3})++(?!\d)|\d++)?"
    r"(?:\.(?P<frac>\d*+))?(?:[eE](?P<exp>[+-]?\d{1,9}+))?\s*+"
    r"(?P<unit>[kKMGBT%xX\u00d7]|倍|パーセント|割|成)?"
)
# Answers are judged exactly however many digits they carry (134217728.000...), but no longer
# than this: a command-line argument is at most 128 KiB on Linux anyway.
MAX_ANSWER_CHARS = 100_000
_SCALE = {"k": 3, "M": 6, "G": 9, "B": 9, "T": 12}
_UNIT = {
    "K": "k", "X": "x", "\u00d7": "x", "倍": "x", "パーセント": "%", "百分之": "%", "割": "%",
    "成": "%",
}  # fmt: skip
_TENTHS = ("割", "成")  # 4.6割 = 46%: a tenth, written as a percentage ten times larger
# 万-grouping: the multipliers of Japanese and Chinese numbers (one number each, largest first).
_CJK_SCALE = {"万": 4, "萬": 4, "億": 8, "亿": 8, "兆": 12}
_ABOUT = re.compile(r"(?:大約|大约|約|约|およそ|ちょうど|丁度|恰好|正好)\s*+")
_EXACTLY = ("ちょうど", "丁度", "恰好", "正好")  # "exactly": no placeholder zeros after it
# What may follow the number and changes nothing but the sentence: a closing 。 or です, an
# "about" (左右, 前后, 程度, ほど, くらい), a counter or unit word (個, 个, パラメータ, 参数,
# トークン, 词元). Counters fit only counts and other plain numbers (not a ratio or a share).
# Literal words anchored at the end, spaces stripped apart: a search stays linear however
# many spaces an answer holds (a leading \s* would be tried from every one of them).
_CLOSING = re.compile(r"(?:です|。|でしょう)$")
_ABOUT_AFTER = re.compile(r"(?:左右|前后|前後|程度|ほど|くらい|ぐらい|上下)$")
_COUNTER = re.compile(
    r"(?:個のパラメータ|个参数|パラメータ|パラメーター|参数|個|个|トークン|词元|tokens?|"
    r"parameters?|params)$"
)
# A fraction as written: 2/3 (in full-width forms too), a vulgar fraction, 3分の2, 三分之二
# (numerator and denominator whole).
_NUMERAL = r"[0-9]++|[〇零一二三四五六七八九十百千两]++"
_FRACTION = (
    re.compile(rf"(?P<sign>[+-]?)(?P<num>{_NUMERAL})\s*+/\s*+(?P<den>{_NUMERAL})"),
    re.compile(rf"(?P<sign>[+-]?)(?P<den>{_NUMERAL})\s*+分[の之]\s*+(?P<num>{_NUMERAL})"),
)
_KANJI_DIGIT = {c: i for i, c in enumerate("〇一二三四五六七八九")} | {"零": 0, "两": 2}
_KANJI_PLACE = {"十": 10, "百": 100, "千": 1000}
_CJK_SIGN = re.compile(r"[+-]?")
_CJK_GROUP = re.compile(
    r"(?P<int>\d{1,3}(?:,\d{3})++(?!\d)|\d++)?(?:\.(?P<frac>\d*+))?\s*+(?P<unit>[万萬億亿兆]?)\s*+"
)
# What NFKC may fold: full-width and half-width forms, no-break spaces. Superscripts (10⁸),
# fractions (½) and circled digits (①) would fold into other numbers (108, 1/2, 1): refused.
_FOLDED = ("<wide>", "<narrow>", "<noBreak>", "<fraction>")
# The units each kind of answer may carry besides none: % only on a share, x only on a ratio,
# the multipliers k, M, G, B, T (and 万, 億, 亿, 兆) only on counts and other plain numbers.
_FITS: dict[Kind, str] = {
    "int": "kMGBT万萬億亿兆", "number": "kMGBT万萬億亿兆", "ratio": "x", "percent": "%",
}  # fmt: skip
_WRITE: dict[Kind, str] = {
    "int": N_("write it plain or with k, M, G, B or T"),
    "number": N_("write it plain or with k, M, G, B or T"),
    "ratio": N_("write it plain or with x"),
    "percent": N_("write it as a fraction or with %"),
}


@dataclass(frozen=True)
class Given:
    """An answer as written: its exact value, half a unit of its last significant digit, its
    significant figures (from the first non-zero digit to the last written one, or in the 万,
    億, 兆 forms without decimals to the last non-zero one; 0 for zero) and its unit ("", "%", "x" or a multiplier k, M, G, B, T, 万, 萬, 億, 亿, 兆: the largest
    written). `mark` is how a Japanese or Chinese unit was spelt (倍, パーセント, 百分之, 億 ...),
    "" for the ASCII ones: an example in a verdict is written the same way."""

    value: Decimal
    tolerance: Decimal
    sig_figs: int
    unit: str
    mark: str = ""
    exact: Fraction | None = None  # a fraction as written (2/3, 3分の2): right only when equal
    counter: bool = False  # a counter word followed (個, パラメータ): fits only counts
    whole: bool = False  # an integer without decimals or a multiplier (10922)
    exactly: bool = False  # ちょうど, 正好 (exactly) in front: right only when equal
    decimals: int = 0  # the decimals written (0.346: 3)


def _unreadable(text: str) -> FfnCalcError:
    return FfnCalcError(
        _(
            "cannot read the answer '{answer}': write a number such as 134217728, 134,217,728, "
            "134.2M, 1.342e8, 28.4x or 46%."
        ).format(answer=text[:100])
    )


def _unreadable_cjk(text: str) -> FfnCalcError:
    return FfnCalcError(
        _(
            "cannot read the answer '{answer}': 万, 億 (亿) and 兆 each follow a number, largest "
            "first, every number after the first below the step to the unit before it, decimals "
            "only in the last (1.34億, 13421.7728万, 1億3400万, 1億3421万7728)."
        ).format(answer=text[:100])
    )


def _normalised(text: str) -> str | None:
    """NFKC, or None when it would fold a character into something else than its width form.
    A vulgar fraction (⅔) stands alone: after a digit (1½) it would fold into another number."""
    for i, ch in enumerate(text):
        tag = unicodedata.decomposition(ch)
        folds = tag.startswith("<") and not tag.startswith(_FOLDED)
        if folds and unicodedata.normalize("NFKC", ch) != ch:
            return None
        if (
            tag.startswith("<fraction>")
            and i
            and unicodedata.normalize("NFKC", text[i - 1]).isdigit()
        ):
            return None
    return unicodedata.normalize("NFKC", text).strip().replace("\u2044", "/")


def _kanji(text: str) -> int | None:
    """A whole number in digits or Chinese numerals up to 9,999 (三, 十二, 二百五十, 2048)."""
    if text.isascii():
        return int(text)
    total, digit, place = 0, None, 10_000
    for ch in text:
        if ch in _KANJI_DIGIT:
            if digit is not None:
                return None
            digit = _KANJI_DIGIT[ch]
        else:
            if _KANJI_PLACE[ch] >= place:  # places fall: 二百五十, not 十百
                return None
            place = _KANJI_PLACE[ch]
            total += (1 if digit is None else digit) * place
            digit = None
    return total + (digit or 0)


def _fraction(body: str) -> Given | None:
    """2/3, 3分の2, 三分之二: an exact fraction, or None when the text is not one."""
    for pattern in _FRACTION:
        m = pattern.fullmatch(body)
        if m is None:
            continue
        if body.startswith("百分之") and m["num"].isascii():
            return None  # 百分之45: a percentage, read below
        num, den = _kanji(m["num"]), _kanji(m["den"])
        if num is None or den is None or not den:
            return None
        value = Fraction(num, den) * (-1 if m["sign"] == "-" else 1)
        return Given(Decimal(0), Decimal(0), 0, "", exact=value)
    return None


def _stripped(normal: str) -> tuple[str, bool, bool]:
    """The number without what may follow it, each at most once and in the order people write
    it (1億3400万 個 程度 です 。), whether an "about" followed it, whether a counter word did."""
    found = {}
    for pattern in (_CLOSING, _CLOSING, _ABOUT_AFTER, _COUNTER):  # です and 。 both may close
        normal = normal.rstrip()
        m = pattern.search(normal, max(0, len(normal) - 12))  # the words are short
        if m and m.start() > 0:
            normal = normal[: m.start()]
            found[pattern] = True
    return normal.strip(), _ABOUT_AFTER in found, _COUNTER in found


def _parse_cjk(text: str, original: str) -> Given:
    """1.34億, 13421.7728万, 1億3400万, 1億3421万7728: numbers followed by 万, 億 (亿), 兆, largest
    first, and perhaps a plain number at the end; the zeros ending the integer are placeholders."""
    sign = _CJK_SIGN.match(text)
    pos = sign.end() if sign else 0
    groups: list[tuple[str, str | None, int, str]] = []  # integer digits, decimals, scale, unit
    while pos < len(text):
        m = _CJK_GROUP.match(text, pos)
        if not m or m.end() == pos or not (m["int"] or m["frac"]):
            raise _unreadable_cjk(original)
        groups.append((m["int"] or "", m["frac"], _CJK_SCALE.get(m["unit"], 0), m["unit"]))
        pos = m.end()
        if not m["unit"]:  # a plain number ends the answer
            break
    if pos < len(text) or not groups or not groups[0][3]:
        raise _unreadable_cjk(original)
    digits = groups[0][0].replace(",", "")
    for before, (whole, _frac, scale, _unit) in pairwise(groups):
        step = before[2] - scale  # the places this number fills below the unit before it
        whole = whole.replace(",", "")
        if before[1] is not None or step <= 0 or not whole or len(whole.lstrip("0")) > step:
            raise _unreadable_cjk(original)
        digits += whole.lstrip("0").rjust(step, "0")
    frac, last = groups[-1][1], groups[-1][2]
    if frac:  # decimals written are significant: 1.30億 has 3 figures
        digits += frac
        exp = last - len(frac)
        significant = digits.lstrip("0")
    else:  # the zeros ending the integer are not: 3400万 has 2
        significant = digits.strip("0")
        exp = last + len(digits) - len(digits.rstrip("0")) if significant else last
        digits = digits.rstrip("0") or "0"
    return Given(
        value=Decimal(f"{sign[0] if sign else ''}{digits}E{exp}"),  # exact, as below
        tolerance=Decimal(f"5E{exp - 1}"),
        sig_figs=len(significant),
        unit=groups[0][3],
        mark=groups[0][3],
    )


def parse_answer(text: str) -> Given:
    """134217728, 134,217,728, 134.2M, 1.342e8, 28.4x, 46%, -0.16, 134217728. (a whole number);
    and as Japanese and Chinese write them (see the module's docstring): full-width digits,
    約1億3400万, 1.34億, 13421.7728万, 28.4倍, 45.5パーセント, 百分之45.5."""
    if len(text) > MAX_ANSWER_CHARS:
        raise FfnCalcError(
            _("the answer is {length} characters long; no answer is longer than {max}.").format(
                length=f"{len(text):,}", max=MAX_ANSWER_CHARS
            )
        )
    normal = _normalised(text)
    if normal is None:
        raise _unreadable(text)
    normal, about_after, counter = _stripped(normal)
    about = _ABOUT.match(normal)
    body = normal[about.end() :] if about else normal
    exactly = about is not None and about[0].startswith(_EXACTLY)
    fraction = _fraction(body)
    if fraction is not None:
        return replace(fraction, counter=counter)
    if any(ch in _CJK_SCALE for ch in body):
        return replace(_parse_cjk(body, text), counter=counter, exactly=exactly)
    m = _ANSWER.fullmatch(body)
    if not m or not (m["int"] or m["frac"]) or (m["pre"] and m["unit"]):
        raise _unreadable(text)
    integer = (m["int"] or "").replace(",", "")
    digits = integer + (m["frac"] or "")
    written = m["pre"] or m["unit"] or ""
    unit = _UNIT.get(written, written)
    tenths = 1 if written in _TENTHS else 0
    exp = int(m["exp"] or 0) + _SCALE.get(unit, 0) + tenths - len(m["frac"] or "")
    sig_figs, last = len(digits.lstrip("0")), exp
    plain = m["frac"] is None and not m["exp"]
    roughly = about_after or (about is not None and not exactly)
    if roughly and plain and digits.strip("0"):
        # 約134000000: after "about" the zeros ending a whole number are placeholders, as
        # they are in 1億3400万 (3 figures, 133,500,000 to 134,500,000)
        zeros = len(digits) - len(digits.rstrip("0"))
        sig_figs, last = len(digits.strip("0")), exp + zeros
    return Given(
        value=Decimal(f"{m['sign']}{digits}E{exp}"),  # exact: no context rounds a constructor
        tolerance=Decimal(f"5E{last - 1}"),
        sig_figs=sig_figs,
        unit=unit,
        mark=written if written in ("倍", "パーセント", "百分之") else "",
        counter=counter,
        whole=plain and not unit,
        exactly=exactly,
        decimals=len(m["frac"] or ""),
    )


# --- judging a written answer against the exact one ----------------------------------------------


@dataclass(frozen=True)
class Verdict:
    correct: bool
    why: Text | None = None  # why, when the value alone does not say it

    @property
    def reason(self) -> str | None:
        """Why, in English (what results and JSON hold); `why.shown()` for people."""
        return None if self.why is None else str(self.why)


def _expected(a: Answer, given: Given) -> Decimal:
    """The exact answer in the units the answer was written in (a share: fraction or %)."""
    expected = Decimal(a.value.numerator) / Decimal(a.value.denominator)
    if a.kind == "percent" and (given.unit == "%" or given.value > 1):
        expected *= 100  # 46% or 45.5 against a share of 0.455
    return expected


def _example(expected: Decimal, figures: int, a: Answer, given: Given) -> str:
    """The exact answer to `figures` significant figures, as an answer of that form: 1.3e8,
    1.3億, 13000万, 2.0倍, 百分之67."""
    if given.mark in _CJK_SCALE:  # in the unit written, the zeros as placeholders
        last = expected.adjusted() - figures + 1
        rounded = expected.quantize(Decimal(f"1E{last}"), rounding=ROUND_HALF_EVEN)
        return f"{rounded.scaleb(-_CJK_SCALE[given.mark]):f}{given.mark}"
    mantissa, _e, exp = f"{float(expected):#.{figures}g}".partition("e")
    text = mantissa.rstrip(".") + (f"e{int(exp)}" if exp else "")
    if given.mark == "百分之":
        return given.mark + text
    if given.mark:  # 倍, パーセント
        return text + given.mark
    percent = a.kind == "percent" and (given.unit == "%" or given.value > 1)
    return text + ("%" if percent else "x" if given.unit == "x" else "")


def _misfit(kind: Kind, given: Given, text: str, asks: Text) -> Text | None:
    """Why the answer's unit does not fit the question, if it does not."""
    if given.counter and kind not in ("int", "number"):
        why = N_("{answer} counts things, but the question asks for {asks} ({how})")
        return say(why, answer=text, asks=asks, how=say(_WRITE[kind]))
    if not given.unit or given.unit in _FITS[kind]:
        return None
    how = say(_WRITE[kind])
    if given.unit == "%":
        why = N_("{answer} is a percentage, but the question asks for {asks} ({how})")
    elif given.unit == "x":
        why = N_("{answer} is a ratio, but the question asks for {asks} ({how})")
    else:
        why = N_("{answer} has the multiplier {unit}, but the question asks for {asks} ({how})")
        return say(why, answer=text, unit=given.unit, asks=asks, how=how)
    return say(why, answer=text, asks=asks, how=how)


def _judge(
    a: Answer, given: Given, text: str, sig_figs: int, asks: Text, reveal: bool = True
) -> Verdict:
    """Right or wrong, and why when the value alone does not say it."""
    if misfit := _misfit(a.kind, given, text, asks):
        return Verdict(False, misfit)
    if given.whole and given.value in a.whole:
        return Verdict(True)
    if given.exact is not None:  # a fraction is exact: right only when it is the answer
        return Verdict(given.exact == a.value)
    if given.exactly:  # ちょうど2倍: exactly 2, right only when the answer is 2
        value = Fraction(given.value)
        if a.kind == "percent" and (given.unit == "%" or value > 1):
            value /= 100
        return Verdict(value == a.value)
    expected = _expected(a, given)
    if not given.value:
        if not expected:
            return Verdict(True)
        return Verdict(
            False,
            say(N_("{answer} is zero, and zero never matches a non-zero answer"), answer=text),
        )
    if not expected or (given.value < 0) != (expected < 0):
        return Verdict(False)
    if given.sig_figs < sig_figs:
        n = given.sig_figs
        few = (
            N_("{answer} has {n} significant figure; give at least {need} (e.g. {example})")
            if n == 1
            else N_("{answer} has {n} significant figures; give at least {need} (e.g. {example})")
        )
        if not reveal:  # an example would give the answer away
            few = (
                N_("{answer} has {n} significant figure; give at least {need}")
                if n == 1
                else N_("{answer} has {n} significant figures; give at least {need}")
            )
            return Verdict(False, say(few, answer=text, n=str(n), need=str(sig_figs)))
        example = _example(expected, sig_figs, a, given)
        return Verdict(False, say(few, answer=text, n=str(n), need=str(sig_figs), example=example))
    return Verdict(abs(given.value - expected) <= given.tolerance)


# A tensor shape as written: (1, 8, 2048), [1, 8, 2048], torch.Size([1, 8, 2048]), 1x8x2048
# (x, X, the multiplication sign or *).
_SHAPE = re.compile(
    r"(?:torch\.Size\(\s*+)?[\[(]?\s*+(?P<dims>\d++(?:\s*+(?:,|x|X|\u00d7|\*)\s*+\d++)*+)"
    r"\s*+,?\s*+[\])]?\s*+\)?"
)


def parse_shape(text: str) -> tuple[int, ...]:
    normal = _normalised(text)
    m = _SHAPE.fullmatch(_stripped(normal)[0]) if normal is not None else None
    if m is None:
        raise FfnCalcError(
            _(
                "cannot read the shape '{answer}': write it as (1, 8, 2048), [1, 8, 2048] or "
                "1\u00d78\u00d72048."
            ).format(answer=text[:100])
        )
    return tuple(int(n) for n in re.split(r"\s*+(?:,|x|X|\u00d7|\*)\s*+", m["dims"].strip()))


def check(
    a: Answer,
    text: str,
    *,
    sig_figs: int,
    asks: str,
    decimals: int | None = None,
    reveal: bool = True,
) -> Verdict:
    """Whether `text` is right: its unit fits the question (which asks for `asks`: "a share",
    a message translated where the verdict is shown), it carries at least `sig_figs`
    significant figures, and the exact answer `a` lies within half a unit of its last digit."""
    if a.shape is not None:  # a shape is right when every size is
        return Verdict(parse_shape(text) == a.shape)
    given = parse_answer(text)
    # Exact enough for any answer: the given value is exact, the expected one is rounded far
    # below the answer's last digit; exponents as large as the answer may write them.
    precision = given.sig_figs + 40
    with localcontext(Context(prec=precision, Emax=MAX_EMAX, Emin=MIN_EMIN)):
        verdict = _judge(a, given, text.strip(), sig_figs, say(asks), reveal)
    exact = given.exact is not None or given.exactly
    if verdict.correct and decimals is not None and not exact and given.decimals < decimals:
        # the question asks for a value "to 3 decimals"
        why = N_("{answer} has {n} decimals; the question asks for {need}")
        return Verdict(
            False, say(why, answer=text.strip(), n=str(given.decimals), need=str(decimals))
        )
    return verdict
