"""The table of `ffn-calc swiglu-size`: SwiGLU's d_ff at parity and Llama's rounding."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_calc.i18n.translate import _

if TYPE_CHECKING:  # the report types only annotate: importing them would load every command
    from ffn_calc.reports.sizing import SwigluReport
from ffn_calc.views.table import Column, Table


def swiglu_tables(r: SwigluReport) -> list[Table]:
    t = Table(
        _("SwiGLU sizing at d_model = {d_model}").format(d_model=f"{r.d_model:,}"),
        [
            Column("FFN", "text"),
            Column("d_ff", "num"),
            Column(_("exact d_ff"), "text"),
            Column(_("params (no biases)")),
            Column(_("vs plain 4x"), "ratio"),
        ],
    )
    t.add(_("plain, 4 x d_model (2 matrices)"), r.plain_d_ff, "", r.plain_params, 1.0)
    t.add(
        _("gated at parity, 8/3 d_model (3 matrices)"),
        r.parity_d_ff,
        r.parity_d_ff_exact if "/" in r.parity_d_ff_exact else "",
        r.plain_params,
        1.0,
    )
    mult = f" x {r.ffn_dim_multiplier:g}" if r.ffn_dim_multiplier is not None else ""
    t.add(
        _("gated, Llama's rule{multiplier}, multiple of {multiple}").format(
            multiplier=mult, multiple=f"{r.multiple_of:,}"
        ),
        r.llama_d_ff,
        "",
        r.llama_params,
        r.llama_vs_plain,
        style="total",
    )
    t.notes.append(
        _(
            "Llama's rule: int(2 x 4 d_model / 3), times --ffn-dim-multiplier if given, "
            "rounded up to a multiple of --multiple-of."
        )
    )
    return [t]
