"""Languages: choosing one, complete catalogs, one translation per glossary term, English free."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import run

from ffn_calc.i18n import catalogs
from ffn_calc.i18n import translate as i18n

ROOT = Path(__file__).parent.parent
GLOSSARY = tomllib.loads((ROOT / "ffn_calc" / "i18n" / "locale" / "glossary.toml").read_text())[
    "term"
]


def test_every_message_is_translated_and_the_catalogs_are_compiled() -> None:
    """Fails when a message in the code lacks a Japanese or Chinese translation, loses a
    {placeholder}, or the compiled .mo files are older than the .po sources."""
    found = catalogs.problems()
    assert not found, "\n".join(found[:40]) + (
        f"\n... {len(found)} in all" if len(found) > 40 else ""
    )


def test_the_extractor_finds_messages_everywhere() -> None:
    where = {w.split(":")[0] for m in catalogs.extract().values() for w in m.where}
    for path in (
        "ffn_calc/views/params.py",
        "ffn_calc/cli/app.py",
        "ffn_calc/homework/exercises.toml",
    ):
        assert path in where


@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_glossary_terms_are_translated_one_way(lang: str) -> None:
    _, entries = catalogs.read_po(catalogs.po_path(lang))
    bad = []
    for term in GLOSSARY:
        if not term.get("checked"):
            continue
        word = re.compile(rf"(?<![\w-]){re.escape(term['en'])}(?![\w-])", re.IGNORECASE)
        for msgid, e in entries.items():
            text = e.msgstr
            # An identifier or option (d_ff, --seq-len, `layers`) is not the term.
            prose = re.sub(r"`[^`]*`|--[\w-]+|\{[^{}]*\}|\b\w+_\w+\b", " ", msgid)
            if text and word.search(prose) and term[lang] not in text:
                bad.append(f"{term['en']} -> {term[lang]}: {msgid!r} -> {text!r}")
    assert not bad, "\n".join(bad[:30]) + f"\n({len(bad)} in all)"


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "en"),
        ({"LANG": "ja_JP.UTF-8"}, "ja"),
        ({"LANG": "zh_CN.UTF-8"}, "zh"),
        ({"LANG": "zh_TW.UTF-8"}, "zh"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LC_ALL": "ja_JP.UTF-8", "LANG": "en_US.UTF-8"}, "ja"),
        ({"LC_ALL": "", "LC_MESSAGES": "zh_CN", "LANG": "ja_JP"}, "zh"),
        ({"FFN_CALC_LANG": "zh", "LANG": "ja_JP.UTF-8"}, "zh"),
        ({"FFN_CALC_LANG": "EN", "LANG": "ja_JP.UTF-8"}, "en"),
    ],
)
def test_language_from_the_environment(env: dict[str, str], expected: str) -> None:
    assert i18n.from_environment(env) == expected


def test_lang_option_beats_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FFN_CALC_LANG", "ja")
    monkeypatch.setenv("LANG", "ja_JP.UTF-8")
    r = run("params", "--preset", "gpt2-smal", "--lang", "en")
    assert r.stderr.startswith("Error: unknown preset")
    r = run("params", "--preset", "gpt2-smal")
    assert r.exit_code == 2 and not r.stderr.startswith("Error: ")
    monkeypatch.setenv("FFN_CALC_LANG", "fr")
    r = run("params", "--preset", "gpt2-small")
    assert r.exit_code == 2 and "FFN_CALC_LANG 'fr': use one of en, ja, zh" in r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_errors_in_the_language(lang: str) -> None:
    r = run("params", "--preset", "gpt2-smal", "--lang", lang)
    assert r.exit_code == 2 and r.stdout == ""
    assert not r.stderr.startswith("Error:") and "gpt2-smal" in r.stderr


def test_json_and_csv_do_not_change_with_the_language() -> None:
    for args in (["params", "--preset", "gpt2-small"], ["crossover", "--preset", "llama-2-7b"],
                 ["exercise", "list"], ["kv", "--preset", "llama-3-8b", "--context", "100"]):  # fmt: skip
        for fmt in ("json", "csv"):
            outs = {
                lang: run(*args, "--format", fmt, "--lang", lang).stdout for lang in i18n.LANGUAGES
            }
            assert outs["ja"] == outs["en"] == outs["zh"], (args, fmt)


def test_english_loads_no_catalog() -> None:
    code = (
        "import sys, io, contextlib\n"
        "from ffn_calc.cli import main\n"
        "sys.argv = ['ffn-calc', 'params', '--preset', 'gpt2-small', '--lang', 'en']\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n        main()\n    except SystemExit:\n        pass\n"
        "from ffn_calc.i18n import translate as i18n\n"
        "print(i18n.language(), i18n._catalogs)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "en {}"


def test_catalogs_are_in_the_package() -> None:
    for lang in catalogs.TRANSLATED:
        assert catalogs.mo_path(lang).is_file()
        assert str(catalogs.mo_path(lang)).startswith(str(ROOT / "ffn_calc"))


def test_sweep_skip_reasons_read_in_the_language_and_stay_english_in_json() -> None:
    args = ["sweep", "-p", "gpt2-small", "--vary", "n_heads=10:12"]
    ja = run(*args, "--lang", "ja")
    assert ja.exit_code == 0
    assert "n_heads\uff0810\uff09" in ja.stdout  # full-width brackets around 10
    assert "must divide" not in ja.stdout
    doc = run(*args, "--lang", "ja", "--format", "json").json()
    reasons = [r["reason"] for r in doc["skipped_reasons"]]
    assert reasons == [
        "n_heads must divide d_model; set head_dim to use heads that do not divide it"
    ]
