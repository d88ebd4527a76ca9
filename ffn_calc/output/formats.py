"""CSV and Markdown output of the plain tables (no Rich needed).

CSV holds plain numbers (exact integers, shares as fractions of 1, no separators or units) and
one row per record; Markdown and the Rich tables hold the numbers as people read them.
"""

from __future__ import annotations

import csv
import io
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


def extremes(t: Table) -> dict[int, tuple[int, int]]:
    """For each number column holding more than one value: (row of the largest, of the smallest)."""
    out: dict[int, tuple[int, int]] = {}
    for j, col in enumerate(t.columns):
        if col.kind == "text":
            continue
        values = [
            (v, i)
            for i, row in enumerate(t.rows)
            if isinstance(v := row[j], int | float) and not isinstance(v, bool)
        ]
        if len({v for v, _ in values}) > 1:
            hi = max(values, key=lambda x: x[0])[1]  # the first of equals, as max() keeps
            lo = min(values, key=lambda x: x[0])[1]
            out[j] = (hi, lo)
    return out


def turned(t: Table) -> Table:
    """A side-by-side table for people: a row per field, a column per record (its first cell)."""
    t = for_audience(t, "people")
    fields = t.columns[1:]
    out = Table(t.title, [Column("", "text")] + [Column(str(row[0]), "num") for row in t.rows])
    for j, col in enumerate(fields, start=1):
        out.add(col.name, *(cell_text(row[j], col) for row in t.rows))
    out.notes = list(t.notes)
    return out


def to_csv(tables: list[Table]) -> str:
    """Each table as a CSV block: a one-cell title row, the header, the rows; blank line between."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    for i, t in enumerate(tables):
        t = for_audience(t, "csv")
        if i:
            buf.write("\n")
        writer.writerow([t.title])
        writer.writerow([c.name for c in t.columns])
        for row in t.rows:
            writer.writerow(
                [cell_text(v, c, exact=True) for v, c in zip(row, t.columns, strict=True)]
            )
    return buf.getvalue()


def md_escape(text: str) -> str:
    """A Markdown table cell or line: pipes escaped."""
    return text.replace("|", "\\|")


def to_markdown(tables: list[Table]) -> str:
    out: list[str] = []
    for t in tables:
        t = turned(t) if t.side_by_side else for_audience(t, "people")
        out += [f"### {md_escape(t.title)}", ""]
        out.append("| " + " | ".join(md_escape(c.name) for c in t.columns) + " |")
        out.append(
            "| " + " | ".join("---" if c.kind == "text" else "---:" for c in t.columns) + " |"
        )
        for row, style in zip(t.rows, t.styles, strict=True):
            cells = [md_escape(cell_text(v, c)) for v, c in zip(row, t.columns, strict=True)]
            if style == "total":
                cells = [f"**{c}**" if c else c for c in cells]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
        out += [f"{md_escape(n)}  " for n in t.notes]
        if t.notes:
            out.append("")
    return "\n".join(out).rstrip() + "\n"
