"""The language people read: English, Japanese or Chinese (gettext catalogs).

What people read is translated: table titles, column headings, notes and conventions, exercise
questions and solutions, verdicts and error messages. What programs read is not: JSON and CSV
are always English (the command line draws them with the language set to English), and so are
JSON keys and every machine-readable value.

The language comes from `--lang`, else FFN_CALC_LANG, else the locale (LC_ALL, LC_MESSAGES,
LANG: ja_JP.UTF-8 gives ja, zh_CN and zh_TW give zh), else English. English needs no catalog:
`_` returns its argument and nothing is loaded, so start-up does not change.

Messages are written in English in the code, `_("...")` where they are used, `N_("...")`
where a constant is defined and translated later; placeholders are `str.format` fields
(`_("{model}: one layer").format(model=name)`), never f-strings inside `_()`. The catalogs are
`ffn_calc/locale/<lang>/LC_MESSAGES/ffn_calc.po` (sources) and `.mo` (compiled, in the wheel);
`python -m ffn_calc.catalogs` extracts, compiles and checks them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

LANGUAGES = ("en", "ja", "zh")
DOMAIN = "ffn_calc"

_language = "en"
_catalogs: dict[str, Any] = {}  # language -> gettext.GNUTranslations, loaded on first use


def N_(message: str) -> str:
    """Mark a message for the catalogs without translating it (translate it where it is shown)."""
    return message


def _(message: str) -> str:
    """The message in the current language (English: the message itself)."""
    if _language == "en":
        return message
    return str(_catalog(_language).gettext(message))


def language() -> str:
    return _language


def from_environment(environ: dict[str, str] | None = None) -> str:
    """FFN_CALC_LANG, else the locale variables, else English."""
    env = os.environ if environ is None else environ
    chosen = env.get("FFN_CALC_LANG", "").strip().lower()
    if chosen:
        return chosen  # checked by set_language
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = env.get(var, "").strip().lower()
        if not value:
            continue
        tag = value.split(":")[0].split(".")[0].replace("-", "_")
        if tag.startswith("ja"):
            return "ja"
        if tag.startswith("zh"):
            return "zh"
        return "en"
    return "en"


def set_language(lang: str | None = None) -> str:
    """Use `lang` (or the environment's choice); an unknown one is a usage error."""
    global _language
    chosen = from_environment() if lang is None else lang.strip().lower()
    if chosen not in LANGUAGES:
        from ffn_calc.errors import UsageError

        _language = "en"  # the message about it cannot be in a language not known

        source = "--lang" if lang is not None else "FFN_CALC_LANG"
        raise UsageError(
            _("{source} {value}: use one of {choices}.").format(
                source=source, value=repr(chosen), choices=", ".join(LANGUAGES)
            )
        )
    _language = chosen
    return chosen


@contextmanager
def use(lang: str) -> Iterator[None]:
    """Draw something in another language (JSON and CSV: English), then switch back."""
    global _language
    before, _language = _language, lang
    try:
        yield
    finally:
        _language = before


def _catalog(lang: str) -> Any:
    found = _catalogs.get(lang)
    if found is None:
        import gettext
        from importlib.resources import files

        path = files("ffn_calc") / "locale" / lang / "LC_MESSAGES" / f"{DOMAIN}.mo"
        try:
            with path.open("rb") as fh:
                found = gettext.GNUTranslations(fh)
        except OSError:  # a checkout whose catalogs are not compiled: English
            found = gettext.NullTranslations()
        _catalogs[lang] = found
    return found
