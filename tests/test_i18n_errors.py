"""Error messages in the reader's language: presets, config files, invariants, config.json, files.

The English texts stay as they were (pinned here); a stand-in catalog shows that each message goes
through the catalogs while the sweep's JSON keeps its English reasons; and, once the compiled
catalogs hold translations, Japanese and Chinese messages differ from English but keep every
identifier, file name and number.
"""

from __future__ import annotations

import gettext
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import run

from ffn_calc.i18n import translate as i18n

CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def translated(lang: str) -> bool:
    return bool(i18n._catalog(lang).gettext("Error: {message}") != "Error: {message}")


def _cases(tmp_path: Path) -> dict[str, tuple[list[str], str, list[str]]]:
    """name -> (arguments, the English message, identifiers every language keeps)."""
    (tmp_path / "zero.toml").write_text("d_model = 64\nn_layers = 0\nn_heads = 4\nd_ff = 256\n")
    (tmp_path / "gqa.toml").write_text("d_model = 64\nn_layers = 2\nn_heads = 4\nn_kv_heads = 3\nd_ff = 256\n")  # fmt: skip
    hf = tmp_path / "hf"
    hf.mkdir()
    # num_experts_per_tok left out: DeepseekV2Config has no default for it (required).
    (hf / "config.json").write_text(json.dumps({
        "model_type": "deepseek_v2", "num_hidden_layers": 2, "num_attention_heads": 4,
        "hidden_size": 64, "intermediate_size": 256, "vocab_size": 1000,
    }))  # fmt: skip
    missing = tmp_path / "missing.toml"
    return {
        "unknown preset": (
            ["--preset", "gpt2-smal"],
            "Error: unknown preset 'gpt2-smal'. Did you mean gpt2-small",
            ["gpt2-smal", "gpt2-small", "llama-2-7b"],
        ),
        "bad TOML value": (
            ["--config", str(tmp_path / "zero.toml")],
            f"Error: '{tmp_path / 'zero.toml'}', line 2: n_layers = 0: input should be greater than 0.",
            ["zero.toml", "n_layers = 0", "2"],
        ),
        "invariant": (
            ["--config", str(tmp_path / "gqa.toml")],
            f"Error: '{tmp_path / 'gqa.toml'}': n_kv_heads (3) must divide n_heads (4).",
            ["gqa.toml", "n_kv_heads", "n_heads", "3", "4"],
        ),
        "missing config.json key": (
            ["--hf-config", str(hf)],
            f"Error: '{hf / 'config.json'}': required field 'num_experts_per_tok' is missing.",
            ["config.json", "'num_experts_per_tok'"],
        ),
        "file that does not exist": (
            ["--config", str(missing)],
            f"Error: config file '{missing}' does not exist.",
            ["missing.toml"],
        ),
    }


CASES = ["unknown preset", "bad TOML value", "invariant", "missing config.json key",
         "file that does not exist"]  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_english_messages_are_unchanged(case: str, tmp_path: Path) -> None:
    args, english, _keep = _cases(tmp_path)[case]
    r = run("params", *args, "--lang", "en")
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.startswith(english), r.stderr


@pytest.fixture
def marked() -> Iterator[None]:
    """A stand-in Japanese catalog that marks every message it is asked for: «message»."""

    class Marked(gettext.NullTranslations):
        def gettext(self, message: str) -> str:
            return f"«{message}»"

    before = i18n._catalogs.get("ja")
    i18n._catalogs["ja"] = Marked()
    try:
        yield
    finally:
        if before is None:
            i18n._catalogs.pop("ja", None)
        else:
            i18n._catalogs["ja"] = before
        i18n.set_language("en")


def test_messages_go_through_the_catalog(marked: None, tmp_path: Path) -> None:
    """Each message is looked up whole, and the pieces put into it (the line, the kind of
    file, the invariant) are looked up on their own."""
    cases = _cases(tmp_path)
    r = run("params", *cases["invariant"][0], "--lang", "ja")
    gqa = tmp_path / "gqa.toml"
    assert f"«'{gqa}': «n_kv_heads (3) must divide n_heads (4)».»" in r.stderr
    r = run("params", *cases["bad TOML value"][0], "--lang", "ja")
    zero = tmp_path / "zero.toml"
    assert f"««'{zero}', line 2»: n_layers = 0: «input should be greater than 0».»" in r.stderr
    r = run("params", *cases["file that does not exist"][0], "--lang", "ja")
    assert f"««config file» '{tmp_path / 'missing.toml'}' does not exist.»" in r.stderr
    r = run("params", *cases["missing config.json key"][0], "--lang", "ja")
    config = tmp_path / "hf" / "config.json"
    assert f"«'{config}': required field 'num_experts_per_tok' is missing.»" in r.stderr
    r = run("params", "--preset", "gpt2-small", "--config", str(gqa), "--lang", "ja")
    assert "«choose one model source: «--preset and --config» were both given.»" in r.stderr


def test_sweep_reasons_stay_english_in_json(marked: None) -> None:
    args = ["sweep", "-p", "gpt2-small", "--vary", "n_kv_heads=5,6", "--format", "json"]
    out = run(*args, "--lang", "ja").json()
    assert [s["reason"] for s in out["skipped_reasons"]] == ["n_kv_heads must divide n_heads"]
    assert out == run(*args, "--lang", "en").json()


@pytest.mark.parametrize("lang", ["ja", "zh"])
@pytest.mark.parametrize("case", CASES)
def test_errors_in_japanese_and_chinese(lang: str, case: str, tmp_path: Path) -> None:
    if not translated(lang):
        pytest.skip(f"the compiled {lang} catalog has no translations yet")
    args, english, keep = _cases(tmp_path)[case]
    en = run("params", *args, "--lang", "en")
    r = run("params", *args, "--lang", lang)
    assert r.exit_code == en.exit_code == 2 and r.stdout == ""
    assert r.stderr != en.stderr and CJK.search(r.stderr), r.stderr
    body = english.removeprefix("Error: ").split(": ")[-1][:30]
    assert body not in r.stderr, r.stderr  # the sentence itself is translated
    for token in keep:
        assert token in r.stderr, (token, r.stderr)
