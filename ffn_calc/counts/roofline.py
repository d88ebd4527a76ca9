"""A roofline per component: the FLOP terms' own FLOPs, the bytes each kernel moves, and the
time lower bound max(FLOPs / peak, bytes / bandwidth).

The FLOPs are the FLOP terms themselves (counts.flops for a prefill, counts.inference for a
decode step): never a second formula. The bytes, per term (a term is one kernel):
- a linear layer (Q, K, V, O, the FFN matrices, the router, the LM head, MLA's projections):
  its weight once per step (every sequence shares it), its input rows read and its output rows
  written (activations dtype);
- MoE experts: the weights of the distinct experts a step touches, in expectation
  E x (1 - (1 - k/E)^(B x tokens)) (each token routing to k of E uniformly and independently),
  and every routed token's rows in and out of each expert matrix;
- the scores, QK^T and AV as one fused kernel (the score matrix stays on chip, as
  flash-attention runs it): QK^T reads the queries and each sequence's keys, AV each
  sequence's values and writes the output; a decode step reads the cached tokens it attends to
  (a sliding window at most window - 1 and the new token), the new token's K and V being the
  K and V projections' writes; MLA reads its cached latent (kv_b_proj over the cache) and its
  rotary key, re-expanded on chip;
- not counted: norms, softmax, activations, rotary, residual adds, the embedding lookup (no
  FLOP term), kernel launches, and under tensor parallelism the communication.
A term with no bytes rule here (the indexer's and compressed entries' scores, DeBERTa's
position scores) counts its FLOPs with 0 bytes, and the result names it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from math import ceil

from ffn_calc.counts import flops as fl
from ffn_calc.counts import inference as inf
from ffn_calc.counts.terms import Term
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.layer_kinds import LayerKind

BYTES = inf.DTYPE_BYTES
SCORES = "attention_scores"
LINEAR_EXTRA = ("shared expert",)  # (mats, d_model, width) after the rows


@dataclass(frozen=True)
class Dtypes:
    weights: str = "bf16"
    activations: str = "bf16"
    kv: str = "bf16"


@dataclass(frozen=True)
class Device:
    """Peak FLOP/s and bandwidth (bytes/s) after the efficiency factors, per device."""

    name: str
    peak: float
    bandwidth: float

    @property
    def ridge(self) -> float:
        return self.peak / self.bandwidth


@dataclass
class Component:
    name: str
    group: str
    flops: int = 0
    bytes: Fraction = Fraction(0)
    modelled: bool = True

    def intensity(self) -> float:
        return float(self.flops / self.bytes) if self.bytes else float("inf")

    def times(self, dev: Device, tp: int) -> tuple[float, float]:
        return self.flops / tp / dev.peak, float(self.bytes) / tp / dev.bandwidth

    def time(self, dev: Device, tp: int) -> float:
        return max(self.times(dev, tp))

    def bound(self, dev: Device, tp: int) -> str:
        c, m = self.times(dev, tp)
        return "compute" if c >= m else "memory"


@dataclass
class Phase:
    phase: str  # prefill | decode
    length: int  # seq_len or context
    tokens: int  # tokens one step produces or processes (B x S; B)
    components: list[Component] = field(default_factory=list)

    @property
    def flops(self) -> int:
        return sum(c.flops for c in self.components)

    @property
    def bytes(self) -> int:
        return sum(ceil(c.bytes) for c in self.components)

    def time(self, dev: Device, tp: int = 1) -> float:
        return sum(c.time(dev, tp) for c in self.components)

    def group_time(self, dev: Device, groups: Iterable[str], tp: int = 1) -> float:
        g = set(groups)
        return sum(c.time(dev, tp) for c in self.components if c.group in g)


def distinct_experts(n_experts: int, k: int, tokens: int) -> float:
    """Expected distinct experts `tokens` routings of k out of E touch: E (1 - (1 - k/E)^n)."""
    return n_experts * (1 - (1 - k / n_experts) ** tokens)


def _linear(t: Term, d: Dtypes, weights: bool = True) -> Fraction:
    """A linear term (2, B, rows, d_in, *d_out): the weight, the rows in and out."""
    _two, b, s, *dims = t.factors
    rows = b * s
    if t.name in LINEAR_EXTRA:  # (mats, d_model, width): each matrix in + out
        mats, dm, w = dims
        act, wt = rows * mats * (dm + w), mats * dm * w
    else:
        d_in, d_out = dims[0], 1
        for x in dims[1:]:
            d_out *= x
        act, wt = rows * (d_in + d_out), d_in * d_out
    return (wt * BYTES[d.weights] if weights else 0) + act * BYTES[d.activations]


def _experts(cfg: ModelConfig, t: Term, d: Dtypes) -> Fraction:
    """Routed experts: (2, B, rows, k, mats, d_model, d_ff)."""
    _two, b, s, k, mats, dm, f = t.factors
    assert cfg.n_experts is not None
    touched = Fraction(distinct_experts(cfg.n_experts, k, b * s))
    return (
        touched * mats * dm * f * BYTES[d.weights]
        + b * s * k * mats * (dm + f) * BYTES[d.activations]
    )


def _scores(
    cfg: ModelConfig, t: Term, d: Dtypes, b: int, q_rows: int, kv: int, decode: bool
) -> Fraction | None:
    """QK^T reads Q and K; AV reads V and writes the output (fused: no score matrix)."""
    a, k = BYTES[d.activations], BYTES[d.kv]
    h, hq, hv = cfg.n_heads, cfg.qk_head_size, cfg.v_head_size
    name = t.name.removeprefix("cross ").removesuffix(" (causal)")
    mla = cfg.attention == "mla" and not t.name.startswith("cross ")
    if name == "QK^T":
        if mla:  # the rotary key from the cache (the rest re-expanded from the latent)
            assert cfg.qk_rope_head_dim is not None
            keys = b * kv * cfg.qk_rope_head_dim
        else:
            keys = b * kv * cfg.cache_kv_heads * cfg.head_size
        return b * q_rows * h * hq * a + keys * (k if decode else a)
    if name == "AV":
        vals = 0 if mla else b * kv * cfg.cache_kv_heads * cfg.head_size
        return vals * (k if decode else a) + b * q_rows * h * hv * a
    return None


def _term_bytes(
    cfg: ModelConfig, t: Term, d: Dtypes, b: int, q_rows: int, kv: int, decode: bool
) -> Fraction | None:
    if t.group == SCORES:
        return _scores(cfg, t, d, b, q_rows, kv, decode)
    if t.name == "experts":
        return _experts(cfg, t, d)
    if t.name == "kv_b_proj over the cache":  # reads the cached latent, expands on chip
        _two, bb, cached, kvr, _h, _w = t.factors
        return bb * cached * kvr * BYTES[d.kv]
    if t.name == "pooler":  # (2, B, d_model, d_model): the first token of each sequence
        _two, bb, d_in, d_out = t.factors
        return d_in * d_out * BYTES[d.weights] + bb * (d_in + d_out) * BYTES[d.activations]
    if len(t.factors) >= 5 and t.factors[0] == 2:
        return _linear(t, d)
    return None


def _add(out: dict[tuple[str, str], Component], t: Term, count: int, by: Fraction | None) -> None:
    c = out.setdefault((t.group, t.name), Component(t.name, t.group))
    c.flops += count * t.value
    if by is None:
        c.modelled = False
    else:
        c.bytes += count * by


def _kv_len(cfg: ModelConfig, kind: LayerKind, t: Term, context: int, source: int) -> int:
    if t.name.startswith("cross "):
        return source
    return inf._attended(cfg, context, kind.is_local)  # the one rule of it


def prefill(cfg: ModelConfig, batch: int, seq_len: int, d: Dtypes) -> Phase:
    """The forward pass over S tokens (the LM head at every position, as `flops` counts it)."""
    w = fl.Workload(batch=batch, seq_len=seq_len)
    out: dict[tuple[str, str], Component] = {}
    for layer in fl.layer_flops(cfg, w):
        own = cfg.stack(layer.stack)  # an encoder-decoder's decoder: its own width and heads
        for t in layer.terms:  # each sequence's keys and values read once (a window too)
            _add(out, t, layer.count, _term_bytes(own, t, d, batch, seq_len, seq_len, False))
    for t in fl.model_flop_terms(cfg, w):
        _add(out, t, 1, _term_bytes(cfg, t, d, batch, seq_len, seq_len, False))
    return Phase("prefill", seq_len, batch * seq_len, list(out.values()))


def decode(cfg: ModelConfig, batch: int, context: int, d: Dtypes) -> Phase:
    """One decode step after `context` cached tokens (as `flops --decode` counts it)."""
    out: dict[tuple[str, str], Component] = {}
    for layer in inf.decode_layers(cfg, batch, context):
        own = cfg.stack(layer.stack)  # the decoder: its own width and heads
        for t in layer.terms:
            kv = _kv_len(cfg, layer.kind, t, context, context)
            _add(out, t, layer.count, _term_bytes(own, t, d, batch, 1, kv, True))
    w = fl.Workload(batch=batch, seq_len=1, target_len=1)
    for t in fl.model_flop_terms(cfg, w, encoder=False):
        _add(out, t, 1, _term_bytes(cfg, t, d, batch, 1, 1, True))
    return Phase("decode", context, batch, list(out.values()))


# --- crossovers in time ---------------------------------------------------------------------

ATTENTION = ("attention_projections", "attention_scores")
# Routing matmuls (n_experts or 1 columns) stay memory-bound at any batch: not the FFN's matmuls.
ROUTING = ("router", "shared expert gate")
FFN = ("ffn",)


def _first(lo: int, hi: int, ok: object) -> int | None:
    """The least x in [lo, hi] with ok(x), ok monotone (None: none)."""
    assert callable(ok)
    if not ok(hi):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def context_crossover(
    cfg: ModelConfig, batch: int, d: Dtypes, dev: Device, limit: int
) -> int | None:
    """The least context L where a decode step's attention time reaches its FFN time."""

    def ok(n: int) -> bool:
        p = decode(cfg, batch, n, d)
        return p.group_time(dev, ATTENTION) >= p.group_time(dev, FFN)

    return _first(1, limit, ok)


def batch_crossover(
    cfg: ModelConfig, context: int, d: Dtypes, dev: Device, limit: int = 1 << 20
) -> int | None:
    """The least batch B where a decode step's attention time reaches its FFN time."""

    def ok(n: int) -> bool:
        p = decode(cfg, n, context, d)
        return p.group_time(dev, ATTENTION) >= p.group_time(dev, FFN)

    return _first(1, limit, ok)


def ffn_compute_batch(
    cfg: ModelConfig, context: int, d: Dtypes, dev: Device, limit: int = 1 << 20
) -> int | None:
    """The least batch where every FFN matmul of a decode step (not the routing) is
    compute-bound."""

    def ok(n: int) -> bool:
        p = decode(cfg, n, context, d)
        mats = [c for c in p.components if c.group == "ffn" and c.name not in ROUTING]
        return all(c.bound(dev, 1) == "compute" for c in mats)

    return _first(1, limit, ok)


def kv_intensity_limit(cfg: ModelConfig, d: Dtypes) -> Fraction:
    """The intensity the decode scores tend to as the context grows, at any batch: per cached
    token and sequence, 2 x n_heads x (qk + v widths) FLOPs over the cached bytes. It does not
    depend on the batch (each sequence reads its own cache). The decoder's heads."""
    cfg = cfg.stack("decoder")
    per_token = 2 * cfg.n_heads * (cfg.qk_head_size + cfg.v_head_size)
    if cfg.attention == "mla":
        assert cfg.kv_lora_rank is not None and cfg.qk_rope_head_dim is not None
        assert cfg.qk_nope_head_dim is not None and cfg.v_head_dim is not None
        per_token += 2 * cfg.n_heads * cfg.kv_lora_rank * (cfg.qk_nope_head_dim + cfg.v_head_dim)
        cached = cfg.kv_lora_rank + cfg.qk_rope_head_dim
    else:
        cached = 2 * cfg.cache_kv_heads * cfg.head_size
    return Fraction(per_token) / (cached * BYTES[d.kv])


# --- utilisation from a measurement --------------------------------------------------------


def palm_training_flops_per_token(cfg: ModelConfig, n_params: int, seq_len: int) -> tuple[int, int]:
    """PaLM (Chowdhery et al. 2022, appendix B): 6N + 12 L H Q T FLOPs per token (N the
    non-embedding parameters, H heads, Q head width, T the sequence length), and with the
    causal halving of the attention term, 6N + 6 L H Q T."""
    dec = cfg.stack("decoder")  # the decoder's heads, where its own
    att = cfg.decoder_layers * dec.n_heads * dec.head_size * seq_len
    return 6 * n_params + 12 * att, 6 * n_params + 6 * att
