"""Where the scores overtake beyond one layer's forward pass: at decode time, and a hybrid's
crossovers per layer kind.

The decode crossovers (where one step's scores reach the FFN, the projections, both; where its
cache read reaches the FFN weights read) come from one decode step (counts.inference) as a
function of the context L, which is linear between the bends where a local layer's window
fills (L = window - 1). A crossover past the last bend's plateau, or past a learned position
table (L + 1 at most its positions), is never reached. A hybrid's crossovers are the whole
stack's (flops.crossover_layer); each layer kind's own are kind_crossovers (prefill) and
kind_decode_crossovers.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

from ffn_calc.counts import flops as fl
from ffn_calc.counts.inference import _bends, cached_per_token, decode_layers
from ffn_calc.counts.parts import shared_share, shares_weights, stack_part_terms
from ffn_calc.counts.terms import total
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.layer_kinds import NO_FFN, LayerKind, layer_kinds

# Why a crossover is never reached (JSON: `never`): the scores (or the cache read) stop
# growing at a local layer's window below the other side; the other side grows at least as
# fast as the scores; or the crossover lies past the model's learned position table.
NEVER_WINDOW, NEVER_SLOWER, NEVER_POSITIONS = "window", "slower", "positions"
PARTS = ("attention_projections", "attention_scores", "ffn")
Line = tuple[Fraction, Fraction]  # a0 + a1 x L


def crossover_kind(cfg: ModelConfig) -> tuple[int, bool]:
    """The decoder layer kind a decode crossover describes (its index in decode_layers):
    the most numerous full-attention kind, else the most numerous kind; and whether that
    kind attends locally (a sliding window or chunks)."""
    kinds = layer_kinds(cfg, cfg.decoder_layers if cfg.has_decoder else 0)
    full = [i for i, (kind, _n) in enumerate(kinds) if not kind.is_local]
    pick = max(full or range(len(kinds)), key=lambda i: kinds[i][1])
    return pick, kinds[pick][0].is_local


def decode_parts(cfg: ModelConfig, batch: int, context: int, pick: int | None) -> dict[str, int]:
    """One decode step of one layer of kind `pick` (None: a hybrid's whole stack, each kind
    x its layers, as flops.crossover_layer): its projections, scores and FFN FLOPs, exactly
    as decode_layers counts them, with the shared weights the layers run (the stack's
    counts.parts.stack_part_terms; a kind that shares them: its shared_share)."""
    layers = decode_layers(cfg, batch, context)
    if pick is None:
        shared = stack_part_terms(cfg, batch, 1)  # shared weights the layers run
        return {
            g: sum(x.count * t.value for x in layers for t in x.terms if t.group == g)
            + total(shared, g)
            for g in PARTS
        }
    layer = layers[pick]
    share = shared_share(cfg, batch, 1) if shares_weights(layer.kind) else {}
    return {g: sum(t.value for t in layer.terms if t.group == g) + share.get(g, 0) for g in PARTS}


@dataclass(frozen=True)
class Piece:
    """Where one decode step is linear in the context: lo <= L <= hi (None: unbounded)."""

    lo: int | None
    hi: int | None
    lines: dict[str, Line]  # per part

    def at(self, context: Fraction) -> dict[str, Fraction]:
        return {g: a0 + a1 * context for g, (a0, a1) in self.lines.items()}


@dataclass(frozen=True)
class DecodeSteps:
    """One decode step of one layer of the crossover kind, as a function of the context L:
    linear between the bends where a local layer's attended tokens stop growing."""

    cfg: ModelConfig
    batch: int
    pick: int | None  # None: a hybrid's whole stack
    kind: LayerKind
    local: bool
    pieces: list[Piece]
    stops_at: int | None  # the context from which the scores stop growing (local layers)
    max_context: int | None  # the longest context the learned position table allows

    def parts(self, context: Fraction) -> dict[str, Fraction]:
        """The step's parts at a context L: counted by decode_layers at a whole L; between
        two whole contexts, on the line through them."""
        if context.denominator == 1 and context >= 1:
            return {
                k: Fraction(v)
                for k, v in decode_parts(self.cfg, self.batch, int(context), self.pick).items()
            }
        piece = next(p for p in self.pieces if p.hi is None or context <= p.hi)
        return piece.at(context)


def decode_steps(cfg: ModelConfig, batch: int, kind: int | None = None) -> DecodeSteps:
    """One decode step as a function of the context: of the crossover kind's layer, of a
    hybrid's whole stack, or (`kind`) of one layer of that kind (its index in decode_layers)."""
    fl.check_linear_scores(cfg)
    pick: int | None
    pick, local = crossover_kind(cfg)
    if kind is not None:
        pick, local = kind, layer_kinds(cfg, cfg.decoder_layers)[kind][0].is_local
    elif cfg.layer_mixers:
        pick = None
    bends = sorted(b for b in _bends(cfg) if b >= 1) if local else []
    edges: list[int | None] = [None, *bends, None]
    pieces = []
    for lo, hi in itertools.pairwise(edges):
        p = lo if lo is not None else (hi - 1 if hi is not None else 1)
        v0, v1 = decode_parts(cfg, batch, p, pick), decode_parts(cfg, batch, p + 1, pick)
        lines = {g: (Fraction(v0[g] - (v1[g] - v0[g]) * p), Fraction(v1[g] - v0[g])) for g in PARTS}
        pieces.append(Piece(lo, hi, lines))
    window = cfg.attention_window or 0
    limit = cfg.position_limit
    kinds = decode_layers(cfg, batch, 1)
    return DecodeSteps(
        cfg=cfg,
        batch=batch,
        pick=pick,
        kind=kinds[pick].kind if pick is not None else LayerKind(),
        local=local,
        pieces=pieces,
        stops_at=window - 1 if local and window > 1 else None,
        max_context=None if limit is None else limit - 1,
    )


def first_meet(
    pieces: list[tuple[int | None, int | None, Line]], max_context: int | None, local: bool
) -> tuple[Fraction | None, str | None, Fraction | None]:
    """Where a piecewise-linear difference (rising side - other side) first reaches 0:
    (the context, None, None) if the model reaches it; (None, why, the context without the
    position table or None) if it does not."""
    for lo, hi, (d0, d1) in pieces:
        if d1 <= 0:
            continue
        at = Fraction(-d0, d1)
        if (hi is None or at <= hi) and (lo is None or at >= lo):
            if max_context is not None and at > max_context:
                return None, NEVER_POSITIONS, at
            return at, None, None
    return None, NEVER_WINDOW if local else NEVER_SLOWER, None


@dataclass(frozen=True)
class Reach:
    """A crossover: where the model reaches it, or why never (and where without the table)."""

    at: Fraction | None
    never: str | None
    unbounded: Fraction | None


def decode_crossovers(steps: DecodeSteps) -> dict[str, Reach]:
    """scores = FFN, scores = projections, scores = projections + FFN (one step's FLOPs)."""
    sides = {
        "scores_vs_ffn": ("ffn",),
        "scores_vs_projections": ("attention_projections",),
        "scores_vs_dense": ("attention_projections", "ffn"),
    }
    out = {}
    for key, other in sides.items():
        diff = []
        for p in steps.pieces:
            s0, s1 = p.lines["attention_scores"]
            o0, o1 = sum(p.lines[g][0] for g in other), sum(p.lines[g][1] for g in other)
            diff.append((p.lo, p.hi, (s0 - o0, s1 - o1)))
        out[key] = Reach(*first_meet(diff, steps.max_context, steps.local))
    return out


def bytes_crossover(steps: DecodeSteps, per_token: int, weights: int) -> Reach:
    """The context where the cache one step reads in one layer (batch x the tokens the layer
    keeps x per token) reaches the FFN weights it reads: it stops growing at the window."""
    b = steps.batch * per_token
    diff: list[tuple[int | None, int | None, Line]]
    if steps.stops_at is None:
        diff = [(None, None, (Fraction(-weights), Fraction(b)))]
    else:
        k = steps.stops_at
        diff = [
            (None, k, (Fraction(-weights), Fraction(b))),
            (k, None, (Fraction(b * k - weights), Fraction(0))),
        ]
    return Reach(*first_meet(diff, steps.max_context, steps.local))


def ffn_weights_read(cfg: ModelConfig, batch: int, moe: bool) -> int:
    """FFN weight elements one decode step reads in one layer: all of a dense FFN; for a MoE
    layer the router, the shared expert and at most min(n_experts, batch x k) experts."""
    from ffn_calc.counts import params as pm

    cfg = cfg.stack("decoder")  # a decode step runs the decoder: its own FFN width
    if not moe or cfg.n_experts is None or cfg.experts_per_token is None:
        width = cfg.dense_d_ff or cfg.d_ff if cfg.is_moe else cfg.d_ff
        return sum(t.value for t in pm.ffn_terms(cfg, width if cfg.is_moe else None))
    used = min(cfg.n_experts, batch * cfg.experts_per_token)
    idle = (cfg.n_experts - used) * pm.expert_params(cfg)
    return sum(t.value for t in pm.moe_terms(cfg)) - idle


@dataclass(frozen=True)
class KindDecodeCrossovers:
    """One layer kind's own decode crossovers (one layer of it): where one step's scores
    reach its FFN, its projections and both, and where the keys and values it reads reach
    the FFN weights it reads; a kind whose mixer does not attend never crosses."""

    stack: str
    kind: LayerKind
    count: int
    mixer: str
    flops: dict[str, Reach]
    bytes: Reach


def kind_decode_crossovers(cfg: ModelConfig, batch: int) -> list[KindDecodeCrossovers]:
    """A hybrid's decode crossovers per layer kind (fl.kind_crossovers' decode side)."""
    fl.check_linear_scores(cfg)
    out = []
    for i, (kind, count) in enumerate(layer_kinds(cfg, cfg.decoder_layers)):
        mixer = kind.mixer
        name = mixer.name if mixer is not None else "full"
        if mixer is not None and not mixer.attends:
            never = Reach(None, NEVER_MIXER, None)
            flops = dict.fromkeys(CROSSOVER_KEYS, never)
            out.append(KindDecodeCrossovers("decoder", kind, count, name, flops, never))
            continue
        steps = decode_steps(cfg, batch, i)
        flops = decode_crossovers(steps)
        no_ffn = Reach(None, NEVER_NO_FFN, None)
        if kind.ffn is NO_FFN and shares_weights(kind):  # its FFN is shared weights:
            # each of them multiplies once per token (the biases are adds, left out)
            weights = shared_share(cfg, 1, 1)["ffn"] // 2
            by_bytes = bytes_crossover(steps, cached_per_token(cfg), weights)
            out.append(KindDecodeCrossovers("decoder", kind, count, name, flops, by_bytes))
            continue
        if kind.ffn is NO_FFN:
            flops["scores_vs_ffn"] = no_ffn
            by_bytes = no_ffn
        else:
            weights = ffn_weights_read(cfg.ffn_of(kind.kv_shared), batch, kind.is_moe)
            by_bytes = bytes_crossover(steps, cached_per_token(cfg), weights)
        out.append(KindDecodeCrossovers("decoder", kind, count, name, flops, by_bytes))
    return out


def stack_ffn_weights_read(cfg: ModelConfig, batch: int) -> int:
    """FFN weight elements one decode step reads in the whole decoder stack (shared FFN
    weights: once per use, as each layer of them multiplies them)."""
    kinds = layer_kinds(cfg, cfg.decoder_layers)
    shared = sum(count for kind, count in kinds if shares_weights(kind))
    own = sum(
        count * ffn_weights_read(cfg.ffn_of(kind.kv_shared), batch, kind.is_moe)
        for kind, count in kinds
        if kind.ffn is not NO_FFN
    )
    return own + (shared * (shared_share(cfg, 1, 1)["ffn"] // 2) if shared else 0)


# Why a layer kind never reaches a crossover (JSON: `never`, translated by a view):
# 'mixer': a linear-time token mixer (recurrent or convolution) costs the same per token at
# any length, so no score FLOPs grow with S; 'no ffn': the layer has no FFN (its scores are
# above it from the first token); 'positions': past the learned position table.
NEVER_MIXER, NEVER_NO_FFN = "mixer", "no ffn"
CROSSOVER_KEYS = ("scores_vs_ffn", "scores_vs_projections", "scores_vs_dense")


@dataclass(frozen=True)
class KindCrossovers:
    """One layer kind's own crossovers (one layer of it, batch 1): the S where its scores
    reach its FFN, its projections and both; None where never, with the reason."""

    stack: str
    kind: LayerKind
    count: int
    mixer: str  # the mixer row's name ("full", "mamba2", "full+mamba2", ...)
    points: dict[str, Fraction | None]
    never: dict[str, str]
    unbounded: dict[str, Fraction]


def kind_crossovers(cfg: ModelConfig, causal: bool = False) -> list[KindCrossovers]:
    """A hybrid's crossovers per layer kind, counted from the same terms as layer_flops: an
    attending kind's S where its scores reach its own FFN and projections (a kind of shared
    weights: its share of them, counts.parts.shared_share); a kind whose mixer
    does not attend never crosses (NEVER_MIXER); a kind with no FFN has no scores = FFN."""
    fl.check_linear_scores(cfg)
    at = {s: fl.layer_flops(cfg, fl.Workload(1, s, causal=causal)) for s in (1, 2, 3)}
    limit = fl.crossover_limit(cfg)
    out = []
    for i, layer in enumerate(at[1]):
        mixer = layer.kind.mixer
        name = mixer.name if mixer is not None else "full"
        points: dict[str, Fraction | None] = dict.fromkeys(CROSSOVER_KEYS)
        never: dict[str, str] = {}
        unbounded: dict[str, Fraction] = {}
        if mixer is not None and not mixer.attends:
            never = dict.fromkeys(CROSSOVER_KEYS, NEVER_MIXER)
        else:
            per = [Fraction(at[s][i].group("attention_scores"), s) for s in (1, 2, 3)]
            a1 = per[1] - per[0]
            a0 = per[0] - a1
            assert per[2] == a0 + 3 * a1, "score FLOPs per token must be linear in S"
            share = shared_share(cfg, 1, 1) if shares_weights(layer.kind) else {}
            proj = layer.group("attention_projections") + share.get("attention_projections", 0)
            ffn = layer.group("ffn") + share.get("ffn", 0)
            sides = {"scores_vs_ffn": ffn, "scores_vs_projections": proj,
                     "scores_vs_dense": proj + ffn}  # fmt: skip
            for key, target in sides.items():
                if key == "scores_vs_ffn" and ffn == 0:
                    never[key] = NEVER_NO_FFN
                    continue
                s = (target - a0) / a1
                if limit is not None and s > limit:
                    never[key], unbounded[key] = NEVER_POSITIONS, s
                else:
                    points[key] = s
        out.append(KindCrossovers(layer.stack, layer.kind, layer.count, name, points, never,
                                  unbounded))  # fmt: skip
    return out
