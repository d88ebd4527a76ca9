"""`ffn-calc check BUDGETS.toml`: every model of a budgets file against its requirements."""

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from ffn_calc.cli.app import Format, command, emit, output_errors, user_errors, write


class CheckFormat(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"
    markdown = "markdown"
    junit = "junit"


@command("check")
def check_cmd(
    budgets: Annotated[Path, typer.Argument(help="A budgets file (TOML): [[budget]] tables, each a model (preset, config or hf_config, paths relative to the file) and require = [\"METRIC OP NUMBER\", ...].")],
    format: Annotated[CheckFormat, typer.Option("--format", "-f", help="Output: table, json, csv, markdown, or junit (JUnit XML: a test case per requirement).")] = CheckFormat.table,
) -> None:  # fmt: skip
    """Check models against the budgets in a file: exit 1 when a requirement fails, 2 on a bad file.

    Requirements are written and counted as --require and sweep --where write and count them."""
    from ffn_calc.sweeps.budgets import check

    with user_errors():
        report = check(budgets)
    if format is CheckFormat.junit:
        from ffn_calc.output.junit import to_junit

        with output_errors():
            write(to_junit(report))
    else:
        emit(report, Format(format.value))
    if not report.ok:
        raise typer.Exit(1)
