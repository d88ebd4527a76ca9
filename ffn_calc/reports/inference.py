"""Result models of the inference questions: the KV cache and one decode step."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import ClassVar

from pydantic import Field

from ffn_calc.counts import flops as fl
from ffn_calc.counts import inference as inf
from ffn_calc.i18n.translate import N_, say
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.layer_kinds import with_stack
from ffn_calc.reports.base import (
    KindResult,
    LayerResult,
    Number,
    Stated,
    TermReport,
    english,
    exact,
    num,
    share,
)
from ffn_calc.reports.crossover import CrossoverRow

KV_CONVENTION = N_(
    "Elements: every cached key and value tensor's numel() after a prefill of `context` tokens "
    "(transformers' cache): 2 x n_kv_heads x head_dim per token and layer (2 x n_heads x "
    "head_dim where the model broadcasts K and V to every query head before caching them, as "
    "Falcon's new decoder architecture does; MLA: kv_lora_rank + qk_rope_head_dim); a "
    "sliding-window or chunked layer keeps min(context, window - 1) tokens; an encoder-decoder "
    "model adds its cross-attention cache over the source."
)
INDEXER_CACHE_NOTE = N_(
    "Sparse attention: each layer also caches its indexer's keys, indexer_head_dim per token "
    "(one key shared by the indexer's heads)."
)
DECODE_CONVENTION = N_(
    "One decode step: one new token per sequence with `context` tokens cached, FLOPs = 2 x "
    "multiply-adds (as FlopCounterMode on transformers with its cache, eager attention): "
    "projections, FFN and LM head over B rows; scores over the attended tokens (the cached "
    "ones the token may see, and itself); MLA re-expands the cached latents through kv_b_proj; "
    "an encoder-decoder step reuses the cached cross-attention keys and values."
)
GENERATION_NOTE = N_(
    "generate() for N new tokens (greedy, its default cache): the prefill of the prompt, which "
    "yields the first new token, and N - 1 decode steps, each with one more token cached. The "
    "prefill is the forward pass over the prompt with the LM head over its last position only "
    "(generate() passes logits_to_keep=1); an encoder-decoder model runs its encoder over the "
    "prompt once and its decoder over the start token."
)
DECODE_CROSSOVER_CONVENTION = N_(
    "One decode step of one layer: the scores grow with the context L (2 x n_heads x (L + 1) x "
    "(qk + v head) FLOPs per sequence), the projections and the FFN do not. A sliding-window "
    "or chunked layer keeps at most window - 1 cached tokens, so from L = window - 1 on its "
    "scores and cache read stop growing. Bytes: the step reads every FFN weight once for the "
    "whole batch (a MoE layer: the router, a shared expert and at most min(n_experts, batch x "
    "experts_per_token) experts) but each sequence's cache once: batch x the cached tokens x "
    "the cache per token. A crossover the model never reaches (past the window, or past a "
    "learned position table: L + 1 at most its positions) is null."
)


class KvLayer(KindResult):
    stack: str
    kind: str
    count: int
    cached_tokens: int
    elements: int = Field(description="one layer's cache, whole batch")
    bytes: int


class StateLayer(KindResult):
    stack: str
    kind: str
    count: int
    tensors: dict[str, int] = Field(description="one layer's state tensors, whole batch")
    elements: int = Field(description="one layer's states, whole batch")
    bytes: int


class KvReport(Stated):
    view: ClassVar[str] = "ffn_calc.views.inference:kv_tables"

    model: str
    batch: int
    context: int
    source_len: int | None
    dtype: str
    kv_elements: int
    kv_bytes: int
    kv_elements_per_token: Number
    kv_elements_per_token_exact: str
    layers: list[KvLayer]
    convention: str
    # The constant-size states of recurrent and convolution mixers (0 without them) and the
    # whole cache: keys and values plus states.
    state_elements: int = 0
    state_bytes: int = 0
    cache_elements: int = 0
    cache_bytes: int = 0
    states: list[StateLayer] = Field([])  # not a default_factory: start-up (reports.params)


def _bytes(elements: int, dtype: str) -> int:
    """Bytes of one tensor of `elements` in `dtype`, int4 packed two to a byte (rounded up)."""
    b = elements * inf.DTYPE_BYTES[dtype]
    return -(-b.numerator // b.denominator)


def _layer_bytes(cfg: ModelConfig, kind: inf.KvKind, dtype: str) -> int:
    """One layer's cache in bytes: each cached tensor (key and value, or MLA's latent and
    rotary key, over the whole batch) rounded up on its own, as a packed int4 tensor is."""
    rows = kind.elements // kind.per_token if kind.per_token else 0  # batch x cached tokens
    return sum(_bytes(rows * width, dtype) for width in inf.cached_tensors(cfg))


def _kv_bytes(cfg: ModelConfig, batch: int, context: int, dtype: str) -> int:
    """The whole cache in bytes: the sum over every cached tensor of its rounded bytes, the
    constant-size states of recurrent and convolution mixers included."""
    states = sum(
        k.count * sum(_bytes(n, dtype) for _, n in k.tensors) for k in inf.state_kinds(cfg, batch)
    )
    return states + sum(
        k.count * _layer_bytes(cfg, k, dtype) for k in inf.kv_kinds(cfg, batch, context, None)
    )


def kv_report(
    cfg: ModelConfig, batch: int, context: int, dtype: str, source_len: int | None = None
) -> KvReport:
    kinds = inf.kv_kinds(cfg, batch, context, source_len)
    inf.check_cache(cfg, context, source_len)
    total = sum(k.count * k.elements for k in kinds)
    per_token = Fraction(total, batch * context)
    stated = [say(KV_CONVENTION)] + ([say(INDEXER_CACHE_NOTE)] if cfg.has_indexer else [])
    layers = [
        KvLayer(stack=k.stack, kind=str(k.kind), count=k.count, cached_tokens=k.cached_tokens,
                elements=k.elements, bytes=_layer_bytes(cfg, k, dtype)).with_kind(k.kind)
        for k in kinds
    ]  # fmt: skip
    states = [
        StateLayer(stack=k.stack, kind=str(k.kind), count=k.count, tensors=dict(k.tensors),
                   elements=k.elements, bytes=sum(_bytes(n, dtype) for _, n in k.tensors),
                   ).with_kind(k.kind)
        for k in inf.state_kinds(cfg, batch)
    ]  # fmt: skip
    kv_bytes = sum(x.count * x.bytes for x in layers)
    state = sum(x.count * x.elements for x in states)
    state_bytes = sum(x.count * x.bytes for x in states)
    return KvReport(
        model=cfg.name, batch=batch, context=context, source_len=source_len, dtype=dtype,
        kv_elements=total, kv_bytes=kv_bytes,
        kv_elements_per_token=num(per_token), kv_elements_per_token_exact=exact(per_token),
        layers=layers, convention=english(stated), state_elements=state,
        state_bytes=state_bytes, cache_elements=total + state, cache_bytes=kv_bytes + state_bytes,
        states=states,
    ).stated(stated)  # fmt: skip


class DecodeLayer(KindResult):
    stack: str
    kind: str
    count: int
    total: int
    terms: list[TermReport]


class DecodeReport(Stated):
    view: ClassVar[str] = "ffn_calc.views.inference:decode_tables"

    model: str
    batch: int
    context: int
    source_len: int | None
    unit: str = Field("flops", description="flops, or macs (multiply-adds = FLOPs / 2)")
    lm_head_counted: bool = True
    decode_flops: int
    components: dict[str, int]
    shares: dict[str, float]
    layers: list[DecodeLayer]
    convention: str


def _divisor(unit: str) -> int:
    """FLOPs per unit: every term carries the factor 2 of a multiply-add, so MACs are exact."""
    if unit not in ("flops", "macs"):
        from ffn_calc.errors import UsageError
        from ffn_calc.i18n.translate import _

        raise UsageError(_("--unit {value}: use `flops` or `macs`.").format(value=unit))
    return 2 if unit == "macs" else 1


def decode_report(
    cfg: ModelConfig,
    batch: int,
    context: int,
    source_len: int | None = None,
    *,
    unit: str = "flops",
    lm_head: bool = True,
) -> DecodeReport:
    """One decode step; unit "macs" reports multiply-adds, lm_head=False leaves out the head."""
    from ffn_calc.counts import flops as fl
    from ffn_calc.reports.flops import check_workload, conventions

    inf.kv_kinds(cfg, batch, context, source_len)  # the model and options first
    inf.check_decode(cfg, context, source_len)
    div = _divisor(unit)
    check_workload(cfg, fl.Workload(batch=batch, seq_len=1, lm_head=lm_head))
    comps = {
        k: v // div
        for k, v in inf.decode_components(cfg, batch, context, source_len, lm_head=lm_head).items()
    }
    total = sum(comps.values())
    layers = [
        DecodeLayer(stack=x.stack, kind=str(x.kind), count=x.count,
                    total=sum(t.value for t in x.terms) // div,
                    terms=[TermReport.of(t, macs=div == 2) for t in x.terms]).with_kind(x.kind)
        for x in inf.decode_layers(cfg, batch, context, source_len)
    ]  # fmt: skip
    stated = conventions((DECODE_CONVENTION, *fl.indexer_conventions(cfg)), unit, lm_head)
    return DecodeReport(
        model=cfg.name, batch=batch, context=context, source_len=source_len, unit=unit,
        lm_head_counted=lm_head and cfg.has_lm_head, decode_flops=total,
        components=comps, shares={k: share(v, total) for k, v in comps.items()}, layers=layers,
        convention=english(stated),
    ).stated(stated)  # fmt: skip


class GenerationReport(Stated):
    view: ClassVar[str] = "ffn_calc.views.inference:generation_tables"

    model: str
    batch: int
    prompt: int
    new_tokens: int
    unit: str = Field("flops", description="flops, or macs (multiply-adds = FLOPs / 2)")
    causal: bool = False
    lm_head_counted: bool = True
    prefill_flops: int
    decode_steps: int
    decode_flops: int = Field(description="all decode steps together")
    generation_flops: int
    convention: str


def generation_report(
    cfg: ModelConfig,
    batch: int,
    prompt: int,
    new: int,
    *,
    unit: str = "flops",
    causal: bool = False,
    lm_head: bool = True,
) -> GenerationReport:
    """generate() for `new` tokens; unit "macs" reports multiply-adds, causal counts the
    prefill's visible pairs only, lm_head=False leaves out the head."""
    from ffn_calc.reports.flops import check_workload, conventions

    inf.kv_kinds(cfg, batch, prompt, None)  # a model that generates, first
    inf.check_generation(cfg, prompt, new)
    div = _divisor(unit)
    w = inf.prefill_workload(cfg, batch, prompt, causal=causal, lm_head=lm_head)
    check_workload(cfg, w)
    if causal and cfg.architecture == "encoder-decoder":
        from ffn_calc.errors import UsageError
        from ffn_calc.i18n.translate import _

        raise UsageError(
            _(
                "--causal: {model}'s prefill runs its encoder, whose attention sees every "
                "token, and its decoder over one token: there are no pairs to leave out."
            ).format(model=cfg.name)
        )
    prefill = inf.prefill_flops(cfg, batch, prompt, causal=causal, lm_head=lm_head) // div
    total = inf.generation_flops(cfg, batch, prompt, new, causal=causal, lm_head=lm_head) // div
    stated = conventions(
        (GENERATION_NOTE, DECODE_CONVENTION, *fl.indexer_conventions(cfg)), unit, lm_head, causal
    )
    return GenerationReport(
        model=cfg.name, batch=batch, prompt=prompt, new_tokens=new, unit=unit, causal=causal,
        lm_head_counted=lm_head and cfg.has_lm_head, prefill_flops=prefill,
        decode_steps=new - 1, decode_flops=total - prefill, generation_flops=total,
        convention=english(stated),
    ).stated(stated)  # fmt: skip


class DecodeCrossoverReport(Stated, LayerResult):
    view: ClassVar[str] = "ffn_calc.views.inference:decode_crossover_tables"

    model: str
    layer: str
    batch: int
    flops: dict[str, Number | None] = Field(
        description="the context L where one decode step's scores reach the FFN, the "
        "projections and both (null: never reached, `never` says why)"
    )
    flops_exact: dict[str, str | None]
    kv_elements_per_token: int = Field(description="one layer's cache per token and sequence")
    ffn_weights_per_step: int = Field(description="FFN weight elements one step reads, one layer")
    bytes_context: Number | None = Field(
        description="the context L where the KV cache one step reads (batch x the tokens the "
        "layer keeps x per token) reaches the FFN weights it reads, in one layer (the same "
        "dtype for both); null: never reached"
    )
    bytes_context_exact: str | None
    never: dict[str, str] = Field(
        {}, description="why a crossover (a key of `flops`, or bytes_context) is never "
        "reached: 'window' (a local layer's scores and cache read stop growing at "
        "stops_at, below the other side), 'slower' (the other side grows at least as fast), "
        "'positions' (past the learned position table: L > max_context)",
    )  # fmt: skip
    unbounded: dict[str, Number] = Field(
        {}, description="a crossover past the position table: where it would be without it"
    )
    unbounded_exact: dict[str, str] = Field({})
    stops_at: int | None = Field(
        None, description="the context from which one step's scores and cache read stop "
        "growing: window - 1 cached tokens of a sliding-window or chunked layer",
    )  # fmt: skip
    max_context: int | None = Field(
        None, description="the longest context a learned position table allows (positions - 1)"
    )
    rows: list[CrossoverRow] = Field(
        description="one decode step of one layer over L, at `batch`: each row equals "
        "flops --decode --context L for that layer kind"
    )
    convention: str


def decode_crossover_report(cfg: ModelConfig, batch: int) -> DecodeCrossoverReport:
    steps = inf.decode_steps(cfg, batch)
    reach = inf.decode_crossovers(steps)
    per = inf.cached_per_token(cfg)
    moe = steps.kind.is_moe
    weights = inf.ffn_weights_read(cfg, batch, moe)
    by_bytes = inf.bytes_crossover(steps, per, weights)
    every = {**reach, "bytes_context": by_bytes}
    points = {k: r.at for k, r in reach.items()}
    kind = steps.kind
    indexer = [say(s) for s in fl.indexer_conventions(cfg)]
    stated = [say(DECODE_CROSSOVER_CONVENTION), *indexer]
    return DecodeCrossoverReport(
        rows=_sweep(steps, points),
        model=cfg.name, layer=with_stack("decoder", kind), batch=batch,
        flops={k: None if v is None else num(v) for k, v in points.items()},
        flops_exact={k: None if v is None else exact(v) for k, v in points.items()},
        kv_elements_per_token=per, ffn_weights_per_step=weights,
        bytes_context=None if by_bytes.at is None else num(by_bytes.at),
        bytes_context_exact=None if by_bytes.at is None else exact(by_bytes.at),
        never={k: r.never for k, r in every.items() if r.never},
        unbounded={k: num(r.unbounded) for k, r in every.items() if r.unbounded is not None},
        unbounded_exact={k: exact(r.unbounded) for k, r in every.items() if r.unbounded is not None},
        stops_at=steps.stops_at, max_context=steps.max_context,
        convention=english(stated),
    ).stated(stated).with_layer("decoder", kind)  # fmt: skip


class MemoryReport(Stated):
    view: ClassVar[str] = "ffn_calc.views.inference:memory_tables"

    model: str
    dtype: str
    total_params: int
    weights_bytes: int = Field(description="the sum of component_bytes")
    components: dict[str, int]
    component_bytes: dict[str, int] = Field(
        description="each parameter tensor's bytes (int4: rounded up per tensor), per component"
    )
    position_limit: int | None = Field(
        None, description="the most tokens the model takes (its learned position table); "
        "null: no table sets a limit",
    )  # fmt: skip
    gpu_memory_bytes: int | None = None
    weights_fit: bool | None = Field(None, description="the weights alone fit in the memory")
    free_bytes: int | None = None
    batch: int | None = None
    context: int | None = None
    max_context: int | None = Field(
        None, description="longest context that fits at `batch` (0: not one token; null: any, "
        "see max_context_bound)",
    )  # fmt: skip
    max_context_bound: str | None = Field(
        None, description="what sets max_context: 'memory', 'position table' (the model takes "
        "no more; the memory would hold max_context_memory) or 'none' (the cache stops "
        "growing and fits: any context)",
    )  # fmt: skip
    max_context_memory: int | None = Field(
        None, description="the longest context the memory alone holds (null: any)"
    )
    cache_stops_growing_at: int | None = Field(
        None, description="the context from which the cache stops growing (every layer local)"
    )
    max_batch: int | None = Field(None, description="largest batch that fits at `context`")
    convention: str


MEMORY_CONVENTION = N_(
    "Fits: weights + KV cache (the same dtype) <= the memory given. Left out: activations, "
    "the framework's workspace and fragmentation, and any other process's memory."
)


def _memory(fields: dict[str, object]) -> MemoryReport:
    return MemoryReport.model_validate(fields).stated([say(MEMORY_CONVENTION)])


def _component_bytes(cfg: ModelConfig, comps: dict[str, int], dtype: str) -> dict[str, int]:
    """Bytes per component. Whole-byte dtypes: parameters x bytes. Sub-byte (int4): each
    parameter tensor is packed on its own (ceil(numel / 2) bytes, a tied tensor once), so the
    rows sum to the total as stored."""
    per = inf.DTYPE_BYTES[dtype]
    if per.denominator == 1:
        return {k: v * int(per) for k, v in comps.items()}
    from ffn_calc.reference.instantiate import instantiate

    out = dict.fromkeys(comps, 0)
    for t in instantiate(cfg).tensors:
        if t.tied_to is None:
            out[t.component] = out.get(t.component, 0) + t.count * _bytes(t.numel, dtype)
    return out


def memory_report(
    cfg: ModelConfig, dtype: str, gpu: int | None, batch: int, context: int | None
) -> MemoryReport:
    from ffn_calc.counts import params as pm

    if not cfg.has_decoder and (context is not None or batch != 1):
        from ffn_calc.errors import UsageError
        from ffn_calc.i18n.translate import _

        raise UsageError(
            _(
                "{option}: {model} is encoder-only: it keeps no KV cache, so only its weights "
                "are fitted."
            ).format(option="--context" if context is not None else "--batch", model=cfg.name)
        )
    comps = pm.components(cfg)
    if context is not None:
        cfg.check_positions(context, f"--context {context}")
    comp_bytes = _component_bytes(cfg, comps, dtype)
    weights = sum(comp_bytes.values())
    out: dict[str, object] = {
        "model": cfg.name, "dtype": dtype, "total_params": sum(comps.values()),
        "weights_bytes": weights, "components": comps, "component_bytes": comp_bytes,
        "position_limit": cfg.position_limit, "convention": MEMORY_CONVENTION,
    }  # fmt: skip
    if gpu is None:
        return _memory(out)
    free = gpu - weights
    out |= {"gpu_memory_bytes": gpu, "weights_fit": free >= 0, "free_bytes": max(free, 0),
            "batch": batch, "context": context}  # fmt: skip
    if not cfg.has_decoder:
        return _memory(out)  # no KV cache to fit
    if free < 0:  # not even the weights: no context, no batch
        out |= {"max_context": 0, "max_context_bound": "memory", "max_context_memory": 0}
        if context is not None:
            out["max_batch"] = 0
        return _memory(out)
    out |= _longest(cfg, batch, dtype, free)
    if context is not None:
        one = _kv_bytes(cfg, 1, context, dtype)
        out["max_batch"] = free // one if one else None
    return _memory(out)


def _longest(cfg: ModelConfig, batch: int, dtype: str, free: int) -> dict[str, object]:
    """The longest context whose cache fits in `free` bytes, and what bounds it: the memory,
    the learned position table, or nothing (every layer keeps a window, so the cache stops
    growing, and it fits). No search bound is ever an answer."""
    from ffn_calc.model.config import MAX_SIZE

    def kv(n: int) -> int:
        return _kv_bytes(cfg, batch, n, dtype)

    def last(lo: int, hi: int, ok: Callable[[int], bool]) -> int:
        """The largest n in [lo, hi] with ok(n), given ok(lo) and ok falling once."""
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if ok(mid) else (lo, mid - 1)
        return lo

    # Windows hold at most MAX_SIZE - 1 tokens: past 2 x MAX_SIZE a cache that still grows
    # grows without end, and one that does not has stopped.
    far = 2 * MAX_SIZE + 2
    end = kv(far)
    stops = None
    if kv(far - 1) == end:
        stops = 1 if kv(1) == end else last(1, far, lambda n: kv(n) < end) + 1
    limit = cfg.position_limit
    memory: int | None
    if kv(1) > free:
        memory = 0
    elif stops is not None and kv(stops) <= free:
        memory = None  # any context: the cache never outgrows the memory
    else:
        # A growing cache adds at least one element (half a byte) per token: 2 x free + 2
        # tokens never fit.
        memory = last(1, stops if stops is not None else 2 * free + 2, lambda n: kv(n) <= free)
    out: dict[str, object] = {"cache_stops_growing_at": stops, "max_context_memory": memory}
    if limit is not None and (memory is None or memory > limit):
        return out | {"max_context": limit, "max_context_bound": "position table"}
    if memory is None:
        return out | {"max_context": None, "max_context_bound": "none"}
    return out | {"max_context": memory, "max_context_bound": "memory"}


def _sweep(steps: inf.DecodeSteps, points: dict[str, Fraction | None]) -> list[CrossoverRow]:
    """One decode step of one layer at powers of two around the crossovers reached (and
    around the context where a local layer's scores stop growing), at those crossovers and
    at that context; none past the position table."""
    from ffn_calc.counts import flops as fl

    found = {k: v for k, v in points.items() if v is not None and v > 0}
    anchors = list(found.values())
    if steps.stops_at:  # the rows go on past the bend: the scores stop growing there
        anchors += [Fraction(steps.stops_at), Fraction(2 * steps.stops_at)]
    if not anchors and steps.max_context is not None:
        anchors = [Fraction(steps.max_context)]
    lengths: dict[Fraction, list[str]] = {
        Fraction(x): [] for x in fl.sweep_lengths(anchors or [Fraction(1)])
    }
    if steps.stops_at:
        lengths.setdefault(Fraction(steps.stops_at), [])
    for key, at in found.items():
        lengths.setdefault(at, []).append(key)
    top = steps.max_context
    if top is not None and any(top < L for L in lengths):
        lengths = {L: m for L, m in lengths.items() if top >= L}
        lengths.setdefault(Fraction(top), [])
    return [CrossoverRow.of(L, steps.parts(L), lengths[L]) for L in sorted(lengths)]
