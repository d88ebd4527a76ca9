"""The tables of `ffn-calc exercise grade`: a verdict per answer, a score per student."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_calc.i18n.translate import _
from ffn_calc.views.table import Column, Table

if TYPE_CHECKING:  # the report types only annotate: importing them would load every command
    from ffn_calc.homework.grading import GradeReport


def verdict_word(verdict: str) -> str:
    return {"right": _("right"), "wrong": _("wrong"), "unreadable": _("unreadable")}[verdict]


def grade_tables(r: GradeReport) -> list[Table]:
    rows = Table(
        _("Answers"),
        [
            Column(_("line"), "num"), Column(_("student"), "text"), Column(_("exercise"), "text"),
            Column(_("variant"), "text"), Column(_("answer"), "text"), Column(_("verdict"), "text"),
            Column(_("why"), "text"),
        ],
    )  # fmt: skip
    for row in r.rows:
        variant = "" if row.variant is None else str(row.variant)
        rows.add(
            row.line, row.student, row.exercise, variant, row.answer, verdict_word(row.verdict),
            row.shown_reason() or "",
        )  # fmt: skip
    scores = Table(
        _("Score per student"),
        [Column(_("student"), "text"), Column(_("right"), "num"), Column(_("total"), "num")],
    )
    for s in r.students:
        scores.add(s.student, s.right, s.total)
    return [rows, scores]
