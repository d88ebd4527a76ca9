"""The tables of `memory --training`: model states, activations per component and per layer kind,
what fits, and the scores-vs-FFN crossover of the stored activations."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_calc.i18n.translate import N_, _, shown
from ffn_calc.model.layer_kinds import CROSS_ATTENTION

if TYPE_CHECKING:  # the report types only annotate: importing them would load every command
    from ffn_calc.model.layer_kinds import LayerKind
    from ffn_calc.reports.training import (
        ActivationTerm,
        TrainingLayerKind,
        TrainingReport,
        TrainingStatesReport,
    )
from ffn_calc.views.labels import (
    activation_term_label,
    by_count,
    component_label,
    kind_label,
    layer_label,
    listed,
    model_name,
    named,
    stack_label,
)
from ffn_calc.views.table import Column, Table


def _explain_act(x: ActivationTerm) -> str:
    return by_count(
        x.bytes,
        _("{name}: {formula} = {bytes} byte ({component})"),
        _("{name}: {formula} = {bytes} bytes ({component})"),
    ).format(
        name=activation_term_label(x.shown_name()),
        formula=shown(x.shown_formula()),
        bytes=f"{x.bytes:,}",
        component=component_label(x.component),
    )


def _training_kind(k: TrainingLayerKind) -> str:
    """ "decoder, MoE", "decoder, cross-attention", in the current language."""
    cross = [kind_label(CROSS_ATTENTION)] if k.cross_attention else []
    kind = k.layer_kind()
    return listed([stack_label(k.stack), *([kind_label(kind)] if named(kind) else []), *cross])


def _main_layer(r: TrainingReport) -> tuple[str, LayerKind | str]:
    """The main layer kind (the first stack's most numerous), as decode_crossover's layer."""
    main = max(
        (k for k in r.layer_kinds if k.stack == r.layer_kinds[0].stack), key=lambda k: k.count
    )
    return main.stack, main.layer_kind()


# --recompute's values as the title words them (the option's own values stay English).
RECOMPUTE_WORDS = {"none": N_("none"), "selective": N_("selective"), "full": N_("full")}


def _title(r: TrainingReport | TrainingStatesReport) -> str:
    """Both training tables' title: the model, the parallel layout, recompute, s, micro-batch."""
    par = listed(
        [f"DP {r.dp}", f"TP {r.tp}", *([_("sequence parallel")] if r.sequence_parallel else [])]
    )
    words = RECOMPUTE_WORDS.get(r.recompute)
    return _(
        "{model}: training memory per GPU ({parallel}; recompute {recompute}; s = {seq_len}, "
        "micro-batch {micro_batch})"
    ).format(
        model=model_name(r.model),
        parallel=par,
        recompute=r.recompute if words is None else _(words),
        seq_len=f"{r.seq_len:,}",
        micro_batch=r.micro_batch,
    )


def states_tables(r: TrainingStatesReport, explain: bool = False) -> list[Table]:
    """The model states alone, where the token mixers' stored activations are not modelled."""
    t = Table(
        _title(r),
        [Column(_("part"), "text"), Column(_("bytes"))],
    )
    states = _("model states ({bytes} bytes x {params} params)").format(
        bytes=r.bytes_per_param_exact, params=f"{r.params_per_gpu:,}"
    )
    t.add(states, r.model_states_bytes)
    t.add(_("activations"), _("not modelled"))
    t.notes.append(_("Recipe: {recipe}.").format(recipe=_(r.recipe_text)))
    t.notes.append(shown(r.refused()))
    if r.gpu_memory_bytes is not None:
        fits = (
            _("The model states alone fit in {bytes} bytes; whether the activations do is not known.")
            if r.model_states_fit
            else _("The model states alone do not fit in {bytes} bytes.")
        )  # fmt: skip
        t.notes.append(fits.format(bytes=f"{r.gpu_memory_bytes:,}"))
    t.notes.append(_(r.convention))
    return [t]


def training_tables(r: TrainingReport, explain: bool = False) -> list[Table]:
    t = Table(
        _title(r),
        [Column(_("part"), "text"), Column(_("bytes")), Column(_("share"), "pct")],
    )
    if r.zero_stage == 0 or (r.zero_stage == 1 and r.recipe == "distributed"):
        states = _("model states ({bytes} bytes x {params} params)").format(
            bytes=r.bytes_per_param_exact, params=f"{r.params_per_gpu:,}"
        )
        t.add(states, r.model_states_bytes, r.model_states_bytes / r.total_bytes)
    else:
        parts = [
            (_("model states: weights"), r.weights_bytes),
            (_("model states: gradients"), r.gradients_bytes),
            (_("model states: optimizer states"), r.optimizer_states_bytes),
        ]
        if r.zero_stage == 3:
            parts.append((_("model states: the largest layer gathered (ZeRO-3)"), r.gather_bytes))
        for label, value in parts:
            t.add(label, value, value / r.total_bytes)
    for key, value in r.activation_components.items():
        label = _("activations: {component}").format(component=component_label(key))
        t.add(label, value, value / r.total_bytes)
    t.add(_("total"), r.total_bytes, 1.0, style="total")
    t.notes.append(_("Recipe: {recipe}.").format(recipe=_(r.recipe_text)))
    t.notes += _zero_notes(r)
    if r.seq_len_lowered and r.position_limit is not None:
        t.notes.append(
            _(
                "s = {seq_len}, not the default 2,048: {model} takes at most {seq_len} tokens "
                "(its learned position table)."
            ).format(seq_len=f"{r.position_limit:,}", model=model_name(r.model))
        )
    if len(r.layer_kinds) > 1:
        for k in r.layer_kinds:
            t.notes.append(
                by_count(
                    k.count,
                    _("{kind} layer (x{count}): {bytes} bytes of activations."),
                    _("{kind} layers (x{count}): {bytes} bytes of activations each."),
                ).format(count=k.count, kind=_training_kind(k), bytes=f"{k.bytes:,}")
            )
        if r.score_crossover_exact is None:
            t.notes.append(_score_never(r))
        else:
            t.notes.append(
                _(
                    "The scores' activations (5as^2b) overtake the FFN's at s = {length} in one "
                    "{kind} layer (any micro-batch)."
                ).format(length=r.score_crossover_exact, kind=layer_label(_main_layer(r)))
            )
    elif r.score_crossover_exact is None:
        t.notes.append(
            by_count(
                r.layers,
                _("One layer stores {bytes} bytes of activations ({layers} layer)."),
                _("One layer stores {bytes} bytes of activations ({layers} layers)."),
            ).format(bytes=f"{r.activations_per_layer_bytes:,}", layers=r.layers)
            + " "
            + _score_never(r)
        )
    else:
        t.notes.append(
            by_count(
                r.layers,
                _(
                    "One layer stores {bytes} bytes of activations ({layers} layer). The "
                    "scores' activations (5as^2b) overtake the FFN's at s = {length} (any "
                    "micro-batch)."
                ),
                _(
                    "One layer stores {bytes} bytes of activations ({layers} layers). The "
                    "scores' activations (5as^2b) overtake the FFN's at s = {length} (any "
                    "micro-batch)."
                ),
            ).format(
                bytes=f"{r.activations_per_layer_bytes:,}",
                layers=r.layers,
                length=r.score_crossover_exact,
            )
        )
    if r.max_micro_batch is not None and r.gpu_memory_bytes is not None:
        t.notes.append(
            by_count(
                r.gpu_memory_bytes,
                _("Fits in {bytes} byte: micro-batch up to {micro_batch} at s = {seq_len}."),
                _("Fits in {bytes} bytes: micro-batch up to {micro_batch} at s = {seq_len}."),
            ).format(
                bytes=f"{r.gpu_memory_bytes:,}",
                micro_batch=f"{r.max_micro_batch:,}",
                seq_len=f"{r.seq_len:,}",
            )
        )
    if explain:
        if len(r.layer_kinds) > 1:
            for k in r.layer_kinds:
                t.notes.append(_("One layer, {kind}:").format(kind=_training_kind(k)))
                t.notes += [_explain_act(x) for x in k.terms]
        else:
            t.notes += [_explain_act(x) for x in r.activation_terms]
        t.notes.append(_("Outside the layers:"))
        t.notes += [_explain_act(x) for x in r.model_terms]
    t.notes.append(_(r.convention))  # training_report.CONVENTION, marked where it is defined
    sweep = Table(
        _("{model}: one layer's activations over s (micro-batch 1, this GPU)").format(
            model=model_name(r.model)
        ),
        [Column("s"), Column(_("attention projections")), Column(_("attention scores")),
         Column("FFN"), Column(_("norms")), Column(_("scores : FFN"), "ratio")],
    )  # fmt: skip
    for row in r.rows:
        ffn = row.get("ffn", 0)
        scores = row.get("attention_scores", 0)
        sweep.add(row["seq_len"], row.get("attention_projections", 0), scores, ffn,
                  row.get("norm", 0), scores / ffn if ffn else None)  # fmt: skip
    if r.score_crossover_exact is None:
        sweep.notes.append(_score_never(r))
    else:
        if r.recompute != "none":
            reach = _("The scores' activations reach the FFN's at s = {length} (not stored: "
                      "recomputed).")  # fmt: skip
        else:
            reach = _("The scores' activations reach the FFN's at s = {length}.")
        sweep.notes.append(reach.format(length=r.score_crossover_exact))
    return [t, sweep]


def _score_never(r: TrainingReport) -> str:
    """The training crossover a learned position table keeps the model from reaching."""
    return _(
        "The scores' activations (5as^2b) would overtake the FFN's at s = {length}, past the "
        "learned position table ({limit} positions): never reached."
    ).format(length=r.score_crossover_unbounded_exact, limit=f"{r.position_limit or 0:,}")


ZERO_SHARDS = {
    1: N_("ZeRO stage 1 over {dp} GPUs: each holds 1/{dp} of the optimizer states."),
    2: N_("ZeRO stage 2 over {dp} GPUs: each holds 1/{dp} of the optimizer states and gradients."),
    3: N_(
        "ZeRO stage 3 over {dp} GPUs: each holds 1/{dp} of the optimizer states, gradients and "
        "weights, and gathers one layer at a time whole (the largest: {largest} parameters, its "
        "weights and gradients)."
    ),
}


def _zero_notes(r: TrainingReport) -> list[str]:
    """What the stage shards, what is offloaded, and DeepSpeed's estimator beside it."""
    if r.zero_stage == 0 or (r.zero_stage == 1 and r.recipe == "distributed"):
        return []
    notes = [
        _(ZERO_SHARDS[r.zero_stage]).format(dp=r.dp, largest=f"{r.largest_layer_params or 0:,}")
    ]
    if r.offload != "none":
        what = (
            _("the optimizer states and gradients")
            if r.offload == "optimizer"
            else _("the optimizer states, gradients and weights")
        )
        notes.append(
            _(
                "Offloaded to CPU memory ({what}): {bytes} bytes for each GPU's process, "
                "{node} bytes for the {dp} GPUs."
            ).format(what=what, bytes=f"{r.cpu_bytes:,}", node=f"{r.cpu_bytes * r.dp:,}", dp=r.dp)
        )
    d = r.deepspeed
    if d is not None:
        notes.append(
            _(
                "DeepSpeed's {function} (one node of {gpus} GPUs, zero.Init, buffer factor "
                "1.5): {gpu} bytes per GPU, {cpu} bytes of CPU memory."
            ).format(
                function=d.function,
                gpus=d.gpus_per_node,
                gpu=f"{d.gpu_bytes:,}",
                cpu=f"{d.cpu_bytes:,}",
            )
        )
        if r.zero_stage == 2 and r.offload == "none":
            notes.append(
                _(
                    "It counts 2 + 18 / N bytes per parameter at stage 2 (16-bit and fp32 "
                    "gradients both sharded); --recipe mixed holds fp32 gradients only: "
                    "2 + 16 / N."
                )
            )
    return notes
