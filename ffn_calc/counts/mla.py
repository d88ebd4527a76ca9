"""Multi-head latent attention (DeepSeek-V2/V3) and sparse attention's lightning indexer
(DeepSeek-V3.2, GLM-5): their parameter terms and the FLOP terms of their projections. The
indexer's scores are S^2 terms with the attention scores (counts.flops.score_terms)."""

from __future__ import annotations

from ffn_calc.counts.terms import Term, norm_formula, norm_terms, term
from ffn_calc.model.config import ModelConfig


def mla_terms(cfg: ModelConfig) -> list[Term]:
    """Multi-head latent attention (DeepSeek-V2/V3): low-rank Q, a compressed KV latent plus a
    shared rotary key, per-head K (no rotary) and V decompressed from the latent, O."""
    d, h, g = cfg.d_model, cfg.n_heads, "attention"
    qr, kvr = cfg.q_lora_rank, cfg.kv_lora_rank
    nope, rope, v = cfg.qk_nope_head_dim, cfg.qk_rope_head_dim, cfg.v_head_dim
    assert kvr is not None and nope is not None and rope is not None and v is not None
    b = cfg.attention_bias
    out: list[Term] = []
    if qr is None:  # q_proj [h (nope + rope), d]
        out.append(term(g, "q_proj", "d_model x n_heads x (nope + rope)", d, h, nope + rope))
    else:  # q_a_proj [q_lora, d] (+ bias), q_a_layernorm [q_lora], q_b_proj [h (nope + rope), q_lora]
        out.append(term(g, "q_a_proj", "d_model x q_lora_rank", d, qr))
        if b:
            out.append(term(g, "q_a_proj bias", "q_lora_rank", qr))
        out += norm_terms(cfg, "norm", "q_a_layernorm", qr, "q_lora_rank")
        out.append(term(g, "q_b_proj", "q_lora_rank x n_heads x (nope + rope)", qr, h, nope + rope))
    # kv_a_proj_with_mqa [kv_lora + rope, d] (+ bias), kv_a_layernorm [kv_lora],
    # kv_b_proj [h (nope + v), kv_lora], o_proj [d, h v] (+ bias)
    out.append(term(g, "kv_a_proj_with_mqa", "d_model x (kv_lora_rank + rope)", d, kvr + rope))
    if b:
        out.append(term(g, "kv_a_proj bias", "kv_lora_rank + rope", kvr + rope))
    out += norm_terms(cfg, "norm", "kv_a_layernorm", kvr, "kv_lora_rank")
    out.append(
        term(g, "kv_b_proj", "kv_lora_rank x n_heads x (nope + v_head_dim)", kvr, h, nope + v)
    )
    out.append(term(g, "o_proj", "n_heads x v_head_dim x d_model", h, v, d))
    if b:
        out.append(term(g, "b_O", "d_model", d))
    return out + indexer_terms(cfg)  # fmt: skip


def indexer_terms(cfg: ModelConfig) -> list[Term]:
    """Sparse attention's lightning indexer (DeepSeek-V3.2, GLM-5), no biases on its
    projections: `indexer.wq_b` [indexer_heads x indexer_head_dim, q_lora_rank] (it reads
    the query latent), `indexer.wk` [indexer_head_dim, d_model] (one key shared by its heads),
    `indexer.k_norm` a LayerNorm [indexer_head_dim] with weight and bias whatever the model's
    norm, `indexer.weights_proj` [indexer_heads, d_model] (each head's weight per token)."""
    if cfg.indexer_heads is None:
        return []
    d, h, hd, qr, g = (
        cfg.d_model,
        cfg.indexer_heads,
        cfg.indexer_head_dim,
        cfg.q_lora_rank,
        "attention",
    )
    assert hd is not None and qr is not None
    return [
        term(g, "indexer.wq_b", "q_lora_rank x indexer_heads x indexer_head_dim", qr, h, hd),
        term(g, "indexer.wk", "d_model x indexer_head_dim", d, hd),
        term("norm", "indexer.k_norm", norm_formula("indexer_head_dim", bias=True), 2, hd),
        term(g, "indexer.weights_proj", "d_model x indexer_heads", d, h),
    ]  # fmt: skip


def mla_flop_terms(cfg: ModelConfig, b: int, s: int) -> list[Term]:
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
        *indexer_flop_terms(cfg, b, s),
    ]  # fmt: skip


def indexer_flop_terms(cfg: ModelConfig, b: int, s: int) -> list[Term]:
    """Sparse attention: the lightning indexer's projections over the B x S rows (its
    queries from the query latent, its one key and each head's weight from the layer input)."""
    if cfg.indexer_heads is None:
        return []
    d, h, hd, qr, g = (
        cfg.d_model,
        cfg.indexer_heads,
        cfg.indexer_head_dim,
        cfg.q_lora_rank,
        "attention_projections",
    )
    assert hd is not None and qr is not None
    return [
        term(g, "indexer.wq_b", "2 x B x S x q_lora_rank x indexer_heads x indexer_head_dim", 2, b, s, qr, h, hd),
        term(g, "indexer.wk", "2 x B x S x d_model x indexer_head_dim", 2, b, s, d, hd),
        term(g, "indexer.weights_proj", "2 x B x S x d_model x indexer_heads", 2, b, s, d, h),
    ]  # fmt: skip
