"""Result model of `memory`: the weights per component and what fits in a memory (the
longest context, the largest batch), the KV cache and the mixers' states included."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from pydantic import Field

from ffn_calc.counts import inference as inf
from ffn_calc.counts.inference import cache_bytes as _kv_bytes
from ffn_calc.counts.inference import tensor_bytes as _bytes
from ffn_calc.i18n.translate import N_, say
from ffn_calc.model.config import ModelConfig
from ffn_calc.reports.base import Stated


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
    # A model with recurrent or convolution mixers (only then in JSON): their states' bytes at
    # `batch`, the same at any context, and the layers whose keys and values grow with it.
    state_bytes: int | None = Field(
        None, exclude_if=lambda v: v is None,
        description="the mixer states' bytes at `batch` (the same at any context); the "
        "longest context is bounded by the attention layers' keys and values alone",
    )  # fmt: skip
    attention_layers: int | None = Field(
        None, exclude_if=lambda v: v is None,
        description="the layers whose keys and values grow with the context (0: none, the "
        "cache is the states alone)",
    )  # fmt: skip
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
    if inf.state_kinds(cfg, batch):
        out |= {"state_bytes": _kv_bytes(cfg, batch, 0, dtype),
                "attention_layers": inf.attention_layers(cfg)}  # fmt: skip
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
    if not inf.attention_layers(cfg):  # the mixer states alone: nothing grows
        if kv(1) > free:
            return {"max_context": 0, "max_context_bound": "memory", "max_context_memory": 0}
        return {"max_context": None, "max_context_bound": "none", "max_context_memory": None}
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
