"""The tables of `ffn-calc tensors`: every parameter tensor, and with --matmuls every matmul."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_calc.i18n.translate import _

if TYPE_CHECKING:  # the report types only annotate: importing them would load every command
    from ffn_calc.reports.tensors import TensorsReport
from ffn_calc.views.labels import component_label, model_name
from ffn_calc.views.table import Column, Table


def tensors_tables(r: TensorsReport) -> list[Table]:
    t = Table(
        _("{model}: parameter tensors").format(model=model_name(r.model)),
        [
            Column(_("name"), "text"),
            Column(_("shape"), "text"),
            Column(_("count")),
            Column(_("params")),
            Column(_("total params")),
            Column(_("component"), "text"),
        ],
    )
    for x in r.tensors:
        shape = "[" + ", ".join(str(n) for n in x.shape) + "]"
        component = component_label(x.component)
        if x.tied_to:
            component = _("{component} (tied to {tensor})").format(
                component=component, tensor=x.tied_to
            )
        t.add(x.name, shape, x.count, x.params, x.total_params, component)
    t.add(_("total"), "", sum(x.count for x in r.tensors), None, r.total_params, "", style="total")
    t.notes.append(
        _(
            "{a..b} in a name: one tensor for each index from a to b (layers, experts), as a "
            "shell expands it; count: the tensors a row stands for; params: one tensor's; total "
            "= count x params, 0 for a tied tensor (it counts once)."
        )
    )
    t.notes.append(_("Shapes as stored (GPT-2's Conv1D: [in, out]; nn.Linear: [out, in])."))
    tables = [t]
    if r.matmuls is not None:
        m = Table(
            _("{model}: matmuls of one forward pass (batch 1, S={seq_len})").format(
                model=model_name(r.model), seq_len=r.seq_len
            ),
            [Column(_("name"), "text"), Column(_("component"), "text"), Column("[m, k] x [k, n]", "text"), Column(_("times")), Column("FLOPs")],
        )  # fmt: skip
        for mm in r.matmuls:
            m.add(mm.name, component_label(mm.component), f"[{mm.m}, {mm.k}] x [{mm.k}, {mm.n}]",
                  mm.count, mm.flops)  # fmt: skip
        m.add(_("total"), "", "", None, sum(mm.flops for mm in r.matmuls), style="total")
        m.notes.append(_("times: over every layer in the name's range, batch element and head."))
        tables.append(m)
    return tables
