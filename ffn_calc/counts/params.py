"""Closed-form parameter counts, per layer kind and per component.

Conventions (stated once): a tensor's parameters are the product of its shape; tied weights
count once (a tied output head adds 0); non-parameter buffers (causal masks, rotary inv_freq)
are not parameters; LayerNorm has a weight and a bias of d_model each, RMSNorm a weight only;
sinusoidal and rotary positions have no parameters. Components are those of the JSON
contract: embedding, attention, ffn, norm, lm_head, pooler.
"""

from __future__ import annotations

from dataclasses import dataclass

from ffn_calc.counts.compressed import (
    compressed_attention_terms,
    compressor_terms,
    hc_head_terms,
    hyper_connection_terms,
)
from ffn_calc.counts.mixers import counts_of
from ffn_calc.counts.mla import mla_terms
from ffn_calc.counts.terms import Term, decoder_symbols, norm_terms, term, total
from ffn_calc.counts.tower_params import wrapper_components
from ffn_calc.i18n.translate import N_, Text, say
from ffn_calc.model.config import ModelConfig, ffn_biases
from ffn_calc.model.layer_kinds import NO_FFN, LayerKind, first_layer_kind, layer_kinds
from ffn_calc.model.towers import Part


@dataclass(frozen=True)
class LayerCount:
    """One layer kind: its terms (grouped attention / ffn / norm) and how many there are."""

    stack: str  # "encoder" | "decoder"
    count: int
    terms: list[Term]
    kind: LayerKind  # str(): "" where a stack has one kind, else its label

    def group(self, name: str) -> int:
        return total(self.terms, name)

    @property
    def total(self) -> int:
        return total(self.terms)


def _qk_norm_terms(cfg: ModelConfig) -> list[Term]:
    """Norms on queries and keys (weights only counted as the norm kind has them)."""
    hd, h, kv = cfg.head_size, cfg.n_heads, cfg.kv_heads
    if cfg.qk_norm == "head":  # one weight over head_dim, shared by every head
        return norm_terms(cfg, "norm", "q_norm", hd, "head_dim") + norm_terms(
            cfg, "norm", "k_norm", hd, "head_dim"
        )
    if cfg.qk_norm == "per_head":  # a weight per head: [n_heads, head_dim]
        return norm_terms(cfg, "norm", "q_norm", h * hd, "n_heads x head_dim") + norm_terms(
            cfg, "norm", "k_norm", kv * hd, "n_kv_heads x head_dim"
        )
    if cfg.qk_norm == "full":  # over the whole projection width
        return norm_terms(cfg, "norm", "q_norm", h * hd, "n_heads x head_dim") + norm_terms(
            cfg, "norm", "k_norm", kv * hd, "n_kv_heads x head_dim"
        )
    return []


def _layer_norm_terms(cfg: ModelConfig, first: bool = False) -> list[Term]:
    """The norms around self-attention and the FFN of one layer (`first`: of layer 0, which
    keeps the last first_layer_norms of them)."""
    names = {0: [], 1: ["norm (shared by attention and FFN)"], 2: ["norm_attn", "norm_ffn"]}
    labels = names.get(cfg.norms_per_layer) or [f"norm {i + 1}" for i in range(cfg.norms_per_layer)]
    if first:
        labels = labels[len(labels) - cfg.first_norms :]
    return [t for n in labels for t in norm_terms(cfg, "norm", n)]


def attention_terms(cfg: ModelConfig, prefix: str = "") -> list[Term]:
    """Q, K, V, O weights and biases of one attention block (MLA: see mla_terms; compressed
    attention: compressed_attention_terms), sinks."""
    if cfg.attention == "mla" and not prefix:
        return mla_terms(cfg) + _sink_terms(cfg)
    if cfg.compressed and not prefix:
        return compressed_attention_terms(cfg) + _sink_terms(cfg)
    d, q, kv = cfg.d_model, cfg.q_dim, cfg.kv_dim
    g, two = "attention", "2 x " if cfg.attention_output_gate else ""  # Q's output gate
    out = [
        term(g, f"{prefix}Q", f"d_model x {two}(n_heads x head_dim)", d, cfg.q_proj_dim),
        term(g, f"{prefix}K", "d_model x (n_kv_heads x head_dim)", d, kv),
        term(g, f"{prefix}V", "d_model x (n_kv_heads x head_dim)", d, kv),
        term(g, f"{prefix}O", "(n_heads x head_dim) x d_model", q, d),
    ]
    no_v = cfg.keys_as_values == "all" and not prefix  # the keys serve as values
    if cfg.attention_bias:
        out.append(term(g, f"{prefix}b_Q", f"{two}n_heads x head_dim", cfg.q_proj_dim))
    if cfg.k_bias:
        out.append(term(g, f"{prefix}b_K", "n_kv_heads x head_dim", kv))
    if cfg.attention_bias:
        out.append(term(g, f"{prefix}b_V", "n_kv_heads x head_dim", kv))
    if no_v:
        out = [t for t in out if t.name not in ("V", "b_V")]
    if cfg.out_bias:
        out.append(term(g, f"{prefix}b_O", "d_model", d))
    return out + ([] if prefix else _sink_terms(cfg) + _position_projection_terms(cfg))


def _position_projection_terms(cfg: ModelConfig) -> list[Term]:
    """DeBERTa without share_att_key: pos_key_proj (c2p) and pos_query_proj (p2c) of the
    relative table, each [n_heads x head_dim, d_model] with a bias as attention_bias."""
    if cfg.relative_position_rows is None or cfg.shared_position_projections:
        return []
    d, q, out = cfg.d_model, cfg.q_dim, []
    for kind in cfg.position_scores:
        name = "pos_key_proj" if kind == "c2p" else "pos_query_proj"
        out.append(term("attention", name, "d_model x (n_heads x head_dim)", d, q))
        if cfg.attention_bias:
            out.append(term("attention", f"{name} bias", "n_heads x head_dim", q))
    return out


def _sink_terms(cfg: ModelConfig) -> list[Term]:
    """gpt-oss: one learned sink logit per head and layer."""
    return [term("attention", "sinks", "n_heads", cfg.n_heads)] if cfg.attention_sinks else []


# Formulas with words are messages, shown in the reader's language; the symbols around the words
# read alike in every language (the template "n_experts x (...)" is no message of its own).
EXPERT_BIASES = say("n_experts x ({biases})", biases=say(N_("biases of one expert")))
SHARED_EXPERT_BIASES = say(N_("biases of the shared expert"))


def moe_terms(cfg: ModelConfig) -> list[Term]:
    """A routed-expert FFN: router, experts (and their biases), a shared expert and its gate."""
    d, f, g = cfg.d_model, cfg.d_ff, "ffn"
    assert cfg.n_experts is not None
    e = cfg.n_experts
    out = [term(g, "router", "d_model x n_experts", d, e)]
    if cfg.router_bias:
        out.append(term(g, "b_router", "n_experts", e))
    if cfg.router_score_bias == "parameter":
        out.append(term(g, "router score bias", "n_experts", e))
    mats, lat = 3 if cfg.gated else 2, cfg.moe_latent_dim
    if lat is not None:  # the experts' latent width: a projection down before, up after
        out.append(term(g, "latent down", "d_model x moe_latent_dim", d, lat))
        out.append(term(g, "latent up", "moe_latent_dim x d_model", lat, d))
        if cfg.ffn_bias:
            out.append(term(g, "latent biases", "moe_latent_dim + d_model", lat + d))
    width = "d_model" if lat is None else "moe_latent_dim"
    w = cfg.expert_width
    out.append(term(g, "experts", f"n_experts x {mats} x {width} x d_ff", e, mats, w, f))
    if cfg.routed_expert_bias:
        biases = ffn_biases(f, w, cfg.gated)
        out.append(term(g, "expert biases", EXPERT_BIASES, e, biases))
    if cfg.shared_expert_d_ff is not None:
        fs = cfg.shared_expert_d_ff
        out.append(term(g, "shared expert", f"{mats} x d_model x shared_expert_d_ff", mats, d, fs))
        if cfg.ffn_bias:
            biases = ffn_biases(fs, d, cfg.gated)
            out.append(term(g, "shared expert biases", SHARED_EXPERT_BIASES, biases))
        if cfg.shared_expert_gate:
            out.append(term(g, "shared expert gate", "d_model x 1", d, 1))
    return out


def ffn_terms(cfg: ModelConfig, width: int | None = None) -> list[Term]:
    """The FFN of one layer: W1/W2 (plain) or gate/up/down (gated) of `width` (default d_ff);
    MoE: router and experts (moe_terms)."""
    if cfg.is_moe and width is None:
        return moe_terms(cfg)
    d, f, g = cfg.d_model, cfg.d_ff if width is None else width, "ffn"
    if cfg.gated:
        out = [
            term(g, "W_gate", "d_model x d_ff", d, f),
            term(g, "W_up", "d_model x d_ff", d, f),
            term(g, "W_down", "d_ff x d_model", f, d),
        ]
        if cfg.ffn_bias:
            out += [
                term(g, "b_gate", "d_ff", f),
                term(g, "b_up", "d_ff", f),
                term(g, "b_down", "d_model", d),
            ]
        return out
    out = [term(g, "W1", "d_model x d_ff", d, f), term(g, "W2", "d_ff x d_model", f, d)]
    if cfg.ffn_bias:
        out += [term(g, "b1", "d_ff", f), term(g, "b2", "d_model", d)]
    return out


def expert_params(cfg: ModelConfig) -> int:
    """Parameters of one expert (0 for a dense model)."""
    if cfg.n_experts is None:
        return 0
    mats, w = 3 if cfg.gated else 2, cfg.expert_width
    biases = ffn_biases(cfg.d_ff, w, cfg.gated) if cfg.routed_expert_bias else 0
    return mats * w * cfg.d_ff + biases


def layer_counts(cfg: ModelConfig) -> list[LayerCount]:
    """One entry per layer kind: encoder layers, decoder layers (with cross-attention).

    `count` is the number of layers that hold parameters of their own: with shared layers
    (ALBERT) fewer than the layers applied, which the FLOPs count.
    """
    layers: list[LayerCount] = []
    parts = layer_part_terms(cfg)
    if cfg.has_encoder:
        for kind, count, ffn in ffn_kinds(cfg, cfg.encoder_layers):
            terms = _own_terms(cfg, kind) + ffn + _layer_norm_terms(cfg) + parts
            layers.append(LayerCount("encoder", cfg.param_layers(count), terms, kind))
    if cfg.first_layer_norms is not None and layers:  # one stack (an invariant)
        layers = _first_layer_apart(cfg, layers)
    if cfg.has_decoder:
        dec = cfg.stack("decoder")  # an encoder-decoder's decoder: its own width and heads
        cross_attn: list[Term] = []
        cross: list[Term] = []
        if cfg.architecture == "encoder-decoder":
            cross_attn = attention_terms(dec, prefix="cross ")
            cross = norm_terms(dec, "norm", "norm_cross")
        for kind, count, ffn in ffn_kinds(dec, cfg.decoder_layers):
            own = _own_terms(dec, kind)
            attn = kv_free(own) if kind.kv_shared else own
            terms = mixer_terms(dec, kind, attn) + compressor_terms(dec, kind) + cross_attn + ffn
            terms += _layer_norm_terms(dec) + cross + hyper_connection_terms(dec) + parts
            terms += per_layer_input_terms(dec)
            terms = decoder_symbols(cfg, terms)
            layers.append(LayerCount("decoder", dec.param_layers(count), terms, kind))
        if cfg.first_layer_norms is not None:  # one stack (an invariant)
            layers = _first_layer_apart(cfg, layers)
    return layers


# The terms of a layer's own keys and values, which a KV-shared layer has not.
KV_TERMS = frozenset({"K", "V", "b_K", "b_V", "k_norm"})


def kv_free(terms: list[Term]) -> list[Term]:
    """A KV-shared layer's attention terms: no K and V projections (nor biases), no K norm."""
    return [t for t in terms if t.name not in KV_TERMS]


def part_term(part: Part, name: str | None = None) -> Term:
    """A tensor given as data (a layer's or the model's part): its shape's product."""
    shape = " x ".join(str(x) for x in part.shape)
    return term(part.group, part.name if name is None else name, shape, *part.shape)


def layer_part_terms(cfg: ModelConfig) -> list[Term]:
    """The tensors each layer has beyond attention, FFN and norms (layer_parts)."""
    return [part_term(p, p.name.removesuffix(".weight")) for p in cfg.layer_parts]


def model_part_terms(cfg: ModelConfig) -> list[Term]:
    """The tensors outside the layers given as data (model_parts), but a projector's (a
    wrapper's key of its own, counts.tower_params)."""
    return [part_term(p) for p in cfg.model_parts if not p.projector]


def _own_terms(cfg: ModelConfig, kind: LayerKind) -> list[Term]:
    """A layer kind's self-attention, its q/k norms and relative bias, as that kind's layers
    have them (global layers with their own head_dim: ModelConfig.attending)."""
    c = cfg.attending(kind.is_local)
    return attention_terms(c) + _qk_norm_terms(c) + _layer_rel_bias_terms(c)


def per_layer_input_terms(cfg: ModelConfig) -> list[Term]:
    """A layer's share of the per-layer inputs (Gemma 3n, Gemma 4): the gate d_model -> per_layer_dim,
    the projection back and its norm."""
    p = cfg.per_layer_dim
    if p is None:
        return []
    d = cfg.d_model
    return [
        term("ffn", "per-layer input gate", "d_model x per_layer_dim", d, p),
        term("ffn", "per-layer input projection", "per_layer_dim x d_model", p, d),
        *norm_terms(cfg, "norm", "per-layer input norm"),
    ]


def per_layer_model_terms(cfg: ModelConfig) -> list[Term]:
    """The per-layer inputs outside the layers (Gemma 3n, Gemma 4): the table of every layer's slice,
    per_layer_vocab x (n_layers x per_layer_dim); the projection of the embeddings to the same
    width; its norm over per_layer_dim."""
    p = cfg.per_layer_dim
    if p is None:
        return []
    rows = cfg.per_layer_vocab or cfg.vocab_size or 0
    width, d = cfg.per_layer_width, cfg.d_model
    return [
        term("embedding", "per-layer token embedding",
             "per_layer_vocab x (n_layers x per_layer_dim)", rows, width),
        term("embedding", "per-layer projection", "d_model x (n_layers x per_layer_dim)", d, width),
        *norm_terms(cfg, "norm", "per-layer projection norm", p, "per_layer_dim"),
    ]  # fmt: skip


def mixer_terms(cfg: ModelConfig, kind: LayerKind, attention: list[Term]) -> list[Term]:
    """A layer kind's token mixer: `attention` (its attention terms) for an attention layer,
    else the mixer's own terms (counts.mixers, by the kind's mixer row), with `attention`
    too where the mixer runs beside attention with weights of its own (not shared ones, which
    are model_parts)."""
    counts = counts_of(kind.mixer)
    if counts is None:
        return attention
    return (attention if counts.attends and counts.projections else []) + counts.params(cfg)


def _layer_rel_bias_terms(cfg: ModelConfig) -> list[Term]:
    """UMT5: a relative position bias in every self-attention layer (T5: model_terms)."""
    if cfg.relative_attention_buckets is None or not cfg.relative_attention_per_layer:
        return []
    buckets = cfg.relative_attention_buckets
    return [term("attention", "relative attention bias", "buckets x n_heads", buckets, cfg.n_heads)]


def _first_layer_apart(cfg: ModelConfig, layers: list[LayerCount]) -> list[LayerCount]:
    """Layer 0 with fewer norms (first_layer_norms) as a kind of its own, after the others:
    the stack's first kind (it holds layer 0) loses one layer."""
    first = layers[0]
    norms = _layer_norm_terms(cfg)
    terms = [t for t in first.terms if t not in norms] + _layer_norm_terms(cfg, first=True)
    rest = [LayerCount(first.stack, first.count - 1, first.terms, first.kind)]
    layer0 = LayerCount(first.stack, 1, terms, first_layer_kind(first.kind))
    return [*(rest if first.count > 1 else []), *layers[1:], layer0]


def ffn_kinds(cfg: ModelConfig, layers: int) -> list[tuple[LayerKind, int, list[Term]]]:
    """The layer kinds of a stack of `layers` (model.layer_kinds): (kind, how many, FFN
    terms). One kind unless a MoE model has dense layers or some layers attend locally: then
    each kind with its count. A MoE model's dense layers have dense_d_ff (default d_ff); the
    KV-shared layers, kv_shared_d_ff where set (ModelConfig.ffn_of)."""
    out = []
    for kind, count in layer_kinds(cfg, layers):
        c = cfg.ffn_of(kind.kv_shared)  # a KV-shared layer's FFN of its own width (Gemma 4)
        dense = c.is_moe and kind.is_dense_ffn  # a MoE model's dense layer
        terms = ffn_terms(c, c.dense_d_ff or c.d_ff) if dense else ffn_terms(c)
        out.append((kind, count, [] if kind.ffn is NO_FFN else terms))
    return out


def _stacks(cfg: ModelConfig) -> list[str]:
    return [s for s, n in (("encoder", cfg.encoder_layers), ("decoder", cfg.decoder_layers)) if n]


def _embedding_terms(cfg: ModelConfig) -> list[Term]:
    """Token, position and token-type tables, the projection of a narrow embedding, norms."""
    d, v, g = cfg.d_model, cfg.vocab_size, "embedding"
    e, side = cfg.embed_width, cfg.side_width
    ew = "embedding_dim" if cfg.embedding_dim is not None else "d_model"
    sw = ew if cfg.embedding_projection == "all" else "d_model"
    out: list[Term] = []
    if v is not None:
        out.append(term(g, "token embedding", f"vocab_size x {ew}", v, e))
        if cfg.architecture == "encoder-decoder" and not cfg.shared_embeddings:
            out.append(term(g, "target token embedding", f"vocab_size x {ew}", v, e))
        for stack in _stacks(cfg) if cfg.stack_embeddings else []:  # beside the shared one
            out.append(term(g, f"{stack} token embedding", f"vocab_size x {ew}", v, e))
    if cfg.positions == "learned" and cfg.max_positions is not None:
        tables = 2 if cfg.architecture == "encoder-decoder" and cfg.separate_position_tables else 1
        for i in range(tables):
            name = ("encoder ", "decoder ")[i] if tables == 2 else ""
            rows, sym = cfg.max_positions, "max_positions"
            if i == 0 and tables == 2 and cfg.source_positions is not None:
                rows, sym = cfg.source_positions, "source_positions"  # the encoder's own
            out.append(term(g, f"{name}position embedding", f"{sym} x {sw}", rows, side))
    out += conv_terms(cfg)
    if cfg.type_vocab_size:
        out.append(
            term(g, "token-type embedding", f"type_vocab_size x {sw}", cfg.type_vocab_size, side)
        )
    if cfg.embedding_dim is not None:
        b = cfg.embedding_projection_bias
        out.append(term(g, "projection in", f"{ew} x d_model", e, d))
        if b:
            out.append(term(g, "projection in bias", "d_model", d))
        if cfg.project_out:
            out.append(term(g, "projection out", f"d_model x {ew}", d, e))
            if b:
                out.append(term(g, "projection out bias", ew, e))
    if cfg.embedding_norm:
        for stack in _stacks(cfg) if cfg.architecture == "encoder-decoder" else [""]:
            label = f"{stack} embedding norm".strip()
            out += norm_terms(cfg, "norm", label, side, sw)
    return out  # fmt: skip


def conv_terms(cfg: ModelConfig) -> list[Term]:
    """The encoder's convolutional front end (Whisper's conv1, conv2): per convolution a
    weight [d_model, in, kernel] and a bias [d_model]."""
    out: list[Term] = []
    for i, (channels, _length) in enumerate(cfg.conv_lengths(1)):
        sym = "conv_in_channels" if i == 0 else "d_model"
        name = f"conv{i + 1}"
        out.append(term("embedding", name, f"{sym} x kernel x d_model", channels, cfg.conv_kernel, cfg.d_model))  # fmt: skip
        out.append(term("embedding", f"{name} bias", "d_model", cfg.d_model))
    return out


def _head_terms(cfg: ModelConfig) -> list[Term]:
    """The output head: a masked-LM transform, the projection to the vocabulary, its bias."""
    d, v, e, out = cfg.d_model, cfg.vocab_size, cfg.embed_width, []
    if not cfg.has_lm_head or v is None:
        return []
    ew = "embedding_dim" if cfg.embedding_dim is not None else "d_model"
    if cfg.lm_head_transform:
        out.append(term("lm_head", "head dense", f"d_model x {ew}", d, e))
        if cfg.lm_head_transform_bias:
            out.append(term("lm_head", "head dense bias", ew, e))
        out += norm_terms(cfg, "norm", "head norm", e, ew)
    if cfg.tie_embeddings:
        out.append(term("lm_head", "lm_head (tied to the token embedding)", "0", 0))
    else:
        out.append(term("lm_head", "lm_head", f"{ew} x vocab_size", e, v))
    if cfg.lm_head_bias:
        out.append(term("lm_head", "lm_head bias", "vocab_size", v))
    if cfg.lm_head_projection_bias:  # the projection's own, beside lm_head_bias
        out.append(term("lm_head", "lm_head projection bias", "vocab_size", v))
    return out


def model_terms(cfg: ModelConfig) -> list[Term]:
    """Terms outside the layers: embeddings, final and embedding norms, head, pooler."""
    d, out = cfg.d_model, _embedding_terms(cfg) + per_layer_model_terms(cfg)
    if cfg.relative_attention_buckets is not None and not cfg.relative_attention_per_layer:
        for stack in _stacks(cfg):  # T5: in the first layer's self-attention of each stack
            heads = cfg.stack(stack).n_heads
            out.append(term("attention", f"{stack} relative attention bias",
                            "buckets x n_heads", cfg.relative_attention_buckets, heads))  # fmt: skip
    out += hc_head_terms(cfg) + model_part_terms(cfg)
    if cfg.relative_position_rows is not None:  # DeBERTa: one table every layer reads
        rows = cfg.relative_position_rows
        out.append(term("embedding", "relative position embedding",
                        "relative_position_rows x d_model", rows, d))  # fmt: skip
    if cfg.relative_position_norm:
        out += norm_terms(cfg, "norm", "relative position norm")
    if cfg.final_norm:
        for stack in _stacks(cfg):
            out += norm_terms(cfg, "norm", f"final {stack} norm")
    out += _head_terms(cfg)
    if cfg.pooler:
        out += [
            term("pooler", "pooler W", "d_model x d_model", d, d),
            term("pooler", "pooler b", "d_model", d),
        ]
    return out


COMPONENTS = ("embedding", "attention", "ffn", "norm", "lm_head", "pooler")


def components(cfg: ModelConfig) -> dict[str, int]:
    """Parameters per contract component; `pooler` only where the model has one; `mixer`
    (after attention) only where layers have a token mixer other than attention; a key per
    tower (`vision`, `audio`) and `projector` only where the model has towers."""
    out = dict.fromkeys(COMPONENTS, 0)
    if cfg.layer_mixers:
        out = {**{k: 0 for k in COMPONENTS[:2]}, "mixer": 0, **{k: 0 for k in COMPONENTS[2:]}}
    for layer in layer_counts(cfg):
        for t in layer.terms:
            out[t.group] += layer.count * t.value
    for t in model_terms(cfg):
        out[t.group] += t.value
    if not cfg.pooler:
        del out["pooler"]
    if cfg.towers:  # a multimodal wrapper: each tower and the projector (counts.towers)
        out.update(wrapper_components(cfg, components))
    return out


def total_params(cfg: ModelConfig) -> int:
    return sum(components(cfg).values())


def idle_params(cfg: ModelConfig) -> int:
    """MoE: parameters of the experts a token does not use (0 for a dense model)."""
    if cfg.n_experts is None or cfg.experts_per_token is None:
        return 0
    idle = cfg.n_experts - cfg.experts_per_token
    dec = cfg.stack("decoder")  # an encoder-decoder's decoder experts: their own width
    return idle * (
        cfg.moe_layers(cfg.encoder_layers) * expert_params(cfg)
        + cfg.moe_layers(cfg.decoder_layers) * expert_params(dec)
    )


def stored_buffers(cfg: ModelConfig) -> int:
    """Elements a released checkpoint stores beyond the parameters: a routing-score bias kept
    as a buffer (DeepSeek-V3, GLM-4.5: [n_experts] per MoE layer); a hash-routed layer
    (DeepSeek-V4) stores its token-id table [vocab_size, experts_per_token] instead."""
    if cfg.router_score_bias != "buffer" or cfg.n_experts is None:
        return 0
    moe = cfg.moe_layers(cfg.encoder_layers) + cfg.moe_layers(cfg.decoder_layers)
    hashed = len(cfg.hash_layers)
    table = (cfg.vocab_size or 0) * (cfg.experts_per_token or 0)
    return (moe - hashed) * cfg.n_experts + hashed * table


def active_lines(cfg: ModelConfig) -> list[Text]:
    """How the active parameters add up, layer kind by layer kind (MoE models): one routed
    expert, each kind's layers less their idle experts, the rest, and the sum term by term.
    Each line is a message with its fields: str() is the English (JSON's `active_terms`); a
    view shows it translated, with the stack and the layer kind in the reader's words."""
    if not cfg.is_moe or cfg.n_experts is None or cfg.experts_per_token is None:
        return []
    e, k, one = cfg.n_experts, cfg.experts_per_token, expert_params(cfg)
    mats, w = 3 if cfg.gated else 2, cfg.expert_width
    biases = one - mats * w * cfg.d_ff
    width = "d_model" if cfg.moe_latent_dim is None else "moe_latent_dim"
    shape = f"{mats} x {width} x d_ff = {mats} x {w:,} x {cfg.d_ff:,}"
    if biases:
        first = say(
            N_("one routed expert: {shape} + {biases} biases = {value}"),
            shape=shape, biases=f"{biases:,}", value=f"{one:,}",
        )  # fmt: skip
    else:
        first = say(N_("one routed expert: {shape} = {value}"), shape=shape, value=f"{one:,}")
    lines = [first]
    parts = []
    for layer in layer_counts(cfg):
        one = expert_params(cfg.stack(layer.stack))  # a decoder's experts: their own width
        idle = (e - k) * one if layer.kind.is_moe else 0  # dense or no FFN: none idle
        per = layer.total - idle
        parts.append(layer.count * per)
        fields: dict[str, str | Text] = {
            "stack": layer.stack, "count": str(layer.count), "value": f"{layer.count * per:,}",
            "total": f"{layer.total:,}", "experts": str(e), "k": str(k), "one": f"{one:,}",
        }  # fmt: skip
        if layer.kind.named:  # a message: a view shows it in the reader's words
            fields["kind"] = layer.kind.text()
        lines.append(say(ACTIVE_LAYER[layer.kind.named, bool(idle)], **fields))
    rest = sum(t.value for t in model_terms(cfg))
    lines.append(
        say(
            N_("active, outside the layers (embeddings, final norm, head): {value}"),
            value=f"{rest:,}",
        )
    )
    terms = " + ".join(f"{x:,}" for x in [*parts, rest])
    lines.append(say(N_("active = {terms} = {value}"), terms=terms, value=f"{sum(parts) + rest:,}"))
    return lines


# A layer kind's line in active_lines, by (a stack of several kinds, experts idle in it).
ACTIVE_LAYER = {
    (False, False): N_("active, {stack} layers: {count} x {total} = {value}"),
    (True, False): N_("active, {stack} layers, {kind}: {count} x {total} = {value}"),
    (False, True): N_(
        "active, {stack} layers: {count} x ({total} - ({experts} - {k}) idle experts x {one}) "
        "= {value}"
    ),
    (True, True): N_(
        "active, {stack} layers, {kind}: {count} x ({total} - ({experts} - {k}) idle experts "
        "x {one}) = {value}"
    ),
}


def active_params(cfg: ModelConfig) -> int:
    """Parameters one token uses: the router and experts_per_token experts per layer (MoE)."""
    return total_params(cfg) - idle_params(cfg)


def non_embedding_params(cfg: ModelConfig) -> int:
    """Kaplan et al.'s N: all parameters but the embeddings and the output head."""
    comps = components(cfg)
    return sum(comps.values()) - comps["embedding"] - comps["lm_head"]
