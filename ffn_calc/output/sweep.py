"""A sweep's rows written as they come: table blocks, CSV, Markdown or one JSON document.

Nothing holds more than one block of rows (BLOCK), so memory stays flat for a million rows.
Tables repeat their header every BLOCK rows; CSV is one header and a row per combination (a
data file: no title row), with the summary on stderr; JSON is one document whose "rows" list
is written row by row and whose counts follow it.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterator
from typing import IO, Any

from ffn_calc.i18n import translate as i18n
from ffn_calc.i18n.translate import N_, _, language
from ffn_calc.sweeps.run import Sweep, text
from ffn_calc.views.labels import by_count, model_name
from ffn_calc.views.table import Column, Kind, Table

BLOCK = 1000  # rows per table block
CHART_ROWS = 60  # a chart is drawn when one field varies over at most this many rows
REASONS_SHOWN = 5


def title(s: Sweep) -> str:
    fields = " x ".join(f"{a.field} = {a.spec}" for a in s.axes)
    n = s.combinations
    if n == 1:
        message = _("Sweep of {model}: {fields} ({count} combination)")
    else:
        message = _("Sweep of {model}: {fields} ({count} combinations)")
    return message.format(model=model_name(s.base.name), fields=fields, count=f"{n:,}")


# The metrics each note describes: a note is shown only with one of its metrics.
PARAMETER_METRICS = {
    "total_params", "active_params", "non_embedding_params", "embedding_params",
    "attention_params", "ffn_params", "norm_params", "lm_head_params", "ffn_share",
    "layer_ffn_share", "weights_bytes",
}  # fmt: skip
CROSSOVER_METRICS = {"scores_vs_ffn", "scores_vs_projections", "scores_vs_dense"}


def conventions(s: Sweep) -> list[str]:
    """What the metrics shown count, for the notes under the table: in English (the JSON's
    "convention"); the tables and Markdown show them translated (_ on each). Each note is
    there only when a metric it describes is a column."""
    names = {m.name.partition("@")[0] for m in s.metrics}
    out = []
    if names & PARAMETER_METRICS:
        out.append(
            N_("Parameters: what the reference implementation instantiates, tied weights once.")
        )
    if names & {"forward_flops", "training_flops"}:
        out.append(
            N_(
                "FLOPs @S: one sequence of S tokens (batch 1), 2 FLOPs per multiply-add, matmuls "
                "only, scores over the full S x S square."
            )
        )
    if "training_flops" in names:
        out.append(N_("training_flops = 3 x forward."))
    if names & CROSSOVER_METRICS:
        out.append(
            N_("Crossovers: the S where one layer's scores equal the term (no causal mask).")
        )
        tables = s.base.positions == "learned" or any(
            a.field in ("positions", "max_positions", "position_offset") for a in s.axes
        )
        if tables:
            out.append(
                N_(
                    "none: a crossover past the model's learned position table, which the model "
                    "never reaches (as `crossover` reports it)."
                )
            )
    if names & {"kv_elements", "kv_bytes"}:
        out.append(N_("KV cache @L: after a prefill of L tokens, batch 1."))
    if "kv_bytes" in names:
        out.append(N_("kv_bytes: 2 bytes per cached element (bf16)."))
    if "decode_flops" in names:
        out.append(
            N_("decode_flops @L: one decode step, batch 1: one new token with L tokens cached.")
        )
    if "weights_bytes" in names:
        out.append(N_("weights_bytes: every parameter in bf16 (2 bytes)."))
    if "decode_time" in names:
        out.append(
            N_(
                "decode_time @L: microseconds of one decode step, batch 1, bounded on an H100 "
                "SXM in bf16 (the roofline: each kernel's larger of compute and memory time, "
                "summed)."
            )
        )
    if "prefill_time" in names:
        out.append(
            N_(
                "prefill_time @S: microseconds of a prefill of S tokens, batch 1, bounded on an "
                "H100 SXM in bf16 (the roofline: each kernel's larger of compute and memory "
                "time, summed)."
            )
        )
    if "training_time" in names:
        out.append(
            N_(
                "training_time @S: microseconds of a training step of S tokens, batch 1 "
                "(forward, backward, Adam's optimizer step; no recompute), bounded on an H100 "
                "SXM in bf16 (the roofline: each kernel's larger of compute and memory time, "
                "summed)."
            )
        )
    return out


def notes(s: Sweep) -> list[str]:
    """The notes under a table or Markdown: the conventions and the summary, translated."""
    return [_(c) for c in conventions(s)] + [w.shown() for w in s.warnings] + summary(s)


def summary(s: Sweep) -> list[str]:
    """How many rows matched, were filtered out, and were skipped (with the reasons)."""
    shown = by_count(
        s.combinations,
        _("{matched} of {combinations} combination shown."),
        _("{matched} of {combinations} combinations shown."),
    )
    out = [shown.format(matched=f"{s.matched:,}", combinations=f"{s.combinations:,}")]
    if s.where:
        what = _(" and ").join(f.text for f in s.where)
        out.append(
            _("{count} filtered out by {condition}.").format(
                count=f"{s.filtered_out:,}", condition=what
            )
        )
    skipped = sum(s.skipped.values())
    if skipped:
        out.append(_("{count} skipped, not valid models:").format(count=f"{skipped:,}"))
        common = s.skipped.most_common()
        for reason, n in common[:REASONS_SHOWN]:
            first = ", ".join(f"{k}={text(v)}" for k, v in s.first_skipped[reason].items())
            shown = reason if language() == "en" else s.first_message.get(reason, reason)
            out.append(
                _("- {count} x {reason} (first: {first})").format(
                    count=f"{n:,}", reason=shown, first=first
                )
            )
        if len(common) > REASONS_SHOWN:
            rest = sum(n for _reason, n in common[REASONS_SHOWN:])
            others = len(common) - REASONS_SHOWN
            line = by_count(
                others,
                _("- {count} x {reasons} other reason"),
                _("- {count} x {reasons} other reasons"),
            )
            out.append(line.format(count=f"{rest:,}", reasons=others))
    return out


def _columns(s: Sweep) -> list[Column]:
    cols = []
    for a in s.axes:
        numeric = a.follows is not None or all(type(v) is int for v in (a.values[0], a.values[-1]))
        cols.append(Column(a.field, "int" if numeric else "text"))
    for m in s.metrics:
        name = m.name.partition("@")[0]
        kind: Kind = (
            "pct" if m.kind.unit == "share" else "num" if name.startswith("scores_vs") else "int"
        )
        cols.append(Column(m.name, kind))
    return cols


def _cells(row: dict[str, Any], names: list[str], none: str) -> list[object]:
    """A row's cells: `none` for an unset field, true / false for a switch."""
    return [
        (none if (v := row[n]) is None else str(v).lower() if isinstance(v, bool) else v)
        for n in names
    ]


def write_table(s: Sweep, out: IO[str]) -> None:
    """Rich tables of BLOCK rows (the header repeated), the notes, a chart for one field."""
    from ffn_calc.output.rich import draw, sweep_chart

    cols, names, none = _columns(s), s.columns, _("none")
    chart: list[dict[str, Any]] | None = [] if len(s.axes) == 1 else None
    block = Table(title(s), cols)

    def flush(last: bool) -> None:
        if last:
            block.notes = notes(s)
        if block.rows or last:
            out.write(draw([block]))
            out.flush()

    for shown, row in enumerate(s, start=1):
        block.add(*_cells(row, names, none))
        if chart is not None and len(chart) <= CHART_ROWS:
            chart.append(row)
        if len(block.rows) == BLOCK:
            flush(False)
            block = Table(
                _("{title}, continued after row {row}").format(title=title(s), row=f"{shown:,}"),
                cols,
            )
    flush(True)
    if chart and len(chart) <= CHART_ROWS:
        out.write(draw([], [sweep_chart(s.axes[0].field, s.metrics[0].name, chart)]))
    elif chart:
        message = _("No chart: more than {rows} rows (narrow the range to draw one).")
        out.write(message.format(rows=CHART_ROWS) + "\n")


def write_csv(s: Sweep, out: IO[str]) -> None:
    """A data file: the same in every language (field and metric names, numbers, true and
    false; nothing in it is translated); the summary, on stderr, is for people and in their
    language, skipped combinations' reasons included."""
    w = csv.writer(out, lineterminator="\n")
    names = s.columns
    w.writerow(names)
    for row in s:
        w.writerow(_cells(row, names, none=""))
    lines = [w.shown() for w in s.warnings] + summary(s)
    sys.stderr.write("".join(line + "\n" for line in lines))


def write_markdown(s: Sweep, out: IO[str]) -> None:
    from ffn_calc.output.cells import cell_text
    from ffn_calc.output.markdown import md_escape

    cols, names, none = _columns(s), s.columns, _("none")
    out.write(f"### {md_escape(title(s))}\n\n")
    out.write("| " + " | ".join(md_escape(c.name) for c in cols) + " |\n")
    out.write("| " + " | ".join("---" if c.kind == "text" else "---:" for c in cols) + " |\n")
    for row in s:
        cells = [
            md_escape(cell_text(v, c)) for v, c in zip(_cells(row, names, none), cols, strict=True)
        ]
        out.write("| " + " | ".join(cells) + " |\n")
    out.write("\n" + "".join(f"{md_escape(n)}  \n" for n in notes(s)))


def write_json(s: Sweep, out: IO[str]) -> None:
    """One JSON document; "rows" is written as the rows come. English, whatever the language."""
    with i18n.use("en"):
        _write_json(s, out)


def _write_json(s: Sweep, out: IO[str]) -> None:
    head = {
        "model": s.base.name,
        "vary": {a.field: a.spec for a in s.axes},
        "metrics": [m.name for m in s.metrics],
        "where": [f.text for f in s.where],
        "combinations": s.combinations,
    }
    out.write(json.dumps(head, indent=2)[:-2] + ',\n  "rows": [')
    rows: Iterator[dict[str, Any]] = iter(s)
    first = True
    for row in rows:
        out.write(("\n    " if first else ",\n    ") + json.dumps(row))
        first = False
    tail: dict[str, Any] = {
        "matched": s.matched,
        "filtered_out": s.filtered_out,
        "skipped": sum(s.skipped.values()),
        "skipped_reasons": [
            {"reason": r, "count": n, "first": s.first_skipped[r]}
            for r, n in s.skipped.most_common()
        ],
        "convention": " ".join(conventions(s)),
    }
    if s.warnings:  # only where there is one: other sweeps' JSON is as it was
        tail["warnings"] = [str(w) for w in s.warnings]
    out.write(("\n  ],\n" if not first else "],\n") + json.dumps(tail, indent=2)[2:] + "\n")
