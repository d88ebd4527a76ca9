"""The tensor walk of attention beyond Q, K, V, O: multi-head latent attention with sparse
attention's lightning indexer (DeepSeek-V2/V3/V3.2, GLM-5), and DeepSeek-V4's compressed
attention, its compressors and its hyper-connections; the FFN of layers that reuse an earlier
layer's keys and values where it has a width of its own (Gemma 4's double-wide MLP). Each
function adds its tensors and its matmuls to the walker, under the names the reference
implementation gives them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_calc.reference.inventory import index_set, values

if TYPE_CHECKING:
    from ffn_calc.reference.instantiate import _Walker


def mla(w: _Walker, p: str, rows: int) -> None:
    """Multi-head latent attention: low-rank Q, the KV latent with a shared rotary key,
    per-head K (no rotary) and V from the latent, O (DeepseekV3Attention's modules)."""
    cfg, nm = w.cfg, w.nm
    d, h, b = cfg.d_model, cfg.n_heads, cfg.attention_bias
    qr, kvr = cfg.q_lora_rank, cfg.kv_lora_rank
    nope, rope, v = cfg.qk_nope_head_dim, cfg.qk_rope_head_dim, cfg.v_head_dim
    assert kvr is not None and nope is not None and rope is not None and v is not None
    g, proj = "attention", "attention_projections"
    if qr is None:
        w.linear(p + nm.mla_q, d, h * (nope + rope), g, rows, proj, False)
    else:
        w.linear(p + nm.mla_q_a, d, qr, g, rows, proj, b)
        w.norm(p + nm.mla_q_a_norm, (qr,))
        w.linear(p + nm.mla_q_b, qr, h * (nope + rope), g, rows, proj, False)
    w.linear(p + nm.mla_kv_a, d, kvr + rope, g, rows, proj, b)
    w.norm(p + nm.mla_kv_a_norm, (kvr,))
    w.linear(p + nm.mla_kv_b, kvr, h * (nope + v), g, rows, proj, False)
    w.linear(p + nm.o, h * v, d, g, rows, proj, b)
    if cfg.indexer_heads is not None:  # sparse attention's lightning indexer, no biases
        ih, iw, ix = cfg.indexer_heads, cfg.indexer_head_dim, p + nm.mla_indexer
        assert iw is not None and qr is not None
        w.linear(ix + "wq_b", qr, ih * iw, g, rows, proj, False)
        w.linear(ix + "wk", d, iw, g, rows, proj, False)
        w.tensor(ix + "k_norm.weight", (iw,), "norm")  # nn.LayerNorm, whatever cfg.norm
        w.tensor(ix + "k_norm.bias", (iw,), "norm")
        w.linear(ix + "weights_proj", d, ih, g, rows, proj, False)


def compressed(w: _Walker, p: str, rows: int) -> None:
    """Compressed attention's own modules (DeepseekV4Attention): low-rank Q, the one
    key-value head, the grouped output projection (o_a_proj: one batched matmul over the
    o_groups groups)."""
    cfg, nm = w.cfg, w.nm
    d, h, hd = cfg.d_model, cfg.n_heads, cfg.head_size
    qr, og, orank = cfg.q_lora_rank, cfg.o_groups, cfg.o_lora_rank
    assert qr is not None and og is not None and orank is not None
    g, proj = "attention", "attention_projections"
    w.linear(p + nm.mla_q_a, d, qr, g, rows, proj, False)
    w.norm(p + nm.mla_q_a_norm, (qr,))
    w.linear(p + nm.mla_q_b, qr, h * hd, g, rows, proj, False)
    w.linear(p + nm.kv_proj, d, hd, g, rows, proj, False)
    w.norm(p + nm.kv_norm, (hd,))
    w.tensor(p + nm.o_a + ".weight", (og * orank, h * hd // og), g)
    if rows:
        w.matmul(p + nm.o_a, proj, rows, h * hd // og, orank, og)
    w.linear(p + nm.o_b, og * orank, d, g, rows, proj, False)


def compressors(w: _Walker, p: str, length: int) -> None:
    """Each layer's compressor (DeepseekV4HCACompressor, DeepseekV4CSACompressor with its
    DeepseekV4Indexer), walked over the layers that have it, and the scores of the
    queries against the compressed entries (S // rate of them)."""
    cfg, nm = w.cfg, w.nm
    if not (cfg.csa_layers or cfg.hca_layers) or "{i}" not in p:
        return
    d, h, hd, b = cfg.d_model, cfg.n_heads, cfg.head_size, w.batch
    rows, g, proj = b * length, "attention", "attention_projections"
    ranges, runs = w.ranges, w.runs
    for layers, rate, width in (
        (cfg.hca_layers, cfg.hca_rate, hd),
        (cfg.csa_layers, cfg.csa_rate, 2 * hd),
    ):
        if not layers or rate is None:
            continue
        w.ranges = w.runs = (("i", index_set(layers)),)
        c = p + nm.compressor
        w.linear(c + nm.comp_kv, d, width, g, rows, proj, False)
        w.linear(c + nm.comp_gate, d, width, g, rows, proj, False)
        w.tensor(c + nm.comp_bias, (rate, width), g)
        w.norm(c + nm.comp_norm, (hd,))
        t = length // rate
        if width != hd:  # compressed sparse attention: the lightning indexer
            ih, ihd, qr = cfg.index_heads, cfg.index_head_dim, cfg.q_lora_rank
            assert ih is not None and ihd is not None and qr is not None
            x, xc = p + nm.indexer, p + nm.indexer_compressor
            w.linear(xc + nm.comp_kv, d, 2 * ihd, g, rows, proj, False)
            w.linear(xc + nm.comp_gate, d, 2 * ihd, g, rows, proj, False)
            w.tensor(xc + nm.comp_bias, (rate, 2 * ihd), g)
            w.norm(xc + nm.comp_norm, (ihd,))
            w.linear(x + nm.index_q_b, qr, ih * ihd, g, rows, proj, False)
            w.linear(x + nm.index_weights, d, ih, g, rows, proj, False)
            if t and length:
                w.matmul(x + "scores", "attention_scores", length, ihd, t, b * ih)
        if t and length:
            w.matmul(c + "scores QK^T", "attention_scores", length, hd, t, b * h)
            w.matmul(c + "scores AV", "attention_scores", length, t, hd, b * h)
    w.ranges, w.runs = ranges, runs


def hyper(w: _Walker, p: str, rows: int, component: str, flops: str) -> None:
    """One hyper-connection (DeepseekV4HyperConnection, n streams): fn, base, scale; its
    projection of the n x d_model streams and the [n, n] mix of the streams."""
    n, d = w.cfg.hc_streams, w.cfg.d_model
    if n is None:
        return
    w.tensor(p + "fn", ((2 + n) * n, n * d), component)
    w.tensor(p + "base", ((2 + n) * n,), component)
    w.tensor(p + "scale", (3,), component)
    if rows:
        w.matmul(p + "fn", flops, rows, n * d, (2 + n) * n)
        w.matmul(p + "mix", flops, n, n, d, rows)


def kv_shared_ffns(w: _Walker, p: str, rows: int) -> bool:
    """The FFN of every layer where the KV-shared layers' is of its own width (kv_shared_d_ff,
    ModelConfig.ffn_of): the other layers', then theirs, each over its own layer indices.
    False (nothing added) where the model has no such width."""
    cfg = w.cfg
    wide = cfg.ffn_of(True)
    if wide is cfg or w.ranges != w.runs or "{i}" not in p:
        return False
    ranges, runs = w.ranges, w.runs
    ((_, span),) = ranges
    n, shared = len(values(span)), set(cfg.kv_shared_layers)
    kinds = (([i for i in range(n) if i not in shared], cfg),
             ([i for i in range(n) if i in shared], wide))  # fmt: skip
    for indices, c in kinds:
        if indices:
            w.ranges = w.runs = (("i", index_set(indices)),)
            w.cfg = c
            w.ffn(p, rows)
    w.cfg, w.ranges, w.runs = cfg, ranges, runs
    return True
