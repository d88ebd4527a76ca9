"""ModelConfig's fields: each with its type, its bounds and what it means. The same names in
preset files, user config files, Python and the JSON output. ffn_calc.model.config adds the
validation (the invariants, model.rules) and what follows from the fields."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from ffn_calc.limits import MAX_SIZE
from ffn_calc.model.choices import Activation, Architecture, Norm, Positions
from ffn_calc.model.mixers import (
    GatedDeltaNetConfig,
    KdaConfig,
    LightningConfig,
    Mamba2Config,
    MambaConfig,
    ShortConvConfig,
)
from ffn_calc.model.towers import Part, Uncounted

if TYPE_CHECKING:  # completed by ffn_calc.model.config (a tower holds a ModelConfig)
    from ffn_calc.model.towers import Tower

PositiveInt = Annotated[int, Field(gt=0, le=MAX_SIZE)]

QkNorm = Literal["none", "head", "per_head", "full"]
AttentionKind = Literal["standard", "mla", "compressed"]
ScoreBias = Literal["none", "parameter", "buffer"]
WindowKind = Literal["sliding", "chunked", "bidirectional"]
EmbeddingProjection = Literal["tokens", "all"]


class ModelFields(BaseModel):
    """Every field of ModelConfig, in the order the JSON and the files give them."""

    # Built once, when model.config completes ModelConfig (and Tower): not first here, where
    # Tower is not yet known (start-up).
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, defer_build=True)

    name: str = Field("custom", description="Display name (a preset's file name).")
    family: str = Field(
        "custom",
        description="Reference implementation whose tensor names the model follows "
        "(a Hugging Face model_type, 'transformer' for torch.nn.Transformer, or 'custom').",
    )
    source: str | None = Field(None, description="Paper table or config the numbers come from.")
    note: str | None = Field(
        None,
        description="A convention to state with the counts (e.g. where transformers and "
        "the released checkpoint differ).",
    )
    architecture: Architecture = Field("decoder-only", description="Which stacks the model has.")
    n_layers: PositiveInt = Field(description="Layers per stack (the encoder's, if two).")
    n_decoder_layers: PositiveInt | None = Field(
        None, description="Decoder layers of an encoder-decoder model (default: n_layers)."
    )
    decoder_d_ff: PositiveInt | None = Field(
        None,
        description="Encoder-decoder: hidden width of the decoder's FFN where it differs from "
        "the encoder's d_ff (BART's and Whisper's decoder_ffn_dim; default: d_ff).",
    )
    decoder_n_heads: PositiveInt | None = Field(
        None,
        description="Encoder-decoder: query heads of the decoder's self- and cross-attention "
        "where they differ from the encoder's n_heads (BART's and Whisper's "
        "decoder_attention_heads; default: n_heads); each d_model / heads wide unless "
        "head_dim is set.",
    )
    d_model: PositiveInt = Field(description="Width of the residual stream.")
    n_heads: PositiveInt = Field(description="Query heads per attention block.")
    n_kv_heads: PositiveInt | None = Field(
        None, description="Key/value heads (GQA/MQA); default n_heads."
    )
    head_dim: PositiveInt | None = Field(
        None, description="Per-head width; default d_model / n_heads."
    )
    d_ff: PositiveInt = Field(description="Hidden width of the FFN (per expert for MoE).")
    activation: Activation = Field(
        "gelu", description="FFN activation; swiglu and geglu are gated (3 matrices)."
    )
    attention_bias: bool = Field(False, description="Biases on the Q, K, V projections.")
    attention_out_bias: bool | None = Field(
        None, description="Bias on the output projection O; default attention_bias."
    )
    attention_k_bias: bool | None = Field(
        None,
        description="Bias on the K projection; default attention_bias (Whisper: none on K "
        "while Q, V and O have one).",
    )
    ffn_bias: bool = Field(False, description="Biases on the FFN matrices.")
    norm: Norm = Field("layernorm", description="layernorm (weight and bias) or rmsnorm (weight).")
    final_norm: bool = Field(True, description="A norm after the last layer of each stack.")
    embedding_norm: bool = Field(False, description="A norm after the embeddings (BERT).")
    positions: Positions = Field("none", description="Position encoding; only learned has weights.")
    max_positions: PositiveInt | None = Field(
        None, description="Rows of the learned position table (required when learned)."
    )
    position_offset: int = Field(
        0,
        ge=0,
        le=MAX_SIZE,
        description="Rows of the learned position table that no token position reads (OPT "
        "and BART add 2 to every position id, RoBERTa's start after its padding index): "
        "the model takes at most max_positions - position_offset tokens.",
    )
    source_positions: PositiveInt | None = Field(
        None,
        description="Encoder-decoder: rows of the encoder's own position table where they "
        "differ from the decoder's max_positions (Whisper: max_source_positions, a sinusoidal "
        "table that transformers keeps as a parameter); the most positions the encoder takes.",
    )
    conv_in_channels: PositiveInt | None = Field(
        None,
        description="Encoder-decoder: the encoder reads frames of this many features through a "
        "convolutional front end (Whisper's num_mel_bins), not token embeddings.",
    )
    conv_kernel: PositiveInt = Field(
        3,
        description="Kernel width of each convolution of the front end (odd; padded by "
        "kernel // 2 on each side; each convolution has a bias).",
    )
    conv_strides: list[PositiveInt] = Field(
        [],
        description="The front end's convolutions, by stride: the first maps conv_in_channels "
        "to d_model, the others d_model to d_model (Whisper: [1, 2]); S encoder positions read "
        "S x the product of the strides frames.",
    )
    vocab_size: PositiveInt | None = Field(
        None, description="Token vocabulary; none means a bare stack with no embedding or head."
    )
    type_vocab_size: int = Field(
        0, ge=0, le=MAX_SIZE, description="Token-type (segment) embeddings (BERT)."
    )
    shared_embeddings: bool = Field(
        True, description="Encoder-decoder: one token embedding for both stacks."
    )
    lm_head: bool = Field(True, description="An output projection to the vocabulary.")
    tie_embeddings: bool = Field(False, description="The output head reuses the token embedding.")
    pooler: bool = Field(False, description="BERT's pooler: a d_model x d_model dense layer.")
    n_experts: PositiveInt | None = Field(None, description="MoE: experts per layer.")
    experts_per_token: PositiveInt | None = Field(None, description="MoE: experts each token uses.")
    router_bias: bool = Field(False, description="MoE: a bias on the router.")
    expert_bias: bool | None = Field(
        None,
        description="MoE: biases on the routed experts' matrices; default ffn_bias "
        "(ERNIE 4.5: none on its routed experts while its dense and shared-expert FFNs have "
        "them).",
    )
    dense_ffn_layers: list[int] = Field(
        [],
        description="MoE: the layers (0-based) whose FFN is dense instead (DeepSeek's first "
        "layers, Qwen-MoE's mlp_only_layers, Llama 4's non-MoE layers).",
    )
    dense_d_ff: PositiveInt | None = Field(
        None, description="MoE: hidden width of a dense layer's FFN (default d_ff)."
    )
    shared_expert_d_ff: PositiveInt | None = Field(
        None,
        description="MoE: hidden width of the shared expert every token also passes "
        "through (DeepSeek: n_shared_experts x the expert width).",
    )
    shared_expert_gate: bool = Field(
        False, description="MoE: a [1, d_model] sigmoid gate on the shared expert (Qwen2-MoE)."
    )
    moe_latent_dim: PositiveInt | None = Field(
        None,
        description="MoE: the routed experts read and write this width in place of d_model "
        "(Nemotron-H's latent MoE, moe_latent_size): a [moe_latent_dim, d_model] projection "
        "before them and a [d_model, moe_latent_dim] one after, each with a bias where "
        "ffn_bias; the router and the shared expert read d_model.",
    )
    router_score_bias: ScoreBias = Field(
        "none",
        description="MoE: an [n_experts] bias on the routing scores: a parameter "
        "(ERNIE 4.5) or a buffer that checkpoints store (DeepSeek-V3, GLM-4.5).",
    )
    attention_sinks: bool = Field(False, description="An [n_heads] sink logit per layer (gpt-oss).")
    cache_broadcast_kv: bool = Field(
        False,
        description="The KV cache holds K and V broadcast to every query head (n_heads "
        "per layer, not n_kv_heads), as Falcon's new decoder architecture caches them; changes "
        "no parameter or FLOP count.",
    )
    window_layers: list[int] = Field(
        [],
        description="Layers (0-based) whose attention is local: a sliding window or chunks "
        "of attention_window tokens (gpt-oss, Gemma 2/3, Llama 4); the others attend to every "
        "token. Changes no count under the FLOP convention; reported as its own layer kind.",
    )
    attention_window: PositiveInt | None = Field(
        None,
        description="Tokens a local layer attends to (the sliding window or chunk size); "
        "with no window_layers, every layer is local (Mistral's sliding window).",
    )
    window_kind: WindowKind = Field(
        "sliding",
        description="sliding (each token sees the last window tokens), chunked "
        "(tokens see their own chunk, Llama 4) or bidirectional (each token sees the "
        "(window - 1) / 2 tokens on either side and itself, ModernBERT).",
    )
    attention: AttentionKind = Field(
        "standard",
        description="standard (Q, K, V, O), mla (multi-head latent attention, "
        "DeepSeek-V2/V3: low-rank Q and a compressed KV latent) or compressed (DeepSeek-V4: "
        "low-rank Q, one key head that is also the value, per-head sinks, a grouped low-rank "
        "output projection, compressors in csa_layers and hca_layers).",
    )
    q_lora_rank: PositiveInt | None = Field(
        None,
        description="MLA and compressed attention: rank of the query compression (none: a "
        "plain q_proj).",
    )
    kv_lora_rank: PositiveInt | None = Field(None, description="MLA: width of the KV latent.")
    qk_nope_head_dim: PositiveInt | None = Field(
        None, description="MLA: per-head query/key width without rotary."
    )
    qk_rope_head_dim: PositiveInt | None = Field(
        None, description="MLA: per-head query/key width with rotary (the key's is shared)."
    )
    v_head_dim: PositiveInt | None = Field(None, description="MLA: per-head value width.")
    o_groups: PositiveInt | None = Field(
        None,
        description="Compressed attention: head groups of the grouped output projection "
        "(each group's n_heads x head_dim / o_groups outputs map to o_lora_rank).",
    )
    o_lora_rank: PositiveInt | None = Field(
        None, description="Compressed attention: width of each group's output projection."
    )
    csa_layers: list[int] = Field(
        [],
        description="Compressed attention: layers (0-based) that add compressed sparse "
        "attention: a compressor of 2 x head_dim over windows of csa_rate tokens and a "
        "lightning indexer of index_heads x index_head_dim (DeepSeek-V4).",
    )
    hca_layers: list[int] = Field(
        [],
        description="Compressed attention: layers (0-based) that add heavily compressed "
        "attention: a compressor of head_dim over windows of hca_rate tokens (DeepSeek-V4).",
    )
    csa_rate: PositiveInt | None = Field(
        None, description="Compressed sparse attention: tokens per compressed entry."
    )
    hca_rate: PositiveInt | None = Field(
        None, description="Heavily compressed attention: tokens per compressed entry."
    )
    index_heads: PositiveInt | None = Field(
        None, description="Compressed sparse attention: query heads of the lightning indexer."
    )
    index_head_dim: PositiveInt | None = Field(
        None, description="Compressed sparse attention: head width of the lightning indexer."
    )
    hc_streams: PositiveInt | None = Field(
        None,
        description="Hyper-connections (DeepSeek-V4's mHC): residual streams per token. Each "
        "layer mixes them around attention and around the FFN with a learned [(2 + n) n, "
        "n d_model] projection each; a final [n, n d_model] one collapses them.",
    )
    hash_layers: list[int] = Field(
        [],
        description="MoE layers (0-based) that route by a fixed token-id table (DeepSeek-V4's "
        "hash routing): a [vocab_size, experts_per_token] buffer in place of the score-bias "
        "buffer; no parameter or FLOP count changes, checkpoint elements do.",
    )
    indexer_heads: PositiveInt | None = Field(
        None,
        description="Sparse attention (DeepSeek-V3.2, GLM-5; MLA with a q_lora_rank): heads of "
        "the lightning indexer that scores every key for every query in each layer and keeps "
        "indexer_topk of them (index_n_heads); none: no indexer.",
    )
    indexer_head_dim: PositiveInt | None = Field(
        None,
        description="Sparse attention: width of the indexer's query per head and of its one "
        "key shared by the heads (index_head_dim; its first qk_rope_head_dim are rotary).",
    )
    indexer_topk: PositiveInt | None = Field(
        None,
        description="Sparse attention: keys each query keeps (index_topk). Changes no count: "
        "the reference folds the selection into a mask over the full S x S square.",
    )
    # Structure beyond the plain pre-norm layer (defaults: none of it).
    layer_norms: int | None = Field(
        None,
        ge=0,
        le=8,
        description="Norms per layer around self-attention and the FFN (default 2; 1 where a "
        "parallel block shares one; 4 with pre and post norms as in Gemma 2); a decoder layer "
        "with cross-attention has one more.",
    )
    first_layer_norms: int | None = Field(
        None,
        ge=0,
        le=8,
        description="Norms of layer 0 where it has fewer than the others: it keeps the "
        "last first_layer_norms of them (ModernBERT: 1, its attention norm an Identity). "
        "One stack, no shared or dense-FFN layers; changes no FLOP count.",
    )
    norm_bias: bool = Field(True, description="LayerNorm has a bias (false: weight only).")
    qk_norm: QkNorm = Field(
        "none",
        description="Norms on queries and keys: head = one [head_dim] weight each (Qwen3, "
        "Gemma 3); per_head = [n_heads, head_dim] and [n_kv_heads, head_dim] (Cohere); "
        "full = [n_heads x head_dim] and [n_kv_heads x head_dim] (OLMo 2).",
    )
    parallel_block: bool = Field(
        False,
        description="Attention and FFN read the same input (GPT-J, Falcon, GPT-NeoX); "
        "changes no count.",
    )
    embedding_dim: PositiveInt | None = Field(
        None,
        description="Token-embedding width when it differs from d_model (ALBERT, OPT's "
        "word_embed_proj_dim); a projection maps it to d_model.",
    )
    embedding_projection: EmbeddingProjection = Field(
        "tokens",
        description="With embedding_dim: tokens = only the token embedding is "
        "narrow, projected in and (before the head) out (OPT); all = every embedding and the "
        "embedding norm are narrow, projected in once (ALBERT).",
    )
    embedding_projection_bias: bool = Field(False, description="The projections have biases.")
    lm_head_bias: bool = Field(False, description="A [vocab_size] bias on the output head.")
    lm_head_projection_bias: bool = Field(
        False,
        description="The output projection has a [vocab_size] bias of its own besides "
        "lm_head_bias (a masked-LM head untied from the embeddings in transformers: RoBERTa, "
        "ALBERT; the forward adds only the projection's).",
    )
    lm_head_transform: bool = Field(
        False,
        description="A masked-LM head: dense d_model -> embedding width (with bias) and "
        "a norm before the output projection.",
    )
    lm_head_transform_bias: bool = Field(
        True,
        description="With lm_head_transform: the head's dense layer has a bias (ModernBERT's "
        "classifier_bias, false by default).",
    )
    relative_attention_buckets: PositiveInt | None = Field(
        None,
        description="T5: a [buckets, n_heads] relative position bias in the first "
        "self-attention layer of each stack.",
    )
    relative_attention_per_layer: bool = Field(
        False,
        description="The relative position bias is in every self-attention layer, not only "
        "the first of each stack (UMT5).",
    )
    relative_position_rows: PositiveInt | None = Field(
        None,
        description="DeBERTa: rows of the relative position embedding table [rows, d_model] "
        "that every layer reads (2 x the attention span: position_buckets, else "
        "max_relative_positions); none: no relative positions.",
    )
    relative_position_norm: bool = Field(
        False,
        description="DeBERTa: a norm over the relative position table (norm_rel_ebd; "
        "built even without the table, then unused).",
    )
    c2p_attention: bool = Field(
        False,
        description="DeBERTa: content-to-position scores, queries against the projected "
        "relative table: 2 x B x n_heads x S x rows x head_dim FLOPs per layer.",
    )
    p2c_attention: bool = Field(
        False,
        description="DeBERTa: position-to-content scores, keys against the projected "
        "relative table: 2 x B x n_heads x S x rows x head_dim FLOPs per layer.",
    )
    shared_position_projections: bool = Field(
        False,
        description="DeBERTa's share_att_key: the layer's query and key projections also "
        "project the relative table (both, in every layer); false: a pos_key_proj (c2p) and a "
        "pos_query_proj (p2c) of their own, with biases as attention_bias.",
    )
    unique_layers: PositiveInt | None = Field(
        None,
        description="Layers with parameters of their own when layers share them "
        "(ALBERT); FLOPs count every applied layer.",
    )
    layers_per_group: PositiveInt | None = Field(
        None,
        description="Shared layers kept in groups (ALBERT's inner_group_num): each group "
        "holds this many layers and applies them in turn; n_layers and unique_layers count "
        "layers, so both are multiples of it. Names only (group {g}, layer {j}): no count.",
    )
    separate_position_tables: bool = Field(
        False, description="Encoder-decoder: each stack has its own learned position table."
    )
    stack_embeddings: bool = Field(
        False,
        description="Encoder-decoder: besides the shared token table, each stack has "
        "one of its own (BART with tie_word_embeddings false unties all three in transformers; "
        "the shared one stays, unused).",
    )
    text_family: str | None = Field(
        None,
        description="A multimodal wrapper: the model_type of its language model, whose "
        "module names the language model's tensors (LLaVA's llama; default: the family's own).",
    )
    towers: list[Tower] = Field(
        [],
        description="Encoders beside the language model (a multimodal wrapper's vision or "
        "audio tower), each a stack of its own with its patch embedding and projector "
        "(model.towers); the other fields describe the language model.",
    )

    # Plain [] defaults (copied per model, as every list field here): a default_factory makes
    # pydantic read list's signature, which compiles the tokenizer's patterns at start-up.
    layer_mixers: list[str] = Field(
        [],
        description="A hybrid: each decoder layer's token mixer by name (full, mamba2, none, "
        "full+mamba2, ...; model.layer_kinds.MIXERS); empty: every layer attends.",
    )
    ffn_free_layers: list[int] = Field([], description="Layers with no FFN (a mixer-only layer).")
    mamba2: Mamba2Config | None = Field(None, description="The Mamba-2 mixers' sizes.")
    gated_deltanet: GatedDeltaNetConfig | None = Field(
        None, description="The gated DeltaNet mixers' sizes."
    )
    kda: KdaConfig | None = Field(None, description="The KDA (Kimi Delta Attention) mixers' sizes.")
    mamba: MambaConfig | None = Field(None, description="The Mamba-1 mixers' sizes.")
    lightning: LightningConfig | None = Field(
        None, description="The lightning-attention mixers' sizes."
    )
    short_conv: ShortConvConfig | None = Field(
        None, description="The short-convolution mixers' sizes."
    )
    global_head_dim: PositiveInt | None = Field(
        None,
        description="head_dim of the layers that attend over every token where others attend "
        "locally (window_layers): Gemma 4's wider global layers; unset: head_dim.",
        exclude_if=lambda v: v is None,
    )
    global_kv_heads: PositiveInt | None = Field(
        None,
        description="n_kv_heads of those global layers; unset: n_kv_heads.",
        exclude_if=lambda v: v is None,
    )
    keys_as_values: Literal["global", "all"] | None = Field(
        None,
        description="Attention layers without a V projection, whose keys serve as their "
        "values (Gemma 4's attention_k_eq_v): the global layers (those not in "
        "window_layers) or all of them; the cache still holds keys and values apart.",
        exclude_if=lambda v: v is None,
    )
    per_layer_dim: PositiveInt | None = Field(
        None,
        description="Per-layer inputs (Gemma 3n, Gemma 4): each layer's slice of a second token table, "
        "per_layer_vocab x (n_layers x per_layer_dim), plus its projection from the "
        "embeddings, d_model x (n_layers x per_layer_dim); each layer gates its slice "
        "(d_model x per_layer_dim) and projects it back (per_layer_dim x d_model).",
        exclude_if=lambda v: v is None,
    )
    per_layer_vocab: PositiveInt | None = Field(
        None,
        description="Rows of the per-layer token table (default vocab_size).",
        exclude_if=lambda v: v is None,
    )
    attention_output_gate: bool = Field(
        False,
        description="Gated attention (Qwen3-Next): q_proj also yields a sigmoid gate on the "
        "attention output, n_heads x head_dim more outputs (twice the usual q_proj).",
    )
    # Tensors beyond the usual layer (Gemma 3n's AltUp, LAuReL, per-layer inputs), as data.
    layer_parts: list[Part] = Field(
        [],
        description="Tensors every decoder layer has beyond its attention, FFN and norms "
        "(Gemma 3n's AltUp, LAuReL and per-layer input): each by its name after the layer's "
        "prefix, its group, its shape and the multiply-adds one token costs through it (macs).",
        exclude_if=lambda v: not v,
    )
    model_parts: list[Part] = Field(
        [],
        description="Tensors outside the layers beyond the token table, the final norm and "
        "the head (Gemma 3n's per-layer embeddings and AltUp projections; a wrapper's "
        "projector, group projector; Zamba2's shared blocks, which its layers run): each by "
        "its whole name, its group, its shape and the multiply-adds one token costs through it "
        "(macs), once per use (uses).",
        exclude_if=lambda v: not v,
    )
    kv_shared_layers: list[int] = Field(
        [],
        description="Decoder layers (0-based) that reuse the keys and values of an earlier "
        "layer (Gemma 3n's and Gemma 4's num_kv_shared_layers): no K and V projections, "
        "no K norm, nothing cached.",
        exclude_if=lambda v: not v,
    )
    kv_shared_prefill_last: bool = Field(
        False,
        description="generate()'s prefill runs the kv_shared_layers over the prompt's last "
        "position only, which attends to every prompt token (Gemma 4).",
        exclude_if=lambda v: not v,
    )
    kv_shared_d_ff: PositiveInt | None = Field(
        None,
        description="Hidden width of the dense FFN of the kv_shared_layers where it differs "
        "from the other layers' (Gemma 4's use_double_wide_mlp: 2 x intermediate_size); in a "
        "MoE model, of their shared expert (shared_expert_d_ff elsewhere).",
        exclude_if=lambda v: v is None,
    )
    not_counted: list[Uncounted] = Field(
        [],
        description="Parts of the model ffn-calc does not count (neither their parameters "
        "nor their FLOPs), by name and by where their tensors sit: the totals leave them "
        "out, and say so.",
        exclude_if=lambda v: not v,
    )
