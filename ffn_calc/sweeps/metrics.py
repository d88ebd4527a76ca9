"""The metrics a sweep counts for each combination (`total_params`, `forward_flops@2048`, ...).

Each comes from the closed-form totals (ffn_calc.counts.totals) or a pure counting function; the
parameter totals of one combination are computed once and shared by the metrics that use them.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ffn_calc.counts import totals
from ffn_calc.counts.flops import Workload
from ffn_calc.errors import UsageError
from ffn_calc.i18n.translate import _
from ffn_calc.limits import MAX_SIZE
from ffn_calc.model.choices import DTYPE_BITS, SWEEP_METRICS
from ffn_calc.model.config import ModelConfig
from ffn_calc.quantities import Kind, cut, quoted

Number = int | float
BF16_BYTES = DTYPE_BITS["bf16"] // 8  # kv_bytes and weights_bytes count in bf16


def either(names: list[str]) -> str:
    """Names in a sentence: "d_ff or d_model" (ja/zh: a list with 、)."""
    out = names[0]
    for name in names[1:]:
        out = _("{first} or {second}").format(first=out, second=name)
    return out


_INT = re.compile(r"[+-]?\d[\d_]*+")


def parse_int(text: str, where: str) -> int:
    """A plain integer (underscores allowed) of at most 20 digits; `where` begins the message
    ("--vary d_ff=1,x", "--metric forward_flops@x")."""
    t = text.strip()
    if len(t) > 40 or not _INT.fullmatch(t) or len(t.replace("_", "")) > 20:
        raise UsageError(
            _("{where}: {value} is not an integer.").format(where=where, value=quoted(t))
        )
    return int(t.replace("_", ""))


# --- metrics --------------------------------------------------------------------------------

Cache = dict[str, Any]
# A cache may start with the setting a metric is counted at (`ffn-calc check`, `--require`):
# BATCH sequences (default 1) and DTYPE for the byte metrics (default bf16). A sweep's cache
# starts empty: batch 1, bf16.
BATCH, DTYPE = "batch", "dtype"


def _batch(c: Cache) -> int:
    batch: int = c.get(BATCH, 1)
    return batch


def _params(cfg: ModelConfig, c: Cache) -> dict[str, int]:
    p = c.get("params")
    if p is None:
        p = c["params"] = totals.param_components(cfg)
    return p


def _total(cfg: ModelConfig, c: Cache, _: int) -> int:
    return sum(_params(cfg, c).values())


def _active(cfg: ModelConfig, c: Cache, _: int) -> int:
    from ffn_calc.counts.params import idle_params

    return sum(_params(cfg, c).values()) - idle_params(cfg)


def _non_embedding(cfg: ModelConfig, c: Cache, _: int) -> int:
    p = _params(cfg, c)
    return sum(p.values()) - p["embedding"] - p["lm_head"]


def _component(key: str) -> Callable[[ModelConfig, Cache, int], int]:
    return lambda cfg, c, _: _params(cfg, c).get(key, 0)


def _ffn_share_exact(cfg: ModelConfig, c: Cache, _: int) -> Fraction:
    p = _params(cfg, c)
    return Fraction(p["ffn"], sum(p.values()))


def _ffn_share(cfg: ModelConfig, c: Cache, _: int) -> float:
    p = _params(cfg, c)
    return p["ffn"] / sum(p.values())


def _layer_ffn_share_exact(cfg: ModelConfig, c: Cache, _: int) -> Fraction | None:
    """The FFN's share of the attention and FFN parameters (a layer's weights, as the 2/3 rule
    counts them): None for a model with neither."""
    p = _params(cfg, c)
    both = p.get("ffn", 0) + p.get("attention", 0)
    return Fraction(p.get("ffn", 0), both) if both else None


def _layer_ffn_share(cfg: ModelConfig, c: Cache, n: int) -> float | None:
    share = _layer_ffn_share_exact(cfg, c, n)
    return None if share is None else float(share)


_WORKLOADS: dict[tuple[int, int], Workload] = {}


def _forward(cfg: ModelConfig, c: Cache, s: int) -> int:
    cfg.check_positions(s, f"forward_flops@{s}")
    key = (_batch(c), s)
    w = _WORKLOADS.get(key)
    if w is None:
        w = _WORKLOADS[key] = Workload(batch=key[0], seq_len=s)
    return sum(totals.flop_components(cfg, w).values())


def _training(cfg: ModelConfig, c: Cache, s: int) -> int:
    cfg.check_positions(s, f"training_flops@{s}")
    return 3 * _forward(cfg, c, s)


def _crossover_exact(key: str) -> Callable[[ModelConfig, Cache, int], Fraction | None]:
    def value(cfg: ModelConfig, c: Cache, _: int) -> Fraction | None:
        """As `crossover` reports it: None past the model's learned position table."""
        from ffn_calc.counts.flops import reached_crossovers

        x: Fraction | None = reached_crossovers(cfg)[0][key]
        return x

    return value


def _crossover(key: str) -> Callable[[ModelConfig, Cache, int], Number | None]:
    exact = _crossover_exact(key)

    def value(cfg: ModelConfig, c: Cache, _: int) -> Number | None:
        x = exact(cfg, c, 0)
        if x is None:
            return None
        return int(x) if x.denominator == 1 else float(x)

    return value


def _kv(cfg: ModelConfig, c: Cache, context: int) -> int:
    from ffn_calc.counts.inference import kv_elements

    return kv_elements(cfg, _batch(c), context)


def _kv_elements(cfg: ModelConfig, c: Cache, context: int) -> int:
    cfg.check_positions(context, f"kv_elements@{context}")
    return _kv(cfg, c, context)


def _kv_bytes(cfg: ModelConfig, c: Cache, context: int) -> int:
    cfg.check_positions(context, f"kv_bytes@{context}")
    if DTYPE not in c:
        return BF16_BYTES * _kv(cfg, c, context)
    from ffn_calc.counts.inference import kind_tensors, kv_kinds

    # Each cached tensor in bytes on its own (int4 packs two to a byte, rounded up), as `kv`.
    total = 0
    for k in kv_kinds(cfg, _batch(c), context, None):
        rows = k.elements // k.per_token if k.per_token else 0  # batch x cached tokens
        total += k.count * sum(_packed(c, rows * width) for width in kind_tensors(cfg, k))
    return total


def _packed(c: Cache, elements: int) -> int:
    """Bytes of one tensor of `elements` in the setting's dtype, int4 rounded up."""
    b = elements * Fraction(DTYPE_BITS[c.get(DTYPE, "bf16")], 8)
    return -(-b.numerator // b.denominator)


def _decode(cfg: ModelConfig, c: Cache, context: int) -> int:
    from ffn_calc.counts.inference import decode_flops, kv_kinds

    kv_kinds(cfg, 1, context, None)  # a model without a cache first
    cfg.check_positions(context + 1, f"decode_flops@{context}", "decode")
    return decode_flops(cfg, _batch(c), context)


# The roofline metrics' accelerator: `roofline --gpu h100-sxm`, bf16 weights, activations, cache.
ROOFLINE_GPU = "h100-sxm"


def _device() -> Any:
    from ffn_calc.counts.roofline import Device
    from ffn_calc.model.accelerators import ACCELERATORS

    a = ACCELERATORS[ROOFLINE_GPU]
    return Device(a.name, a.peaks["bf16"], a.bandwidth)


def _decode_time(cfg: ModelConfig, c: Cache, context: int) -> float:
    """`roofline --gpu h100-sxm --context L`'s decode time_s in microseconds (at the
    setting's batch)."""
    from ffn_calc.counts import roofline as rl
    from ffn_calc.counts.inference import kv_kinds

    kv_kinds(cfg, 1, context, None)  # a model without a cache first
    cfg.check_positions(context + 1, f"decode_time@{context}", "decode")
    return 1e6 * rl.decode(cfg, _batch(c), context, rl.Dtypes()).time(_device())


def _prefill_time(cfg: ModelConfig, c: Cache, s: int) -> float:
    """`roofline --gpu h100-sxm --seq-len S`'s prefill time_s in microseconds (at the
    setting's batch)."""
    from ffn_calc.counts import roofline as rl

    cfg.check_positions(s, f"prefill_time@{s}")
    return 1e6 * rl.prefill(cfg, _batch(c), s, rl.Dtypes()).time(_device())


def _training_time(cfg: ModelConfig, c: Cache, s: int) -> float:
    """`roofline --gpu h100-sxm --training --seq-len S`'s training step time_s in
    microseconds (at the setting's batch; one replica, no recompute)."""
    from ffn_calc.counts import roofline as rl

    cfg.check_positions(s, f"training_time@{s}")
    step = rl.training(cfg, _batch(c), s, rl.Dtypes(), _total(cfg, c, 0))
    return 1e6 * step.time(_device())


def _weights_bytes(cfg: ModelConfig, c: Cache, _: int) -> int:
    if DTYPE not in c:
        return BF16_BYTES * _total(cfg, c, 0)
    if DTYPE_BITS[c[DTYPE]] % 8 == 0:
        return _packed(c, _total(cfg, c, 0))
    from ffn_calc.reference.instantiate import instantiate

    # A sub-byte dtype packs each parameter tensor on its own (a tied tensor once), as `memory`.
    return sum(t.count * _packed(c, t.numel) for t in instantiate(cfg).tensors if t.tied_to is None)


@dataclass(frozen=True)
class MetricKind:
    compute: Callable[[ModelConfig, Cache, int], Number | None]  # None: never reached
    argument: str  # "" | "S" | "L"
    help: str
    # What the metric measures, and so the suffixes a --where bound on it takes (quantities).
    unit: Kind = "count"


# How each metric is computed; what it takes and counts is ffn_calc.model.choices.SWEEP_METRICS.
_COMPUTE: dict[str, Callable[[ModelConfig, Cache, int], Number | None]] = {
    "total_params": _total,
    "active_params": _active,
    "non_embedding_params": _non_embedding,
    "embedding_params": _component("embedding"),
    "attention_params": _component("attention"),
    "ffn_params": _component("ffn"),
    "norm_params": _component("norm"),
    "lm_head_params": _component("lm_head"),
    "ffn_share": _ffn_share,
    "layer_ffn_share": _layer_ffn_share,
    "weights_bytes": _weights_bytes,
    "forward_flops": _forward,
    "training_flops": _training,
    "scores_vs_ffn": _crossover("scores_vs_ffn"),
    "scores_vs_projections": _crossover("scores_vs_projections"),
    "scores_vs_dense": _crossover("scores_vs_dense"),
    "kv_elements": _kv_elements,
    "kv_bytes": _kv_bytes,
    "decode_flops": _decode,
    "decode_time": _decode_time,
    "prefill_time": _prefill_time,
    "training_time": _training_time,
}
METRICS: dict[str, MetricKind] = {
    name: MetricKind(_COMPUTE[name], argument, help, unit)
    for name, (argument, help, unit) in SWEEP_METRICS.items()
}
# Where a metric's value is a fraction, its exact value (a sweep shows the nearest float).
_EXACT: dict[str, Callable[[ModelConfig, Cache, int], Fraction | None]] = {
    "ffn_share": _ffn_share_exact,
    "layer_ffn_share": _layer_ffn_share_exact,
    "scores_vs_ffn": _crossover_exact("scores_vs_ffn"),
    "scores_vs_projections": _crossover_exact("scores_vs_projections"),
    "scores_vs_dense": _crossover_exact("scores_vs_dense"),
    # a time bound is a float (bytes / bandwidth): its exact value is that float's
    "decode_time": lambda cfg, c, n: Fraction(_decode_time(cfg, c, n)),
    "prefill_time": lambda cfg, c, n: Fraction(_prefill_time(cfg, c, n)),
    "training_time": lambda cfg, c, n: Fraction(_training_time(cfg, c, n)),
}


@dataclass(frozen=True)
class Metric:
    name: str  # as written: "forward_flops@2048"
    kind: MetricKind
    argument: int


def exact_value(metric: Metric, cfg: ModelConfig, cache: Cache) -> int | Fraction | None:
    """The metric's value, exact: an integer, a Fraction (a share, a crossover), or None (a
    crossover never reached). `cache` may hold the setting (BATCH, DTYPE)."""
    name = metric.name.partition("@")[0]
    compute = _EXACT.get(name)
    if compute is not None:
        return compute(cfg, cache, metric.argument)
    value = metric.kind.compute(cfg, cache, metric.argument)
    assert value is None or isinstance(value, int), name  # every other metric counts integers
    return value


def parse_metric(text: str, option: str = "--metric", given: str | None = None) -> Metric:
    """`total_params`, or `forward_flops@2048` for a metric that takes a length. Errors name
    `option` and what the user gave there (`given`: a --where's whole expression)."""
    key, at, arg = text.strip().partition("@")
    shown = cut((text if given is None else given).strip())
    kind = METRICS.get(key)
    if kind is None:
        close = difflib.get_close_matches(key, METRICS, n=3) if len(key) <= 64 else []
        if close:
            raise UsageError(
                _(
                    "{option}: unknown metric {name}. Did you mean {choices}? Metrics: {metrics}."
                ).format(
                    option=option,
                    name=quoted(key),
                    choices=either(close),
                    metrics=", ".join(METRICS),
                )
            )
        raise UsageError(
            _("{option}: unknown metric {name}. Metrics: {metrics}.").format(
                option=option, name=quoted(key), metrics=", ".join(METRICS)
            )
        )
    if not kind.argument:
        if at:
            raise UsageError(
                _("{option} {text}: {metric} takes no @ argument.").format(
                    option=option, text=shown, metric=key
                )
            )
        return Metric(key, kind, 0)
    length = kind.argument == "S"
    if not at:
        raise UsageError(
            (
                _("{option} {text}: {metric} needs a sequence length: {metric}@2048.")
                if length
                else _("{option} {text}: {metric} needs a context length: {metric}@2048.")
            ).format(option=option, text=shown, metric=key)
        )
    n = parse_int(arg, f"{option} {shown}") if arg.strip() else 0
    if not 1 <= n <= MAX_SIZE:
        raise UsageError(
            (
                _("{option} {text}: a sequence length from 1 to {max}.")
                if length
                else _("{option} {text}: a context length from 1 to {max}.")
            ).format(option=option, text=shown, max=f"{MAX_SIZE:,}")
        )
    return Metric(f"{key}@{n}", kind, n)
