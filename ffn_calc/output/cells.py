"""A table's cells as text, for each audience (every writer shares these).

CSV holds plain numbers (exact integers, shares as fractions of 1, no separators or units) and
one row per record; Markdown and the Rich tables hold the numbers as people read them.
"""

from __future__ import annotations

from typing import Literal

from ffn_calc.views.numbers import human
from ffn_calc.views.table import Column, Spelled, Table


def cell_text(value: object, col: Column, exact: bool = False) -> str:
    """A cell as text: plain numbers for CSV (exact), grouped digits and percentages for people."""
    if isinstance(value, Spelled):
        return cell_text(value.value, col, exact=True) if exact else value.text
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if exact:
        if col.kind in ("pct", "ratio"):
            return repr(float(value))
        return str(value) if isinstance(value, int) else repr(value)
    if col.fmt:
        return format(value, col.fmt)
    if col.kind == "pct":
        return "<0.1%" if 0 < abs(value) < 0.0005 else f"{100 * value:.1f}%"
    if col.kind == "human":
        return human(value)
    if col.kind == "ratio":
        return f"{value:.2f}"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def for_audience(t: Table, audience: Literal["csv", "people"]) -> Table:
    """The table without the columns kept for the other audience (Column.only)."""
    keep = [i for i, c in enumerate(t.columns) if c.only in (None, audience)]
    return Table(
        t.title, [t.columns[i] for i in keep], [[row[i] for i in keep] for row in t.rows],
        list(t.notes), list(t.styles), t.side_by_side,
    )  # fmt: skip
