"""CSV output of the plain tables (no Rich needed): plain numbers (output.cells), one row per
record, a block per table."""

from __future__ import annotations

import csv
import io

from ffn_calc.output.cells import cell_text, for_audience
from ffn_calc.views.table import Table


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
