"""`ffn-calc exercise`: list, show, check an answer, solve."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ffn_calc.cli.app import (
    Format,
    FormatOpt,
    emit,
    group,
    output_errors,
    user_errors,
    write,
)

if TYPE_CHECKING:
    from ffn_calc.homework.exercises import ExerciseResult

CatalogOpt = Annotated[
    Path | None,
    typer.Option(
        "--catalog",
        "--exercises",
        help="An instructor's catalog (TOML, the built-in format), or a built-in one by name: "
        "course (the course texts' figures).",
    ),
]
VariantOpt = Annotated[
    int | None,
    typer.Option(
        "--variant",
        metavar="SEED",
        help="Other sizes for the same questions (one seed per student; the same seed gives "
        "the same numbers and key).",
    ),
]


CHECK_HELP = (
    "Check an answer within the precision it is written in; exit 1 when it is wrong.\n\n"
    "The answer is right when the exact answer lies within half a unit of its last written "
    "digit (134.2M: 134,150,000 to 134,250,000) and it carries at least 2 significant figures, "
    "or more where the exercise asks for more (1e8 is not accepted for 134,217,728; 1.3e8 is). "
    "Zero never matches a non-zero answer.\n\n"
    "Units must fit the question: % only on a share, x only on a ratio, k, M, G, B, T only on "
    "a count or another plain number. A share written plain is a fraction up to 1 and a "
    "percentage above 1 (0.455 or 45.5).\n\n"
    "Japanese and Chinese answers are read the same way, whatever --lang is. Full-width "
    "characters count as their ASCII forms (\uff11\uff0e\uff13\uff14億 is 1.34億). 約, 约, "
    "大約, 大约 or およそ (about) in front changes nothing. 倍 is a ratio like x (28.4倍); \uff05, パーセント and the "
    "prefix 百分之 (百分之45.5) are percentages like %. 万 (10^4), 億 or 亿 (10^8) and 兆 "
    "(10^12) are multipliers like k, M, G, T: alone (1.34億, 13421.7728万) or largest first, "
    "each after a number (約1億3400万, 1億3421万7728), decimals only in the last number. In "
    "these forms zeros ending the number are not significant: 約1億3400万 has 3 significant "
    "figures and stands for 133,500,000 to 134,500,000 (right for 134,217,728); 1億 has 1 and "
    "is too imprecise; digits after a decimal point count (1.30億 has 3).\n\n"
    "An answer too imprecise to judge, or with a unit that does not fit, is wrong (exit 1) and "
    "the verdict says why; an answer that cannot be read as a number (1億億, 万3400, 1.2.3億) "
    "exits 2."
)

IdArg = Annotated[str, typer.Argument(metavar="ID", help="An exercise id.")]


def _result(
    catalog: Path | None,
    exercise_id: str,
    given: str | None = None,
    variant: int | None = None,
    reveal: bool = True,
) -> "ExerciseResult":
    from ffn_calc.homework.catalog import find, load_catalog
    from ffn_calc.homework.exercises import exercise_result
    from ffn_calc.homework.variants import check_seed

    with user_errors():
        if variant is not None:
            check_seed(variant)
        return exercise_result(
            find(load_catalog(catalog, words=True), exercise_id), given, variant, reveal
        )


def _emit(result: "ExerciseResult", lines: list[str], fmt: Format) -> None:
    """Plain lines for people; JSON, CSV and Markdown from the result."""
    if fmt is Format.table:
        from ffn_calc.output.rich import console, wrap

        width = console().width
        out = []
        for line in lines:
            indent = line[: len(line) - len(line.lstrip(" "))]
            out += [
                indent + part for part in wrap(line.strip(), max(20, width - len(indent))) or [""]
            ]
        with output_errors():
            write("".join(f"{line}\n" for line in out))  # all of it, or nothing (app.fit)
        return
    emit(result, fmt)


@group("exercise", "Homework exercises: list, show, check an answer, solve.")
def exercise_app() -> typer.Typer:
    """The `exercise` sub-commands: list, show, check, solve."""
    sub = typer.Typer(no_args_is_help=True, rich_markup_mode="rich")

    @sub.command("list")
    def list_cmd(
        exercises: CatalogOpt = None, variant: VariantOpt = None, format: FormatOpt = Format.table
    ) -> None:
        """List the exercises with their computed answers."""
        from ffn_calc.homework.catalog import load_catalog
        from ffn_calc.homework.exercises import exercises_report
        from ffn_calc.homework.variants import check_seed

        with user_errors():
            if variant is not None:
                check_seed(variant)
            report = exercises_report(load_catalog(exercises, words=True), variant)
        emit(report, format)

    @sub.command("sheet")
    def sheet_cmd(
        exercises: CatalogOpt = None,
        answers: Annotated[
            bool, typer.Option("--answers", help="The key: each answer with its worked solution.")
        ] = False,
        variant: VariantOpt = None,
        format: Annotated[
            Format,
            typer.Option("--format", "-f", help="Output: markdown (default), table, json or csv."),
        ] = Format.markdown,
    ) -> None:
        """A worksheet to print (Markdown): the questions, or with --answers the key."""
        from ffn_calc.homework.catalog import load_catalog
        from ffn_calc.homework.sheet import sheet
        from ffn_calc.homework.variants import check_seed

        with user_errors():
            if variant is not None:
                check_seed(variant)
            report = sheet(load_catalog(exercises, words=True), answers=answers, variant=variant)
        if format in (Format.markdown, Format.table):
            from ffn_calc.views.sheet import sheet_markdown

            with output_errors():
                write(sheet_markdown(report, markup=format is Format.markdown) + "\n")
            return
        emit(report, format)

    @sub.command("grade")
    def grade_cmd(
        answers_file: Annotated[
            Path,
            typer.Argument(
                metavar="ANSWERS.csv",
                help="The class's answers: CSV with the columns student, exercise, answer and "
                "optionally variant.",
            ),
        ],
        exercises: CatalogOpt = None,
        format: FormatOpt = Format.table,
    ) -> None:
        """Grade a class: a verdict per answer (right, wrong, unreadable, and why) and a score
        per student."""
        from ffn_calc.homework.catalog import load_catalog
        from ffn_calc.homework.grading import grade_file

        with user_errors():
            report = grade_file(answers_file, load_catalog(exercises, words=True))
        emit(report, format)

    @sub.command("show")
    def show_cmd(
        exercise_id: IdArg,
        exercises: CatalogOpt = None,
        variant: VariantOpt = None,
        format: FormatOpt = Format.table,
    ) -> None:
        """Print an exercise's question."""
        result = _result(exercises, exercise_id, variant=variant)
        _emit(result, [f"{result.id}: {result.shown_question()}"], format)

    # A negative answer (-5) is an answer, not an option: unknown options pass through as
    # arguments, and an option misspelt (--formt) is then an extra argument, still exit 2.
    @sub.command("check", help=CHECK_HELP, context_settings={"ignore_unknown_options": True})
    def check_cmd(
        exercise_id: IdArg,
        answer: Annotated[
            str,
            typer.Argument(
                help="Your answer: 134217728, 134,217,728, 134.2M, 1.342e8, 28.4x, 46%, -0.16."
            ),
        ],
        exercises: CatalogOpt = None,
        variant: VariantOpt = None,
        no_reveal: Annotated[
            bool,
            typer.Option(
                "--no-reveal",
                help="Say right or wrong (and why) without giving the answer, for practice.",
            ),
        ] = False,
        format: FormatOpt = Format.table,
    ) -> None:
        """Check an answer within the precision it is written in; exit 1 when it is wrong."""
        from ffn_calc.i18n.translate import _

        r = _result(exercises, exercise_id, answer, variant, reveal=not no_reveal)
        if no_reveal:
            r = r.hidden()
        if r.correct:
            right = _("Right: {given}.") if no_reveal else _("Right: {given} (exact: {answer}).")
            _emit(r, [right.format(given=answer, answer=r.shown_answer())], format)
            return
        reason = r.shown_reason()
        if no_reveal:
            wrong = _("Wrong: {given}. {reason}.") if reason else _("Wrong: {given}.")
        elif reason:
            wrong = _(
                "Wrong: {given}; expected {answer}. {reason}. See `ffn-calc exercise solve {id}`."
            )
        else:
            wrong = _("Wrong: {given}; expected {answer}. See `ffn-calc exercise solve {id}`.")
        line = wrong.format(given=answer, answer=r.shown_answer(), reason=reason, id=exercise_id)
        _emit(r, [line], format)
        raise typer.Exit(1)

    @sub.command("solve")
    def solve_cmd(
        exercise_id: IdArg,
        exercises: CatalogOpt = None,
        variant: VariantOpt = None,
        format: FormatOpt = Format.table,
    ) -> None:
        """Print the worked solution: each formula with the numbers put in."""
        from ffn_calc.i18n.translate import _
        from ffn_calc.views.homework import steps

        r = _result(exercises, exercise_id, variant=variant)
        lines = [f"{r.id}: {r.shown_question()}", "", *(f"  {s}" for s in steps(r)), ""]
        note = r.shown_note()
        if note:
            lines += [_("Note: {note}").format(note=note), ""]
        _emit(r, [*lines, _("Answer: {answer}").format(answer=r.shown_answer())], format)

    return sub
