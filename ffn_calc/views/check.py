"""The tables of `ffn-calc check`: each budget's requirements, their values and verdicts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_calc.i18n.translate import _
from ffn_calc.sweeps.require import shown_value
from ffn_calc.views.labels import model_name
from ffn_calc.views.table import Column, Spelled, Table

if TYPE_CHECKING:  # the report types only annotate
    from ffn_calc.sweeps.budgets import BudgetResult, CheckReport


def _setting(b: BudgetResult) -> str:
    parts = [_("batch {batch}").format(batch=b.batch), b.dtype]
    if b.seq_len is not None:
        parts.append(_("S = {seq_len}").format(seq_len=f"{b.seq_len:,}"))
    if b.context is not None:
        parts.append(_("context {context}").format(context=f"{b.context:,}"))
    return ", ".join(parts)


def check_tables(r: CheckReport) -> list[Table]:
    tables = []
    for b in r.budgets:
        t = Table(
            _("{name}: {model} ({setting})").format(name=b.name, model=model_name(b.model), setting=_setting(b)),
            [Column(_("requirement"), "text"), Column(_("metric"), "text"), Column(_("value"), "num"),
             Column(_("limit"), "text"), Column(_("result"), "text")],
        )  # fmt: skip
        for q in b.requirements:
            t.add(
                q.requirement,
                q.metric,
                Spelled(q.value, shown_value(q)),
                q.limit,
                _("holds") if q.holds else _("FAILS"),
                style="" if q.holds else "total",
            )
        tables.append(t)
    if r.ok:
        note = _("All {count} requirements hold.").format(count=r.requirements)
    else:
        note = _("{failed} of {count} requirements failed: exit code 1.").format(
            failed=r.failed, count=r.requirements
        )
    tables[-1].notes.append(note)
    return tables
