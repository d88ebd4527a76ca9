"""A worksheet for printing: the questions (Markdown), or the key with worked solutions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_calc.homework.exercises import ExerciseResult
from ffn_calc.i18n.translate import _
from ffn_calc.views.homework import steps
from ffn_calc.views.table import Column, Table

if TYPE_CHECKING:  # the report types only annotate: importing them would load every command
    from ffn_calc.homework.sheet import SheetQuestion, SheetReport


def _markdown(text: str) -> str:
    """Text as Markdown shows it: the characters it would read as markup escaped."""
    for ch in "\\`*_[]<>|#":
        text = text.replace(ch, "\\" + ch)
    return text


def sheet_markdown(r: SheetReport, markup: bool = True) -> str:
    """The sheet in Markdown (`markup`), or the same lines as plain text for a terminal."""
    _escape = _markdown if markup else str
    title = _("Answer key") if r.answers else _("Worksheet")
    if r.variant is not None:
        title = _("{title}, variant {variant}").format(title=title, variant=r.variant)
    out = [f"# {title}", ""]
    if not r.answers:
        out += [_("Name: ________________"), ""]
    items: list[ExerciseResult | SheetQuestion] = list(r.exercises)
    for i, e in enumerate(items, start=1):
        out.append(f"{i}. **{_escape(e.id)}**: {_escape(e.shown_question())}")
        out.append("")
        if not isinstance(e, ExerciseResult):
            out += ["   " + _("Answer: ________________"), ""]
            continue
        out += [f"   - {_escape(step)}" for step in steps(e)]
        out.append(
            "   - **" + _escape(_("Answer: {answer}").format(answer=e.shown_answer())) + "**"
        )
        note = e.shown_note()
        if note:
            out.append("   - " + _escape(_("Note: {note}").format(note=note)))
        out.append("")
    return "\n".join(out)


def sheet_tables(r: SheetReport) -> list[Table]:
    """The sheet as one table (CSV): id and question, and the answer in a key."""
    columns = [Column("id", "text"), Column(_("question"), "text")]
    if r.answers:
        columns.append(Column(_("answer"), "text"))
    t = Table(_("Answer key") if r.answers else _("Worksheet"), columns)
    items: list[ExerciseResult | SheetQuestion] = list(r.exercises)
    for e in items:
        key = [e.shown_answer()] if isinstance(e, ExerciseResult) else []
        t.add(e.id, e.shown_question(), *key)
    return [t]
