"""The Typer app: the command registry, output and error handling shared by every command.

Commands are load -> compute -> emit. Core errors (FfnCalcError) become one message on
stderr and exit code 2; nothing is written to stdout on error.
"""

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ffn_calc.errors import FfnCalcError

if TYPE_CHECKING:
    from ffn_calc.views import Table

APP_HELP = "Exact parameter and FLOP counts for Transformers, with the FFN set against attention."

# Every command, registered on the app by name. Building a Typer command costs time at each
# start (Typer inspects every parameter), so `main` builds only the command that was asked for.
COMMANDS: dict[str, Callable[..., None]] = {}


def command(name: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    def register(func: Callable[..., None]) -> Callable[..., None]:
        COMMANDS[name] = func
        return func

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
    if only is None or only == "exercise":
        from ffn_calc.cli.exercise import exercise_app

        sub = exercise_app()
        for info in sub.registered_commands:
            if info.callback is not None:
                info.callback = with_metavars(with_lang(info.callback))
        new.add_typer(
            sub,
            name="exercise",
            help="Homework exercises: list, show, check an answer, solve.",
        )
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


class Lang(StrEnum):
    en = "en"
    ja = "ja"
    zh = "zh"


LANG_OPTION = typer.Option(
    "--lang",
    help="Language of tables, notes and messages: en, ja or zh (default: FFN_CALC_LANG, "
    "else the locale). JSON and CSV stay English.",
)


def with_lang(func: Callable[..., None]) -> Callable[..., None]:
    """Add `--lang` to a command: the language is set before anything is read or written."""
    import functools
    import inspect

    sig = inspect.signature(func)
    if "lang" in sig.parameters:
        return func

    @functools.wraps(func)
    def wrapper(*args: Any, lang: Lang | None = None, **kwargs: Any) -> None:
        from ffn_calc import i18n

        with user_errors():
            i18n.set_language(lang.value if lang is not None else None)
        func(*args, **kwargs)

    param = inspect.Parameter(
        "lang", inspect.Parameter.KEYWORD_ONLY, default=None,
        annotation=Annotated[Lang | None, LANG_OPTION],
    )  # fmt: skip
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
        from ffn_calc.i18n import _

        typer.echo(_("Error: {message}").format(message=exc), err=True)
        raise typer.Exit(exc.exit_code) from None


def views() -> Any:
    """The table builders, imported only when a text format is drawn."""
    import ffn_calc.views

    return ffn_calc.views


def emit(
    report: Any,
    tables: Callable[[], "list[Table]"],
    fmt: Format,
    extra: Callable[[], list[Any]] | None = None,
) -> None:
    """JSON straight from the report; other formats from the plain tables."""
    with output_errors():
        if fmt is Format.json:
            print(report.model_dump_json(indent=2))
        elif fmt is Format.csv:
            from ffn_calc.formats import to_csv
            from ffn_calc.i18n import use

            with use("en"):  # what programs read stays English
                sys.stdout.write(to_csv(tables()))
        elif fmt is Format.markdown:
            from ffn_calc.formats import to_markdown

            sys.stdout.write(to_markdown(tables()))
        else:
            from ffn_calc.render import print_tables

            print_tables(tables(), extra() if extra else None)


# Exit status when stdout cannot be written (a full disk, an I/O error): sysexits' EX_IOERR.
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
    except OSError as exc:
        drop_stdout()
        from ffn_calc.i18n import _

        reason = exc.strerror or exc
        typer.echo(_("Error: cannot write the output: {reason}.").format(reason=reason), err=True)
        raise typer.Exit(EXIT_OUTPUT_ERROR) from None


def drop_stdout() -> None:
    """Point stdout at /dev/null so the exit-time flush of what is buffered cannot fail again."""
    # ValueError: no real file descriptor (an in-process test runner).
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
