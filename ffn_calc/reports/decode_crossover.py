"""The answer to `ffn-calc crossover --decode`: the context where one decode step's scores
overtake the FFN and the projections, and where the KV cache read overtakes the FFN weights
read; a hybrid's cache, its states against its keys and values."""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

from pydantic import Field

from ffn_calc.counts import flops as fl
from ffn_calc.counts import inference as inf
from ffn_calc.counts import reach as rc
from ffn_calc.counts.grid import sweep_lengths
from ffn_calc.i18n.translate import N_, say
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.layer_kinds import with_stack
from ffn_calc.reports.base import (
    LayerResult,
    Number,
    Result,
    Stated,
    english,
    exact,
    num,
    share,
)
from ffn_calc.reports.crossover import CrossoverRow, KindCrossover, kind_crossover

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
    weights = rc.ffn_weights_read(cfg.ffn_of(steps.kind.kv_shared), batch, moe)
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
