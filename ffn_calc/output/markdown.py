"""Markdown output of the plain tables (no Rich needed): the numbers as people read them
(output.cells), a side-by-side table turned to a column per record."""

from __future__ import annotations

from ffn_calc.output.cells import cell_text, for_audience
from ffn_calc.views.table import Column, Table


def turned(t: Table) -> Table:
    """A side-by-side table for people: a row per field, a column per record (its first cell)."""
    t = for_audience(t, "people")
    fields = t.columns[1:]
    out = Table(t.title, [Column("", "text")] + [Column(str(row[0]), "num") for row in t.rows])
    for j, col in enumerate(fields, start=1):
        out.add(col.name, *(cell_text(row[j], col) for row in t.rows))
    out.notes = list(t.notes)
    return out


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
