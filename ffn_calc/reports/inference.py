"""Result models of the inference questions: the KV cache and one decode step."""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

from pydantic import Field

from ffn_calc.counts import inference as inf
from ffn_calc.counts.inference import layer_cache_bytes as _layer_bytes
from ffn_calc.counts.inference import state_bytes as _state_bytes
from ffn_calc.counts.mixers.state import FP32, state_dtype
from ffn_calc.i18n.translate import N_, say
from ffn_calc.model.config import ModelConfig
from ffn_calc.reports.base import (
    KindResult,
    Number,
    Stated,
    TermReport,
    english,
    exact,
    num,
    share,
)

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
    from ffn_calc.counts import flops as fl
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
