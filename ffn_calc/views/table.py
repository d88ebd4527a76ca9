"""A table as plain data: columns with their kind, rows of values, notes; what every writer draws."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from ffn_calc.i18n.translate import _

if TYPE_CHECKING:  # the report types only annotate: importing them would load every command
    pass


Kind = Literal["text", "int", "pct", "ratio", "num", "human"]


@dataclass
class Column:
    """A column: `kind` says how people read its numbers ("text": the column may wrap; every
    other kind is a number column, never wrapped). `only` keeps it to CSV or to people (tables
    and Markdown), e.g. "12 / 4" for people beside plain "12" and "4" columns in CSV; `fmt`
    is a format spec for people (".7f")."""

    name: str
    kind: Kind = "int"
    only: Literal["csv", "people"] | None = None
    fmt: str = ""


@dataclass(frozen=True)
class Spelled:
    """A number that people read as `text` ("28.44x", "33.33%") and CSV holds as `value`
    (None: no number, an empty CSV cell, e.g. a crossover never reached)."""

    value: int | float | None
    text: str


def never() -> Spelled:
    """A crossover the model never reaches: "never" for people, an empty CSV cell."""
    return Spelled(None, _("never"))


@dataclass
class Table:
    title: str
    columns: list[Column]
    rows: list[list[object]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # Per-row style hints: "total" (bold), "grid" (each cell by its value), or the component
    # key whose colour the row takes ("attention_scores": the part that dominates it).
    styles: list[str] = field(default_factory=list)
    # One row per model for CSV, one column per model for people, with the largest and the
    # smallest of each number marked (compare).
    side_by_side: bool = False

    def add(self, *cells: object, style: str = "") -> None:
        self.rows.append(list(cells))
        self.styles.append(style)
