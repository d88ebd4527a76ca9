"""Words as the course writes them: 倍 for a ratio in Japanese and Chinese, 規約 (not 約定) for
a convention in Japanese, no English words left in the ja/zh tables the course shows, and in
Chinese a wrong answer (答案错误) told apart from an input error (错误)."""

from __future__ import annotations

import pytest
from conftest import run

from ffn_calc.i18n import catalogs


@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_a_ratio_is_written_with_bai(lang: str) -> None:
    # ffn-4096-vs-gpt2: 134,217,728 / 4,718,592 = 28.44 (tests/test_answers_cjk.py)
    r = run("exercise", "check", "ffn-4096-vs-gpt2", "28.4x", "--lang", lang)
    assert r.exit_code == 0 and "28.44倍" in r.stdout and "28.44x" not in r.stdout
    r = run("exercise", "list", "--lang", lang)
    assert "28.44倍" in r.stdout and "28.44x" not in r.stdout
    assert "28.44x" in run("exercise", "list", "-f", "json", "--lang", lang).stdout  # JSON: English


@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_no_4x_in_the_translations(lang: str) -> None:
    _, entries = catalogs.read_po(catalogs.po_path(lang))
    assert not [e.msgstr for e in entries.values() if "4x" in e.msgstr.replace("28.4x", "")]


def test_ja_says_kiyaku_for_a_convention() -> None:
    _, entries = catalogs.read_po(catalogs.po_path("ja"))
    assert not [e.msgstr for e in entries.values() if "約定" in e.msgstr]


@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_no_english_words_in_the_tables(lang: str) -> None:
    out = run("compare", "gpt2-small", "llama-2-7b", "--lang", lang).stdout
    for word in ("plain", "gated", "encoder-decoder"):
        assert word not in out
    assert "weight + bias" not in run("params", "-p", "gpt2-small", "--lang", lang).stdout


def test_zh_tells_a_wrong_answer_from_an_input_error() -> None:
    wrong = run("exercise", "check", "ffn-4096", "2", "--lang", "zh")
    assert wrong.exit_code == 1 and wrong.stdout.startswith("答案错误")
    error = run("exercise", "check", "ffn-4096", "lots", "--lang", "zh")
    assert error.exit_code == 2 and error.stderr.startswith("错误")
