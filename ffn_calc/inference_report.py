"""Result models of the inference questions: the KV cache and one decode step."""

from __future__ import annotations

from fractions import Fraction

from pydantic import Field

from ffn_calc import inference as inf
from ffn_calc.config import ModelConfig
from ffn_calc.i18n import N_
from ffn_calc.report import CROSSOVER_LABELS, CrossoverRow, Number, TermReport, exact, num, share
from ffn_calc.result import Result

KV_CONVENTION = N_(
    "Elements: every cached key and value tensor's numel() after a prefill of `context` tokens "
    "(transformers' cache): 2 x n_kv_heads x head_dim per token and layer (2 x n_heads x "
    "head_dim where the model broadcasts K and V to every query head before caching them, as "
    "Falcon's new decoder architecture does; MLA: kv_lora_rank + qk_rope_head_dim); a "
    "sliding-window or chunked layer keeps min(context, window - 1) tokens; an encoder-decoder "
    "model adds its cross-attention cache over the source."
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
    "(qk + v head) FLOPs per sequence), the projections and the FFN do not. Bytes: the step "
    "reads every FFN weight once for the whole batch (a MoE layer: the router, a shared expert "
    "and at most min(n_experts, batch x experts_per_token) experts) but each sequence's cache "
    "once: batch x L x the cache per token."
)


class KvLayer(Result):
    stack: str
    kind: str
    count: int
    cached_tokens: int
    elements: int = Field(description="one layer's cache, whole batch")
    bytes: int


class KvReport(Result):
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


def _bytes(elements: int, dtype: str) -> int:
    """Bytes of `elements` in `dtype`, int4 packed two to a byte (rounded up)."""
    b = elements * inf.DTYPE_BYTES[dtype]
    return -(-b.numerator // b.denominator)


def kv_report(
    cfg: ModelConfig, batch: int, context: int, dtype: str, source_len: int | None = None
) -> KvReport:
    kinds = inf.kv_kinds(cfg, batch, context, source_len)
    total = sum(k.count * k.elements for k in kinds)
    per_token = Fraction(total, batch * context)
    return KvReport(
        model=cfg.name, batch=batch, context=context, source_len=source_len, dtype=dtype,
        kv_elements=total, kv_bytes=_bytes(total, dtype), kv_elements_per_token=num(per_token),
        kv_elements_per_token_exact=exact(per_token),
        layers=[KvLayer(stack=k.stack, kind=k.kind, count=k.count, cached_tokens=k.cached_tokens,
                        elements=k.elements, bytes=_bytes(k.elements, dtype)) for k in kinds],
        convention=KV_CONVENTION,
    )  # fmt: skip


class DecodeLayer(Result):
    stack: str
    kind: str
    count: int
    total: int
    terms: list[TermReport]


class DecodeReport(Result):
    model: str
    batch: int
    context: int
    source_len: int | None
    decode_flops: int
    components: dict[str, int]
    shares: dict[str, float]
    layers: list[DecodeLayer]
    convention: str


def decode_report(
    cfg: ModelConfig, batch: int, context: int, source_len: int | None = None
) -> DecodeReport:
    comps = inf.decode_components(cfg, batch, context, source_len)
    total = sum(comps.values())
    layers = [
        DecodeLayer(stack=x.stack, kind=x.kind, count=x.count, total=sum(t.value for t in x.terms),
                    terms=[TermReport.of(t) for t in x.terms])
        for x in inf.decode_layers(cfg, batch, context, source_len)
    ]  # fmt: skip
    return DecodeReport(
        model=cfg.name, batch=batch, context=context, source_len=source_len, decode_flops=total,
        components=comps, shares={k: share(v, total) for k, v in comps.items()}, layers=layers,
        convention=DECODE_CONVENTION,
    )  # fmt: skip


class GenerationReport(Result):
    model: str
    batch: int
    prompt: int
    new_tokens: int
    prefill_flops: int
    decode_steps: int
    decode_flops: int = Field(description="all decode steps together")
    generation_flops: int
    convention: str


def generation_report(cfg: ModelConfig, batch: int, prompt: int, new: int) -> GenerationReport:
    prefill = inf.prefill_flops(cfg, batch, prompt)
    total = inf.generation_flops(cfg, batch, prompt, new)
    return GenerationReport(
        model=cfg.name, batch=batch, prompt=prompt, new_tokens=new, prefill_flops=prefill,
        decode_steps=new - 1, decode_flops=total - prefill, generation_flops=total,
        convention=GENERATION_NOTE + " " + DECODE_CONVENTION,
    )  # fmt: skip


class DecodeCrossoverReport(Result):
    model: str
    layer: str
    batch: int
    flops: dict[str, Number | None] = Field(
        description="the context L where one decode step's scores reach the FFN, the "
        "projections and both (null: never)"
    )
    flops_exact: dict[str, str | None]
    kv_elements_per_token: int = Field(description="one layer's cache per token and sequence")
    ffn_weights_per_step: int = Field(description="FFN weight elements one step reads, one layer")
    bytes_context: Number = Field(
        description="the context L where the KV cache one step reads (batch x L x per token) "
        "reaches the FFN weights it reads, in one layer (the same dtype for both)"
    )
    bytes_context_exact: str
    rows: list[CrossoverRow] = Field(description="one decode step of one layer over L")
    convention: str


def decode_crossover_report(cfg: ModelConfig, batch: int) -> DecodeCrossoverReport:
    kind, line = inf.decode_line(cfg)
    both = (line.projections[0] + line.ffn[0], line.projections[1] + line.ffn[1])
    points = {
        "scores_vs_ffn": inf.meet(line.scores, line.ffn),
        "scores_vs_projections": inf.meet(line.scores, line.projections),
        "scores_vs_dense": inf.meet(line.scores, both),
    }
    per = inf.cached_per_token(cfg)
    moe = cfg.is_moe and not kind.startswith("dense FFN")
    weights = inf.ffn_weights_read(cfg, batch, moe)
    ctx = Fraction(weights, batch * per)
    return DecodeCrossoverReport(
        rows=_sweep(line, points),
        model=cfg.name, layer=f"decoder ({kind})" if kind else "decoder", batch=batch,
        flops={k: None if v is None else num(v) for k, v in points.items()},
        flops_exact={k: None if v is None else exact(v) for k, v in points.items()},
        kv_elements_per_token=per, ffn_weights_per_step=weights, bytes_context=num(ctx),
        bytes_context_exact=exact(ctx),
        convention=DECODE_CROSSOVER_CONVENTION,
    )  # fmt: skip


class MemoryReport(Result):
    model: str
    dtype: str
    total_params: int
    weights_bytes: int
    components: dict[str, int]
    component_bytes: dict[str, int]
    gpu_memory_bytes: int | None = None
    free_bytes: int | None = None
    batch: int | None = None
    context: int | None = None
    max_context: int | None = Field(None, description="longest context that fits at `batch`")
    max_batch: int | None = Field(None, description="largest batch that fits at `context`")
    convention: str


MEMORY_CONVENTION = N_(
    "Fits: weights + KV cache (the same dtype) <= the memory given. Left out: activations, "
    "the framework's workspace and fragmentation, and any other process's memory."
)


def memory_report(
    cfg: ModelConfig, dtype: str, gpu: int | None, batch: int, context: int | None
) -> MemoryReport:
    from ffn_calc import param_counts as pm

    comps = pm.components(cfg)
    weights = _bytes(sum(comps.values()), dtype)
    out = {
        "model": cfg.name, "dtype": dtype, "total_params": sum(comps.values()),
        "weights_bytes": weights, "components": comps,
        "component_bytes": {k: _bytes(v, dtype) for k, v in comps.items()},
        "convention": MEMORY_CONVENTION,
    }  # fmt: skip
    if gpu is not None:
        free = gpu - weights
        out |= {"gpu_memory_bytes": gpu, "free_bytes": max(free, 0), "batch": batch}
        if cfg.has_decoder and free >= 0:
            out["max_context"] = _longest(cfg, batch, dtype, free)
            if context is not None:
                one = _bytes(inf.kv_elements(cfg, 1, context), dtype)
                out |= {"context": context, "max_batch": free // one if one else None}
    return MemoryReport(**out)


def _longest(cfg: ModelConfig, batch: int, dtype: str, free: int) -> int:
    """The longest context whose cache fits in `free` bytes (0: not one token)."""
    from ffn_calc.config import MAX_SIZE

    if _bytes(inf.kv_elements(cfg, batch, 1), dtype) > free:
        return 0
    lo, hi = 1, MAX_SIZE  # the cache grows with the context, or stops growing (windows)
    if _bytes(inf.kv_elements(cfg, batch, hi), dtype) <= free:
        return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _bytes(inf.kv_elements(cfg, batch, mid), dtype) <= free:
            lo = mid
        else:
            hi = mid
    return lo


def _sweep(line: inf.DecodeLine, points: dict[str, Fraction | None]) -> list[CrossoverRow]:
    """One decode step of one layer (batch 1) at powers of two around the crossovers, and
    at the crossovers themselves."""
    from ffn_calc import flop_counts as fl

    found = {k: v for k, v in points.items() if v is not None and v > 0}
    lengths: dict[Fraction, list[str]] = {
        Fraction(x): [] for x in fl.sweep_lengths(list(found.values()) or [Fraction(1)])
    }
    for key, at in found.items():
        lengths.setdefault(at, []).append(CROSSOVER_LABELS[key])
    out = []
    for L in sorted(lengths):
        parts = {
            "attention_projections": line.projections[0] + line.projections[1] * L,
            "attention_scores": line.scores[0] + line.scores[1] * L,
            "ffn": line.ffn[0] + line.ffn[1] * L,
        }
        layer = sum(parts.values())
        out.append(CrossoverRow(
            seq_len=num(L), attention_projections=num(parts["attention_projections"]),
            attention_scores=num(parts["attention_scores"]), ffn=num(parts["ffn"]),
            shares={k: share(v, layer) for k, v in parts.items()},
            dominant=" = ".join(k for k, v in parts.items() if v == max(parts.values())),
            marks=lengths[L], exact={"seq_len": exact(L), **{k: exact(v) for k, v in parts.items()}},
        ))  # fmt: skip
    return out
