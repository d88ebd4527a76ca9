"""The Typer app: the command registry, output and error handling shared by every command.

Commands are load -> compute -> emit. Core errors (FfnCalcError) become one message on
stderr and exit code 2; nothing is written to stdout on error.

Output is checked against the encoding of stdout before it is written (fit): a language the
encoding cannot write falls back to English with a note (fit_language), chart bars fall back
to ASCII, JSON escapes, and anything else that cannot be written exits EXIT_OUTPUT_ERROR (74)
with nothing on stdout. Messages go through `say`, which never fails: a full or closed stderr
does not change the exit code.
"""

import contextlib
import io
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ffn_calc.errors import FfnCalcError
from ffn_calc.i18n.translate import N_

if TYPE_CHECKING:
    from ffn_calc.views.table import Table

APP_HELP = "Exact parameter and FLOP counts for Transformers, with the FFN set against attention."

# Every command, registered on the app by name. Building a Typer command costs time at each
# start (Typer inspects every parameter), so `main` builds only the command that was asked for.
COMMANDS: dict[str, Callable[..., None]] = {}
# Groups of sub-commands (`exercise list|show|check|solve`): name -> (help, a function that
# builds the group's Typer app), registered by their modules as the commands are.
GROUPS: dict[str, tuple[str, Callable[[], typer.Typer]]] = {}


def command(name: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    def register(func: Callable[..., None]) -> Callable[..., None]:
        COMMANDS[name] = func
        return func

    return register


def group(name: str, help: str) -> Callable[[Callable[[], typer.Typer]], Callable[[], typer.Typer]]:
    def register(build: Callable[[], typer.Typer]) -> Callable[[], typer.Typer]:
        GROUPS[name] = (help, build)
        return build

    return register


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("ffn-calc")
    except PackageNotFoundError:  # run from a checkout that is not installed
        return "unknown (not installed)"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"ffn-calc {version()}")
        raise typer.Exit()


def _root(
    show_version: Annotated[
        bool,
        typer.Option("--version", help="Print the version and exit.", is_eager=True, callback=_show_version),
    ] = False,
) -> None:  # fmt: skip
    """The top level: options that come before the command."""


def build_app(only: str | None = None) -> typer.Typer:
    """The Typer app with every command, or with one (the one being run).

    Shell completion (`--install-completion`, `--show-completion`) is on the full app only:
    the one-command app that `main` builds for a run does not pay for it.
    """
    new = typer.Typer(
        name="ffn-calc",
        no_args_is_help=True,
        rich_markup_mode="rich",
        add_completion=only is None,
        pretty_exceptions_enable=False,
        help=APP_HELP,
    )
    new.callback()(with_metavars(_root))  # also keeps `ffn-calc NAME ...` a group of one
    for name, func in COMMANDS.items():
        if only is None or name == only:
            new.command(name)(with_metavars(with_lang(func)))
    for name, (help_text, build) in GROUPS.items():
        if only is None or name == only:
            sub = build()
            for info in sub.registered_commands:
                if info.callback is not None:
                    info.callback = with_metavars(with_lang(info.callback))
            new.add_typer(sub, name=name, help=help_text)
    return new


def _flag_type(self: typer.core.TyperOption, ctx: Any) -> str | None:
    return "" if self.is_flag else _typer_display_type(self, ctx)


def _argument_type(self: typer.core.TyperArgument, ctx: Any) -> str | None:
    return _metavar(self.type_descriptor.annotation) or ""


# Typer 0.29 prints Python types in help ("<bool>" for every flag, --help and Typer's own
# completion options included; "<str>" for arguments). A flag takes no value, so it shows
# none; arguments show TEXT / PATH / INTEGER like the options (see with_metavars).
_typer_display_type = typer.core.TyperOption.display_type_rich
typer.core.TyperOption.display_type_rich = _flag_type  # type: ignore[method-assign]
typer.core.TyperArgument.display_type_rich = _argument_type  # type: ignore[method-assign,assignment]


_typer_process_value = getattr(typer.core, "_TyperParameter", None)


def _patch_process_value() -> None:
    """Typer 0.2x builds a Pydantic adapter for every parameter of the command run, given or
    not (about a millisecond each), only to turn a missing value into None. An option that was
    not given needs no adapter: its value is None (or () for a repeated one), as Typer's own
    coercion returns. Twenty-odd model options are not given on most runs."""
    cls = _typer_process_value
    original = getattr(cls, "process_value", None)
    if cls is None or original is None or getattr(original, "_ffn_calc", False):
        return  # another Typer: leave it as it is

    def process_value(self: Any, ctx: Any, value: Any) -> Any:
        if value is not None:
            return original(self, ctx, value)
        value = () if (self.multiple or self.nargs == -1) else None
        if self.required and self.value_is_missing(value):
            return original(self, ctx, None)  # Typer's own message for a missing value
        return value if self.callback is None else self.callback(ctx, self, value)

    process_value._ffn_calc = True  # type: ignore[attr-defined]
    cls.process_value = process_value


_patch_process_value()


def _metavar(annotation: Any, decls: str = "") -> str | None:
    """FILE / PATH / INTEGER / FLOAT / TEXT / [a|b], as usage lines write them; "" for flags."""
    import types
    import typing
    from pathlib import Path

    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1:
        return _metavar(args[0], decls)
    if typing.get_origin(annotation) is list:
        return _metavar(args[0], decls)
    if annotation is bool:
        return ""
    if isinstance(annotation, type) and issubclass(annotation, StrEnum):
        return "[" + "|".join(m.value for m in annotation) + "]"
    if annotation is Path:
        return "FILE" if ("--config" in decls or "--exercises" in decls) else "PATH"
    if "--preset" in decls:
        return "NAME"
    names = {int: "INTEGER", float: "FLOAT", str: "TEXT"}
    return names.get(annotation) if isinstance(annotation, type) else None


def with_metavars(func: Callable[..., None]) -> Callable[..., None]:
    """Give every option of `func` a metavar in the usual style (Typer would print Python
    types such as <list[Path]> or <bool>)."""
    import inspect
    import typing

    for p in inspect.signature(func).parameters.values():
        if typing.get_origin(p.annotation) is not Annotated:
            continue
        base, *meta = typing.get_args(p.annotation)
        for info in meta:
            if isinstance(info, typer.models.OptionInfo) and info.metavar is None:
                # Inside Annotated, Typer takes the first positional argument (`default`)
                # as a name too.
                decls = " ".join(str(d) for d in (info.default, *(info.param_decls or ())))
                info.metavar = _metavar(base, decls)
            elif isinstance(info, typer.models.ArgumentInfo) and info.metavar is None:
                info.metavar = p.name.upper()  # NAME in usage lines, like the options
    return func


LANG_OPTION = typer.Option(
    "--lang",
    metavar="[en|ja|zh]",
    autocompletion=lambda: ["en", "ja", "zh"],
    help="Language of tables, notes and messages: en, ja or zh, in any case, or a locale name "
    "such as ja_JP.UTF-8 (default: FFN_CALC_LANG, else the locale). JSON and CSV stay English.",
)


def with_lang(func: Callable[..., None]) -> Callable[..., None]:
    """Add `--lang` to a command: the language is set before anything is read or written,
    read as FFN_CALC_LANG is (i18n.read), and kept only if the output can be written in it
    (fit_language)."""
    import functools
    import inspect

    sig = inspect.signature(func)
    if "lang" in sig.parameters:
        return func

    @functools.wraps(func)
    def wrapper(*args: Any, lang: str | None = None, **kwargs: Any) -> None:
        from ffn_calc.i18n import translate as i18n

        with user_errors():
            i18n.set_language(lang)
        fmt = getattr(kwargs.get("format"), "value", None)
        fit_language(quiet=fmt in ("json", "csv", "toml"))
        with i18n.terms_scope():  # words an exercise catalog chose hold for this command only
            func(*args, **kwargs)

    param = inspect.Parameter(
        "lang",
        inspect.Parameter.KEYWORD_ONLY,
        default=None,
        annotation=Annotated[str | None, LANG_OPTION],
    )
    params = [*sig.parameters.values(), param]
    wrapper.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {**getattr(func, "__annotations__", {}), "lang": param.annotation}
    return wrapper


class Format(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"
    markdown = "markdown"


FormatOpt = Annotated[
    Format, typer.Option("--format", "-f", help="Output: table, json, csv or markdown.")
]
ExplainOpt = Annotated[
    bool, typer.Option("--explain", help="Print every term's formula with the numbers put in.")
]


def given(ctx: typer.Context, *names: str) -> list[str]:
    """Of the parameters `names`, those the user gave (not left at their default), in the
    order the command declares them."""
    out = []
    for p in ctx.command.params:
        if p.name in names:
            source = ctx.get_parameter_source(p.name)
            if source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP"):
                out.append(p.name)
    return out


def spelled(ctx: typer.Context, name: str) -> str:
    """A parameter as the user wrote it: --no-lm-head for lm_head given false."""
    p = next(p for p in ctx.command.params if p.name == name)
    secondary = getattr(p, "secondary_opts", None)
    if secondary and ctx.params.get(name) is False:
        return str(secondary[0])
    opts = [o for o in p.opts if o.startswith("--")] or list(p.opts)
    return str(opts[0])


def refuse(ctx: typer.Context, names: tuple[str, ...], message: str, **values: str) -> None:
    """Exit 2 when the user gave any of the parameters `names`: `message` (translated, with
    {option}, the first one given, as the user wrote it) on stderr."""
    got = given(ctx, *names)
    if got:
        from ffn_calc.errors import UsageError

        with user_errors():
            raise UsageError(message.format(option=spelled(ctx, got[0]), **values))


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn core errors into a message on stderr and exit code 2, without a traceback."""
    try:
        yield
    except FfnCalcError as exc:
        from ffn_calc.i18n.translate import _

        say(_("Error: {message}").format(message=exc))
        raise typer.Exit(exc.exit_code) from None


def say(line: str) -> None:
    """A line on stderr for people. It never fails: stderr is what a failure would be told on
    (console.main makes a full or closed stderr swallow what is written to it, and a character
    its encoding lacks is written as a backslash escape)."""
    stream = sys.stderr
    if stream is None:  # started with stderr closed (`2>&-`)
        return
    try:
        stream.write(line + "\n")
        stream.flush()
    except UnicodeEncodeError:  # an encoding set to be strict (PYTHONIOENCODING=latin-1:strict)
        encoding = getattr(stream, "encoding", None) or "ascii"
        with contextlib.suppress(OSError, ValueError):
            stream.write((line + "\n").encode(encoding, "backslashreplace").decode(encoding))
            stream.flush()
    except (OSError, ValueError):
        pass  # nowhere left to tell it; the exit code still does


class _Quiet(io.RawIOBase):
    """A file descriptor whose writes never fail: what cannot be written is dropped."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        try:
            return os.isatty(self.fd)
        except OSError:
            return False

    def write(self, data: Any) -> int:
        try:
            return os.write(self.fd, data)
        except OSError:  # a full device, a closed pipe, an I/O error
            return len(memoryview(data).cast("B"))


def quiet_stderr() -> None:
    """Make stderr a stream whose writes never fail (a full device, `2>/dev/full`, a closed
    pipe): a failed message must not turn into exit code 1, nor into a traceback that cannot
    be written either. A character stderr's encoding lacks is written as a backslash escape,
    as Python's own stderr does. A closed stderr (`2>&-`) becomes /dev/null, so that code
    writing to sys.stderr needs no test for None. Done once, by the console script."""
    old = sys.stderr
    if old is None:  # started with stderr closed (`2>&-`): messages go nowhere, and fail never
        with contextlib.suppress(OSError):
            sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (for the whole run)
        return
    try:
        fd = old.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test runner)
        return
    sys.stderr = io.TextIOWrapper(
        io.BufferedWriter(_Quiet(fd)),
        encoding=encoding_of(old),
        errors="backslashreplace",
        line_buffering=True,
        write_through=True,
    )


def emit(
    report: Any,
    fmt: Format,
    explain: bool = False,
    extra: Callable[[], list[Any]] | None = None,
) -> None:
    """Any report, the same way: JSON straight from the report; other formats from the plain
    tables its class names (`view`, see views.registry), with each term's formula under them
    when `explain`. The whole output is made, then checked against stdout's encoding (see
    fit), then written: nothing is written when it cannot all be."""

    def tables() -> "list[Table]":
        from ffn_calc.views.registry import tables_for

        return tables_for(report, explain) or []

    with output_errors():
        if fmt is Format.json:
            write(report.model_dump_json(indent=2) + "\n", json=True)
        elif fmt is Format.csv:
            from ffn_calc.i18n.translate import use
            from ffn_calc.output.csv import to_csv

            with use("en"):  # what programs read stays English
                write(to_csv(tables()))
        elif fmt is Format.markdown:
            from ffn_calc.output.markdown import to_markdown

            write(in_a_fitting_language(lambda: to_markdown(tables())))
        else:
            from ffn_calc.output.rich import draw

            write(in_a_fitting_language(lambda: draw(tables(), extra() if extra else None)))


# --- what the output's encoding can write -----------------------------------------------------

# Drawing characters a legacy encoding (latin-1, ASCII, Big5 ...) may lack, and what they are
# written as there: the shades of a chart's bars. Rich draws its table rules in ASCII itself
# when the encoding is not a UTF one.
ASCII_GLYPHS = str.maketrans(
    {"\u2588": "#", "\u2592": "+", "\u2591": ".", "\u2501": "-", "\u2500": "-", "\u2502": "|"}
)
# Error handlers that never fail: the user asked for missing characters to be replaced
# (PYTHONIOENCODING=ascii:replace), so the output is written with them replaced.
LENIENT = {"replace", "ignore", "backslashreplace", "xmlcharrefreplace", "namereplace"}


def encoding_of(stream: Any) -> str:
    return getattr(stream, "encoding", None) or "utf-8"


def encodes(text: str, encoding: str) -> bool:
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return False
    except LookupError:  # an encoding Python does not know: it fails on the first write too
        return text.isascii()
    return True


def fit(text: str, json: bool = False) -> str:
    """`text` as stdout's encoding can write it, or UnicodeEncodeError. Where a character is
    missing: JSON escapes it (\\uXXXX, the same document); chart bars are drawn in ASCII
    (ASCII_GLYPHS); anything else cannot be written."""
    stream = sys.stdout
    encoding = encoding_of(stream)
    if encodes(text, encoding):
        return text
    if json:
        return "".join(c if c.isascii() else _json_escape(c) for c in text)
    plain = text.translate(ASCII_GLYPHS)
    if getattr(stream, "errors", "strict") not in LENIENT:
        plain.encode(encoding)  # raises UnicodeEncodeError, naming the first missing character
    return plain


def _json_escape(c: str) -> str:
    code = ord(c)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a UTF-16 surrogate pair, as JSON writes characters beyond the BMP
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def write(text: str, json: bool = False) -> None:
    """Write the output (or a whole piece of it) to stdout, all of it or nothing (fit)."""
    sys.stdout.write(fit(text, json))


class Streamed:
    """stdout for output written piece by piece (a sweep's rows). A piece is written only when
    all of it can be (fit). When the first cannot, nothing is written and the error is raised;
    a later one (after rows already written) is written with the missing characters as
    backslash escapes, and the error is raised once everything is written (`done`)."""

    def __init__(self) -> None:
        self.started = False
        self.missing: UnicodeEncodeError | None = None

    def write(self, text: str) -> int:
        try:
            text = fit(text)
        except UnicodeEncodeError as exc:
            if not self.started:
                raise
            self.missing = self.missing or exc
            encoding = encoding_of(sys.stdout)
            text = (
                text.translate(ASCII_GLYPHS).encode(encoding, "backslashreplace").decode(encoding)
            )
        self.started = self.started or bool(text)
        return sys.stdout.write(text)

    def flush(self) -> None:
        sys.stdout.flush()

    def done(self) -> None:
        if self.missing is not None:
            raise self.missing


LANGUAGE_NAMES = {"ja": N_("Japanese"), "zh": N_("Chinese (Simplified)")}


def fit_language(quiet: bool = False) -> None:
    """Keep the language only if stdout and stderr can write it: under a terminal encoding
    that cannot (Simplified Chinese on Big5, Japanese on latin-1 or ASCII) everything is
    written in English, with one line on stderr saying why (`quiet`: not for JSON and CSV,
    which are English anyway). The test is i18n.PROBES[language], a few of the language's
    most common characters; the output is checked as a whole again when it is written."""
    from ffn_calc.i18n import translate as i18n

    lang = i18n.language()
    if lang == "en":
        return
    probe = i18n.PROBES[lang]
    streams = [s for s in (sys.stdout, sys.stderr) if s is not None]
    missing = [encoding_of(s) for s in streams if not encodes(probe, encoding_of(s))]
    if missing:
        i18n.set_language("en")
        if not quiet:
            _language_note(lang, missing[0])


def _language_note(lang: str, encoding: str) -> None:
    from ffn_calc.i18n.translate import _

    say(
        _(
            "Note: the output's encoding ({encoding}) cannot write {language}; writing "
            "English (use a UTF-8 locale, or set PYTHONIOENCODING=utf-8)."
        ).format(encoding=encoding, language=_(LANGUAGE_NAMES[lang]))
    )


def in_a_fitting_language(render: Callable[[], str]) -> str:
    """What `render` draws, in the current language if stdout's encoding can write all of it,
    else (a character the probe did not cover) drawn again in English, with a note."""
    from ffn_calc.i18n import translate as i18n

    text = render()
    lang = i18n.language()
    if lang == "en":
        return text
    try:
        return fit(text)
    except UnicodeEncodeError:
        i18n.set_language("en")
        _language_note(lang, encoding_of(sys.stdout))
        return render()


# Exit status when stdout cannot be written (a full disk, an I/O error, an encoding without
# a character of the output): sysexits' EX_IOERR.
EXIT_OUTPUT_ERROR = 74


@contextmanager
def output_errors() -> Iterator[None]:
    """Write to stdout and flush; a closed pipe ends quietly with 141 (as SIGPIPE would), any
    other write error with one line on stderr and EXIT_OUTPUT_ERROR, never a traceback."""
    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        drop_stdout()
        raise typer.Exit(141) from None
    except UnicodeEncodeError as exc:
        from ffn_calc.i18n.translate import _

        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()  # what was written (a sweep's rows) stays
        char = exc.object[exc.start] if isinstance(exc.object, str) else "?"
        say(
            _(
                "Error: cannot write the output: standard output's encoding ({encoding}) has "
                "no {character}; use a UTF-8 locale, or set PYTHONIOENCODING=utf-8."
            ).format(encoding=encoding_of(sys.stdout), character=f"U+{ord(char):04X}")
        )
        raise typer.Exit(EXIT_OUTPUT_ERROR) from None
    except OSError as exc:
        drop_stdout()
        from ffn_calc.i18n.translate import _

        reason = exc.strerror or exc
        say(_("Error: cannot write the output: {reason}.").format(reason=reason))
        raise typer.Exit(EXIT_OUTPUT_ERROR) from None


def drop_stdout() -> None:
    """Point stdout at /dev/null so the exit-time flush of what is buffered cannot fail again."""
    # ValueError: no real file descriptor (an in-process test runner).
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
