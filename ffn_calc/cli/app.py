"""The Typer app: the command registry, output and error handling shared by every command.

Commands are load -> compute -> emit. Core errors (FfnCalcError) become one message on
stderr and exit code 2; nothing is written to stdout on error.
"""

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


def build_app(only: str | None = None) -> typer.Typer:
    """The Typer app with every command, or with one (the one being run)."""
    new = typer.Typer(
        name="ffn-calc",
        no_args_is_help=True,
        rich_markup_mode="rich",
        add_completion=False,
        pretty_exceptions_enable=False,
        help=APP_HELP,
    )
    if only is not None:
        new.callback()(lambda: None)  # keep `ffn-calc NAME ...` a group with one command
    for name, func in COMMANDS.items():
        if only is None or name == only:
            new.command(name)(func)
    if only is None or only == "exercise":
        from ffn_calc.cli.exercise import exercise_app

        new.add_typer(
            exercise_app(),
            name="exercise",
            help="Homework exercises: list, show, check an answer, solve.",
        )
    return new


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


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn core errors into a message on stderr and exit code 2, without a traceback."""
    try:
        yield
    except FfnCalcError as exc:
        typer.echo(f"Error: {exc}", err=True)
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
    try:
        if fmt is Format.json:
            print(report.model_dump_json(indent=2))
        elif fmt is Format.csv:
            from ffn_calc.formats import to_csv

            sys.stdout.write(to_csv(tables()))
        elif fmt is Format.markdown:
            from ffn_calc.formats import to_markdown

            sys.stdout.write(to_markdown(tables()))
        else:
            from ffn_calc.render import print_tables

            print_tables(tables(), extra() if extra else None)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, as a process killed by SIGPIPE would.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise typer.Exit(141) from None
