"""The table of `ffn-calc compare`: the models side by side, a column each."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_calc.i18n.translate import N_, _

if TYPE_CHECKING:  # the report types only annotate: importing them would load every command
    from ffn_calc.reports.compare import CompareReport
from ffn_calc.views.labels import ffn_kind_label
from ffn_calc.views.table import Column, Kind, Table, never

COMPARE_FIELDS: list[tuple[str, str, Kind]] = [
    # (label, field of ComparedModel, kind); "heads": n_heads / n_kv_heads / head_dim
    # (labels: N_, translated where the table is built)
    (N_("family"), "family", "text"),
    ("d_model", "d_model", "int"),
    ("d_ff", "d_ff", "int"),
    ("d_ff / d_model", "d_ff_ratio", "ratio"),
    (N_("FFN kind"), "ffn_kind", "text"),
    (N_("heads / kv heads / head_dim"), "heads", "num"),
    (N_("layers"), "layers", "int"),
    (N_("attention params per layer"), "attention_params_per_layer", "int"),
    (N_("FFN params per layer"), "ffn_params_per_layer", "int"),
    (N_("FFN share of a layer"), "ffn_share_of_layer", "pct"),
    (N_("FFN share of the model"), "ffn_share_of_model", "pct"),
    (N_("total params"), "total_params", "int"),
    (N_("active params"), "active_params", "int"),
    (N_("forward FLOPs"), "forward_flops", "int"),
    (N_("FLOPs per token"), "flops_per_token", "num"),
    (N_("FFN share of FLOPs"), "ffn_share_of_flops", "pct"),
    (N_("S: scores = FFN"), "scores_vs_ffn", "num"),
    (N_("S: scores = projections"), "scores_vs_projections", "num"),
    (N_("S: scores = projections + FFN"), "scores_vs_dense", "num"),
]


# Why a model's crossovers are never reached (ComparedModel.never), a note each; "positions"
# has its own sentence.
NEVER = {
    "positions": "",
    "no attention": N_(
        "never: no layer of {models} attends, so no score FLOPs grow with S; its token "
        "mixers cost the same per token at any length."
    ),
    "compressed": N_(
        "never: {models} uses compressed attention, whose score FLOPs per token are no line "
        "in S; crossovers are not computed for it."
    ),
}


def compare_tables(r: CompareReport) -> list[Table]:
    """One row per model (CSV); people read it turned, a column per model."""
    columns = [Column(_("model"), "text")]
    for label, key, kind in COMPARE_FIELDS:
        if key == "heads":
            columns.append(Column(_(label), kind, only="people"))
            columns += [Column(n, only="csv") for n in ("heads", "kv heads", "head_dim")]
        else:
            columns.append(Column(_(label), kind))
    t = Table(
        _("Compared at S = {seq_len} (batch 1)").format(seq_len=f"{r.seq_len:,}"), columns,
        side_by_side=True,
    )  # fmt: skip
    for m in r.models:
        cells: list[object] = [m.model]
        for _label, key, _kind_of in COMPARE_FIELDS:
            if key == "heads":
                cells += [f"{m.n_heads} / {m.n_kv_heads} / {m.head_dim}",
                          m.n_heads, m.n_kv_heads, m.head_dim]  # fmt: skip
            elif key.startswith("scores_vs_"):
                value = m.crossover[key]
                cells.append(value if value is not None else never())
            elif key == "ffn_kind":  # a word in the reader's language (CSV: English)
                cells.append(ffn_kind_label(m.ffn_kind))
            else:
                cells.append(getattr(m, key))
        t.add(*cells)
    t.notes.append(
        _(
            "The largest of each figure in bold green, the smallest in blue. Per layer: the "
            "first layer kind. FLOPs: forward, default convention; encoder-decoder models at "
            "T = S."
        )
    )
    reasons = {why: [m.model for m in r.models if why in m.never.values()] for why in NEVER}
    if reasons["positions"]:
        t.notes.append(
            _(
                "never: the crossover lies past the model's learned position table (S at most "
                "its positions); `crossover` gives the formula's value."
            )
        )
    for why in ("no attention", "compressed"):
        if reasons[why]:
            t.notes.append(_(NEVER[why]).format(models=", ".join(reasons[why])))
    if r.seq_len_lowered_for is not None:
        t.notes.append(
            _(
                "S = {seq_len}, not the default 1,024: {model} takes at most {seq_len} tokens "
                "(its learned position table)."
            ).format(seq_len=f"{r.seq_len:,}", model=r.seq_len_lowered_for)
        )
    return [t]
