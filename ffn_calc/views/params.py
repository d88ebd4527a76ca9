"""The tables of `ffn-calc params`: parameters per layer kind and per component, with shares, the
FFN : attention ratio and (MoE) the active parameters; with --explain each term's formula.

Every module of this package builds tables as plain data (views.table): what every text
format (Rich, CSV, Markdown) draws. Building the rows here keeps Rich in output/rich.py alone,
and lets CSV and Markdown output run without importing it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_calc.i18n.translate import N_, _, shown

if TYPE_CHECKING:  # the report types only annotate: importing them would load every command
    from ffn_calc.reports.params import ParamLayer, ParamsReport, TowerParams
from ffn_calc.views.labels import (
    component_label,
    explained_terms,
    listed,
    model_name,
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


def _layer_table(model: str, layer: ParamLayer, explain: bool) -> Table:
    """One layer kind: its terms, the attention / FFN / norm totals."""
    t = Table(
        one_layer(model, layer.stack, layer.layer_kind(), layer.count),
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
    return t


def _tower_table(model: str, tower: TowerParams, explain: bool) -> Table:
    """A tower outside its layers: its components, its tensors outside the layers, then the
    projector's tensors."""
    name = component_label(tower.name)
    t = Table(
        _("{model}: {tower}").format(model=model_name(model), tower=name),
        [Column(_("term"), "text"), Column(_("group"), "text"), Column(_("params")), Column(_("share"), "pct")],
    )  # fmt: skip
    whole = tower.total_params + tower.projector_params
    for key, value in tower.components.items():
        t.add(component_label(key), "", value, value / whole)
    t.add(_("{tower} total").format(tower=name), "", tower.total_params,
          tower.total_params / whole, style="total")  # fmt: skip
    for term in tower.projector_terms:
        t.add(term.name, component_label("projector"), term.value, term.value / whole)
    t.add(_("{group} total").format(group=component_label("projector")), "",
          tower.projector_params, tower.projector_params / whole, style="total")  # fmt: skip
    layers = sum(layer.count for layer in tower.layers)
    if tower.grid is not None and tower.grid.get("up_to") is None:  # any multiple: per H x W
        patch, merge = tower.grid["patch"], tower.grid["merge"]
        t.notes.append(
            _(
                "{tower}: {layers} layers over (H / {patch}) x (W / {patch}) tokens of an H x W "
                "image (height and width multiples of {multiple} pixels); each image gives the "
                "language model one token per {merge} x {merge} of them."
            ).format(tower=name, layers=layers, patch=patch, merge=merge, multiple=patch * merge)
        )
    elif tower.name == "audio":  # a clip's frames through the stack: as long as the clip
        t.notes.append(
            _(
                "{tower}: {layers} layers over the frames of a clip (as many as its length "
                "gives); each clip gives the language model {out} tokens."
            ).format(tower=name, layers=layers, out=f"{tower.tokens_per_image:,}")
        )
    else:
        t.notes.append(
            _(
                "{tower}: {layers} layers over {tokens} tokens per image; each image gives the "
                "language model {out} tokens."
            ).format(
                tower=name,
                layers=layers,
                tokens=f"{tower.stack_tokens:,}",
                out=f"{tower.tokens_per_image:,}",
            )
        )
    if explain:
        t.notes += explained_terms(tower.other_terms)
        t.notes += explained_terms(tower.projector_terms)
    return t


def params_tables(r: ParamsReport, explain: bool = False) -> list[Table]:
    tables = [_layer_table(r.model, layer, explain) for layer in r.layers]
    for tower in r.towers:
        tables += [_layer_table(r.model, layer, explain) for layer in tower.layers]
        tables.append(_tower_table(r.model, tower, explain))
    t = Table(
        _("{model}: whole model").format(model=model_name(r.model)),
        [Column(_("component"), "text"), Column(_("params")), Column(_("share"), "pct")],
    )
    for key, value in r.components.items():
        t.add(component_label(key), value, r.shares[key])
    t.add(_("total"), r.total_params, 1.0, style="total")
    if r.language_model_params is not None:
        t.add(
            _("language model"), r.language_model_params,
            r.language_model_params / r.total_params, style="total",
        )  # fmt: skip
        towers = listed(
            [
                _("the {tower} ({layers} layers)").format(
                    tower=component_label(x.name), layers=sum(y.count for y in x.layers)
                )
                for x in r.towers
            ]
        )
        if r.not_counted:  # a part ffn-calc does not count (Gemma 3n's timm vision tower)
            t.notes.append(
                _(
                    "Total counts every parameter of {model} except its {parts}, which ffn-calc "
                    "does not count: the language model, {towers} and the projector; language "
                    "model = the total less the towers and the projector (its head, once when "
                    "tied)."
                ).format(model=model_name(r.model), towers=towers, parts=listed(r.not_counted))
            )
        else:
            t.notes.append(
                _(
                    "Total counts every parameter of {model}: the language model, {towers} "
                    "and the projector; language model = the total less the towers and the "
                    "projector (its head, once when tied)."
                ).format(model=model_name(r.model), towers=towers)
            )
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
