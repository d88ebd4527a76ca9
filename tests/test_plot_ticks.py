"""Figures never mislabel a number: axis ticks in every language, titles in the reader's words."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("matplotlib")

from ffn_calc.i18n import translate as i18n
from ffn_calc.output import plot as figures

# The units each language writes a tick in (ffn_calc/views/numbers.py: HUMAN_UNITS, CJK_UNITS).
UNITS = {
    "en": {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15},
    "ja": {"万": 10**4, "億": 10**8, "兆": 10**12, "京": 10**16},
    "zh": {"万": 10**4, "亿": 10**8, "万亿": 10**12, "亿亿": 10**16},
}
TICK = re.compile(r"(?P<number>[\d,]+(?:\.\d+)?)(?P<unit>\D*)")


def value(text: str, lang: str) -> Fraction:
    m = TICK.fullmatch(text)
    assert m, text
    assert not m["number"].endswith(".0") and not re.search(r"\.\d*0$", m["number"]), text
    return Fraction(m["number"].replace(",", "")) * (UNITS[lang][m["unit"]] if m["unit"] else 1)


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
@pytest.mark.parametrize("k", range(16))
@pytest.mark.parametrize("m", [1, 2, 5])
def test_a_tick_reads_as_its_value(lang: str, k: int, m: int) -> None:
    # 10^k x {1, 2, 5}: matplotlib's ticks on a linear or log axis; each written exactly
    # (1億 for 10^8, not 10億: the trailing ".00" of 1.00億 dropped before the unit only).
    with i18n.use(lang):
        text = figures.tick_text(float(m * 10**k))
    assert value(text, lang) == m * 10**k, text


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_tick_keeps_its_decimals(lang: str) -> None:
    # 1.5 x 10^8 and 2.5 x 10^4: decimals that say something stay.
    with i18n.use(lang):
        for v in (150_000_000, 25_000, 1_250_000_000):
            assert value(figures.tick_text(float(v)), lang) == v


def test_ja_and_zh_ticks_are_spelt_as_the_units() -> None:
    with i18n.use("ja"):
        assert [figures.tick_text(v) for v in (1e4, 1e8, 2e8, 1e5)] == ["1万", "1億", "2億", "10万"]
    with i18n.use("zh"):
        assert [figures.tick_text(v) for v in (1e4, 1e8, 2e9)] == ["1万", "1亿", "20亿"]


@pytest.mark.filterwarnings("ignore:Glyph")
@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_the_title_translates_the_layer_kind(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    from ffn_calc.views.labels import stack_label

    monkeypatch.setattr(figures, "cjk_font", lambda lang: "DejaVu Sans")
    for args in (["crossover", "-p", "gpt2-small"], ["crossover", "-p", "gpt2-small", "--decode"]):
        out = tmp_path / f"{lang}.svg"
        r = cli(*args, "--plot", str(out), "--lang", lang)
        assert r.exit_code == 0, r.stderr
        raw = out.read_text(encoding="utf-8")
        with i18n.use(lang):
            decoder = stack_label("decoder")
        assert decoder != "decoder"
        assert decoder in raw
        assert " decoder " not in raw
