"""The rules a model's fields must keep together (heads divide the width, windows fit the
stack, experts fit their count ...): checked whenever a ModelConfig is made or varied.

Each rule is one `InvariantError` with an English template and its values: sweeps group
skipped combinations by it and JSON carries it; `translated()` is the reader's language.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_calc.i18n.translate import N_, _

if TYPE_CHECKING:
    from ffn_calc.model.config import ModelConfig


# Layers that differ one by one (a MoE model's dense layers) are listed; beyond this many
# layers only a run of first or last layers may differ, so nothing walks every layer.
MAX_LISTED_LAYERS = 1_000_000


class InvariantError(ValueError):
    """A rule the fields break. Its text is English (sweeps group skipped combinations by it
    and put it in JSON); `translated()` is the same message in the reader's language."""

    def __init__(self, template: str, **values: object) -> None:
        super().__init__(template.format(**values))
        self.template, self.values = template, values

    def translated(self) -> str:
        return _(self.template).format(**self.values)


def check_invariants(cfg: ModelConfig) -> None:
    """Raise ValueError naming the first invariant the fields break."""
    _check_hybrid(cfg)
    if cfg.head_dim is None and cfg.d_model % cfg.n_heads:
        raise InvariantError(
            N_(
                "n_heads ({n_heads}) must divide d_model ({d_model}); "
                "set head_dim to use heads that do not divide it"
            ),
            n_heads=cfg.n_heads,
            d_model=cfg.d_model,
        )
    if cfg.n_kv_heads is not None and (
        cfg.n_kv_heads > cfg.n_heads or cfg.n_heads % cfg.n_kv_heads
    ):
        raise InvariantError(
            N_("n_kv_heads ({n_kv_heads}) must divide n_heads ({n_heads})"),
            n_kv_heads=cfg.n_kv_heads,
            n_heads=cfg.n_heads,
        )
    if (cfg.n_experts is None) != (cfg.experts_per_token is None):
        raise InvariantError(N_("n_experts and experts_per_token go together: set both or neither"))
    if (
        cfg.n_experts is not None
        and cfg.experts_per_token is not None
        and (cfg.experts_per_token > cfg.n_experts)
    ):
        raise InvariantError(
            N_("experts_per_token ({experts_per_token}) cannot exceed n_experts ({n_experts})"),
            experts_per_token=cfg.experts_per_token,
            n_experts=cfg.n_experts,
        )
    if cfg.expert_bias is not None and cfg.n_experts is None:
        raise InvariantError(N_("expert_bias applies to routed experts: it needs n_experts"))
    if cfg.moe_latent_dim is not None and cfg.n_experts is None:
        raise InvariantError(N_("moe_latent_dim applies to routed experts: it needs n_experts"))
    if cfg.dense_ffn_layers and (
        cfg.n_experts is None
        or len(set(cfg.dense_ffn_layers)) != len(cfg.dense_ffn_layers)
        or any(not 0 <= i < cfg.n_layers for i in cfg.dense_ffn_layers)
    ):
        raise InvariantError(
            N_("dense_ffn_layers needs n_experts and distinct layer indices in 0 .. n_layers - 1")
        )
    if cfg.dense_ffn_layers and cfg.has_encoder and cfg.has_decoder:
        top = max(cfg.dense_ffn_layers)
        if top >= cfg.decoder_layers:  # the indices apply to both stacks
            one = cfg.decoder_layers == 1
            raise InvariantError(
                N_(
                    "dense_ffn_layers index {index} is past the decoder's {layers} layer: "
                    "an encoder-decoder model's indices apply to both stacks"
                )
                if one
                else N_(
                    "dense_ffn_layers index {index} is past the decoder's {layers} layers: "
                    "an encoder-decoder model's indices apply to both stacks"
                ),
                index=top,
                layers=cfg.decoder_layers,
            )
    if cfg.dense_ffn_layers and cfg.n_layers > MAX_LISTED_LAYERS:
        dense = sorted(cfg.dense_ffn_layers)
        listed, total = len(dense), cfg.n_layers
        if dense not in (list(range(listed)), list(range(total - listed, total))):
            raise InvariantError(
                N_(
                    "dense_ffn_layers scattered over more than {limit} layers are not "
                    "supported (first or last layers are)"
                ),
                limit=f"{MAX_LISTED_LAYERS:,}",
            )
    if cfg.window_layers and (
        cfg.attention_window is None
        or cfg.architecture == "encoder-decoder"
        or len(set(cfg.window_layers)) != len(cfg.window_layers)
        or any(not 0 <= i < cfg.n_layers for i in cfg.window_layers)
        or cfg.n_layers > MAX_LISTED_LAYERS
    ):
        raise InvariantError(
            N_(
                "window_layers needs attention_window, one stack of at most {limit} layers "
                "and distinct indices in 0 .. n_layers - 1"
            ),
            limit=f"{MAX_LISTED_LAYERS:,}",
        )
    mla = (cfg.kv_lora_rank, cfg.qk_nope_head_dim, cfg.qk_rope_head_dim, cfg.v_head_dim)
    if (cfg.attention == "mla") != all(x is not None for x in mla) or (
        cfg.q_lora_rank is not None and cfg.attention not in ("mla", "compressed")
    ):
        raise InvariantError(
            N_(
                "attention = 'mla' goes with kv_lora_rank, qk_nope_head_dim, "
                "qk_rope_head_dim and v_head_dim (and an optional q_lora_rank); "
                "set all or none"
            )
        )
    if cfg.attention == "mla" and (
        cfg.qk_norm != "none"
        or cfg.architecture == "encoder-decoder"
        or cfg.attention_out_bias is not None
    ):
        raise InvariantError(
            N_(
                "attention = 'mla' goes with one stack, no qk_norm and no "
                "attention_out_bias (its o_proj has a bias when attention_bias is set, "
                "as DeepSeek's has)"
            )
        )
    _check_compressed(cfg)
    indexer = (cfg.indexer_heads, cfg.indexer_head_dim, cfg.indexer_topk)
    if any(x is not None for x in indexer) and (
        not all(x is not None for x in indexer)
        or cfg.attention != "mla"
        or cfg.q_lora_rank is None
        or cfg.indexer_head_dim is None
        or cfg.qk_rope_head_dim is None
        or cfg.indexer_head_dim < cfg.qk_rope_head_dim
    ):
        raise InvariantError(
            N_(
                "indexer_heads, indexer_head_dim and indexer_topk go together, with "
                "attention = 'mla', a q_lora_rank (the indexer's queries read the query "
                "latent) and indexer_head_dim at least qk_rope_head_dim"
            )
        )
    if cfg.positions == "learned" and cfg.max_positions is None:
        raise InvariantError(N_("positions = 'learned' needs max_positions (the table's rows)"))
    if cfg.position_offset and (
        cfg.positions != "learned"
        or cfg.max_positions is None
        or cfg.position_offset >= cfg.max_positions
    ):
        raise InvariantError(
            N_(
                "position_offset needs a learned position table with more rows than the "
                "offset (max_positions > position_offset)"
            )
        )
    if cfg.n_decoder_layers is not None and cfg.architecture != "encoder-decoder":
        raise InvariantError(N_("n_decoder_layers applies only to an encoder-decoder model"))
    _check_decoder_stack(cfg)
    if cfg.vocab_size is None and (cfg.type_vocab_size or cfg.tie_embeddings):
        raise InvariantError(N_("type_vocab_size and tie_embeddings need a vocab_size"))
    if cfg.stack_embeddings and not (
        cfg.architecture == "encoder-decoder" and cfg.shared_embeddings and cfg.vocab_size
    ):
        raise InvariantError(
            N_(
                "stack_embeddings needs an encoder-decoder model with a vocab_size and "
                "shared_embeddings"
            )
        )
    if cfg.source_positions is not None and not (
        cfg.architecture == "encoder-decoder"
        and cfg.positions == "learned"
        and cfg.separate_position_tables
    ):
        raise InvariantError(
            N_(
                "source_positions needs an encoder-decoder model with learned positions and "
                "separate_position_tables (the encoder's table of its own)"
            )
        )
    if (cfg.conv_in_channels is None) != (not cfg.conv_strides) or (
        cfg.conv_strides and cfg.architecture != "encoder-decoder"
    ):
        raise InvariantError(
            N_(
                "conv_in_channels and conv_strides go together (a convolutional front end), "
                "in an encoder-decoder model"
            )
        )
    if cfg.conv_kernel % 2 == 0:
        raise InvariantError(
            N_("conv_kernel ({conv_kernel}) must be odd (padded by kernel // 2 on each side)"),
            conv_kernel=cfg.conv_kernel,
        )
    if len(cfg.conv_strides) > 8:
        raise InvariantError(N_("conv_strides lists at most 8 convolutions"))
    if cfg.relative_attention_per_layer and cfg.relative_attention_buckets is None:
        raise InvariantError(
            N_("relative_attention_per_layer needs relative_attention_buckets (the bias's rows)")
        )
    if cfg.tie_embeddings and not cfg.lm_head:
        raise InvariantError(N_("tie_embeddings needs an lm_head to tie"))
    if cfg.unique_layers is not None and (cfg.dense_ffn_layers or cfg.window_layers):
        raise InvariantError(
            N_(
                "unique_layers (layers sharing parameters) cannot be combined with "
                "dense_ffn_layers or window_layers: which kind each shared layer has is "
                "not defined"
            )
        )
    if cfg.unique_layers is not None and (
        cfg.architecture == "encoder-decoder" or cfg.unique_layers > cfg.n_layers
    ):
        if cfg.unique_layers > cfg.n_layers:
            raise InvariantError(
                N_(
                    "unique_layers applies to one stack and cannot exceed n_layers "
                    "({unique_layers} > {n_layers})"
                ),
                unique_layers=cfg.unique_layers,
                n_layers=cfg.n_layers,
            )
        raise InvariantError(N_("unique_layers applies to encoder-only or decoder-only models"))
    if cfg.embedding_dim is not None and (
        cfg.vocab_size is None or cfg.architecture == "encoder-decoder"
    ):
        raise InvariantError(N_("embedding_dim needs a vocab_size and one stack"))
    if (
        cfg.lm_head_transform or cfg.lm_head_bias or cfg.lm_head_projection_bias
    ) and not cfg.has_lm_head:
        raise InvariantError(
            N_(
                "lm_head_transform, lm_head_bias and lm_head_projection_bias need an "
                "lm_head and a vocab_size"
            )
        )
    if cfg.first_layer_norms is not None and (
        cfg.first_layer_norms >= cfg.norms_per_layer
        or cfg.architecture == "encoder-decoder"
        or cfg.unique_layers is not None
        or (cfg.is_moe and cfg.dense_ffn_layers)
    ):
        raise InvariantError(
            N_(
                "first_layer_norms ({first}) must be fewer than the norms of every other "
                "layer ({norms}), in one stack with no shared or dense-FFN layers"
            ),
            first=cfg.first_layer_norms,
            norms=cfg.norms_per_layer,
        )
    relative = cfg.c2p_attention or cfg.p2c_attention or cfg.shared_position_projections
    if (relative and cfg.relative_position_rows is None) or (
        (cfg.relative_position_rows is not None or cfg.relative_position_norm)
        and (cfg.architecture != "encoder-only" or cfg.attention != "standard")
    ):
        raise InvariantError(
            N_(
                "c2p_attention, p2c_attention and shared_position_projections need "
                "relative_position_rows; it and relative_position_norm need an encoder-only "
                "model with standard attention"
            )
        )
    k = cfg.layers_per_group
    if k is not None and (cfg.n_layers % k or cfg.param_layers(cfg.n_layers) % k):
        raise InvariantError(
            N_(
                "layers_per_group ({layers_per_group}) must divide n_layers ({n_layers}) "
                "and unique_layers ({unique_layers})"
            ),
            layers_per_group=k,
            n_layers=cfg.n_layers,
            unique_layers=cfg.param_layers(cfg.n_layers),
        )
    if (
        cfg.embedding_projection == "all"
        and cfg.embedding_dim is not None
        and cfg.has_lm_head
        and not cfg.lm_head_transform
    ):
        raise InvariantError(
            N_(
                "embedding_projection = 'all' projects in only: the head needs "
                "lm_head_transform to map back to embedding_dim"
            )
        )


def _distinct_layers(indices: list[int], layers: int) -> bool:
    return len(set(indices)) == len(indices) and all(0 <= i < layers for i in indices)


def _check_compressed(cfg: ModelConfig) -> None:
    """Compressed attention (DeepSeek-V4), its compressors, hyper-connections, hash routing."""
    compressed = cfg.attention == "compressed"
    own = (cfg.o_groups, cfg.o_lora_rank, cfg.csa_rate, cfg.hca_rate, cfg.index_heads,
           cfg.index_head_dim)  # fmt: skip
    if not compressed and (any(x is not None for x in own) or cfg.csa_layers or cfg.hca_layers):
        raise InvariantError(
            N_(
                "o_groups, o_lora_rank, csa_layers, hca_layers, csa_rate, hca_rate, "
                "index_heads and index_head_dim apply to attention = 'compressed'"
            )
        )
    if compressed and (
        cfg.q_lora_rank is None
        or cfg.o_groups is None
        or cfg.o_lora_rank is None
        or cfg.kv_heads != 1
        or cfg.architecture != "decoder-only"
        or cfg.qk_norm != "none"
        or cfg.attention_bias
        or cfg.attention_out_bias
        or cfg.q_dim % cfg.o_groups
        or cfg.attention_window is None
        or cfg.window_layers
    ):
        raise InvariantError(
            N_(
                "attention = 'compressed' goes with a decoder-only model, q_lora_rank, "
                "o_groups dividing n_heads x head_dim, o_lora_rank, n_kv_heads = 1, an "
                "attention_window over every layer, no attention biases and no qk_norm"
            )
        )
    csa, hca = cfg.csa_layers, cfg.hca_layers
    if (csa or hca) and (
        not _distinct_layers(csa + hca, cfg.n_layers)
        or cfg.n_layers > MAX_LISTED_LAYERS
        or (csa and (cfg.csa_rate is None or cfg.index_heads is None
                     or cfg.index_head_dim is None))
        or (hca and cfg.hca_rate is None)
    ):  # fmt: skip
        raise InvariantError(
            N_(
                "csa_layers and hca_layers need distinct indices in 0 .. n_layers - 1 (at "
                "most {limit} layers, no layer in both); csa_layers needs csa_rate, "
                "index_heads and index_head_dim, hca_layers needs hca_rate"
            ),
            limit=f"{MAX_LISTED_LAYERS:,}",
        )
    if cfg.hash_layers and (
        not cfg.is_moe
        or cfg.vocab_size is None
        or not _distinct_layers(cfg.hash_layers, cfg.n_layers)
        or set(cfg.hash_layers) & set(cfg.dense_ffn_layers)
        or cfg.n_layers > MAX_LISTED_LAYERS
    ):
        raise InvariantError(
            N_(
                "hash_layers needs n_experts, a vocab_size and distinct MoE layer indices in "
                "0 .. n_layers - 1 (at most {limit} layers)"
            ),
            limit=f"{MAX_LISTED_LAYERS:,}",
        )
    if cfg.hc_streams is not None and cfg.architecture != "decoder-only":
        raise InvariantError(N_("hc_streams (hyper-connections) applies to a decoder-only model"))
    _check_parts(cfg)
    _check_per_layer(cfg)


def _check_per_layer(cfg: ModelConfig) -> None:
    """Global layers of their own width (Gemma 4) and per-layer inputs: a decoder-only stack
    of standard attention, global layers beside window_layers, a kv head count dividing the
    query heads."""
    wide = cfg.global_head_dim is not None or cfg.global_kv_heads is not None
    if wide and (
        cfg.architecture != "decoder-only"
        or cfg.attention != "standard"
        or not cfg.window_layers
        or cfg.layer_mixers
    ):
        raise InvariantError(
            N_("global_head_dim and global_kv_heads apply to a decoder-only model of standard "
               "attention whose other layers attend locally (window_layers)")
        )  # fmt: skip
    if cfg.keys_as_values is not None and (
        cfg.attention != "standard"
        or cfg.layer_mixers
        or (cfg.keys_as_values == "global" and not cfg.window_layers)
    ):
        raise InvariantError(
            N_("keys_as_values applies to standard attention layers ('global': beside "
               "window_layers)")
        )  # fmt: skip
    g = cfg.global_kv_heads
    if g is not None and (g > cfg.n_heads or cfg.n_heads % g):
        raise InvariantError(
            N_("global_kv_heads ({kv}) must divide n_heads ({n_heads})"), kv=g, n_heads=cfg.n_heads
        )
    if (cfg.per_layer_dim is not None or cfg.per_layer_vocab is not None) and (
        cfg.architecture != "decoder-only" or cfg.per_layer_dim is None or cfg.layer_mixers
    ):
        raise InvariantError(
            N_("per_layer_dim applies to a decoder-only model of attention layers "
               "(per_layer_vocab goes with it)")
        )  # fmt: skip


def _check_parts(cfg: ModelConfig) -> None:
    """Layer and model parts, KV-shared layers: a decoder-only model's, of a standard
    attention; shared layers distinct, within the stack, not all of it (the first layer
    computes its own keys and values)."""
    extra = cfg.layer_parts or cfg.model_parts or cfg.kv_shared_layers
    if extra and (cfg.architecture == "encoder-decoder" or cfg.attention != "standard"):
        raise InvariantError(
            N_(
                "layer_parts, model_parts and kv_shared_layers apply to a model of one stack "
                "with standard attention"
            )
        )
    shared = cfg.kv_shared_layers
    if shared and (
        cfg.architecture != "decoder-only"
        or sorted(shared) != list(range(cfg.n_layers - len(shared), cfg.n_layers))
        or len(shared) >= cfg.n_layers
        or cfg.n_layers > MAX_LISTED_LAYERS
        or cfg.layer_mixers
    ):
        raise InvariantError(
            N_(
                "kv_shared_layers needs a decoder of attention layers, at most {limit}, and "
                "names its last layers (not all of them)"
            ),
            limit=f"{MAX_LISTED_LAYERS:,}",
        )
    moe = cfg.n_experts is not None
    if cfg.kv_shared_d_ff is not None and (
        not shared or (moe and (cfg.shared_expert_d_ff is None or cfg.dense_ffn_layers))
    ):
        raise InvariantError(
            N_(
                "kv_shared_d_ff needs kv_shared_layers (a MoE model: a shared expert, whose "
                "width it is in those layers, and no dense-FFN layers)"
            )
        )


HYBRID_MIXERS = (
    "full",
    "mamba2",
    "gated_deltanet",
    "kda",
    "none",
    "full+mamba2",
    "shared+mamba2",
    "short_conv",
    "mamba",
    "lightning",
)  # names with counts (counts.mixers)


def _check_hybrid(cfg: ModelConfig) -> None:
    """A hybrid's per-layer mixers: one name per decoder layer, each known, with its sizes;
    FFN-free layers listed once within the stack; a layer with neither is no layer."""
    if not cfg.layer_mixers and not cfg.ffn_free_layers:
        if cfg.gated_deltanet is not None or cfg.kda is not None:
            raise InvariantError(N_("mixer sizes need layer_mixers naming the mixer's layers"))
        if cfg.mamba2 is not None:
            raise InvariantError(N_("mamba2 sizes need layer_mixers naming the Mamba-2 layers"))
        if cfg.lightning is not None:
            raise InvariantError(
                N_("lightning sizes need layer_mixers naming the lightning-attention layers")
            )
        if cfg.mamba is not None:
            raise InvariantError(N_("mamba sizes need layer_mixers naming the Mamba layers"))
        if cfg.short_conv is not None:
            raise InvariantError(
                N_("short_conv sizes need layer_mixers naming the convolution layers")
            )
        return
    n = cfg.n_layers
    if cfg.architecture != "decoder-only" or n > MAX_LISTED_LAYERS:
        raise InvariantError(
            N_("layer_mixers and ffn_free_layers apply to a decoder-only stack of at most "
               "{limit} layers"),
            limit=f"{MAX_LISTED_LAYERS:,}",
        )  # fmt: skip
    if len(cfg.layer_mixers) != n or any(m not in HYBRID_MIXERS for m in cfg.layer_mixers):
        raise InvariantError(
            N_("layer_mixers needs one of {names} for each of the {layers} layers"),
            names=", ".join(HYBRID_MIXERS),
            layers=n,
        )
    free = cfg.ffn_free_layers
    if len(set(free)) != len(free) or any(not 0 <= i < n for i in free):
        raise InvariantError(
            N_("ffn_free_layers needs distinct layer indices in 0 .. n_layers - 1")
        )
    if any(cfg.layer_mixers[i] == "none" for i in free):
        raise InvariantError(N_("a layer with no token mixer and no FFN is not a layer"))
    if any("mamba2" in m for m in cfg.layer_mixers) and cfg.mamba2 is None:
        raise InvariantError(N_("Mamba-2 layers need the mamba2 sizes"))
    if "gated_deltanet" in cfg.layer_mixers and cfg.gated_deltanet is None:
        raise InvariantError(N_("gated DeltaNet layers need the gated_deltanet sizes"))
    if "kda" in cfg.layer_mixers and cfg.kda is None:
        raise InvariantError(N_("KDA layers need the kda sizes"))
    gd = cfg.gated_deltanet
    if gd is not None and gd.value_heads % gd.key_heads:
        raise InvariantError(N_("gated_deltanet: key_heads must divide value_heads"))
    if "lightning" in cfg.layer_mixers and cfg.lightning is None:
        raise InvariantError(N_("lightning-attention layers need the lightning sizes"))
    if "mamba" in cfg.layer_mixers and cfg.mamba is None:
        raise InvariantError(N_("Mamba layers need the mamba sizes"))
    if "short_conv" in cfg.layer_mixers and cfg.short_conv is None:
        raise InvariantError(N_("short-convolution layers need the short_conv sizes"))
    m2 = cfg.mamba2
    if m2 is not None and (m2.heads % m2.n_groups or m2.width % m2.heads):
        raise InvariantError(N_("mamba2: n_groups must divide heads, and heads the inner width"))


def _check_decoder_stack(cfg: ModelConfig) -> None:
    """An encoder-decoder's decoder of its own FFN width and heads (decoder_d_ff,
    decoder_n_heads): only with two stacks; its heads divide d_model (unless head_dim is set)
    and n_kv_heads divides them, as for the encoder's."""
    own = [f for f in ("decoder_d_ff", "decoder_n_heads") if getattr(cfg, f) is not None]
    if own and cfg.architecture != "encoder-decoder":
        raise InvariantError(N_("{field} applies only to an encoder-decoder model"), field=own[0])
    heads = cfg.decoder_n_heads
    if heads is None:
        return
    if cfg.head_dim is None and cfg.d_model % heads:
        raise InvariantError(
            N_(
                "decoder_n_heads ({heads}) must divide d_model ({d_model}); "
                "set head_dim to use heads that do not divide it"
            ),
            heads=heads,
            d_model=cfg.d_model,
        )
    if cfg.n_kv_heads is not None and (cfg.n_kv_heads > heads or heads % cfg.n_kv_heads):
        raise InvariantError(
            N_("n_kv_heads ({n_kv_heads}) must divide decoder_n_heads ({heads})"),
            n_kv_heads=cfg.n_kv_heads,
            heads=heads,
        )
