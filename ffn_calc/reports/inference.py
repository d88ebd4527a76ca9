"""Result models of the inference questions: the KV cache and one decode step."""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

from pydantic import Field

from ffn_calc.counts import flops as fl
from ffn_calc.counts import inference as inf
from ffn_calc.counts import reach as rc
from ffn_calc.counts.grid import sweep_lengths
from ffn_calc.counts.mixers.state import FP32, state_dtype
from ffn_calc.i18n.translate import N_, say
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.layer_kinds import with_stack
from ffn_calc.reports.base import (
    KindResult,
    LayerResult,
    Number,
    Result,
    Stated,
    TermReport,
    english,
    exact,
    num,
    share,
)
from ffn_calc.reports.crossover import CrossoverRow, KindCrossover, kind_crossover

KV_CONVENTION = N_(
    "Elements: every cached key and value tensor's numel() after a prefill of `context` tokens "
    "(transformers' cache): 2 x n_kv_heads x head_dim per token and layer (2 x n_heads x "
    "head_dim where the model broadcasts K and V to every query head before caching them, as "
    "Falcon's new decoder architecture does; MLA: kv_lora_rank + qk_rope_head_dim); a "
    "sliding-window or chunked layer keeps min(context, window - 1) tokens; an encoder-decoder "
    "model adds its cross-attention cache over the source."
)
STATE_DTYPE_NOTE = N_(
    "Mixer states' bytes: conv states and MiniMax's lightning state in the cache's dtype "
    "(--dtype), as keys and values; the recurrent states of Mamba, Mamba-2, "
    "gated delta-rule and KDA mixers in float32 whatever the dtype, as transformers' torch "
    "path keeps them after a prefill and each decode step."
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
    dtypes: dict[str, str] = Field(
        {}, description="the dtype each state tensor is held in (fp32: a recurrent state "
        "transformers keeps in float32 whatever the cache's dtype)",
    )  # fmt: skip


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
    return sum(_bytes(rows * width, dtype) for width in inf.kind_tensors(cfg, kind))


def _state_bytes(kind: inf.StateKind, dtype: str) -> int:
    """One layer's states in bytes, each tensor in the dtype its rule gives (a float32
    recurrent state stays float32 whatever `dtype`: counts.mixers.state)."""
    return sum(_bytes(t.elements, state_dtype(t, dtype)) for t in kind.tensors)


def _kv_bytes(cfg: ModelConfig, batch: int, context: int, dtype: str) -> int:
    """The whole cache in bytes: the sum over every cached tensor of its rounded bytes, the
    constant-size states of recurrent and convolution mixers included."""
    states = sum(k.count * _state_bytes(k, dtype) for k in inf.state_kinds(cfg, batch))
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
    state_kinds = inf.state_kinds(cfg, batch)
    if any(t.dtype == FP32 for k in state_kinds for t in k.tensors):
        stated.append(say(STATE_DTYPE_NOTE))
    layers = [
        KvLayer(stack=k.stack, kind=str(k.kind), count=k.count, cached_tokens=k.cached_tokens,
                elements=k.elements, bytes=_layer_bytes(cfg, k, dtype)).with_kind(k.kind)
        for k in kinds
    ]  # fmt: skip
    states = [
        StateLayer(stack=k.stack, kind=str(k.kind), count=k.count,
                   tensors={t.name: t.elements for t in k.tensors}, elements=k.elements,
                   bytes=_state_bytes(k, dtype),
                   dtypes={t.name: state_dtype(t, dtype) for t in k.tensors}).with_kind(k.kind)
        for k in state_kinds
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


class CacheShare(Result):
    """The decode cache at one context: keys and values, states, and the states' share."""

    context: int
    kv_elements: int
    state_elements: int
    state_share: float = Field(description="states / (keys and values + states)")


HYBRID_DECODE_NOTE = N_(
    "A hybrid: the crossovers above are the whole model's: one step's scores in every "
    "attention layer against the FFNs and projections of every layer, and the keys and values "
    "every attention layer reads against every FFN weight read (the mixer states, read and "
    "written whole at every step, are the same at any context and are left out of it); the "
    "other token mixers' own FLOPs do not grow with the context. Each layer kind's own "
    "crossovers are listed apart."
)


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
    # A hybrid (only then in JSON): each kind's own crossovers (keys of `flops` and
    # bytes_context), and the cache's states against its keys and values.
    kinds: list[KindCrossover] | None = Field(None, exclude_if=lambda v: v is None)
    state_elements: int | None = Field(
        None, exclude_if=lambda v: v is None,
        description="the whole model's mixer states at `batch` (the same at any context)",
    )  # fmt: skip
    kv_elements_per_context_token: int | None = Field(
        None, exclude_if=lambda v: v is None,
        description="the whole model's keys and values per cached token at `batch`",
    )  # fmt: skip
    kv_equals_states: Number | None = Field(
        None, exclude_if=lambda v: v is None,
        description="the context L where the keys and values reach the states",
    )  # fmt: skip
    kv_equals_states_exact: str | None = Field(None, exclude_if=lambda v: v is None)
    cache_shares: list[CacheShare] | None = Field(
        None, exclude_if=lambda v: v is None,
        description="the cache at each row's context (and at --context): its states' share",
    )  # fmt: skip
    convention: str


def _cache_shares(
    cfg: ModelConfig, batch: int, contexts: list[int]
) -> tuple[int, int, list[CacheShare]]:
    """A hybrid's whole cache at each context: (states, keys and values per token, rows)."""
    states = inf.state_elements(cfg, batch)
    per = inf.kv_elements(cfg, batch, 1)
    rows = []
    for n in sorted(set(contexts)):
        kv = inf.kv_elements(cfg, batch, n)
        rows.append(CacheShare(context=n, kv_elements=kv, state_elements=states,
                               state_share=share(states, kv + states)))  # fmt: skip
    return states, per, rows


def decode_crossover_report(
    cfg: ModelConfig, batch: int, context: int | None = None
) -> DecodeCrossoverReport:
    """Where one decode step's scores overtake; a hybrid: the whole model's crossovers, each
    kind's own, and the cache's states against its keys and values (also at `context`)."""
    steps = rc.decode_steps(cfg, batch)
    reach = rc.decode_crossovers(steps)
    per = inf.cached_per_token(cfg)
    moe = steps.kind.is_moe
    weights = rc.ffn_weights_read(cfg, batch, moe)
    if cfg.layer_mixers:  # the whole stack's cache read and FFN weights read
        per *= inf.attention_layers(cfg)
        weights = rc.stack_ffn_weights_read(cfg, batch)
    if context is not None:
        if not cfg.layer_mixers:
            from ffn_calc.errors import UsageError
            from ffn_calc.i18n.translate import _

            raise UsageError(
                _(
                    "--context {context}: the share of the cache that is mixer states applies "
                    "to a model with recurrent or convolution mixers; {model} caches keys and "
                    "values only."
                ).format(context=context, model=cfg.name)
            )
        inf.check_decode(cfg, context)
    by_bytes = rc.bytes_crossover(steps, per, weights)
    every = {**reach, "bytes_context": by_bytes}
    points = {k: r.at for k, r in reach.items()}
    kind = steps.kind
    indexer = [say(s) for s in fl.indexer_conventions(cfg)]
    stated = [say(DECODE_CROSSOVER_CONVENTION), *indexer]
    rows = _sweep(steps, points)
    hybrid: dict[str, object] = {}
    if cfg.layer_mixers:
        stated.append(say(HYBRID_DECODE_NOTE))
        kinds = [
            kind_crossover(k.stack, k.kind, k.count, k.mixer,
                           {**{key: r.at for key, r in k.flops.items()},
                            "bytes_context": k.bytes.at},
                           {key: r.never for key, r in [*k.flops.items(), ("bytes_context", k.bytes)]
                            if r.never},
                           {key: r.unbounded for key, r in
                            [*k.flops.items(), ("bytes_context", k.bytes)]
                            if r.unbounded is not None})
            for k in rc.kind_decode_crossovers(cfg, batch)
        ]  # fmt: skip
        contexts = [int(x.exact["seq_len"]) for x in rows if Fraction(x.exact["seq_len"]) >= 1
                    and Fraction(x.exact["seq_len"]).denominator == 1]  # fmt: skip
        states, kv_per, shares = _cache_shares(
            cfg, batch, contexts + ([context] if context else [])
        )
        meet = Fraction(states, kv_per) if kv_per else None
        hybrid = {
            "kinds": kinds, "state_elements": states, "kv_elements_per_context_token": kv_per,
            "kv_equals_states": None if meet is None else num(meet),
            "kv_equals_states_exact": None if meet is None else exact(meet),
            "cache_shares": shares,
        }  # fmt: skip
    return DecodeCrossoverReport(
        rows=rows, **hybrid,
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


def _sweep(steps: rc.DecodeSteps, points: dict[str, Fraction | None]) -> list[CrossoverRow]:
    """One decode step of one layer at powers of two around the crossovers reached (and
    around the context where a local layer's scores stop growing), at those crossovers and
    at that context; none past the position table."""

    found = {k: v for k, v in points.items() if v is not None and v > 0}
    anchors = list(found.values())
    if steps.stops_at:  # the rows go on past the bend: the scores stop growing there
        anchors += [Fraction(steps.stops_at), Fraction(2 * steps.stops_at)]
    if not anchors and steps.max_context is not None:
        anchors = [Fraction(steps.max_context)]
    lengths: dict[Fraction, list[str]] = {
        Fraction(x): [] for x in sweep_lengths(anchors or [Fraction(1)])
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
