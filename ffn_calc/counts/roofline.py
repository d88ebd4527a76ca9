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
from ffn_calc.counts.mixers import MixerCounts, counts_of
from ffn_calc.counts.mixers.state import FP32
from ffn_calc.counts.mixers.traffic import Moves, Traffic
from ffn_calc.counts.terms import Term
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.layer_kinds import LayerKind

BYTES = inf.DTYPE_BYTES
SCORES = "attention_scores"
MIXER = "mixer"
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
    link: float | None = None  # bytes/s of the interconnect its bytes cross (communication)

    def intensity(self) -> float:
        return float(self.flops / self.bytes) if self.bytes else float("inf")

    def times(self, dev: Device, tp: int) -> tuple[float, float]:
        bandwidth = dev.bandwidth if self.link is None else self.link
        return self.flops / tp / dev.peak, float(self.bytes) / tp / bandwidth

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
    recompute_flops: int = 0  # a training step's recomputed forward (in `flops`)

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


def _linear_parts(t: Term, d: Dtypes) -> tuple[Fraction, Fraction]:
    """A linear term (2, B, rows, d_in, *d_out): its weight's elements, and the bytes of its
    rows in and out."""
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
    return Fraction(wt), act * BYTES[d.activations]


def _experts_parts(cfg: ModelConfig, t: Term, d: Dtypes) -> tuple[Fraction, Fraction]:
    """Routed experts (2, B, rows, k, mats, d_model, d_ff): the touched experts' weight
    elements, and every routed row in and out of each expert matrix."""
    _two, b, s, k, mats, dm, f = t.factors
    assert cfg.n_experts is not None
    touched = Fraction(distinct_experts(cfg.n_experts, k, b * s))
    return touched * mats * dm * f, b * s * k * mats * (dm + f) * BYTES[d.activations]


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
    if t.name == "kv_b_proj over the cache":  # reads the cached latent, expands on chip
        _two, bb, cached, kvr, _h, _w = t.factors
        return bb * cached * kvr * BYTES[d.kv]
    parts = _weight_parts(cfg, t, d)
    return None if parts is None else parts[0] * BYTES[d.weights] + parts[1]


def _weight_parts(cfg: ModelConfig, t: Term, d: Dtypes) -> tuple[Fraction, Fraction] | None:
    """A term with a weight: (the weight elements it reads, the activation bytes in and out)."""
    if t.name == "experts":
        return _experts_parts(cfg, t, d)
    if t.name == "pooler":  # (2, B, d_model, d_model): the first token of each sequence
        _two, bb, d_in, d_out = t.factors
        return Fraction(d_in * d_out), bb * (d_in + d_out) * BYTES[d.activations]
    if t.group != SCORES and len(t.factors) >= 5 and t.factors[0] == 2:
        return _linear_parts(t, d)
    return None


def _moves(m: Moves, d: Dtypes) -> Fraction:
    return (
        m.weights * BYTES[d.weights]
        + m.activations * BYTES[d.activations]
        + m.state * BYTES[FP32 if m.state_dtype == FP32 else d.kv]
    )


def _mixer_bytes(mixer: MixerCounts, traffic: Traffic, t: Term, d: Dtypes) -> Fraction | None:
    """A token mixer's term: what its kernel moves (counts.mixers.traffic), or a linear
    layer's weight and rows ((2, B, S, in, out); a decode step's (2, B, in, out))."""
    if t.name in traffic.terms:
        return _moves(traffic.terms[t.name], d)
    if t.name in mixer.linear:
        _two, b, *dims = t.factors
        rows = b * (dims.pop(0) if len(dims) == 3 else 1)
        d_in, d_out = dims
        return d_in * d_out * BYTES[d.weights] + rows * (d_in + d_out) * BYTES[d.activations]
    return None


def _add_mixer(
    out: dict[tuple[str, str], Component], cfg: ModelConfig, kind: LayerKind, terms: list[Term],
    count: int, b: int, s: int, d: Dtypes, decode: bool,
) -> list[Term]:  # fmt: skip
    """A layer's token-mixer terms with their bytes, and its 0-FLOP kernels (an elementwise
    recurrent step) as components of their own; returns the layer's other terms."""
    mixer = counts_of(kind.mixer)
    if mixer is None or mixer.traffic is None:
        return terms
    traffic = mixer.traffic(cfg, b, s, decode)
    for t in terms:
        if t.group == MIXER:
            _add(out, t, count, _mixer_bytes(mixer, traffic, t, d))
    for name, moves in traffic.steps.items():
        c = out.setdefault((MIXER, name), Component(name, MIXER))
        c.bytes += count * _moves(moves, d)
    return [t for t in terms if t.group != MIXER]


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
        # a global layer of its own width (Gemma 4); an encoder-decoder's decoder: its own sizes
        c = cfg.stack(layer.stack).attending(layer.kind.is_local)
        rest = _add_mixer(out, cfg, layer.kind, layer.terms, layer.count, batch, seq_len, d, False)
        for t in rest:  # each sequence's keys and values read once (a window too)
            _add(out, t, layer.count, _term_bytes(c, t, d, batch, seq_len, seq_len, False))
    for t in fl.model_flop_terms(cfg, w):
        _add(out, t, 1, _term_bytes(cfg, t, d, batch, seq_len, seq_len, False))
    return Phase("prefill", seq_len, batch * seq_len, list(out.values()))


def decode(cfg: ModelConfig, batch: int, context: int, d: Dtypes) -> Phase:
    """One decode step after `context` cached tokens (as `flops --decode` counts it)."""
    out: dict[tuple[str, str], Component] = {}
    for layer in inf.decode_layers(cfg, batch, context):
        # a global layer of its own width (Gemma 4); the decoder: its own width and heads
        c = cfg.stack(layer.stack).attending(layer.kind.is_local)
        for t in _add_mixer(out, cfg, layer.kind, layer.terms, layer.count, batch, 1, d, True):
            kv = _kv_len(cfg, layer.kind, t, context, context)
            _add(out, t, layer.count, _term_bytes(c, t, d, batch, 1, kv, True))
    w = fl.Workload(batch=batch, seq_len=1, target_len=1)
    for t in fl.model_flop_terms(cfg, w, encoder=False):
        _add(out, t, 1, _term_bytes(cfg, t, d, batch, 1, 1, True))
    return Phase("decode", context, batch, list(out.values()))


# --- a training step --------------------------------------------------------------------------

GRAD_BYTES = 4  # gradients accumulate in fp32 (memory --training --recipe mixed holds them so)
RECOMPUTED = {"none": (), "selective": (SCORES,), "full": None}  # None: every layer term


def _train_term(
    cfg: ModelConfig, t: Term, d: Dtypes, b: int, s: int
) -> tuple[Fraction, Fraction] | None:
    """(forward bytes, backward bytes) of one term of a training step. A weight's backward is
    two matmuls: dX = dY W^T reads the weight and dY and writes dX; dW = X^T dY reads the saved
    input X and dY and writes the fp32 gradient: the forward's bytes, the rows in and out once
    more and the gradient. The fused scores' backward reads Q, K, V, the output and its
    gradient and writes dQ, dK, dV: twice the forward's bytes."""
    if t.group == SCORES:
        fwd = _scores(cfg, t, d, b, s, s, False)
        return None if fwd is None else (fwd, 2 * fwd)
    parts = _weight_parts(cfg, t, d)
    if parts is None:
        return None
    wt, act = parts
    fwd = wt * BYTES[d.weights] + act
    return fwd, fwd + act + wt * GRAD_BYTES


def _train_add(
    out: dict[tuple[str, str], Component],
    t: Term,
    count: int,
    by: tuple[Fraction, Fraction] | None,
    again: bool,
) -> int:
    """Forward (F) and backward (2F) of `count` copies of a term, and a recomputed forward
    when `again`; returns the recomputed FLOPs."""
    c = out.setdefault((t.group, t.name), Component(t.name, t.group))
    times = 4 if again else 3
    c.flops += times * count * t.value
    if by is None:
        c.modelled = False
    else:
        fwd, bwd = by
        c.bytes += count * (fwd * (2 if again else 1) + bwd)
    return count * t.value if again else 0


def optimizer_bytes(params: int, d: Dtypes) -> int:
    """Adam's step per parameter: reads the fp32 gradient, master weight and two moments (16
    bytes) and writes the master weight and moments (12) and, when the weights are not fp32
    themselves, their copy in the weights' dtype."""
    extra = 0 if d.weights == "fp32" else BYTES[d.weights]
    return ceil(params * (28 + extra))


def training(
    cfg: ModelConfig,
    batch: int,
    seq_len: int,
    d: Dtypes,
    params: int,
    dp: int = 1,
    recompute: str = "none",
    link: float | None = None,
) -> Phase:
    """One training step of `batch` sequences of `seq_len` tokens over `dp` data-parallel
    replicas: each replica's forward (the prefill's terms at batch / dp), backward (2x the
    forward's FLOPs, the project's training convention: training = 3 x forward) and
    recomputed forward (selective: the scores; full: every layer term, not the LM head), the
    optimizer step over the `params` parameters (Adam, counts no FLOPs: elementwise), and
    with `link` bytes/s the gradients' ring all-reduce, 2 (dp - 1) / dp x the fp32
    gradients, over that link. FLOPs and bytes are one replica's (divided over --tp devices
    by the caller); tokens are the whole step's."""
    b = batch // dp
    w = fl.Workload(batch=b, seq_len=seq_len)
    out: dict[tuple[str, str], Component] = {}
    groups = RECOMPUTED[recompute]
    again = 0
    for layer in fl.layer_flops(cfg, w):
        for t in layer.terms:
            redo = groups is None or t.group in groups
            again += _train_add(out, t, layer.count, _train_term(cfg, t, d, b, seq_len), redo)
    for t in fl.model_flop_terms(cfg, w):  # the LM head (and pooler): never recomputed
        _train_add(out, t, 1, _train_term(cfg, t, d, b, seq_len), False)
    comps = list(out.values())
    comps.append(Component("optimizer step", "optimizer", 0, Fraction(optimizer_bytes(params, d))))
    if link is not None and dp > 1:
        ring = Fraction(2 * (dp - 1), dp) * params * GRAD_BYTES
        comps.append(Component("gradient all-reduce", "communication", 0, ring, link=link))
    return Phase("training", seq_len, batch * seq_len, comps, again)


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
