"""Numbers as people type them into options: one grammar, one meaning per suffix, bounded.

A number is an integer or a decimal (underscores and commas between digits are ignored), with
perhaps an exponent (7e9, 1.5E-3) or a denominator (1/3), then perhaps a suffix. A suffix means
the same in every command; which suffixes a number takes depends on what it measures:

- a count (parameters, FLOPs, tokens, elements): k or K (10^3), M (10^6), G or B (10^9, a
  billion, as in "7B parameters"), T (10^12);
- a size in bytes (`--gpu-memory`, `weights_bytes`, `kv_bytes`): KB, MB, GB, TB (powers of
  1000) or KiB, MiB, GiB, TiB (powers of 1024), in any case; a plain number is bytes. B alone
  is refused (bytes, or billions?), and so are k, M, G, T alone (GB or GiB?);
- a share (`ffn_share`): a fraction from 0 to 1, or a percentage with % (60% is 0.6); a share
  outside 0 to 1 (`ffn_share>60`) is refused, never guessed.

Reading is linear in the text and bounded before any big number is built: at most MAX_CHARS
characters, and exponents from -MAX_EXPONENT to MAX_EXPONENT, so `1e99999999` is refused at
once instead of being expanded into a hundred-million-digit integer.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Literal

from ffn_calc.errors import UsageError
from ffn_calc.i18n.translate import N_, _

Kind = Literal["count", "bytes", "share"]

MAX_CHARS = 100  # no number anyone means is longer
MAX_EXPONENT = 300  # 1e300 is past any count or size (a float ends at 1.8e308)

COUNT_SUFFIXES = {"k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9, "B": 10**9, "T": 10**12}
BYTE_UNITS = {"KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
              "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40}  # fmt: skip
# A bare multiplier on a size: which byte units it could mean (powers of 10 and of 2).
_AMBIGUOUS_BYTES = {"K": (3, 10), "M": (6, 20), "G": (9, 30), "T": (12, 40)}

HINTS: dict[Kind, str] = {
    "count": N_("a count, written plain or with k, M, G or B (10^9), T"),
    "bytes": N_(
        "a size in bytes, written plain or with KB, MB, GB, TB (powers of 1000) or KiB, MiB, "
        "GiB, TiB (powers of 1024)"
    ),
    "share": N_("a share, written as a fraction from 0 to 1 or as a percentage with %"),
}

# Sign, integer digits, decimals, exponent, denominator: every part optional, every repeat
# possessive, so a failed match never backtracks (matched from the start, not to the end).
_NUMBER = re.compile(
    r"(?P<sign>[+-]?)(?P<int>\d[\d_,]*+)?(?:\.(?P<frac>\d[\d_]*+)?)?"
    r"(?:[eE](?P<exp>[+-]?\d++))?(?:/(?P<den>\d[\d_,]*+))?"
)


def cut(text: str, limit: int = 60) -> str:
    """User text as a message quotes it: at most `limit` characters, then '...'."""
    return text if len(text) <= limit else text[:limit] + "..."


def quoted(text: str, limit: int = 60) -> str:
    return repr(cut(text, limit))


def _digits(part: str | None) -> str:
    return (part or "").replace("_", "").replace(",", "")


def read_number(text: str, kind: Kind, where: str, name: str) -> Fraction:
    """The exact value of `text` as a number measuring `kind`, else a UsageError that starts
    with `where` (the option as given) and says what `name` takes."""
    t = text.strip()
    if len(t) > MAX_CHARS:
        raise UsageError(
            _("{where}: {value} is longer than {max} characters; no number is that long.").format(
                where=where, value=quoted(t), max=MAX_CHARS
            )
        )
    m = _NUMBER.match(t)
    assert m is not None  # every part is optional: it matches, perhaps nothing
    whole, frac, den = _digits(m["int"]), _digits(m["frac"]), _digits(m["den"])
    if not (whole or frac) or (m["den"] is not None and (not whole or frac or m["exp"])):
        raise _not_a_number(t, kind, where, name)
    exponent = 0
    if m["exp"] is not None:
        magnitude = m["exp"].lstrip("+-").lstrip("0")
        if len(magnitude) > 4 or int(magnitude or 0) > MAX_EXPONENT:
            raise UsageError(
                _(
                    "{where}: the exponent of {value} is out of range; exponents go from "
                    "-{max} to {max}."
                ).format(where=where, value=quoted(t), max=MAX_EXPONENT)
            )
        exponent = int(m["exp"])
    if m["den"] is not None:
        if not int(den):
            raise _not_a_number(t, kind, where, name)
        value = Fraction(int(whole), int(den))
    else:
        value = Fraction(int(whole + frac), 10 ** len(frac)) * Fraction(10) ** exponent
    if m["sign"] == "-":
        value = -value
    return value * _scale(t[m.end() :].strip(), t, kind, where, name)


def _not_a_number(t: str, kind: Kind, where: str, name: str) -> UsageError:
    return UsageError(
        _("{where}: {value} is not a number; {name} is {hint}.").format(
            where=where, value=quoted(t), name=name, hint=_(HINTS[kind])
        )
    )


def _scale(suffix: str, t: str, kind: Kind, where: str, name: str) -> Fraction:
    """What the suffix multiplies by, if it fits what the number measures."""
    if not suffix:
        return Fraction(1)
    if kind == "count" and suffix in COUNT_SUFFIXES:
        return Fraction(COUNT_SUFFIXES[suffix])
    if kind == "share" and suffix == "%":
        return Fraction(1, 100)
    if kind == "bytes":
        if suffix.upper() in BYTE_UNITS:
            return Fraction(BYTE_UNITS[suffix.upper()])
        if suffix == "B":
            raise UsageError(
                _(
                    "{where}: B alone is ambiguous for a size in bytes (bytes, or billions as "
                    "in 7B parameters): write GB (10^9 bytes), GiB (2^30 bytes) or a plain "
                    "number of bytes."
                ).format(where=where)
            )
        if suffix.upper() in _AMBIGUOUS_BYTES:
            letter = suffix.upper()
            power, binary = _AMBIGUOUS_BYTES[letter]
            raise UsageError(
                _(
                    "{where}: {suffix} alone is ambiguous for a size in bytes ({letter}B is "
                    "10^{power} bytes, {letter}iB 2^{binary}): write {letter}B or {letter}iB."
                ).format(where=where, suffix=suffix, letter=letter, power=power, binary=binary)
            )
    known = suffix in COUNT_SUFFIXES or suffix == "%" or suffix.upper() in BYTE_UNITS
    if not known:
        raise _not_a_number(t, kind, where, name)
    raise UsageError(
        _("{where}: {suffix} does not fit {name}, {hint}.").format(
            where=where, suffix=suffix, name=name, hint=_(HINTS[kind])
        )
    )


def read_share(text: str, where: str, name: str) -> Fraction:
    """A share from 0 to 1: 0.6, 3/5 or 60%; 60 is refused (a percentage without %?)."""
    value = read_number(text, "share", where, name)
    if not 0 <= value <= 1:
        raise UsageError(
            _(
                "{where}: {value} is outside 0 to 1; {name} is a share: write a fraction such as "
                "0.6 or a percentage such as 60%."
            ).format(where=where, value=quoted(text.strip()), name=name)
        )
    return value


def parse_bytes(text: str) -> int:
    """A memory size: 80GB (10^9 bytes each), 80GiB (2^30), 1.5TB, or a plain byte count; B,
    G and the other multipliers alone are refused as ambiguous (see ffn_calc.quantities)."""
    value = read_number(text, "bytes", f"--gpu-memory {quoted(text.strip(), 40)}", "--gpu-memory")
    if value < 1 or value > 2**60:
        raise UsageError(
            _("--gpu-memory {value}: give between 1 byte and 2^60 bytes.").format(
                value=quoted(text.strip(), 40)
            )
        )
    return int(value)
