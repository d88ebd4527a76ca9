"""The tables of `ffn-calc params`: parameters per layer kind and per component, with shares, the
FFN : attention ratio and (MoE) the active parameters; with --explain each term's formula.

Every module of this package builds tables as plain data (views.table): what every text
format (Rich, CSV, Markdown) draws. Building the rows here keeps Rich in output/rich.py alone,
and lets CSV and Markdown output run without importing it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_calc.i18n.translate import N_, _, shown

if TYPE_CHECKING:  # the report types only annotate: importing them would load every command
    from ffn_calc.reports.params import ParamsReport
from ffn_calc.views.labels import (
    component_label,
    explained_terms,
    one_layer,
    stack_label,
    term_label,
)
from ffn_calc.views.numbers import human
from ffn_calc.views.table import Column, Table

PARAM_LABELS = {
    "attention": N_("attention"),
    "mixer": N_("token mixer"),
    "ffn": N_("FFN"),
    "norm": N_("norm"),
}


def params_tables(r: ParamsReport, explain: bool = False) -> list[Table]:
    tables: list[Table] = []
    for layer in r.layers:
        t = Table(
            one_layer(r.model, layer.stack, layer.layer_kind(), layer.count),
            [Column(_("term"), "text"), Column(_("group"), "text"), Column(_("params")), Column(_("share of layer"), "pct")],
        )  # fmt: skip
        for term in layer.terms:
            t.add(
                term_label(term.name),
                _(PARAM_LABELS[term.group]),
                term.value,
                term.value / layer.total,
            )
        for group in ("attention", "ffn", "norm"):
            value = getattr(layer, group)
            label = _("{group} total").format(group=_(PARAM_LABELS[group]))
            t.add(label, "", value, value / layer.total, style="total")
        t.add(_("layer total"), "", layer.total, 1.0, style="total")
        if explain:
            t.notes += explained_terms(layer.terms)
        tables.append(t)
    t = Table(
        _("{model}: whole model").format(model=r.model),
        [Column(_("component"), "text"), Column(_("params")), Column(_("share"), "pct")],
    )
    for key, value in r.components.items():
        t.add(component_label(key), value, r.shares[key])
    t.add(_("total"), r.total_params, 1.0, style="total")
    if r.active_params != r.total_params:
        t.add(
            _("active (per token)"), r.active_params, r.active_params / r.total_params,
            style="total",
        )  # fmt: skip
        t.add(
            _("active without the input embedding"), r.active_params_without_embedding,
            r.active_params_without_embedding / r.total_params,
        )  # fmt: skip
        t.notes.append(
            _(
                "Active: the total less, in every MoE layer, (n_experts - experts_per_token) x "
                "the parameters of one routed expert; routers, shared experts, dense layers, "
                "attention, norms, embeddings and the head all count. Some vendors leave the "
                "input embedding out (the row below it)."
            )
        )
    if r.checkpoint_elements != r.total_params:
        t.notes.append(
            _(
                "A released checkpoint stores {elements} elements: the parameters and "
                "{buffers} buffer elements (a routing-score bias that transformers keeps as a "
                "buffer)."
            ).format(
                elements=f"{r.checkpoint_elements:,}",
                buffers=f"{r.checkpoint_elements - r.total_params:,}",
            )
        )
    t.notes.append(
        _(
            "Total {total} parameters; FFN : attention = {ratio}; non-embedding {non_embedding}."
        ).format(
            total=human(r.total_params),
            ratio=f"{r.ffn_to_attention:.3f}",
            non_embedding=f"{r.non_embedding_params:,}",
        )
    )
    if explain:
        t.notes += explained_terms(r.other_terms)
        t.notes += [shown(x, stack=stack_label) for x in r.active_lines()]
    if r.source:
        t.notes.append(_("Source: {source}").format(source=r.source))
    if r.note:
        t.notes.append(_("Note: {note}").format(note=r.note))
    t.notes.append(
        _(
            "Tied weights count once; buffers (masks, rotary inv_freq) are not parameters; "
            "LayerNorm = weight + bias, RMSNorm = weight."
        )
    )
    tables.append(t)
    return tables
