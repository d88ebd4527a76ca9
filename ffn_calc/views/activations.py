"""The table of `ffn-calc activations`: each function and its derivative at each x."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_calc.i18n.translate import N_, _

if TYPE_CHECKING:  # the report types only annotate: importing them would load every command
    from ffn_calc.reports.activations import ActivationsReport
from ffn_calc.views.table import Column, Table


def activation_tables(r: ActivationsReport) -> list[Table]:
    tables = []
    names = list(r.functions())
    for title, cols in (
        (N_("FFN activations"), names),
        (N_("Their derivatives"), [f"d_{n}" for n in names]),
    ):
        t = Table(
            _(title), [Column("x", "num", fmt="g")] + [Column(c, "num", fmt=".7f") for c in cols]
        )
        for row in r.rows:
            t.add(row.x, *(getattr(row, c) for c in cols))
        tables.append(t)
    tables[-1].notes.append(
        _(
            "GELU(x) = x Phi(x) (exact, erf); gelu_tanh = 0.5 x (1 + tanh(sqrt(2/pi)(x + "
            "0.044715 x^3))); SiLU = x sigmoid(x); ReLU'(0) = 0."
        )
    )
    return tables
