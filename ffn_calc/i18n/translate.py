"""The language people read: English, Japanese or Chinese (gettext catalogs).

What people read is translated: table titles, column headings, notes and conventions, exercise
questions and solutions, verdicts and error messages. What programs read is not: JSON and CSV
are always English (the command line draws them with the language set to English), and so are
JSON keys and every machine-readable value.

The language comes from `--lang`, else FFN_CALC_LANG, else the locale as gettext reads it
(LANGUAGE, then LC_ALL, LC_MESSAGES, LANG: ja_JP.UTF-8 gives ja, zh_CN and zh_TW give zh; see
from_locale), else English. `--lang` and FFN_CALC_LANG are read alike: `ja`, `JA` and
`ja_JP.UTF-8` all give ja (see read). English needs no catalog:
`_` returns its argument and nothing is loaded, so start-up does not change.

Messages are written in English in the code, `_("...")` where they are used, `N_("...")`
where a constant is defined and translated later; placeholders are `str.format` fields
(`_("{model}: one layer").format(model=name)`), never f-strings inside `_()`. The catalogs are
`ffn_calc/i18n/locale/<lang>/LC_MESSAGES/ffn_calc.po` (sources) and `.mo` (compiled, in the wheel);
`python -m ffn_calc.i18n.catalogs` extracts, compiles and checks them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

LANGUAGES = ("en", "ja", "zh")
DOMAIN = "ffn_calc"

_language = "en"

# A few of each language's most common characters (kana, kanji or simplified hanzi, the
# full-width punctuation of every sentence): an output encoding that cannot write these cannot
# write the language (Japanese on latin-1 or ASCII, Simplified Chinese on Big5), and the command
# line writes English instead. Shift_JIS, EUC-JP and GBK write them.
PROBES = {"ja": "日本語のパラメータ数、合計：（）。", "zh": "简体中文参数数量、总计：（）。"}  # noqa: RUF001
_catalogs: dict[str, Any] = {}  # language -> gettext.GNUTranslations, loaded on first use


def N_(message: str) -> str:
    """Mark a message for the catalogs without translating it (translate it where it is shown)."""
    return message


def _(message: str) -> str:
    """The message in the current language (English: the message itself), or the word an
    exercise catalog chose for it (see prefer)."""
    if _language == "en":
        return message
    chosen = _terms.get(_language)
    if chosen and message in chosen:
        return chosen[message]
    return str(_catalog(_language).gettext(message))


# Words an exercise catalog chooses in place of the catalogs' own (the course's texts say
# 注意機構 for attention where the tables say アテンション): language -> msgid -> word.
_terms: dict[str, dict[str, str]] = {}


def prefer(words: Mapping[str, Mapping[str, str]]) -> None:
    """Use these words for these messages until `terms_scope` ends (a command's run)."""
    for lang, table in words.items():
        _terms.setdefault(lang, {}).update(table)


@contextmanager
def terms_scope() -> Iterator[None]:
    """The words chosen with `prefer` inside, forgotten after (one command of the CLI)."""
    before = {lang: dict(table) for lang, table in _terms.items()}
    try:
        yield
    finally:
        _terms.clear()
        _terms.update(before)


class Text:
    """A message for people, kept apart from its fields: `str()` is the English text (what
    results and JSON hold), `shown()` the text in the current language. A field may itself be
    a Text (translated with it), or a plain string that a view translates (`shown(kind=...)`:
    a function per field name). Build one with `say(N_("..."), field=...)`."""

    __slots__ = ("fields", "msgid")

    def __init__(self, msgid: str, fields: tuple[tuple[str, str | Text], ...] = ()) -> None:
        self.msgid = msgid
        self.fields = fields

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Text) and (self.msgid, self.fields) == (other.msgid, other.fields)

    def __hash__(self) -> int:
        return hash((self.msgid, self.fields))

    def __repr__(self) -> str:
        return f"Text({self.msgid!r}, {self.fields!r})"

    def __str__(self) -> str:
        if not self.fields:
            return self.msgid
        return self.msgid.format(**{k: str(v) for k, v in self.fields})

    def shown(self, **translate: Callable[[str], str]) -> str:
        if not self.fields:
            return _(self.msgid)
        values = {
            k: translate[k](v) if k in translate and isinstance(v, str) else shown(v, **translate)
            for k, v in self.fields
        }
        return _(self.msgid).format(**values)


def say(msgid: str, **fields: str | Text) -> Text:
    return Text(msgid, tuple(fields.items()))


def shown(line: str | Text, **translate: Callable[[str], str]) -> str:
    """A line in the current language (a plain str, a formula with numbers, as it is)."""
    return line.shown(**translate) if isinstance(line, Text) else line


def language() -> str:
    return _language


def read(value: str) -> str | None:
    """The language a value names, however it is written: `ja`, `JA`, `ja_JP`, `ja-JP`,
    `ja_JP.UTF-8`, `zh_TW.Big5`, `en_US@euro`; `C` and `POSIX` are English. None for a
    language ffn-calc does not have (`fr`, `de_DE.UTF-8`)."""
    tag = value.strip().split(".")[0].split("@")[0].replace("-", "_").lower()
    if tag in ("c", "posix"):
        return "en"
    lang = tag.split("_")[0]
    return lang if lang in LANGUAGES else None


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """FFN_CALC_LANG read like LANG (`ja`, `JA`, `ja_JP.UTF-8`; one ffn-calc does not have is
    returned as written, for set_language to refuse), else the locale's language."""
    env = os.environ if environ is None else environ
    chosen = env.get("FFN_CALC_LANG", "").strip()
    if chosen:
        return read(chosen) or chosen
    return from_locale(env)


def from_locale(env: Mapping[str, str]) -> str:
    """The language gettext would choose: LANGUAGE (a colon-separated list, the first entry
    ffn-calc has; English counts) before LC_ALL, LC_MESSAGES and LANG (the first one set).
    As in GNU gettext, LANGUAGE is ignored when the locale is C or POSIX (set so, or no
    locale variable set at all): `LC_ALL=C` gives English whatever LANGUAGE says, as it does
    for every GNU program; C.UTF-8 is a locale of its own, under which LANGUAGE counts. Another
    locale than Japanese or Chinese gives English."""
    locale = next(
        (env[v].strip() for v in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(v, "").strip()),
        "C",
    )
    if locale not in ("C", "POSIX"):
        for entry in env.get("LANGUAGE", "").split(":"):
            lang = read(entry) if entry.strip() else None
            if lang is not None:
                return lang
    return read(locale) or "en"


def set_language(lang: str | None = None) -> str:
    """Use `lang` (`--lang`), or else the environment's choice; both are read alike
    (`ja`, `JA`, `ja_JP.UTF-8`). An unknown language is a usage error."""
    global _language
    given = from_environment() if lang is None else lang
    chosen = read(given)
    if chosen is None:
        from ffn_calc.errors import UsageError

        _language = "en"  # the message about it cannot be in a language not known

        source = "--lang" if lang is not None else "FFN_CALC_LANG"
        raise UsageError(
            _("{source} {value}: use one of {choices}.").format(
                source=source, value=repr(given.strip()), choices=", ".join(LANGUAGES)
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

        path = files("ffn_calc.i18n") / "locale" / lang / "LC_MESSAGES" / f"{DOMAIN}.mo"
        try:
            with path.open("rb") as fh:
                found = gettext.GNUTranslations(fh)
        except OSError:  # a checkout whose catalogs are not compiled: English
            found = gettext.NullTranslations()
        _catalogs[lang] = found
    return found
