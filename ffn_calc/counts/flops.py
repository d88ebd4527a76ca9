"""Closed-form forward FLOPs per component, and the S-vs-FFN crossover.

Convention (the default; it equals torch.utils.flop_counter.FlopCounterMode on the
instantiated model with eager or math-kernel attention):
- matmul FLOPs only, 2 FLOPs per multiply-add (an [m, k] x [k, n] matmul costs 2 m k n);
- both attention matmuls, QK^T and AV, over the full S x S square (no causal halving);
- GQA/MQA: K and V projections shrink; the score matmuls still run over every query head;
- the LM head at every output position, tied or not; BERT's pooler on the first token;
- MoE: the router and experts_per_token experts per token;
- embedding lookups, norms, softmax, activations, bias and residual adds: not counted.
Training = forward + backward = 3 x forward. Every term has the factor 2, so
multiply-adds (MACs) = FLOPs / 2 exactly.

The crossovers are the formula's S (`crossovers`); `reached_crossovers` keeps those a model
with a learned position table can run (S at most its positions).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ffn_calc.counts.terms import Term, term, total
from ffn_calc.i18n.translate import N_
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.layer_kinds import LayerKind, layer_kinds

CONVENTION = N_(
    "FLOPs = 2 x multiply-adds of every matmul; QK^T and AV over the full S x S square; "
    "LM head at every position; embeddings, norms, softmax, activations, bias and residual "
    "adds not counted (= torch FlopCounterMode, eager attention). Training = 3 x forward."
)

FLOP_COMPONENTS = (
    "embedding",
    "attention_projections",
    "attention_scores",
    "ffn",
    "lm_head",
    "pooler",
)


@dataclass(frozen=True)
class Workload:
    """Batch, source/self length S, target length T (encoder-decoder), and switches."""

    batch: int
    seq_len: int
    target_len: int | None = None
    causal: bool = False
    lm_head: bool = True


def check_lengths(cfg: ModelConfig, w: Workload, seq_option: str = "--seq-len") -> None:
    """The workload's lengths fit the model's learned position table (each stack's: S for a
    decoder-only or encoder-only model and an encoder, T for the decoder)."""
    cfg.check_positions(w.seq_len, f"{seq_option} {w.seq_len}")
    if w.target_len is not None and cfg.architecture == "encoder-decoder":
        cfg.check_positions(w.target_len, f"--target-len {w.target_len}")


@dataclass(frozen=True)
class LayerFlops:
    stack: str
    count: int
    terms: list[Term]
    kind: LayerKind  # as counts.params.LayerCount.kind

    def group(self, name: str) -> int:
        return total(self.terms, name)

    @property
    def total(self) -> int:
        return total(self.terms)


def _mla_terms(cfg: ModelConfig, b: int, s: int) -> list[Term]:
    """Multi-head latent attention's projections, each a matmul over the B x S rows."""
    d, h, g = cfg.d_model, cfg.n_heads, "attention_projections"
    qr, kvr = cfg.q_lora_rank, cfg.kv_lora_rank
    nope, rope, v = cfg.qk_nope_head_dim, cfg.qk_rope_head_dim, cfg.v_head_dim
    assert kvr is not None and nope is not None and rope is not None and v is not None
    if qr is None:
        out = [
            term(
                g,
                "q_proj",
                "2 x B x S x d_model x n_heads x (nope + rope)",
                2,
                b,
                s,
                d,
                h,
                nope + rope,
            )
        ]
    else:
        out = [
            term(g, "q_a_proj", "2 x B x S x d_model x q_lora_rank", 2, b, s, d, qr),
            term(
                g,
                "q_b_proj",
                "2 x B x S x q_lora_rank x n_heads x (nope + rope)",
                2,
                b,
                s,
                qr,
                h,
                nope + rope,
            ),
        ]
    return [
        *out,
        term(g, "kv_a_proj_with_mqa", "2 x B x S x d_model x (kv_lora_rank + rope)", 2, b, s, d, kvr + rope),
        term(g, "kv_b_proj", "2 x B x S x kv_lora_rank x n_heads x (nope + v_head_dim)", 2, b, s, kvr, h, nope + v),
        term(g, "o_proj", "2 x B x S x n_heads x v_head_dim x d_model", 2, b, s, h, v, d),
    ]  # fmt: skip


def _projection_terms(cfg: ModelConfig, b: int, s_q: int, s_kv: int, prefix: str) -> list[Term]:
    """Q and O over the query positions, K and V over the key/value positions."""
    if cfg.attention == "mla" and not prefix:
        return _mla_terms(cfg, b, s_q)
    d, q, kv, g = cfg.d_model, cfg.q_dim, cfg.kv_dim, "attention_projections"
    s = "T" if prefix == "cross " else "S"
    src = "S" if prefix == "cross " else s
    return [
        term(g, f"{prefix}Q", f"2 x B x {s} x d_model x (n_heads x head_dim)", 2, b, s_q, d, q),
        term(
            g, f"{prefix}K", f"2 x B x {src} x d_model x (n_kv_heads x head_dim)", 2, b, s_kv, d, kv
        ),
        term(
            g, f"{prefix}V", f"2 x B x {src} x d_model x (n_kv_heads x head_dim)", 2, b, s_kv, d, kv
        ),
        term(g, f"{prefix}O", f"2 x B x {s} x (n_heads x head_dim) x d_model", 2, b, s_q, q, d),
    ]


def score_terms(
    cfg: ModelConfig,
    b: int,
    s_q: int,
    s_kv: int,
    *,
    causal: bool = False,
    prefix: str = "",
    rows: str | None = "S",
    cols: str = "S",
) -> list[Term]:
    """QK^T and AV for every query head: s_q query rows against s_kv keys (`rows`, `cols`:
    their symbols in the formula; rows None: s_q is 1, one new token), or the S(S+1)/2
    causal pairs. The one source of the score
    FLOPs: the forward pass, a decode step and the crossovers all count these terms. The two
    head widths differ under MLA (QK^T: nope + rope; AV: v_head_dim)."""
    h, g = cfg.n_heads, "attention_scores"
    hq, hv = cfg.qk_head_size, cfg.v_head_size
    qk_sym, v_sym = (
        ("(nope + rope)", "v_head_dim") if cfg.attention == "mla" else ("head_dim", "head_dim")
    )
    if causal:  # 2 x B x H x head_dim x S(S+1)/2, written without the division
        assert rows is not None
        return [
            term(g, f"{prefix}QK^T (causal)", f"B x n_heads x {rows}({rows}+1) x {qk_sym}", b, h, s_q, s_q + 1, hq),
            term(g, f"{prefix}AV (causal)", f"B x n_heads x {rows}({rows}+1) x {v_sym}", b, h, s_q, s_q + 1, hv),
        ]  # fmt: skip
    # One query row (a decode step: rows None): the keys alone, with no factor of 1.
    pair, q = (cols, ()) if rows is None else (f"{rows} x {cols}", (s_q,))
    return [
        term(g, f"{prefix}QK^T", f"2 x B x n_heads x {pair} x {qk_sym}", 2, b, h, *q, s_kv, hq),
        term(g, f"{prefix}AV", f"2 x B x n_heads x {pair} x {v_sym}", 2, b, h, *q, s_kv, hv),
    ]


def _moe_terms(cfg: ModelConfig, b: int, s: int, sym: str) -> list[Term]:
    """Top-k dispatch: the router over every token, experts_per_token expert passes per
    token, the shared expert and its gate over every token."""
    d, f, g = cfg.d_model, cfg.d_ff, "ffn"
    mats = 3 if cfg.gated else 2
    assert cfg.n_experts is not None and cfg.experts_per_token is not None
    k = cfg.experts_per_token
    out = [
        term(g, "router", f"2 x B x {sym} x d_model x n_experts", 2, b, s, d, cfg.n_experts),
        term(g, "experts", f"2 x B x {sym} x experts_per_token x {mats} x d_model x d_ff", 2, b, s, k, mats, d, f),
    ]  # fmt: skip
    if cfg.shared_expert_d_ff is not None:
        fs = cfg.shared_expert_d_ff
        out.append(
            term(
                g,
                "shared expert",
                f"2 x B x {sym} x {mats} x d_model x shared_expert_d_ff",
                2,
                b,
                s,
                mats,
                d,
                fs,
            )
        )
        if cfg.shared_expert_gate:
            out.append(term(g, "shared expert gate", f"2 x B x {sym} x d_model x 1", 2, b, s, d, 1))
    return out


def _ffn_terms(cfg: ModelConfig, b: int, s: int, sym: str, width: int | None = None) -> list[Term]:
    if cfg.is_moe and width is None:
        return _moe_terms(cfg, b, s, sym)
    d, f, g = cfg.d_model, cfg.d_ff if width is None else width, "ffn"
    names = ("gate", "up", "down") if cfg.gated else ("W1", "W2")
    return [term(g, n, f"2 x B x {sym} x d_model x d_ff", 2, b, s, d, f) for n in names]


def _ffn_kinds(
    cfg: ModelConfig, layers: int, b: int, s: int, sym: str
) -> list[tuple[LayerKind, int, list[Term]]]:
    """As counts.params.ffn_kinds: the layer kinds with their counts and FFN FLOP terms."""
    out = []
    for kind, count in layer_kinds(cfg, layers):
        dense = cfg.is_moe and kind.is_dense_ffn  # a MoE model's dense layer
        width = (cfg.dense_d_ff or cfg.d_ff) if dense else None
        out.append((kind, count, _ffn_terms(cfg, b, s, sym, width)))
    return out


def layer_flops(cfg: ModelConfig, w: Workload) -> list[LayerFlops]:
    """Forward FLOPs of one layer of each kind, with how many layers there are."""
    b, s = w.batch, w.seq_len
    out: list[LayerFlops] = []
    if cfg.architecture == "encoder-decoder":
        t = w.target_len if w.target_len is not None else s
        enc = _projection_terms(cfg, b, s, s, "") + score_terms(cfg, b, s, s)
        for kind, count, ffn in _ffn_kinds(cfg, cfg.encoder_layers, b, s, "S"):
            out.append(LayerFlops("encoder", count, enc + ffn, kind))
        dec = _projection_terms(cfg, b, t, t, "")
        dec = [Term(x.name, x.formula.replace(" S ", " T "), x.factors, x.group) for x in dec]
        dec += score_terms(cfg, b, t, t, causal=w.causal, rows="T", cols="T")
        dec += _projection_terms(cfg, b, t, s, "cross ")
        dec += score_terms(cfg, b, t, s, prefix="cross ", rows="T", cols="S")
        for kind, count, ffn in _ffn_kinds(cfg, cfg.decoder_layers, b, t, "T"):
            out.append(LayerFlops("decoder", count, dec + ffn, kind))
        return out
    stack = "encoder" if cfg.architecture == "encoder-only" else "decoder"
    causal = w.causal and stack == "decoder"
    terms = _projection_terms(cfg, b, s, s, "") + score_terms(cfg, b, s, s, causal=causal)
    for kind, count, ffn in _ffn_kinds(cfg, cfg.n_layers, b, s, "S"):
        out.append(LayerFlops(stack, count, terms + ffn, kind))
    return out


def model_flop_terms(cfg: ModelConfig, w: Workload) -> list[Term]:
    """FLOPs outside the layers: a narrow embedding's projections, the LM head over the
    output positions (with a masked-LM transform), the pooler."""
    out: list[Term] = []
    b, d, e = w.batch, cfg.d_model, cfg.embed_width
    ew = "embedding_dim" if cfg.embedding_dim is not None else "d_model"
    if cfg.embedding_dim is not None and cfg.architecture != "encoder-decoder":
        out.append(
            term("embedding", "projection in", f"2 x B x S x {ew} x d_model", 2, b, w.seq_len, e, d)
        )
    if cfg.has_lm_head and cfg.vocab_size is not None and w.lm_head:
        sym, n = "S", w.seq_len
        if cfg.architecture == "encoder-decoder":
            sym, n = "T", (w.target_len if w.target_len is not None else w.seq_len)
        if cfg.project_out:
            out.append(
                term(
                    "embedding", "projection out", f"2 x B x {sym} x d_model x {ew}", 2, b, n, d, e
                )
            )
        if cfg.lm_head_transform:
            out.append(
                term("lm_head", "head dense", f"2 x B x {sym} x d_model x {ew}", 2, b, n, d, e)
            )
        out.append(
            term(
                "lm_head",
                "lm_head",
                f"2 x B x {sym} x {ew} x vocab_size",
                2,
                b,
                n,
                e,
                cfg.vocab_size,
            )
        )
    if cfg.pooler:
        out.append(
            term(
                "pooler",
                "pooler",
                "2 x B x d_model x d_model (first token)",
                2,
                w.batch,
                cfg.d_model,
                cfg.d_model,
            )
        )
    return out


def flop_components(cfg: ModelConfig, w: Workload) -> dict[str, int]:
    """Forward FLOPs per contract component; `pooler` only where the model has one."""
    out = dict.fromkeys(FLOP_COMPONENTS, 0)
    for layer in layer_flops(cfg, w):
        for t in layer.terms:
            out[t.group] += layer.count * t.value
    for t in model_flop_terms(cfg, w):
        out[t.group] += t.value
    if not cfg.pooler:
        del out["pooler"]
    if cfg.embedding_dim is None:
        del out["embedding"]  # only a narrow embedding's projections are matmuls
    return out


def forward_flops(cfg: ModelConfig, w: Workload) -> int:
    return sum(flop_components(cfg, w).values())


# --- Crossover: where the S^2 scores overtake the S-linear terms of one layer -------------


Line = tuple[Fraction, Fraction]  # a0 + a1 x S


@dataclass(frozen=True)
class PerToken:
    """One self-attention layer's FLOPs per token (batch 1) at sequence length S."""

    projections: int  # 2 x d_model x (2 q_dim + 2 kv_dim)
    ffn: int  # 2 x mats x d_model x d_ff (MoE: router + active experts)
    # Score FLOPs per token, a line in S (full square; causal pairs), read off score_terms.
    score_lines: dict[bool, Line]

    @property
    def scores_slope(self) -> int:
        """What one more token adds to the score FLOPs per token (full square)."""
        slope = self.score_lines[False][1]
        assert slope.denominator == 1
        return int(slope)

    def scores(self, s: int | Fraction, causal: bool = False) -> Fraction:
        """Score FLOPs per token at length S."""
        a0, a1 = self.score_lines[causal]
        return a0 + a1 * s


def crossover_layer(cfg: ModelConfig, w: Workload | None = None) -> LayerFlops:
    """The layer kind the crossover describes: the first stack's most numerous kind (the
    encoder layer of an encoder-decoder; the MoE layers of a MoE model with dense ones);
    counted at the workload `w` (default batch 1, S = 1)."""
    layers = layer_flops(cfg, w or Workload(batch=1, seq_len=1))
    first = [x for x in layers if x.stack == layers[0].stack]
    return max(first, key=lambda x: x.count)  # the first of equals


def score_line(cfg: ModelConfig, causal: bool = False) -> Line:
    """The crossover layer's score FLOPs per token as a0 + a1 x S, taken from the terms the
    forward pass counts (score_terms, via layer_flops) at S = 1, 2 and checked at S = 3: the
    crossovers follow whatever those terms count."""
    per = [
        Fraction(crossover_layer(cfg, Workload(1, s, causal=causal)).group("attention_scores"), s)
        for s in (1, 2, 3)
    ]
    a1 = per[1] - per[0]
    a0 = per[0] - a1
    assert per[2] == a0 + 3 * a1, "score FLOPs per token must be linear in S"
    return a0, a1


def per_token(cfg: ModelConfig) -> PerToken:
    """Per-token FLOPs of one layer of the kind the crossover describes (crossover_layer)."""
    layer = crossover_layer(cfg)
    return PerToken(
        projections=layer.group("attention_projections"),
        ffn=layer.group("ffn"),
        score_lines={c: score_line(cfg, c) for c in (False, True)},
    )


def solve(pt: PerToken, target: int, causal: bool = False) -> Fraction:
    """The S where score FLOPs per token equal `target` FLOPs per token."""
    a0, a1 = pt.score_lines[causal]
    return (target - a0) / a1


def crossovers(cfg: ModelConfig, causal: bool = False) -> dict[str, Fraction]:
    """scores = FFN, scores = projections, scores = projections + FFN."""
    pt = per_token(cfg)
    return {
        "scores_vs_ffn": solve(pt, pt.ffn, causal),
        "scores_vs_projections": solve(pt, pt.projections, causal),
        "scores_vs_dense": solve(pt, pt.projections + pt.ffn, causal),
    }


def reached_crossovers(
    cfg: ModelConfig, causal: bool = False
) -> tuple[dict[str, Fraction | None], dict[str, Fraction]]:
    """The crossovers a sequence the model can run reaches (None: past its learned position
    table, S <= cfg.position_limit), and those past it, where the formula puts them."""
    points, limit = crossovers(cfg, causal), cfg.position_limit
    past = {k: v for k, v in points.items() if limit is not None and v > limit}
    return {k: None if k in past else v for k, v in points.items()}, past


def sweep_lengths(points: list[Fraction]) -> list[int]:
    """Powers of two from an eighth of the first crossover to twice past the last."""
    lo = max(1, int(min(points) / 8))
    hi = max(2, int(max(points) * 2) + 1)
    out, s = [], 1
    while s < lo:
        s *= 2
    s = max(1, s // 2)
    while s <= hi:
        out.append(s)
        s *= 2
    return out


def scaled(cfg: ModelConfig, d_model: int) -> ModelConfig:
    """The same design at another width: the d_ff / d_model ratio and head_dim kept."""
    hd = cfg.head_size
    heads = max(1, d_model * cfg.n_heads // cfg.d_model)
    group = cfg.n_heads // cfg.kv_heads
    kv = max(1, heads // group)
    while heads % kv:
        kv -= 1
    # Built without validation: every invariant holds by construction (kv divides heads,
    # head_dim given), and a wide d_ff / d_model ratio may carry d_ff past the bound on
    # sizes that input files are held to, which the exact integer counts do not need.
    return ModelConfig.model_construct(
        **{
            **cfg.model_dump(
                exclude={"name", "head_dim", "n_heads", "n_kv_heads", "d_ff", "towers"}
            ),
            "towers": cfg.towers,
            "name": f"{cfg.name} @ d_model {d_model}",
            "d_model": d_model,
            "d_ff": max(1, round(Fraction(cfg.d_ff * d_model, cfg.d_model))),
            "n_heads": heads,
            "n_kv_heads": kv,
            "head_dim": hd,
        }
    )
