"""The tables of `ffn-calc flops`: FLOPs per component, per layer kind and per token; the rules of
thumb; with --explain each term's formula."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_calc.i18n.translate import _

if TYPE_CHECKING:  # the report types only annotate: importing them would load every command
    from ffn_calc.reports.flops import FlopsReport
from ffn_calc.views.crossover import per_token
from ffn_calc.views.labels import (
    by_count,
    component_label,
    explained_terms,
    model_name,
    one_layer,
    sentences,
    term_label,
)
from ffn_calc.views.numbers import human
from ffn_calc.views.table import Column, Table


def flops_tables(r: FlopsReport, explain: bool = False) -> list[Table]:
    unit = "MACs" if r.unit == "macs" else "FLOPs"
    tables: list[Table] = []
    convention = sentences(*r.sentences())
    towers = [layer for tower in r.towers or [] for layer in tower.layers]
    for layer in [*r.layers, *towers]:  # the language model's layers, then each tower's
        title = _("{heading}, forward {unit}").format(
            heading=one_layer(r.model, layer.stack, layer.layer_kind(), layer.count), unit=unit
        )
        t = Table(
            title,
            [Column(_("term"), "text"), Column(_("component"), "text"), Column(unit), Column(_("share of layer"), "pct")],
        )  # fmt: skip
        for term in layer.terms:
            t.add(
                term_label(term.name),
                component_label(term.group),
                term.value,
                term.value / layer.total,
            )
        for key in ("attention_projections", "attention_scores", "ffn"):
            value = getattr(layer, key)
            label = _("{component} total").format(component=component_label(key))
            t.add(label, "", value, value / layer.total, style="total")
        t.add(_("layer total"), "", layer.total, 1.0, style="total")
        if explain:
            t.notes += explained_terms(layer.terms)
        t.notes.append(convention)
        tables.append(t)
    shape = f"B={r.batch}, S={r.seq_len}" + (
        f", T={r.target_len}" if r.target_len is not None else ""
    )
    t = Table(
        _("{model}: whole model, {shape}").format(model=model_name(r.model), shape=shape),
        [Column(_("component"), "text"), Column(_("forward {unit}").format(unit=unit)), Column(_("share"), "pct")],
    )  # fmt: skip
    for key, value in r.components.items():
        t.add(component_label(key), value, r.shares[key])
    t.add(_("forward"), r.forward_flops, 1.0, style="total")
    t.add(_("training (3 x forward)"), r.training_flops, None, style="total")
    t.notes.append(
        by_count(
            r.tokens,
            _(
                "Forward {forward} {unit}, {per_token} {unit} per token ({tokens} token); "
                "training {training} {unit}."
            ),
            _(
                "Forward {forward} {unit}, {per_token} {unit} per token ({tokens} tokens); "
                "training {training} {unit}."
            ),
        ).format(
            forward=human(r.forward_flops),
            unit=unit,
            per_token=per_token(r.flops_per_token),
            tokens=f"{r.tokens:,}",
            training=human(r.training_flops),
        )
    )
    t.notes.append(convention)
    tables.append(t)
    a = Table(
        _("Rules of thumb against the exact figure"),
        [
            Column(_("approximation"), "text"),
            Column(unit),
            Column(_("exact")),
            Column(_("off by"), "pct"),
        ],
    )
    for x in r.approximations:
        a.add(_(x.name), x.value, x.exact, x.error)
        a.notes.append(f"{_(x.name)}: {_(x.formula)}")
    a.notes.append(_("N: active parameters for MoE. Negative: the approximation undercounts."))
    tables.append(a)
    return tables
