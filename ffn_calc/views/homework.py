"""The tables of `ffn-calc exercise`: the catalog and one exercise's verdict or solution."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_calc.counts.terms import Term
from ffn_calc.i18n.translate import _, shown
from ffn_calc.views.labels import explained
from ffn_calc.views.table import Column, Spelled, Table

if TYPE_CHECKING:  # the report types only annotate: importing them would load every command
    from ffn_calc.homework.exercises import ExerciseResult, ExercisesReport


def _spelled(value: int | float | list[int] | None, text: str) -> Spelled | str:
    """A number as people read it and CSV holds it; a tensor shape as written ([1, 8, 2048])."""
    return text if isinstance(value, list) else Spelled(value, text)


def exercise_tables(r: ExercisesReport) -> list[Table]:
    t = Table(
        _("Exercises"),
        [Column("id", "text"), Column(_("question"), "text"), Column(_("answer"), "num")],
    )
    for e in r.exercises:
        t.add(e.id, e.shown_question(), _spelled(e.answer, e.shown_answer()))
    t.notes.append(
        _(
            "`ffn-calc exercise check ID ANSWER` checks an answer; `ffn-calc exercise solve ID` "
            "shows the work."
        )
    )
    return [t]


def steps(r: ExerciseResult) -> list[str]:
    """The worked solution in the reader's language; a formula's term worded as --explain
    words it (views.labels.explained)."""
    return [
        explained(x.name, x.message or x.formula, x.numbers, x.value)
        if isinstance(x, Term)
        else shown(x)
        for x in r.solution()
    ]


def exercise_result_tables(r: ExerciseResult) -> list[Table]:
    t = Table(
        _("Exercise {id}").format(id=r.id),
        [Column(_("field"), "text"), Column(_("value"), "text")],
    )
    t.add(_("question"), r.shown_question())
    for i, step in enumerate(steps(r), start=1):
        t.add(_("step {number}").format(number=i), step)
    note = r.shown_note()
    if note:
        t.add(_("note"), note)
    t.add(_("answer"), _spelled(r.answer, r.shown_answer()))
    if r.given is not None:
        t.add(_("given"), r.given)
        t.add(_("correct"), _("yes") if r.correct else _("no"))
        reason = r.shown_reason()
        if reason:
            t.add(_("why"), reason)
    return [t]
