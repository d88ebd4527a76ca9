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

from ffn_calc.counts.compressed import (
    compressed_entries,
    compressed_flop_terms,
    compressed_score_terms,
    compressor_flop_terms,
    hyper_flop_terms,
)
from ffn_calc.counts.mixers import counts_of
from ffn_calc.counts.mla import mla_flop_terms
from ffn_calc.counts.parts import (
    part_flop_terms,
    shared_attention,
    stack_part_terms,
)
from ffn_calc.counts.terms import Term, decoder_symbols, term, total
from ffn_calc.i18n.translate import N_, _
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.layer_kinds import MIXERS, NO_FFN, LayerKind, layer_kinds
from ffn_calc.model.towers import PART_FLOPS

CONVENTION = N_(
    "FLOPs = 2 x multiply-adds of every matmul; QK^T and AV over the full S x S square; "
    "LM head at every position; embeddings, norms, softmax, activations, bias and residual "
    "adds not counted (= torch FlopCounterMode, eager attention). Training = 3 x forward."
)

INDEXER_CONVENTION = N_(
    "Sparse attention: the indexer's projections (wq_b, wk, weights_proj) count with the "
    "attention projections and its scores (indexer scores: indexer_heads x (indexer_head_dim + "
    "1) multiply-adds per query and key) with the attention scores; its top-k selection runs "
    "no matmul, and eager attention applies it as a mask over the full square, so QK^T and AV "
    "still count every pair."
)


def indexer_conventions(cfg: ModelConfig) -> tuple[str, ...]:
    """The sentence a model with sparse attention's indexer adds to a FLOP convention."""
    return (INDEXER_CONVENTION,) if cfg.has_indexer else ()


FLOP_COMPONENTS = (
    "embedding",
    "attention_projections",
    "attention_scores",
    "mixer",  # a token mixer other than attention (kept only where non-zero)
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
    # With a cache, as generate()'s prefill runs: a convolution mixer's cache pads its input
    # to at least the kernel (transformers' update_conv_state) before convolving it.
    cached: bool = False


def check_lengths(cfg: ModelConfig, w: Workload, seq_option: str = "--seq-len") -> None:
    """The workload's lengths fit the model's learned position table (each stack's: S for a
    decoder-only or encoder-only model and an encoder, T for the decoder)."""
    encdec = cfg.architecture == "encoder-decoder"
    cfg.check_positions(w.seq_len, f"{seq_option} {w.seq_len}", source=encdec)
    if w.target_len is not None and encdec:
        cfg.check_positions(w.target_len, f"--target-len {w.target_len}")
    elif encdec and cfg.source_position_limit != cfg.position_limit:  # T = S by default
        what = _("{option} (the target length T too, without --target-len)")
        cfg.check_positions(w.seq_len, what.format(option=f"{seq_option} {w.seq_len}"))


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


def _projection_terms(cfg: ModelConfig, b: int, s_q: int, s_kv: int, prefix: str) -> list[Term]:
    """Q and O over the query positions, K and V over the key/value positions."""
    if cfg.attention == "mla" and not prefix:
        return mla_flop_terms(cfg, b, s_q)
    if cfg.compressed and not prefix:
        return compressed_flop_terms(cfg, b, s_q)
    d, q, kv, g = cfg.d_model, cfg.q_dim, cfg.kv_dim, "attention_projections"
    s = "T" if prefix == "cross " else "S"
    qw = "2 x (n_heads x head_dim)" if cfg.attention_output_gate else "(n_heads x head_dim)"
    src = "S" if prefix == "cross " else s
    out = [
        term(g, f"{prefix}Q", f"2 x B x {s} x d_model x {qw}", 2, b, s_q, d, cfg.q_proj_dim),
        term(
            g, f"{prefix}K", f"2 x B x {src} x d_model x (n_kv_heads x head_dim)", 2, b, s_kv, d, kv
        ),
        term(
            g, f"{prefix}V", f"2 x B x {src} x d_model x (n_kv_heads x head_dim)", 2, b, s_kv, d, kv
        ),
        term(g, f"{prefix}O", f"2 x B x {s} x (n_heads x head_dim) x d_model", 2, b, s_q, q, d),
    ]
    if cfg.keys_as_values == "all" and not prefix:  # the keys serve as values: no V
        out = [t for t in out if t.name != "V"]
    return out


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
    head widths differ under MLA (QK^T: nope + rope; AV: v_head_dim). With sparse attention's
    indexer (DeepSeek-V3.2, GLM-5) a third S^2 term, "indexer scores": its queries against
    its keys over every pair (indexer_heads x indexer_head_dim), then each head's scores
    weighted and summed over the heads (indexer_heads more), as the reference's two matmuls.
    The top-k selection that follows runs no matmul, and the eager reference folds it into a
    mask over the full square: QK^T and AV stay over every pair."""
    h, g = cfg.n_heads, "attention_scores"
    hq, hv = cfg.qk_head_size, cfg.v_head_size
    qk_sym, v_sym = (
        ("(nope + rope)", "v_head_dim") if cfg.attention == "mla" else ("head_dim", "head_dim")
    )
    indexer = cfg.indexer_heads if not prefix else None  # sparse attention's own scores
    ih, iw = indexer or 0, (cfg.indexer_head_dim or 0) + 1
    if causal:  # 2 x B x H x head_dim x S(S+1)/2, written without the division
        assert rows is not None
        pairs = f"{rows}({rows}+1)"
        return [
            term(g, f"{prefix}QK^T (causal)", f"B x n_heads x {pairs} x {qk_sym}", b, h, s_q, s_q + 1, hq),
            term(g, f"{prefix}AV (causal)", f"B x n_heads x {pairs} x {v_sym}", b, h, s_q, s_q + 1, hv),
        ] + ([term(g, "indexer scores (causal)", f"B x indexer_heads x {pairs} x {INDEXER_WIDTH}",
                   b, ih, s_q, s_q + 1, iw)] if indexer else [])  # fmt: skip
    # One query row (a decode step: rows None): the keys alone, with no factor of 1.
    pair, q = (cols, ()) if rows is None else (f"{rows} x {cols}", (s_q,))
    out = [
        term(g, f"{prefix}QK^T", f"2 x B x n_heads x {pair} x {qk_sym}", 2, b, h, *q, s_kv, hq),
        term(g, f"{prefix}AV", f"2 x B x n_heads x {pair} x {v_sym}", 2, b, h, *q, s_kv, hv),
    ]
    if indexer:
        out.append(term(g, "indexer scores", f"2 x B x indexer_heads x {pair} x {INDEXER_WIDTH}",
                        2, b, ih, *q, s_kv, iw))  # fmt: skip
    r = cfg.relative_position_rows
    if r is not None and not prefix:  # DeBERTa's disentangled scores (an encoder: rows S)
        for kind in cfg.position_scores:  # c2p: the S queries; p2c: the S keys
            n, sym = (s_q, rows or "1") if kind == "c2p" else (s_kv, cols)
            name = {"c2p": "c2p (Q x position keys^T)", "p2c": "p2c (K x position queries^T)"}
            formula = f"2 x B x n_heads x {sym} x relative_position_rows x head_dim"
            out.append(term(g, name[kind], formula, 2, b, h, n, r, hq))
    return out


# The indexer's scores per query and key and head: q . k over indexer_head_dim, then the
# head's weight times that score, summed over the heads (one more multiply-add per head).
INDEXER_WIDTH = "(indexer_head_dim + 1)"


def _moe_terms(cfg: ModelConfig, b: int, s: int, sym: str) -> list[Term]:
    """Top-k dispatch: the router over every token, experts_per_token expert passes per
    token, the shared expert and its gate over every token."""
    d, f, g = cfg.d_model, cfg.d_ff, "ffn"
    mats = 3 if cfg.gated else 2
    assert cfg.n_experts is not None and cfg.experts_per_token is not None
    k, lat, w = cfg.experts_per_token, cfg.moe_latent_dim, cfg.expert_width
    rows, width = f"2 x B x {sym} x", "d_model" if lat is None else "moe_latent_dim"
    out = [term(g, "router", f"{rows} d_model x n_experts", 2, b, s, d, cfg.n_experts)]
    if lat is not None:  # the experts' latent width: a projection down before, up after
        out.append(term(g, "latent down", f"{rows} d_model x moe_latent_dim", 2, b, s, d, lat))
        out.append(term(g, "latent up", f"{rows} moe_latent_dim x d_model", 2, b, s, lat, d))
    formula = f"{rows} experts_per_token x {mats} x {width} x d_ff"
    out.append(term(g, "experts", formula, 2, b, s, k, mats, w, f))
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
    hyper = hyper_flop_terms(cfg, b, s, "ffn", "ffn_hc")  # the hyper-connection around the FFN
    if cfg.is_moe and width is None:
        return _moe_terms(cfg, b, s, sym) + hyper
    d, f, g = cfg.d_model, cfg.d_ff if width is None else width, "ffn"
    names = ("gate", "up", "down") if cfg.gated else ("W1", "W2")
    return [term(g, n, f"2 x B x {sym} x d_model x d_ff", 2, b, s, d, f) for n in names] + hyper


def _ffn_kinds(
    cfg: ModelConfig, layers: int, b: int, s: int, sym: str
) -> list[tuple[LayerKind, int, list[Term]]]:
    """As counts.params.ffn_kinds: the layer kinds with their counts and FFN FLOP terms."""
    out = []
    for kind, count in layer_kinds(cfg, layers):
        c = cfg.ffn_of(kind.kv_shared)  # a KV-shared layer's FFN of its own width (Gemma 4)
        dense = c.is_moe and kind.is_dense_ffn  # a MoE model's dense layer
        width = (c.dense_d_ff or c.d_ff) if dense else None
        ffn = [] if kind.ffn is NO_FFN else _ffn_terms(c, b, s, sym, width)
        out.append((kind, count, ffn))
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
        mine = cfg.stack("decoder")  # the decoder's own FFN width and heads, where it has them
        dec = _projection_terms(mine, b, t, t, "")
        dec = [Term(x.name, x.formula.replace(" S ", " T "), x.factors, x.group) for x in dec]
        dec += score_terms(mine, b, t, t, causal=w.causal, rows="T", cols="T")
        dec += _projection_terms(mine, b, t, s, "cross ")
        dec += score_terms(mine, b, t, s, prefix="cross ", rows="T", cols="S")
        for kind, count, ffn in _ffn_kinds(mine, cfg.decoder_layers, b, t, "T"):
            terms = decoder_symbols(cfg, dec + ffn)
            out.append(LayerFlops("decoder", count, terms, kind))
        return out
    stack = "encoder" if cfg.architecture == "encoder-only" else "decoder"
    causal = w.causal and stack == "decoder"
    plain = _projection_terms(cfg, b, s, s, "") + score_terms(cfg, b, s, s, causal=causal)
    per_layer = per_layer_flop_terms(cfg, b, s)
    parts = part_flop_terms(cfg.layer_parts, b, s)
    for kind, count, ffn in _ffn_kinds(cfg, cfg.n_layers, b, s, "S"):
        c = cfg.attending(kind.is_local)  # a global layer of its own width (Gemma 4)
        terms = (
            plain
            if c is cfg
            else (_projection_terms(c, b, s, s, "") + score_terms(c, b, s, s, causal=causal))
        )
        ffn = ffn + per_layer
        t = compressed_entries(cfg, kind, s)  # compressed attention: entries beside the keys
        own = compressor_flop_terms(cfg, kind, b, s) + compressed_score_terms(cfg, kind, b, s, t)
        own += parts
        if kind.kv_shared:  # the keys and values of an earlier layer: no K, V projections
            no_kv = [x for x in terms if x.name not in ("K", "V")]
            out.append(LayerFlops(stack, count, no_kv + own + ffn, kind))
            continue
        mixer = counts_of(kind.mixer)  # a token mixer other than attention: its own terms
        if mixer is not None:
            attn = terms if mixer.projections else shared_attention(terms)
            own = (attn if mixer.attends else []) + mixer.prefill(cfg, b, s, w.cached)
            out.append(LayerFlops(stack, count, own + ffn, kind))
            continue
        out.append(LayerFlops(stack, count, terms + own + ffn, kind))
    return out


def per_layer_flop_terms(cfg: ModelConfig, b: int, s: int, sym: str = "S") -> list[Term]:
    """A layer's per-layer input (Gemma 3n, Gemma 4): its gate d_model -> per_layer_dim and the
    projection back, over every position."""
    p = cfg.per_layer_dim
    if p is None:
        return []
    d = cfg.d_model
    return [
        term("ffn", "per-layer input gate", f"2 x B x {sym} x d_model x per_layer_dim", 2, b, s, d, p),
        term("ffn", "per-layer input projection", f"2 x B x {sym} x per_layer_dim x d_model",
             2, b, s, p, d),
    ]  # fmt: skip


def model_flop_terms(cfg: ModelConfig, w: Workload, *, encoder: bool = True) -> list[Term]:
    """FLOPs outside the layers: a narrow embedding's projections, an encoder's convolutional
    front end (not with encoder=False: a decode step), the LM head over the output positions
    (with a masked-LM transform), the pooler."""
    out: list[Term] = []
    b, d, e = w.batch, cfg.d_model, cfg.embed_width
    ew = "embedding_dim" if cfg.embedding_dim is not None else "d_model"
    if cfg.embedding_dim is not None and cfg.architecture != "encoder-decoder":
        out.append(
            term("embedding", "projection in", f"2 x B x S x {ew} x d_model", 2, b, w.seq_len, e, d)
        )
    if cfg.per_layer_dim is not None:  # the embeddings projected to every layer's input
        out.append(
            term("embedding", "per-layer projection",
                 "2 x B x S x d_model x (n_layers x per_layer_dim)",
                 2, b, w.seq_len, d, cfg.per_layer_width)
        )  # fmt: skip
    if cfg.hc_streams is not None:  # hc_head: the streams' weights before the final norm
        n = cfg.hc_streams
        out.append(
            term("ffn", "hc_head", "2 x B x S x n_streams x d_model x n_streams",
                 2, b, w.seq_len, n, d, n)
        )  # fmt: skip
    out += part_flop_terms(cfg.model_parts, b, w.seq_len)
    if encoder:
        out += conv_flop_terms(cfg, b, w.seq_len)
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
    if cfg.position_projections:  # DeBERTa: every layer projects the relative table
        assert cfg.relative_position_rows is not None
        out.append(
            term(
                "attention_projections",
                "relative position projections (every layer)",
                "n_layers x projections x 2 x relative_position_rows x d_model x "
                "(n_heads x head_dim)",
                cfg.n_layers,
                cfg.position_projections,
                2,
                cfg.relative_position_rows,
                d,
                cfg.q_dim,
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


def conv_flop_terms(cfg: ModelConfig, b: int, s: int) -> list[Term]:
    """The encoder's convolutional front end over S positions (S x the product of the strides
    frames in): each convolution costs 2 x B x its output length x d_model x its input channels
    x kernel (FlopCounterMode's convolution count; the biases are adds)."""
    out, later = [], 1
    for stride in cfg.conv_strides:
        later *= stride
    for i, (channels, length) in enumerate(cfg.conv_lengths(s)):
        later //= cfg.conv_strides[i]
        rows = f"{later} x S" if later > 1 else "S"  # this convolution's output length
        sym = "conv_in_channels" if i == 0 else "d_model"
        out.append(term("embedding", f"conv{i + 1}", f"2 x B x {rows} x {sym} x kernel x d_model",
                        2, b, length, channels, cfg.conv_kernel, cfg.d_model))  # fmt: skip
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
    if not cfg.layer_mixers:
        del out["mixer"]
    parted = any(p.macs and PART_FLOPS[p.group] == "embedding" for p in cfg.model_parts)
    narrow = cfg.embedding_dim is not None or cfg.conv_in_channels is not None
    if not (narrow or parted or cfg.per_layer_dim is not None):
        del out["embedding"]  # only a narrow embedding's projections (or convolutions) count
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
    counted at the workload `w` (default batch 1, S = 1). A hybrid (layer_mixers): the whole
    stack as one, so that the crossovers compare the model's scores with the model's FFNs
    and projections (a layer without attention has no S^2 term: it never crosses), the shared
    weights its layers run included (counts.parts.stack_part_terms)."""
    w = w or Workload(batch=1, seq_len=1)
    layers = layer_flops(cfg, w)
    if cfg.layer_mixers:  # a hybrid: the whole stack, each kind's terms x its layers
        terms = [
            Term(t.name, t.formula, (*t.factors, x.count), t.group) for x in layers for t in x.terms
        ]
        terms += stack_part_terms(cfg, w.batch, w.seq_len)  # shared weights the layers run
        return LayerFlops(layers[0].stack, 1, terms, LayerKind())
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


def no_crossover(cfg: ModelConfig) -> str | None:
    """Why the model has no crossovers, or None: "no attention" (no layer's mixer attends,
    so no score FLOPs grow with the length) or "compressed" (compressed attention's score
    FLOPs per token are no line in the length)."""
    if cfg.layer_mixers and not any(MIXERS[m].attends for m in cfg.layer_mixers):
        return "no attention"
    if cfg.csa_layers or cfg.hca_layers:
        return "compressed"
    return None


def check_linear_scores(cfg: ModelConfig) -> None:
    """The crossovers solve lines: refused (UsageError) where the score FLOPs per token are
    no line in the length, as compressed attention's, whose entries come in steps of
    csa_rate or hca_rate tokens (no_crossover says why)."""
    why = no_crossover(cfg)
    if why == "no attention":
        from ffn_calc.errors import UsageError
        from ffn_calc.i18n.translate import _

        raise UsageError(
            _(
                "{model}: no layer attends, so no score FLOPs grow with the length: its "
                "token mixers ({mixers}) cost the same per token at any length, and the "
                "scores never overtake the FFN."
            ).format(model=cfg.name, mixers=", ".join(sorted(set(cfg.layer_mixers))))
        )
    if why == "compressed":
        from ffn_calc.errors import UsageError
        from ffn_calc.i18n.translate import _

        raise UsageError(
            _(
                "{model}: compressed attention adds a compressed entry every csa_rate or "
                "hca_rate tokens, so its score FLOPs per token are no line in the length; "
                "crossovers are not computed for it (the forward and decode FLOPs are)."
            ).format(model=cfg.name)
        )


def per_token(cfg: ModelConfig) -> PerToken:
    """Per-token FLOPs of one layer of the kind the crossover describes (crossover_layer)."""
    check_linear_scores(cfg)
    layer = crossover_layer(cfg)
    return PerToken(
        projections=layer.group("attention_projections"),
        ffn=layer.group("ffn"),
        score_lines={c: score_line(cfg, c) for c in (False, True)},
    )


def crossover_limit(cfg: ModelConfig) -> int | None:
    """The most positions the crossover layer's stack takes: an encoder's own table where it
    has one (Whisper's max_source_positions), else the model's position_limit."""
    if cfg.architecture == "encoder-decoder":
        return cfg.source_position_limit  # the crossover describes the encoder layer
    return cfg.position_limit


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
    table, S <= crossover_limit(cfg)), and those past it, where the formula puts them."""
    check_linear_scores(cfg)
    points, limit = crossovers(cfg, causal), crossover_limit(cfg)
    past = {k: v for k, v in points.items() if limit is not None and v > limit}
    return {k: None if k in past else v for k, v in points.items()}, past
