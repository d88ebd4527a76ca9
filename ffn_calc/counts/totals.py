"""Parameter and FLOP totals per component, fast: plain integer sums for sweeps.

`param_components(cfg)` must equal `counts.params.components(cfg)`, and `flop_components(cfg, w)`
must equal `counts.flops.flop_components(cfg, w)`: the same keys in the same order, the same
values. Those build a list of named terms per layer kind for --explain; here each component is
one running sum, with no term objects and no strings, so a sweep over many configurations pays
only for the arithmetic. tests/test_totals.py proves the equality on every preset, every
family's config.json, hand-picked corners and random valid configurations; the term path is
itself checked against PyTorch elsewhere.

The conventions are those of counts/params.py and counts/flops.py: a tensor counts the product of
its shape; LayerNorm has a weight and a bias, RMSNorm a weight only; FLOPs are 2 x multiply-adds
of the matmuls, the scores over the full S x S square unless causal (then S(S+1) pairs x 1,
written without the division), the LM head at every output position.

Layer kinds follow `model.layer_kinds.layer_kinds` without walking the layers: a MoE stack has
len(dense_ffn_layers) dense-FFN layers and the rest routed, and local-attention layers change
no count. Shared layers (unique_layers) come with one layer kind (a validated invariant), so
unique_layers layers hold parameters. Compressed attention and hyper-connections (DeepSeek-V4),
whose layers differ one by one in their compressors, models with tensors given as data
(layer_parts, model_parts) or KV-shared layers (Gemma 3n), and Gemma 4's global layers of their
own width and per-layer inputs take the term path itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_calc.counts.tower_params import wrapper_components
from ffn_calc.model.config import GATED_ACTIVATIONS, ModelConfig, ffn_biases

if TYPE_CHECKING:
    from ffn_calc.counts.flops import Workload


def _per_kind(cfg: ModelConfig) -> bool:
    """Global layers of their own width, or per-layer inputs (Gemma 4): the term path."""
    return (
        cfg.global_head_dim is not None
        or cfg.global_kv_heads is not None
        or cfg.per_layer_dim is not None
        or cfg.keys_as_values is not None
    )


def term_path(cfg: ModelConfig) -> bool:
    """The parameter totals come from the term lists (counts.params.components): per-layer
    compressors, parts given as data, layers of their own widths, or a decoder with heads of
    its own."""
    return (
        cfg.compressed
        or cfg.hc_streams is not None
        or cfg.has_parts
        or _per_kind(cfg)
        or cfg.decoder_n_heads is not None
    )


def param_components(cfg: ModelConfig) -> dict[str, int]:
    """== counts.params.components(cfg): same keys in the same order (pooler only where the
    model has one, a key per tower and `projector` only where it has towers)."""
    if term_path(cfg):
        from ffn_calc.counts.params import components

        return components(cfg)
    d, h, f, v = cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.vocab_size
    head_dim, n_kv = cfg.head_dim, cfg.n_kv_heads
    hd = d // h if head_dim is None else head_dim
    q, kv = h * hd, (h if n_kv is None else n_kv) * hd  # widths of Q (and O's input), of K and V
    ab, ob = cfg.attention_bias, cfg.attention_out_bias
    ob = ab if ob is None else ob
    fb = cfg.ffn_bias
    nb = 2 if cfg.norm == "layernorm" and cfg.norm_bias else 1  # a norm over w: nb x w
    mats = 3 if cfg.activation in GATED_ACTIVATIONS else 2
    encdec = cfg.architecture == "encoder-decoder"
    stacks = 2 if encdec else 1

    # --- one layer: self-attention, its norms, the FFN --------------------------------------
    layer_norm = 0
    if cfg.attention == "mla":
        qr, kvr = cfg.q_lora_rank, cfg.kv_lora_rank
        nope, rope, vd = cfg.qk_nope_head_dim, cfg.qk_rope_head_dim, cfg.v_head_dim
        assert kvr is not None and nope is not None and rope is not None and vd is not None
        if qr is None:
            attn = d * h * (nope + rope)  # q_proj [h (nope + rope), d]
        else:
            attn = d * qr  # q_a_proj [q_lora, d]
            attn += qr * h * (nope + rope)  # q_b_proj [h (nope + rope), q_lora]
            layer_norm += nb * qr  # q_a_layernorm [q_lora]
            if ab:
                attn += qr  # q_a_proj bias [q_lora]
        attn += d * (kvr + rope)  # kv_a_proj_with_mqa [kv_lora + rope, d]
        attn += kvr * h * (nope + vd)  # kv_b_proj [h (nope + v), kv_lora]
        attn += h * vd * d  # o_proj [d, h v]
        layer_norm += nb * kvr  # kv_a_layernorm [kv_lora]
        if ab:
            attn += kvr + rope + d  # kv_a_proj bias [kv_lora + rope], o_proj bias [d]
        ih, iw = cfg.indexer_heads, cfg.indexer_head_dim
        if ih is not None and iw is not None and qr is not None:  # sparse attention's indexer
            attn += qr * ih * iw  # indexer.wq_b [indexer_heads x indexer_head_dim, q_lora]
            attn += d * iw + d * ih  # indexer.wk [indexer_head_dim, d], weights_proj [heads, d]
            layer_norm += 2 * iw  # indexer.k_norm, a LayerNorm: weight and bias
    else:
        attn = d * q + 2 * d * kv + q * d  # Q [d, q], K and V [d, kv], O [q, d]
        if ab:
            attn += q + kv  # b_Q [q], b_V [kv]
        if cfg.k_bias:
            attn += kv  # b_K [kv]
        if ob:
            attn += d  # b_O [d]
        if cfg.attention_output_gate:  # q_proj also yields the output gate: q more outputs
            attn += d * q + (q if ab else 0)
    attn_norms = layer_norm  # MLA's own norms (q_a, kv_a, the indexer's): attention layers only
    if cfg.attention_sinks:
        attn += h  # sinks [n_heads]
    buckets = cfg.relative_attention_buckets
    if buckets is not None and cfg.relative_attention_per_layer:
        attn += buckets * h  # relative attention bias [buckets, n_heads] in every layer (UMT5)
    if cfg.relative_position_rows is not None and not cfg.shared_position_projections:
        # pos_key_proj (c2p), pos_query_proj (p2c): [q, d] and, with attention_bias, [q]
        attn += len(cfg.position_scores) * (d * q + (q if ab else 0))
    qk_norm = cfg.qk_norm
    if qk_norm == "head":
        layer_norm += 2 * nb * hd  # q_norm and k_norm [head_dim]
    elif qk_norm != "none":  # per_head, full
        layer_norm += nb * (q + kv)  # q_norm [n_heads x head_dim], k_norm [n_kv_heads x head_dim]
    layer_norms = cfg.layer_norms
    layer_norm += (2 if layer_norms is None else layer_norms) * nb * d  # norms [d] around blocks

    n_experts = cfg.n_experts
    if n_experts is not None:  # routed experts
        e = n_experts
        main = d * e  # router [n_experts, d]
        if cfg.router_bias:
            main += e  # b_router [n_experts]
        if cfg.router_score_bias == "parameter":
            main += e  # router score bias [n_experts]
        ew, lat = cfg.expert_width, cfg.moe_latent_dim  # experts at a latent width, or d
        main += e * mats * ew * f  # experts [n_experts, mats, width, d_ff]
        if cfg.routed_expert_bias:  # expert_bias, default ffn_bias
            main += e * ffn_biases(f, ew, mats == 3)  # expert biases
        if lat is not None:
            main += 2 * d * lat + (lat + d if fb else 0)  # fc1 [lat, d], fc2 [d, lat], biases
        fs = cfg.shared_expert_d_ff
        if fs is not None:
            main += mats * d * fs  # shared expert [mats, d, shared_expert_d_ff]
            if fb:
                main += ffn_biases(fs, d, mats == 3)  # shared expert biases
            if cfg.shared_expert_gate:
                main += d  # shared expert gate [1, d]
        n_dense = len(cfg.dense_ffn_layers)
        fd = cfg.dense_d_ff or f
        dense = mats * d * fd  # dense layers: gate/up/down or W1/W2 [d, dense_d_ff]
        if fb:
            dense += ffn_biases(fd, d, mats == 3)  # their biases
    else:
        main = mats * d * f  # gate/up/down or W1/W2 [d, d_ff]
        if fb:
            main += ffn_biases(f, d, mats == 3)  # b_gate, b_up [d_ff]; b_down [d]
        n_dense = dense = 0
    f_dec = cfg.decoder_d_ff  # an encoder-decoder's decoder FFN of its own width
    main_dec, dense_dec = main, dense
    if f_dec is not None:
        experts, ew = (1, d) if n_experts is None else (n_experts, cfg.expert_width)
        main_dec = main - experts * mats * ew * (f - f_dec)  # [width, decoder_d_ff] per FFN
        if fb if n_experts is None else cfg.routed_expert_bias:
            main_dec -= experts * (mats - 1) * (f - f_dec)  # biases [decoder_d_ff]
        if n_experts is not None and cfg.dense_d_ff is None:  # dense layers of width d_ff
            dense_dec = mats * d * f_dec + (ffn_biases(f_dec, d, mats == 3) if fb else 0)

    # --- the stacks: layers weighted by how many hold parameters of their own --------------
    unique = cfg.unique_layers
    n_enc = cfg.n_layers
    if encdec:  # unique_layers is for one stack only (a validated invariant)
        n_dec = n_enc if cfg.n_decoder_layers is None else cfg.n_decoder_layers
        n = n_enc + n_dec
        n_dense_layers = 2 * n_dense  # layer_kinds counts len(dense_ffn_layers) in each stack
    elif unique is None:
        n, n_dense_layers = n_enc, n_dense
    else:  # ALBERT: unique_layers layers hold parameters (one layer kind: an invariant)
        n, n_dense_layers = unique, 0
    attention = n * attn
    norm = n * layer_norm
    if cfg.first_layer_norms is not None:  # layer 0 keeps first_layer_norms of them
        norm -= (cfg.norms_per_layer - cfg.first_layer_norms) * nb * d
    ffn = n_dense_layers * dense + (n - n_dense_layers) * main
    if encdec:  # the decoder's layers: their own width (decoder_d_ff)
        ffn += n_dense * (dense_dec - dense) + (n_dec - n_dense) * (main_dec - main)
    if encdec:  # cross-attention and its norm in every decoder layer
        cross = d * q + 2 * d * kv + q * d  # cross Q [d, q], K and V [d, kv], O [q, d]
        if ab:
            cross += q + kv  # cross b_Q, b_V
        if cfg.k_bias:
            cross += kv  # cross b_K
        if ob:
            cross += d  # cross b_O [d]
        attention += n_dec * cross
        norm += n_dec * nb * d  # norm_cross [d]

    # --- outside the layers: embeddings, final norms, head, pooler -------------------------
    ed = cfg.embedding_dim
    e_w = d if ed is None else ed  # width of the token embedding and the head's projection
    side = e_w if cfg.embedding_projection == "all" else d  # positions, token types, norm
    embedding = 0
    if v is not None:
        embedding += v * e_w  # token embedding [vocab, e_w]
        if encdec and not cfg.shared_embeddings:
            embedding += v * e_w  # target token embedding [vocab, e_w]
        if cfg.stack_embeddings:
            embedding += stacks * v * e_w  # each stack's own token embedding [vocab, e_w]
    max_pos = cfg.max_positions
    if cfg.positions == "learned" and max_pos is not None:
        tables = 2 if encdec and cfg.separate_position_tables else 1
        embedding += tables * max_pos * side  # position embedding(s) [max_positions, side]
        if tables == 2 and cfg.source_positions is not None:  # the encoder's own rows
            embedding += (cfg.source_positions - max_pos) * side
    for channels, _length in cfg.conv_lengths(1):  # front end: [d, in, kernel] and a bias [d]
        embedding += channels * cfg.conv_kernel * d + d
    embedding += cfg.type_vocab_size * side  # token-type embedding [type_vocab, side]
    has_head = cfg.lm_head and v is not None
    if ed is not None:
        pb = cfg.embedding_projection_bias
        embedding += ed * d  # projection in [d, embedding_dim]
        if pb:
            embedding += d  # projection in bias [d]
        if has_head and not cfg.lm_head_transform:  # project_out
            embedding += d * ed  # projection out [embedding_dim, d]
            if pb:
                embedding += ed  # projection out bias [embedding_dim]
    if cfg.embedding_norm:
        norm += stacks * nb * side  # embedding norm [side] (one per stack)
    rel_rows = cfg.relative_position_rows
    if rel_rows is not None:
        embedding += rel_rows * d  # relative position embedding [rows, d]
    if cfg.relative_position_norm:
        norm += nb * d  # relative position norm [d]
    if buckets is not None and not cfg.relative_attention_per_layer:
        attention += stacks * buckets * h  # relative attention bias [buckets, n_heads] per stack
    if cfg.final_norm:
        norm += stacks * nb * d  # final norm [d] per stack
    lm_head = 0
    if has_head:
        assert v is not None
        if cfg.lm_head_transform:
            lm_head += d * e_w  # head dense [e_w, d]
            if cfg.lm_head_transform_bias:
                lm_head += e_w  # its bias [e_w]
            norm += nb * e_w  # head norm [e_w]
        if not cfg.tie_embeddings:
            lm_head += e_w * v  # lm_head [vocab, e_w] (tied: 0)
        if cfg.lm_head_bias:
            lm_head += v  # lm_head bias [vocab]
        if cfg.lm_head_projection_bias:
            lm_head += v  # lm_head projection bias [vocab]
    out = {"embedding": embedding, "attention": attention, "ffn": ffn, "norm": norm,
           "lm_head": lm_head}  # fmt: skip
    if cfg.layer_mixers:  # a hybrid: each part in the layers that have it
        qk = 2 * nb * hd if qk_norm == "head" else nb * (q + kv) if qk_norm != "none" else 0
        qk += attn_norms
        out = _hybrid(cfg, out, n, attn, layer_norm - qk, qk, main, dense)
    if cfg.pooler:
        out["pooler"] = d * d + d  # pooler W [d, d], b [d]
    if cfg.towers:  # a multimodal wrapper: each tower and the projector
        out.update(wrapper_components(cfg, param_components))
    return out


def _hybrid(
    cfg: ModelConfig, out: dict[str, int], n: int, attn: int, norms: int, qk: int, main: int,
    dense: int,
) -> dict[str, int]:  # fmt: skip
    """The components of a hybrid stack (layer_mixers): attention and its q/k norms in the
    layers that attend, the FFN in those that have one (dense or MoE), each other mixer's own
    parameters (counts.mixers) in its layers; `out` holds the rest."""
    from ffn_calc.counts.mixers import counts_of
    from ffn_calc.model.layer_kinds import MIXERS

    per: dict[str, tuple[int, int]] = {}  # a mixer's (own parameters, its norms) per layer
    for name in set(cfg.layer_mixers):
        counts = counts_of(MIXERS[name])
        terms = counts.params(cfg) if counts is not None else []
        per[name] = (
            sum(t.value for t in terms if t.group != "norm"),
            sum(t.value for t in terms if t.group == "norm"),
        )
    attending = sum(1 for m in cfg.layer_mixers if MIXERS[m].attends)
    free = set(cfg.ffn_free_layers)
    n_dense = len(set(cfg.dense_ffn_layers) - free) if cfg.is_moe else 0
    with_ffn = n - len(free)
    norm = out["norm"] - n * (norms + qk) + n * norms + attending * qk
    norm += sum(per[m][1] for m in cfg.layer_mixers)
    ffn = n_dense * dense + (with_ffn - n_dense) * main
    mixer = sum(per[m][0] for m in cfg.layer_mixers)
    return {"embedding": out["embedding"], "attention": attending * attn, "mixer": mixer,
            "ffn": ffn, "norm": norm, "lm_head": out["lm_head"]}  # fmt: skip


def flop_components(cfg: ModelConfig, w: Workload) -> dict[str, int]:
    """== counts.flops.flop_components(cfg, w): same keys, same order, same deletions (pooler,
    embedding)."""
    if (
        cfg.compressed
        or cfg.hc_streams is not None
        or cfg.layer_mixers
        or cfg.has_parts
        or _per_kind(cfg)
        or cfg.decoder_n_heads is not None
    ):
        from ffn_calc.counts import flops

        return flops.flop_components(cfg, w)
    b, s = w.batch, w.seq_len
    d, h, f, v = cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.vocab_size
    head_dim, n_kv = cfg.head_dim, cfg.n_kv_heads
    hd = d // h if head_dim is None else head_dim
    q, kv = h * hd, (h if n_kv is None else n_kv) * hd  # widths of Q (and O's input), of K and V
    mats = 3 if cfg.activation in GATED_ACTIVATIONS else 2
    encdec = cfg.architecture == "encoder-decoder"

    # --- one layer, per token (the 2 B x positions factor comes with the stack) -------------
    if cfg.attention == "mla":
        qr, kvr = cfg.q_lora_rank, cfg.kv_lora_rank
        nope, rope, vd = cfg.qk_nope_head_dim, cfg.qk_rope_head_dim, cfg.v_head_dim
        assert kvr is not None and nope is not None and rope is not None and vd is not None
        if qr is None:
            proj = d * h * (nope + rope)  # q_proj: d_model x n_heads x (nope + rope)
        else:
            proj = d * qr  # q_a_proj: d_model x q_lora_rank
            proj += qr * h * (nope + rope)  # q_b_proj: q_lora_rank x n_heads x (nope + rope)
        proj += d * (kvr + rope)  # kv_a_proj_with_mqa: d_model x (kv_lora_rank + rope)
        proj += kvr * h * (nope + vd)  # kv_b_proj: kv_lora_rank x n_heads x (nope + v)
        proj += h * vd * d  # o_proj: n_heads x v_head_dim x d_model
        heads = h * (nope + rope + vd)  # QK^T over nope + rope, AV over v_head_dim, per head
        ih, iw = cfg.indexer_heads, cfg.indexer_head_dim
        if ih is not None and iw is not None and qr is not None:  # sparse attention's indexer
            proj += qr * ih * iw  # indexer.wq_b: q_lora_rank x indexer_heads x indexer_head_dim
            proj += d * iw + d * ih  # indexer.wk: d_model x width; weights_proj: d_model x heads
            heads += ih * (iw + 1)  # indexer scores: q . k over its width, then the head weights
    else:
        proj = d * q + 2 * d * kv + q * d  # Q, K, V, O: d_model x (q, kv, kv) and q x d_model
        heads = h * 2 * hd  # QK^T and AV over head_dim, per head

    n_experts = cfg.n_experts
    if n_experts is not None:  # top-k dispatch
        k = cfg.experts_per_token
        assert k is not None
        main = d * n_experts  # router: d_model x n_experts
        ew, lat = cfg.expert_width, cfg.moe_latent_dim  # experts at a latent width, or d
        main += k * mats * ew * f  # experts: experts_per_token x mats x width x d_ff
        if lat is not None:
            main += 2 * d * lat  # latent down and up: d_model x moe_latent_dim each
        fs = cfg.shared_expert_d_ff
        if fs is not None:
            main += mats * d * fs  # shared expert: mats x d_model x shared_expert_d_ff
            if cfg.shared_expert_gate:
                main += d  # shared expert gate: d_model x 1
        n_dense = len(cfg.dense_ffn_layers)  # in each stack, as layer_kinds counts them
        dense = mats * d * (cfg.dense_d_ff or f)  # dense layers: mats x d_model x dense_d_ff
    else:
        main = mats * d * f  # gate/up/down or W1/W2: mats x d_model x d_ff
        n_dense = dense = 0
    f_dec = cfg.decoder_d_ff  # an encoder-decoder's decoder FFN of its own width
    main_dec, dense_dec = main, dense
    if f_dec is not None:
        routed = 1 if n_experts is None else (cfg.experts_per_token or 1)  # FFNs a row runs
        main_dec = main - routed * mats * (d if n_experts is None else cfg.expert_width) * (
            f - f_dec
        )
        if n_experts is not None and cfg.dense_d_ff is None:  # dense layers of width d_ff
            dense_dec = mats * d * f_dec

    # --- the stacks: every applied layer (shared layers count each time they run) -----------
    n = cfg.n_layers
    if encdec:
        t = s if w.target_len is None else w.target_len
        n_dec = n if cfg.n_decoder_layers is None else cfg.n_decoder_layers
        projections = 2 * b * s * n * proj  # encoder self-attention over S
        scores = 2 * b * s * s * n * heads  # encoder QK^T, AV: B x n_heads x S x S
        ffn = 2 * b * s * (n_dense * dense + (n - n_dense) * main)  # encoder FFN over S
        projections += 2 * b * t * n_dec * proj  # decoder self-attention over T
        if w.causal:
            scores += b * t * (t + 1) * n_dec * heads  # decoder QK^T, AV: T(T+1) causal pairs
        else:
            scores += 2 * b * t * t * n_dec * heads  # decoder QK^T, AV: T x T
        # cross-attention: Q and O over T, K and V over the encoder's S (always Q, K, V, O)
        projections += 2 * b * n_dec * (t * d * q + 2 * s * d * kv + t * q * d)
        scores += 2 * b * t * s * n_dec * heads  # cross QK^T, AV: B x n_heads x T x S
        ffn += 2 * b * t * (n_dense * dense_dec + (n_dec - n_dense) * main_dec)  # decoder FFN
        rows = t  # the head reads the decoder's T positions
    else:
        projections = 2 * b * s * n * proj  # Q, K, V, O over B x S rows
        if w.causal and cfg.architecture == "decoder-only":
            scores = b * s * (s + 1) * n * heads  # QK^T, AV: S(S+1) causal pairs
        else:
            scores = 2 * b * s * s * n * heads  # QK^T, AV: B x n_heads x S x S
        ffn = 2 * b * s * (n_dense * dense + (n - n_dense) * main)  # FFN over B x S rows
        rows = s
        rel_rows = cfg.relative_position_rows
        if rel_rows is not None:  # DeBERTa (encoder-only): disentangled scores, table projections
            scores += 2 * b * s * n * h * rel_rows * hd * len(cfg.position_scores)
            projections += n * cfg.position_projections * 2 * rel_rows * d * q

    # --- outside the layers: a narrow embedding's projections, the head, the pooler ---------
    ed = cfg.embedding_dim
    e_w = d if ed is None else ed
    embedding = 0
    lm_head = 0
    if ed is not None and not encdec:
        embedding += 2 * b * s * ed * d  # projection in: B x S x embedding_dim x d_model
    for channels, length in cfg.conv_lengths(s):  # front end: B x length x in x kernel x d
        embedding += 2 * b * length * channels * cfg.conv_kernel * d
    if w.lm_head and cfg.lm_head and v is not None:
        transform = cfg.lm_head_transform
        if ed is not None and not transform:  # project_out
            embedding += 2 * b * rows * d * ed  # projection out: B x S x d_model x embedding_dim
        if transform:
            lm_head += 2 * b * rows * d * e_w  # head dense: B x S x d_model x e_w
        lm_head += 2 * b * rows * e_w * v  # lm_head: B x S x e_w x vocab_size
    out = {"embedding": embedding, "attention_projections": projections,
           "attention_scores": scores, "ffn": ffn, "lm_head": lm_head}  # fmt: skip
    if ed is None and cfg.conv_in_channels is None:
        del out["embedding"]  # only a narrow embedding's projections (or convolutions) count
    if cfg.pooler:
        out["pooler"] = 2 * b * d * d  # pooler: B x d_model x d_model (first token)
    return out
