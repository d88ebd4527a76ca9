"""Choosing the language: --lang, else FFN_CALC_LANG, else the locale as gettext reads it.

- LANGUAGE (a colon-separated list: the first entry ffn-calc has, English included) comes
  before LC_ALL, LC_MESSAGES and LANG, as in gettext; as in GNU gettext it is ignored when the
  locale is C or POSIX (or no locale variable is set), so `LC_ALL=C` gives English.
- FFN_CALC_LANG and --lang are read alike, in any case, as a language or a locale name:
  `ja`, `JA`, `ja_JP`, `ja-JP`, `ja_JP.UTF-8` all give ja.
"""

from __future__ import annotations

import pytest

from ffn_calc.i18n import translate as i18n
from tests.conftest import run


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        # LANGUAGE before the locale variables
        ({"LANG": "en_US.UTF-8", "LANGUAGE": "ja"}, "ja"),
        ({"LC_ALL": "zh_CN.UTF-8", "LANGUAGE": "ja_JP"}, "ja"),
        ({"LANG": "ja_JP.UTF-8", "LANGUAGE": "en"}, "en"),
        # a list: the first entry ffn-calc has (English counts: it is always there)
        ({"LANG": "en_US.UTF-8", "LANGUAGE": "fr:de:zh_CN:ja"}, "zh"),
        ({"LANG": "ja_JP.UTF-8", "LANGUAGE": "fr:en_GB:zh"}, "en"),
        ({"LANG": "ja_JP.UTF-8", "LANGUAGE": "fr:de"}, "ja"),  # none it has: the locale
        ({"LANG": "ja_JP.UTF-8", "LANGUAGE": ""}, "ja"),
        ({"LANG": "ja_JP.UTF-8", "LANGUAGE": "::"}, "ja"),
        # the C locale: LANGUAGE ignored, as in GNU gettext
        ({"LANG": "C", "LANGUAGE": "ja"}, "en"),
        ({"LC_ALL": "POSIX", "LANG": "ja_JP.UTF-8", "LANGUAGE": "ja"}, "en"),
        ({"LANGUAGE": "ja"}, "en"),  # no locale variable set: the C locale
        ({"LANG": "C.UTF-8", "LANGUAGE": "zh"}, "zh"),  # C.UTF-8 is a locale of its own
        # FFN_CALC_LANG read like LANG, in any case, before everything else
        ({"FFN_CALC_LANG": "ja_JP.UTF-8"}, "ja"),
        ({"FFN_CALC_LANG": "JA"}, "ja"),
        ({"FFN_CALC_LANG": "zh-TW", "LANGUAGE": "ja", "LANG": "ja_JP.UTF-8"}, "zh"),
        ({"FFN_CALC_LANG": "en_US.UTF-8", "LANG": "ja_JP.UTF-8"}, "en"),
        ({"FFN_CALC_LANG": "C", "LANG": "ja_JP.UTF-8"}, "en"),
        # the locale variables in their order, the codeset and modifier ignored
        ({"LC_ALL": "", "LC_MESSAGES": "zh_CN.GB18030", "LANG": "ja_JP"}, "zh"),
        ({"LANG": "ja_JP.eucJP@modifier"}, "ja"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
    ],
)
def test_language_from_the_environment(env: dict[str, str], expected: str) -> None:
    assert i18n.from_environment(env) == expected


@pytest.mark.parametrize("value", ["ja", "JA", "Ja", "ja_JP", "ja-JP", "ja_JP.UTF-8", "JA_jp.utf8"])
def test_lang_option_and_environment_read_a_value_alike(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--lang VALUE and FFN_CALC_LANG=VALUE give the same Japanese error message."""
    by_option = run("params", "--preset", "gpt2-smal", "--lang", value)
    monkeypatch.setenv("FFN_CALC_LANG", value)
    by_env = run("params", "--preset", "gpt2-smal")
    assert by_option.exit_code == by_env.exit_code == 2
    assert by_option.stderr == by_env.stderr and by_option.stderr.startswith("エラー")


@pytest.mark.parametrize("value", ["fr", "FR", "de_DE.UTF-8", "japanese"])
def test_a_language_ffn_calc_does_not_have_is_refused_alike(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    by_option = run("params", "--preset", "gpt2-small", "--lang", value)
    assert by_option.exit_code == 2 and by_option.stdout == ""
    assert f"--lang {value!r}: use one of en, ja, zh" in by_option.stderr
    monkeypatch.setenv("FFN_CALC_LANG", value)
    by_env = run("params", "--preset", "gpt2-small")
    assert by_env.exit_code == 2 and by_env.stdout == ""
    assert f"FFN_CALC_LANG {value!r}: use one of en, ja, zh" in by_env.stderr


def test_language_takes_precedence_over_the_locale_on_the_command_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("FFN_CALC_LANG")
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    monkeypatch.setenv("LANGUAGE", "zh_CN:ja")
    assert run("params", "--preset", "gpt2-smal").stderr.startswith("错误")
    monkeypatch.setenv("LC_ALL", "C")  # C: LANGUAGE ignored
    assert run("params", "--preset", "gpt2-smal").stderr.startswith("Error:")
    assert run("params", "--preset", "gpt2-smal", "--lang", "JA").stderr.startswith("エラー")


def test_help_shows_the_languages() -> None:
    r = run("params", "--help")
    assert "[en|ja|zh]" in r.stdout
