"""CSV and Markdown output of the plain tables (no Rich needed)."""

from __future__ import annotations

import csv
import io

from ffn_calc.views import Column, Table, human


def cell_text(value: object, col: Column, exact: bool = False) -> str:
    """A cell as text: exact digits for CSV, grouped digits and percentages for people."""
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        return value
    if col.kind == "pct" and isinstance(value, float | int):
        if exact:
            return repr(float(value))
        return "<0.1%" if 0 < abs(value) < 0.0005 else f"{100 * value:.1f}%"
    if col.kind == "human" and isinstance(value, float | int) and not exact:
        return human(value)
    if col.kind == "ratio" and isinstance(value, float | int):
        return repr(float(value)) if exact else f"{value:.2f}"
    if isinstance(value, int):
        return str(value) if exact else f"{value:,}"
    if isinstance(value, float):
        return repr(value) if exact else f"{value:,.2f}".rstrip("0").rstrip(".")
    return str(value)


def to_csv(tables: list[Table]) -> str:
    """Each table as a CSV block: a one-cell title row, the header, the rows; blank line between."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    for i, t in enumerate(tables):
        if i:
            buf.write("\n")
        writer.writerow([t.title])
        writer.writerow([c.name for c in t.columns])
        for row in t.rows:
            writer.writerow(
                [cell_text(v, c, exact=True) for v, c in zip(row, t.columns, strict=True)]
            )
    return buf.getvalue()


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def to_markdown(tables: list[Table]) -> str:
    out: list[str] = []
    for t in tables:
        out += [f"### {_md_escape(t.title)}", ""]
        out.append("| " + " | ".join(_md_escape(c.name) for c in t.columns) + " |")
        out.append(
            "| " + " | ".join("---" if c.kind == "text" else "---:" for c in t.columns) + " |"
        )
        for row, style in zip(t.rows, t.styles, strict=True):
            cells = [_md_escape(cell_text(v, c)) for v, c in zip(row, t.columns, strict=True)]
            if style == "total":
                cells = [f"**{c}**" if c else c for c in cells]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
        out += [f"{_md_escape(n)}  " for n in t.notes]
        if t.notes:
            out.append("")
    return "\n".join(out).rstrip() + "\n"
