"""`ffn-calc exercise`: list, show, check an answer, solve."""

from pathlib import Path
from typing import Annotated

import typer

from ffn_calc.cli.app import Format, FormatOpt, emit, user_errors, views

CatalogOpt = Annotated[
    Path | None,
    typer.Option("--exercises", help="An instructor's catalog (TOML, the built-in format)."),
]


def exercise_app() -> typer.Typer:
    """The `exercise` sub-commands: list, show, check, solve."""
    sub = typer.Typer(no_args_is_help=True, rich_markup_mode="rich")

    @sub.command("list")
    def list_cmd(exercises: CatalogOpt = None, format: FormatOpt = Format.table) -> None:
        """List the exercises with their computed answers."""
        from ffn_calc.exercises import exercises_report

        with user_errors():
            report = exercises_report(exercises)
        emit(report, lambda: views().exercise_tables(report), format)

    @sub.command("show")
    def show_cmd(
        exercise_id: Annotated[str, typer.Argument(metavar="ID", help="An exercise id.")],
        exercises: CatalogOpt = None,
    ) -> None:
        """Print an exercise's question."""
        from ffn_calc.exercises import find, load_catalog

        with user_errors():
            typer.echo(f"{exercise_id}: {find(load_catalog(exercises), exercise_id).question}")

    @sub.command("check")
    def check_cmd(
        exercise_id: Annotated[str, typer.Argument(metavar="ID", help="An exercise id.")],
        answer: Annotated[
            str,
            typer.Argument(
                help="Your answer: 134217728, 134,217,728, 134.2M, 1.342e8, 28.4x, 46%."
            ),
        ],
        exercises: CatalogOpt = None,
    ) -> None:
        """Check an answer within the precision it is written in; exit 1 when it is wrong."""
        from ffn_calc.exercises import check, find, load_catalog

        with user_errors():
            ok, expected, _ = check(find(load_catalog(exercises), exercise_id), answer)
        if ok:
            typer.echo(f"Right: {answer} (exact: {expected.text()}).")
            return
        typer.echo(
            f"Wrong: {answer}; expected {expected.text()}. See `ffn-calc exercise solve {exercise_id}`."
        )
        raise typer.Exit(1)

    @sub.command("solve")
    def solve_cmd(
        exercise_id: Annotated[str, typer.Argument(metavar="ID", help="An exercise id.")],
        exercises: CatalogOpt = None,
    ) -> None:
        """Print the worked solution: each formula with the numbers put in."""
        from ffn_calc.exercises import answer, find, load_catalog

        with user_errors():
            e = find(load_catalog(exercises), exercise_id)
            a = answer(e)
        typer.echo(f"{e.id}: {e.question}\n")
        for step in a.steps:
            typer.echo(f"  {step}")
        typer.echo(f"\nAnswer: {a.text()}")

    return sub
