"""Wrapping text into lines of terminal cells, for Chinese and Japanese as for English (no
Rich here: the writer passes its measure, `cells`, a string's width in terminal cells, so a
line this module says fits is one the writer draws whole; output/rich.py passes Rich's).

Every line is broken at spaces, or inside a long word after its punctuation, never inside a
number, and no line ends with a space. A Chinese or Japanese character takes two cells. Such
text has no spaces, so a line may also break between two of its characters (not before
closing punctuation, not after opening punctuation, never inside a number such as 1.34億,
nor inside an ASCII word).
"""

from __future__ import annotations

import re
from collections.abc import Callable

Cells = Callable[[str], int]  # a string's width in terminal cells

SEGMENT_MAX = 16  # a word's piece up to this wide is never cut (architecture, not architectu/re)
# CJK text: a word up to this wide (4 characters) moves to the next line whole, not split, and
# a column holding a longer run of CJK characters is at least this wide.
CJK_RUN_MIN = 8
# A number as the tables write one: 1,234,567 / -12.5% / 0.3457312 / 32768/3 / 124.4M / 28.44x,
# and in Japanese and Chinese 1.34億 / 839万 / 1.00万亿 (5.28億B: bytes).
NUMBER = re.compile(r"[-+]?\d(?:[\d,./]*\d)?(?:[%xkMGTP]|(?:万亿|亿亿|[万億兆京亿])B?)?")
# A line does not start with closing punctuation, nor end with opening punctuation (kinsoku).
NO_START = frozenset(
    "、。，．,.:;!?)]}）」』】〕〉》％%・：；！？ー…‥ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ々"  # noqa: RUF001
)
NO_END = frozenset("([{（「『【〔〈《")  # noqa: RUF001


def _wide(ch: str, cells: Cells) -> bool:
    return cells(ch) > 1


def _katakana(ch: str) -> bool:
    return "\u30a1" <= ch <= "\u30fa" or ch == "\u30fc"  # ァ..ヺ and ー, not ・


def _units(word: str, cells: Cells) -> list[str]:
    """A word (no spaces) in the pieces a line may break between without a space: before and
    after each wide (CJK) character, but not inside a katakana word, before closing
    punctuation, after opening punctuation or after a digit, and never inside a number or an
    ASCII word."""
    if word.isascii():
        return [word]
    spans = [m.span() for m in NUMBER.finditer(word)]
    cuts = [
        k for k in range(1, len(word))
        if (_wide(word[k - 1], cells) or _wide(word[k], cells))
        and not (_katakana(word[k - 1]) and _katakana(word[k]))
        and word[k] not in NO_START and word[k - 1] not in NO_END and not word[k - 1].isdigit()
        and not any(a < k < b for a, b in spans)
    ]  # fmt: skip
    return [word[a:b] for a, b in zip([0, *cuts], [*cuts, len(word)], strict=True)]


def _segments(word: str, cells: Cells) -> list[str]:
    """A word in the pieces it may be cut into: after each punctuation mark outside a number
    (not after an opening CJK bracket)."""
    spans = [m.span() for m in NUMBER.finditer(word)]
    cuts = [
        k for k in range(1, len(word))
        if not word[k - 1].isalnum() and not (_wide(word[k - 1], cells) and word[k - 1] in NO_END)
        and not any(a < k < b for a, b in spans)
    ]  # fmt: skip
    return [word[a:b] for a, b in zip([0, *cuts], [*cuts, len(word)], strict=True)]


def _fold(segment: str, width: int, cells: Cells) -> list[str]:
    """A segment wider than `width` cut anywhere but inside a number (which stays whole)."""
    pieces: list[str] = []
    while cells(segment) > width:
        spans = [m.span() for m in NUMBER.finditer(segment)]
        allowed = [k for k in range(1, len(segment)) if not any(a < k < b for a, b in spans)]
        fitting = [k for k in allowed if cells(segment[:k]) <= width]
        if not allowed:
            break
        k = max(fitting) if fitting else min(allowed)  # else: a number wider than the line
        pieces.append(segment[:k])
        segment = segment[k:]
    return [*pieces, segment]


def _cut(word: str, width: int, cells: Cells) -> list[str]:
    """A word wider than `width` in lines: cut after punctuation where it can, never inside
    a number (a number wider than `width` stays whole)."""
    lines: list[str] = []
    line = ""
    for segment in _segments(word, cells):
        if cells(line + segment) <= width:
            line += segment
            continue
        if line:
            lines.append(line)
        *full, line = _fold(segment, width, cells)
        lines += full
    return [*lines, line]


def wrap(text: str, width: int, cells: Cells) -> list[str]:
    """Lines of at most `width` cells, broken at spaces and inside runs of CJK text wider
    than CJK_RUN_MIN (_units); see _cut for words wider than the line."""
    lines: list[str] = []
    for para in text.split("\n"):
        if cells(para) <= width:
            lines.append(para.rstrip())
            continue
        line = ""
        for word in para.split():
            # A short word goes to the next line whole (割合, not 割/合); a longer CJK run
            # fills the line and breaks between its characters.
            units = _units(word, cells) if cells(word) > CJK_RUN_MIN else [word]
            for i, unit in enumerate(units):
                candidate = f"{line} {unit}" if line and i == 0 else line + unit
                if cells(candidate) <= width:
                    line = candidate
                    continue
                if line:
                    lines.append(line)
                *full, line = _cut(unit, width, cells)
                lines += full
        lines.append(line)
    return lines


def longest_number(text: str, cells: Cells) -> int:
    """The widest number in `text` (a number is never broken)."""
    return max((cells(m.group()) for m in NUMBER.finditer(text)), default=0)


def natural(text: str, cells: Cells) -> int:
    """The widest line of `text` as written."""
    return max(cells(line) for line in text.split("\n"))


def longest_segment(text: str, cells: Cells) -> int:
    """The widest piece of a word that is not cut (up to SEGMENT_MAX): a piece between
    punctuation; in CJK text, a katakana word, or CJK_RUN_MIN cells of a longer run."""
    pieces = (_piece(s, cells) for w in text.split() for s in _segments(w, cells))
    return min(max(pieces, default=0), SEGMENT_MAX)


def _piece(segment: str, cells: Cells) -> int:
    if segment.isascii():
        return cells(segment)
    units = max(cells(u) for u in _units(segment, cells))
    return max(units if units <= SEGMENT_MAX else 0, min(cells(segment), CJK_RUN_MIN))
