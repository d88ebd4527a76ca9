"""Numbers as people read them: 1.2G, and in Japanese and Chinese 12億 / 12亿 (myriads)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

from ffn_calc.i18n.translate import language

if TYPE_CHECKING:  # the report types only annotate: importing them would load every command
    pass


HUMAN_UNITS = ((10**3, "k"), (10**6, "M"), (10**9, "G"), (10**12, "T"), (10**15, "P"))


# Japanese and Chinese count in myriads: 10^4, 10^8, 10^12, 10^16.
CJK_UNITS = {
    "ja": ((10**4, "万"), (10**8, "億"), (10**12, "兆"), (10**16, "京")),
    "zh": ((10**4, "万"), (10**8, "亿"), (10**12, "万亿"), (10**16, "亿亿")),
}


def human(n: float, unit: str = "") -> str:
    """124.4M, 1.2T: one decimal, in exact arithmetic, so any int works (10**400 too).
    Japanese and Chinese: 1.24億 / 1.24亿 (three significant figures, see _human_cjk)."""
    if isinstance(n, float) and not math.isfinite(n):
        return f"{n:g} {unit}".rstrip()
    units = CJK_UNITS.get(language())
    if units is not None:
        return _human_cjk(n, unit, units)
    x = abs(Fraction(n))
    fits = [i for i, (size, _) in enumerate(HUMAN_UNITS) if x >= size]
    if not fits:
        return f"{n:g} {unit}".rstrip()
    i = fits[-1]
    tenths = math.floor(x * 10 / HUMAN_UNITS[i][0] + Fraction(1, 2))  # round half up
    if tenths >= 10_000 and i + 1 < len(HUMAN_UNITS):  # 999.96k is 1.0M, not 1000.0k
        i += 1
        tenths = math.floor(x * 10 / HUMAN_UNITS[i][0] + Fraction(1, 2))
    sign = "-" if n < 0 else ""
    return f"{sign}{tenths // 10}.{tenths % 10}{HUMAN_UNITS[i][1]}{unit}"


def _human_cjk(n: float, unit: str, units: tuple[tuple[int, str], ...]) -> str:
    """Three significant figures in myriads: 8,388,608 -> 839万, 134,217,728 -> 1.34億,
    6,738,415,616 -> 67.4億, 660,606,025,728 -> 6,610億; below 10^4 the number itself
    (9,999). Exact (Fraction), rounded half up; past the largest unit the figure grows
    (12,300京)."""
    x = abs(Fraction(n))
    sign = "-" if n < 0 else ""
    fits = [i for i, (size, _) in enumerate(units) if x >= size]
    if not fits:
        plain = f"{abs(n):,}" if isinstance(n, int) else f"{abs(n):,g}"
        return f"{sign}{plain}{unit}"
    i = fits[-1]
    while True:
        v = x / units[i][0]  # at least 1
        digits = len(str(math.floor(v)))
        places = 3 - digits  # decimals kept; negative: rounded to tens, hundreds...
        scaled = math.floor(v * Fraction(10) ** places + Fraction(1, 2))  # round half up
        if len(str(scaled)) > 3:  # 9.995 is 10.0, 99.95 is 100
            places -= 1
            scaled = math.floor(v * Fraction(10) ** places + Fraction(1, 2))
        if scaled * Fraction(10) ** -places >= 10_000 and i + 1 < len(units):
            i += 1  # 9,999.5万 is 1.00億, not 10,000万
            continue
        break
    if places > 0:
        whole, part = divmod(scaled, 10**places)
        figure = f"{whole:,}.{part:0{places}d}"
    else:
        figure = f"{scaled * 10**-places:,}"
    return f"{sign}{figure}{units[i][1]}{unit}"
