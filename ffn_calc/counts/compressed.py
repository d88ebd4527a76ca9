"""Compressed attention (DeepSeek-V4): its own attention block, the compressors of its
heavily compressed (HCA) and compressed sparse (CSA) layers with the lightning indexer, and the
hyper-connections (mHC) around attention and the FFN: parameter and FLOP terms. The layer
kinds are model.layer_kinds' CSA and HCA rows."""

from __future__ import annotations

from ffn_calc.counts.terms import Term, norm_terms, term
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.layer_kinds import CSA, HCA, LayerKind, layer_kinds


def compressed_attention_terms(cfg: ModelConfig) -> list[Term]:
    """Compressed attention's own block (DeepSeek-V4), in every layer: low-rank Q with a
    weighted norm between (q_a_proj, q_a_norm, q_b_proj; the norm after q_b_proj has no
    weight), one key head that is also the value (kv_proj, kv_norm), and the grouped output
    projection: o_a_proj maps each of o_groups groups of n_heads x head_dim / o_groups
    outputs to o_lora_rank (one [o_groups x o_lora_rank, n_heads x head_dim / o_groups]
    weight), o_b_proj the o_groups x o_lora_rank of them to d_model."""
    d, h, hd, g = cfg.d_model, cfg.n_heads, cfg.head_size, "attention"
    qr, og, orank = cfg.q_lora_rank, cfg.o_groups, cfg.o_lora_rank
    assert qr is not None and og is not None and orank is not None
    return [
        term(g, "q_a_proj", "d_model x q_lora_rank", d, qr),
        *norm_terms(cfg, "norm", "q_a_norm", qr, "q_lora_rank"),
        term(g, "q_b_proj", "q_lora_rank x n_heads x head_dim", qr, h, hd),
        term(g, "kv_proj", "d_model x head_dim", d, hd),
        *norm_terms(cfg, "norm", "kv_norm", hd, "head_dim"),
        term(g, "o_a_proj", "n_heads x head_dim x o_lora_rank", h, hd, orank),
        term(g, "o_b_proj", "o_groups x o_lora_rank x d_model", og, orank, d),
    ]


def compressor_terms(cfg: ModelConfig, kind: LayerKind) -> list[Term]:
    """A layer's compressor (DeepSeek-V4), by its kind. Heavily compressed attention: kv_proj
    and gate_proj [head_dim, d_model], position_bias [hca_rate, head_dim], kv_norm. Compressed
    sparse attention: the same at 2 x head_dim (two overlapping series of windows) with
    position_bias [csa_rate, 2 x head_dim], and the lightning indexer: its own compressor at
    2 x index_head_dim, q_b_proj [index_heads x index_head_dim, q_lora_rank] and the scorer's
    weights_proj [index_heads, d_model]."""
    d, hd, g = cfg.d_model, cfg.head_size, "attention"
    if kind.mixer is HCA and cfg.hca_rate is not None:
        r = cfg.hca_rate
        return [
            term(g, "compressor kv_proj", "d_model x head_dim", d, hd),
            term(g, "compressor gate_proj", "d_model x head_dim", d, hd),
            term(g, "compressor position_bias", "hca_rate x head_dim", r, hd),
            *norm_terms(cfg, "norm", "compressor kv_norm", hd, "head_dim"),
        ]
    if kind.mixer is not CSA or cfg.csa_rate is None:
        return []
    r, ih, ihd, qr = cfg.csa_rate, cfg.index_heads, cfg.index_head_dim, cfg.q_lora_rank
    assert ih is not None and ihd is not None and qr is not None
    return [
        term(g, "compressor kv_proj", "d_model x 2 x head_dim", d, 2, hd),
        term(g, "compressor gate_proj", "d_model x 2 x head_dim", d, 2, hd),
        term(g, "compressor position_bias", "csa_rate x 2 x head_dim", r, 2, hd),
        *norm_terms(cfg, "norm", "compressor kv_norm", hd, "head_dim"),
        term(g, "indexer kv_proj", "d_model x 2 x index_head_dim", d, 2, ihd),
        term(g, "indexer gate_proj", "d_model x 2 x index_head_dim", d, 2, ihd),
        term(g, "indexer position_bias", "csa_rate x 2 x index_head_dim", r, 2, ihd),
        *norm_terms(cfg, "norm", "indexer kv_norm", ihd, "index_head_dim"),
        term(g, "indexer q_b_proj", "q_lora_rank x index_heads x index_head_dim", qr, ih, ihd),
        term(g, "indexer weights_proj", "d_model x index_heads", d, ih),
    ]


def hyper_connection_terms(cfg: ModelConfig) -> list[Term]:
    """Hyper-connections (DeepSeek-V4's mHC) of one layer, n streams: around attention
    (attn_hc) and around the FFN (ffn_hc), each fn [(2 + n) n, n x d_model], base
    [(2 + n) n] and scale [3]."""
    n, d = cfg.hc_streams, cfg.d_model
    if n is None:
        return []
    out = []
    for g, name in (("attention", "attn_hc"), ("ffn", "ffn_hc")):
        out += [
            term(g, f"{name} fn", "(2 + n_streams) x n_streams x n_streams x d_model",
                 2 + n, n, n, d),
            term(g, f"{name} base", "(2 + n_streams) x n_streams", 2 + n, n),
            term(g, f"{name} scale", "3", 3),
        ]  # fmt: skip
    return out


def hc_head_terms(cfg: ModelConfig) -> list[Term]:
    """Hyper-connections' head (DeepSeek-V4): collapses the n streams before the final norm:
    hc_fn [n, n x d_model], hc_base [n], hc_scale [1]."""
    n, d = cfg.hc_streams, cfg.d_model
    if n is None:
        return []
    return [
        term("norm", "hc_head fn", "n_streams x n_streams x d_model", n, n, d),
        term("norm", "hc_head base", "n_streams", n),
        term("norm", "hc_head scale", "1", 1),
    ]


def compressed_flop_terms(cfg: ModelConfig, b: int, s: int) -> list[Term]:
    """Compressed attention's projections (DeepSeek-V4), each over the B x S rows: low-rank Q,
    the one key-value head, the grouped output projection (o_a_proj one batched matmul over
    the o_groups groups), and the hyper-connection around attention: its [n d_model] ->
    [(2 + n) n] projection and the [n, n] mix of the n streams (a matmul per row)."""
    d, h, hd, g = cfg.d_model, cfg.n_heads, cfg.head_size, "attention_projections"
    qr, og, orank = cfg.q_lora_rank, cfg.o_groups, cfg.o_lora_rank
    assert qr is not None and og is not None and orank is not None
    return [
        term(g, "q_a_proj", "2 x B x S x d_model x q_lora_rank", 2, b, s, d, qr),
        term(g, "q_b_proj", "2 x B x S x q_lora_rank x n_heads x head_dim", 2, b, s, qr, h, hd),
        term(g, "kv_proj", "2 x B x S x d_model x head_dim", 2, b, s, d, hd),
        term(g, "o_a_proj", "2 x B x S x n_heads x head_dim x o_lora_rank", 2, b, s, h, hd, orank),
        term(g, "o_b_proj", "2 x B x S x o_groups x o_lora_rank x d_model", 2, b, s, og, orank, d),
        *hyper_flop_terms(cfg, b, s, g, "attn_hc"),
    ]  # fmt: skip


def hyper_flop_terms(cfg: ModelConfig, b: int, s: int, group: str, name: str) -> list[Term]:
    """One hyper-connection over the B x S rows (DeepSeek-V4's mHC, n streams): fn maps the
    n x d_model streams to (2 + n) n weights; the streams are mixed by an [n, n] matrix."""
    n, d = cfg.hc_streams, cfg.d_model
    if n is None:
        return []
    return [
        term(group, f"{name} fn", "2 x B x S x n_streams x d_model x (2 + n_streams) x n_streams",
             2, b, s, n, d, 2 + n, n),
        term(group, f"{name} mix", "2 x B x S x n_streams x n_streams x d_model", 2, b, s, n, n, d),
    ]  # fmt: skip


def compressed_rate(cfg: ModelConfig, kind: LayerKind) -> int | None:
    """Tokens per compressed entry of a layer kind's compressor (None: no compressor)."""
    if kind.mixer is CSA:
        return cfg.csa_rate
    return cfg.hca_rate if kind.mixer is HCA else None


def compressed_entries(cfg: ModelConfig, kind: LayerKind, s: int) -> int:
    """The compressed entries a layer's compressor makes of S tokens: one per whole window of
    csa_rate or hca_rate tokens (the rest waits in the cache's buffer); 0 without one."""
    rate = compressed_rate(cfg, kind)
    return s // rate if rate else 0


def compressor_flop_terms(cfg: ModelConfig, kind: LayerKind, b: int, s: int) -> list[Term]:
    """A layer's compressor over the B x S rows (DeepSeek-V4): kv_proj and gate_proj (2 x
    head_dim wide under compressed sparse attention, head_dim under heavily compressed); the
    indexer's kv_proj and gate_proj (2 x index_head_dim), q_b_proj and weights_proj, and its
    scores of every query head against the S // csa_rate compressed keys. The pooling of each
    window (a softmax-weighted sum) is no matmul; the compressed entries join the keys of the
    attention (compressed QK^T and AV)."""
    d, hd, g = cfg.d_model, cfg.head_size, "attention_projections"
    if kind.mixer is HCA:
        return [
            term(g, "compressor kv_proj", "2 x B x S x d_model x head_dim", 2, b, s, d, hd),
            term(g, "compressor gate_proj", "2 x B x S x d_model x head_dim", 2, b, s, d, hd),
        ]
    if kind.mixer is not CSA:
        return []
    ih, ihd, qr = cfg.index_heads, cfg.index_head_dim, cfg.q_lora_rank
    assert ih is not None and ihd is not None and qr is not None
    t = compressed_entries(cfg, kind, s)
    return [
        term(g, "compressor kv_proj", "2 x B x S x d_model x 2 x head_dim", 2, b, s, d, 2, hd),
        term(g, "compressor gate_proj", "2 x B x S x d_model x 2 x head_dim", 2, b, s, d, 2, hd),
        term(g, "indexer kv_proj", "2 x B x S x d_model x 2 x index_head_dim", 2, b, s, d, 2, ihd),
        term(g, "indexer gate_proj", "2 x B x S x d_model x 2 x index_head_dim", 2, b, s, d, 2, ihd),
        term(g, "indexer q_b_proj", "2 x B x S x q_lora_rank x index_heads x index_head_dim",
             2, b, s, qr, ih, ihd),
        term(g, "indexer weights_proj", "2 x B x S x d_model x index_heads", 2, b, s, d, ih),
        term("attention_scores", "indexer scores",
             "2 x B x S x index_heads x index_head_dim x (S // csa_rate)", 2, b, s, ih, ihd, t),
    ]  # fmt: skip


def compressed_score_terms(
    cfg: ModelConfig, kind: LayerKind, b: int, s_q: int, t: int, rows: str | None = "S"
) -> list[Term]:
    """QK^T and AV of every query head against a layer's `t` compressed entries (they join
    the keys and values; the reference computes every query against every entry, then masks)."""
    if not t:
        return []
    rate = "csa_rate" if kind.mixer is CSA else "hca_rate"
    h, hd, g = cfg.n_heads, cfg.head_size, "attention_scores"
    cols = f"(S // {rate})" if rows is not None else "compressed entries"
    pair, q = (cols, ()) if rows is None else (f"{rows} x {cols}", (s_q,))
    return [
        term(g, "compressed QK^T", f"2 x B x n_heads x {pair} x head_dim", 2, b, h, *q, t, hd),
        term(g, "compressed AV", f"2 x B x n_heads x {pair} x head_dim", 2, b, h, *q, t, hd),
    ]


# --- decode steps ---------------------------------------------------------------------------


def compressed_decode_terms(
    cfg: ModelConfig, kind: LayerKind, batch: int, entries: int
) -> list[Term]:
    """A decode step's work on a layer's compressed entries (DeepSeek-V4): the new token's
    scores against each of them, and under compressed sparse attention the indexer's."""
    out = compressed_score_terms(cfg, kind, batch, 1, entries, rows=None)
    if kind.mixer is CSA and entries:
        ih, ihd = cfg.index_heads, cfg.index_head_dim
        assert ih is not None and ihd is not None
        out.append(
            term("attention_scores", "indexer scores",
                 "2 x B x index_heads x index_head_dim x compressed entries",
                 2, batch, ih, ihd, entries)
        )  # fmt: skip
    return out


def decode_entries(cfg: ModelConfig, kind: LayerKind, context: int) -> int:
    """The compressed entries a layer attends to at a decode step after `context` tokens: one
    per whole window of the context and the new token."""
    return compressed_entries(cfg, kind, context + 1)


def _floor_sum(n: int, r: int) -> int:
    """sum of x // r for x = 0 .. n - 1 (0 for n <= 0)."""
    if n <= 0:
        return 0
    q = n // r  # whole blocks of r values: block j adds r x j; then q for each of the rest
    return r * q * (q - 1) // 2 + q * (n - q * r)


def entries_flops(cfg: ModelConfig, batch: int, first: int, last: int) -> int:
    """The work on compressed entries over the decode steps with `first` .. `last` tokens
    cached: per layer kind, the FLOPs of one entry times the entries of every step, summed in
    closed form (a step after L tokens attends to (L + 1) // rate of them)."""
    total = 0
    for kind, count in layer_kinds(cfg, cfg.decoder_layers):
        rate = compressed_rate(cfg, kind)
        if rate is None:
            continue
        one = sum(t.value for t in compressed_decode_terms(cfg, kind, batch, 1))
        entries = _floor_sum(last + 2, rate) - _floor_sum(first + 1, rate)
        total += count * one * entries
    return total
