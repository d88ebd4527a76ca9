"""The tables of the inference questions: the KV cache (`kv`), one decode step and a generation
(`flops --decode`, `--generate`), the decode crossover and the weights in memory (`memory`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_calc.i18n.translate import _
from ffn_calc.reports.marks import CROSSOVER_LABELS

if TYPE_CHECKING:  # the report types only annotate: importing them would load every command
    from ffn_calc.reports.decode_crossover import DecodeCrossoverReport
    from ffn_calc.reports.inference import (
        DecodeReport,
        GenerationReport,
        KvReport,
    )
    from ffn_calc.reports.memory import MemoryReport
from ffn_calc.views.crossover import kinds_table, never_notes, sweep_table
from ffn_calc.views.labels import (
    by_count,
    component_label,
    explained_terms,
    kind_label,
    layer_label,
    listed,
    model_name,
    named,
    sentences,
    stack_label,
    term_label,
)
from ffn_calc.views.numbers import human
from ffn_calc.views.table import Column, Table, never


def kv_tables(r: KvReport) -> list[Table]:
    t = Table(
        by_count(
            r.context,
            _("{model}: KV cache, batch {batch}, {context} token cached ({dtype})"),
            _("{model}: KV cache, batch {batch}, {context} tokens cached ({dtype})"),
        ).format(model=model_name(r.model), batch=r.batch, context=f"{r.context:,}", dtype=r.dtype),
        [Column(_("layers"), "text"), Column(_("count")), Column(_("cached tokens")),
         Column(_("elements per layer")), Column(_("bytes per layer")), Column(_("elements"))],
    )  # fmt: skip
    for k in r.layers:
        kind = k.layer_kind()
        label = listed([stack_label(k.stack), *([kind_label(kind)] if named(kind) else [])])
        t.add(label, k.count, k.cached_tokens, k.elements, k.bytes, k.count * k.elements)
    t.add(_("total"), None, None, None, None, r.kv_elements, style="total")
    t.notes.append(
        by_count(
            r.kv_bytes,
            _(
                "{elements} elements = {bytes} byte ({human}) in {dtype}; {per_token} elements "
                "per cached token."
            ),
            _(
                "{elements} elements = {bytes} bytes ({human}) in {dtype}; {per_token} elements "
                "per cached token."
            ),
        ).format(
            elements=f"{r.kv_elements:,}",
            bytes=f"{r.kv_bytes:,}",
            human=human(r.kv_bytes, "B"),
            dtype=r.dtype,
            per_token=r.kv_elements_per_token_exact,
        )
    )
    if r.dtype == "int4":
        t.notes.append(
            _("int4: each cached tensor (a layer's keys or values) packs two elements to a "
              "byte, rounded up on its own; the total is the sum of the layers' bytes.")
        )  # fmt: skip
    t.notes.append(sentences(*r.sentences()))
    return [t, *_cache_states(r)]


def _cache_states(r: KvReport) -> list[Table]:
    """The constant-size states of recurrent and convolution mixers, and the whole cache."""
    if not r.states:
        return []
    t = Table(
        _("{model}: mixer states, batch {batch} (the same at any context)").format(
            model=model_name(r.model), batch=r.batch
        ),
        [Column(_("layers"), "text"), Column(_("count")), Column(_("states"), "text"),
         Column(_("elements per layer")), Column(_("bytes per layer")), Column(_("elements"))],
    )  # fmt: skip
    for k in r.states:
        kind = k.layer_kind()
        label = listed([stack_label(k.stack), *([kind_label(kind)] if named(kind) else [])])
        parts = ", ".join(
            f"{name} {n:,}"
            + (f" ({k.dtypes[name]})" if k.dtypes.get(name, r.dtype) != r.dtype else "")
            for name, n in k.tensors.items()
        )
        t.add(label, k.count, parts, k.elements, k.bytes, k.count * k.elements)
    t.add(_("total"), None, None, None, None, r.state_elements, style="total")
    share = f"{r.state_elements / r.cache_elements:.1%}" if r.cache_elements else "0%"
    t.notes.append(
        _(
            "The whole cache: {kv} elements of keys and values and {states} of mixer states = "
            "{cache} elements, {bytes} bytes ({human}); the states are {share} of it."
        ).format(
            kv=f"{r.kv_elements:,}", states=f"{r.state_elements:,}",
            cache=f"{r.cache_elements:,}", bytes=f"{r.cache_bytes:,}",
            human=human(r.cache_bytes, "B"), share=share,
        )
    )  # fmt: skip
    return [t]


def decode_tables(r: DecodeReport, explain: bool = False) -> list[Table]:
    unit = "MACs" if r.unit == "macs" else "FLOPs"
    convention = sentences(*r.sentences())
    tables: list[Table] = []
    for layer in r.layers:
        kind = layer.layer_kind()
        if named(kind):
            title = _(
                "{model}: one decode step, one {stack} layer, {kind} (x{count}), {context} cached"
            ).format(
                model=model_name(r.model), stack=stack_label(layer.stack), kind=kind_label(kind),
                count=layer.count, context=f"{r.context:,}",
            )  # fmt: skip
        else:
            title = _(
                "{model}: one decode step, one {stack} layer (x{count}), {context} cached"
            ).format(
                model=model_name(r.model), stack=stack_label(layer.stack), count=layer.count,
                context=f"{r.context:,}",
            )  # fmt: skip
        t = Table(
            title,
            [Column(_("term"), "text"), Column(_("component"), "text"), Column(unit), Column(_("share of layer"), "pct")],
        )  # fmt: skip
        for term in layer.terms:
            share = term.value / layer.total if layer.total else 0.0
            t.add(term_label(term.name), component_label(term.group), term.value, share)
        t.add(_("layer total"), "", layer.total, 1.0, style="total")
        if explain:
            t.notes += explained_terms(layer.terms)
        tables.append(t)
    t = Table(
        by_count(
            r.context,
            _("{model}: one decode step, batch {batch}, {context} token cached"),
            _("{model}: one decode step, batch {batch}, {context} tokens cached"),
        ).format(model=model_name(r.model), batch=r.batch, context=f"{r.context:,}"),
        [Column(_("component"), "text"), Column(unit), Column(_("share"), "pct")],
    )
    for key, value in r.components.items():
        t.add(component_label(key), value, r.shares[key])
    t.add(_("decode step"), r.decode_flops, 1.0, style="total")
    t.notes.append(convention)
    tables.append(t)
    return tables


def decode_crossover_tables(r: DecodeCrossoverReport) -> list[Table]:
    hybrid = r.kinds is not None
    title = (
        _("{model}: where attention overtakes at decode time (the whole model, batch {batch})")
        if hybrid
        else _("{model}: where attention overtakes at decode time ({layer} layer, batch {batch})")
    )
    t = Table(
        title.format(model=model_name(r.model), layer=layer_label(r.layer_of()), batch=r.batch),
        [Column(_("crossover"), "text"), Column(_("context L"), "num"), Column(_("exact"), "text")],
    )  # fmt: skip
    for key, value in r.flops.items():
        label = _("{label} (FLOPs of one step)").format(label=_(CROSSOVER_LABELS[key]))
        t.add(label, value if value is not None else never(), r.flops_exact[key] or "")
    t.add(
        _("cache read = FFN weights read (bytes of one step)"),
        r.bytes_context if r.bytes_context is not None else never(),
        r.bytes_context_exact or "",
    )  # fmt: skip
    positions = None if r.max_context is None else r.max_context + 1
    t.notes += never_notes(r.never, dict(r.unbounded), "L", positions, r.stops_at)
    if hybrid:
        t.notes.append(
            _(
                "Whole model: {per_token} cached key and value elements per token and "
                "sequence; {weights} FFN weights read per step."
            ).format(
                per_token=f"{r.kv_elements_per_token:,}", weights=f"{r.ffn_weights_per_step:,}"
            )
        )
    elif r.bytes_context_exact is not None:
        t.notes.append(
            _(
                "Per layer: {per_token} cached elements per token and sequence; {weights} FFN "
                "weights read per step. Batch x context at the bytes crossover: {batch} x "
                "{context}."
            ).format(
                per_token=f"{r.kv_elements_per_token:,}",
                weights=f"{r.ffn_weights_per_step:,}",
                batch=r.batch,
                context=r.bytes_context_exact,
            )
        )
    else:
        t.notes.append(
            _(
                "Per layer: {per_token} cached elements per token and sequence; {weights} FFN "
                "weights read per step."
            ).format(
                per_token=f"{r.kv_elements_per_token:,}", weights=f"{r.ffn_weights_per_step:,}"
            )
        )
    t.notes.append(sentences(*r.sentences()))
    title = (
        _("{model}: one decode step of the whole model over the context L (batch {batch})")
        if hybrid
        else _("{model}: one decode step of one {layer} layer over the context L (batch {batch})")
    )
    rows = sweep_table(
        title.format(model=model_name(r.model), layer=layer_label(r.layer_of()), batch=f"{r.batch:,}"),
        "L", r.rows,
    )  # fmt: skip
    rows.notes.append(_("'at': the crossover that row's L is (vs ffn, proj, dense)."))
    if r.stops_at is not None:
        rows.notes.append(
            _("From L = {kept} on, the layer's window is full: the scores stop growing.").format(
                kept=f"{r.stops_at:,}"
            )
        )
    tables = [t, rows]
    if r.kinds is not None:
        kinds = kinds_table(
            _("{model}: each layer kind's own decode crossovers (one layer, batch {batch})")
            .format(model=model_name(r.model), batch=f"{r.batch:,}"), "L", r.kinds, ("bytes_context",),
        )  # fmt: skip
        kinds.notes.insert(1, _(
            "bytes_context: the L where the keys and values one step reads reach the FFN "
            "weights it reads."
        ))  # fmt: skip
        tables.append(kinds)
    if r.cache_shares is not None:
        tables.append(cache_share_table(r))
    return tables


def cache_share_table(r: DecodeCrossoverReport) -> Table:
    """A hybrid's decode cache at each context: keys and values against the mixer states."""
    t = Table(
        _("{model}: the decode cache, states against keys and values (batch {batch})").format(
            model=model_name(r.model), batch=f"{r.batch:,}"
        ),
        [Column(_("context L"), "num"), Column(_("keys and values"), "int"),
         Column(_("states"), "int"), Column(_("states share"), "pct")],
    )  # fmt: skip
    for x in r.cache_shares or []:
        t.add(x.context, x.kv_elements, x.state_elements, x.state_share)
    if r.kv_equals_states is not None:
        t.notes.append(
            _(
                "Elements, whole batch. The states are the same at any context; the keys and "
                "values grow by {per_token} per cached token: they reach the states at "
                "L = {context}."
            ).format(
                per_token=f"{r.kv_elements_per_context_token or 0:,}",
                context=r.kv_equals_states_exact,
            )
        )
    return t


def generation_tables(r: GenerationReport) -> list[Table]:
    t = Table(
        by_count(
            r.new_tokens,
            _("{model}: generating {new} token after a {prompt}-token prompt (batch {batch})"),
            _("{model}: generating {new} tokens after a {prompt}-token prompt (batch {batch})"),
        ).format(model=model_name(r.model), new=f"{r.new_tokens:,}", prompt=f"{r.prompt:,}", batch=r.batch),
        [Column(_("part"), "text"), Column("MACs" if r.unit == "macs" else "FLOPs"), Column(_("share"), "pct")],
    )  # fmt: skip
    total = r.generation_flops
    t.add(_("prefill"), r.prefill_flops, r.prefill_flops / total)
    steps = by_count(r.decode_steps, _("{steps} decode step"), _("{steps} decode steps"))
    t.add(steps.format(steps=f"{r.decode_steps:,}"), r.decode_flops, r.decode_flops / total)
    t.add(_("generation"), total, 1.0, style="total")
    t.notes.append(sentences(*r.sentences()))
    return [t]


def memory_tables(r: MemoryReport) -> list[Table]:
    t = Table(
        _("{model}: weights in {dtype}").format(model=model_name(r.model), dtype=r.dtype),
        [Column(_("component"), "text"), Column(_("params")), Column(_("bytes"))],
    )
    for key, value in r.components.items():
        t.add(component_label(key), value, r.component_bytes[key])
    t.add(_("weights"), r.total_params, r.weights_bytes, style="total")
    if r.dtype == "int4":
        t.notes.append(
            _("int4: each parameter tensor packs two weights to a byte, rounded up on its own "
              "(a tied tensor once); the rows sum to the total.")
        )  # fmt: skip
    if r.position_limit is not None and r.gpu_memory_bytes is None:
        t.notes.append(
            _("{model} takes at most {limit} tokens (its learned position table).").format(
                model=model_name(r.model), limit=f"{r.position_limit:,}"
            )
        )
    tables = [t]
    if r.gpu_memory_bytes is not None:
        f = Table(
            by_count(
                r.gpu_memory_bytes,
                _("{model}: what fits in {bytes} byte ({dtype})"),
                _("{model}: what fits in {bytes} bytes ({dtype})"),
            ).format(model=model_name(r.model), bytes=f"{r.gpu_memory_bytes:,}", dtype=r.dtype),
            [Column(_("question"), "text"), Column(_("answer"), "text")],
        )
        free = r.free_bytes if r.free_bytes is not None else _("none")
        f.add(_("left for the KV cache"), free)
        longest = _("longest context at batch {batch}").format(batch=r.batch)
        if r.max_context_bound == "none" and r.attention_layers == 0:
            f.add(longest, _("any: no layer caches keys and values"))
        elif r.max_context_bound == "none" and r.cache_stops_growing_at is not None:
            f.add(longest, _("any: the cache stops growing at {tokens} tokens").format(
                tokens=f"{r.cache_stops_growing_at:,}"))  # fmt: skip
        elif r.max_context is not None and r.max_context_bound == "position table":
            f.add(longest, _("{tokens} (the learned position table)").format(
                tokens=f"{r.max_context:,}"))  # fmt: skip
        elif r.max_context is not None:
            f.add(longest, r.max_context)
        if r.context is not None and (r.max_batch is not None or r.weights_fit is False):
            f.add(
                _("largest batch at context {context}").format(context=r.context),
                r.max_batch if r.max_batch is not None else 0,
            )
        if r.weights_fit is False:
            f.notes.append(
                by_count(
                    r.gpu_memory_bytes or 0,
                    _(
                        "The weights alone do not fit: {weights} bytes in {dtype} > {gpu} "
                        "byte; nothing is left for the KV cache."
                    ),
                    _(
                        "The weights alone do not fit: {weights} bytes in {dtype} > {gpu} "
                        "bytes; nothing is left for the KV cache."
                    ),
                ).format(
                    weights=f"{r.weights_bytes:,}", dtype=r.dtype, gpu=f"{r.gpu_memory_bytes:,}"
                )
            )
        if r.max_context_bound == "position table" and r.position_limit is not None:
            if r.max_context_memory is None:
                held = _("the memory alone would hold any context (the cache stops growing)")
            else:
                held = _("the memory alone would hold {tokens} tokens").format(
                    tokens=f"{r.max_context_memory:,}"
                )
            f.notes.append(
                _(
                    "Capped at the learned position table: {model} takes at most {limit} "
                    "tokens; {held}."
                ).format(model=model_name(r.model), limit=f"{r.position_limit:,}", held=held)
            )
        elif r.cache_stops_growing_at is not None and r.weights_fit:
            f.notes.append(
                _(
                    "Every layer keeps at most its window: the cache stops growing at {tokens} "
                    "tokens."
                ).format(tokens=f"{r.cache_stops_growing_at:,}")
            )
        if r.state_bytes is not None and r.weights_fit:
            if r.attention_layers:
                f.notes.append(
                    _(
                        "The mixer states take {bytes} bytes at batch {batch}, the same at any "
                        "context: the longest context is bounded by the keys and values of "
                        "the {layers} attention layers alone."
                    ).format(bytes=f"{r.state_bytes:,}", batch=r.batch, layers=r.attention_layers)
                )
            else:
                f.notes.append(
                    _(
                        "No layer attends: the cache is the mixer states alone, {bytes} bytes "
                        "at batch {batch}, the same at any context; the cache sets no bound "
                        "on the context."
                    ).format(bytes=f"{r.state_bytes:,}", batch=r.batch)
                )
        f.notes.append(sentences(*r.sentences()))
        tables.append(f)
    return tables
