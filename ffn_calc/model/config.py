"""ModelConfig: one validated, frozen description of a Transformer.

Field names are the same in preset files, user config files, Python and the JSON output.
Sizes are strict positive integers; invariants are checked once, here, so the counting
code can divide exactly (`//`) without re-checking.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)

from ffn_calc.errors import UsageError
from ffn_calc.i18n.translate import N_, say
from ffn_calc.limits import MAX_SIZE as MAX_SIZE  # re-exported: the one bound (limits.py)
from ffn_calc.model.choices import Activation, Architecture, Norm, Positions
from ffn_calc.model.families import family_names
from ffn_calc.model.mixers import LightningConfig, Mamba2Config, MambaConfig, ShortConvConfig
from ffn_calc.model.rules import InvariantError, check_invariants

PositiveInt = Annotated[int, Field(gt=0, le=MAX_SIZE)]

QkNorm = Literal["none", "head", "per_head", "full"]
AttentionKind = Literal["standard", "mla", "compressed"]
ScoreBias = Literal["none", "parameter", "buffer"]
WindowKind = Literal["sliding", "chunked", "bidirectional"]
EmbeddingProjection = Literal["tokens", "all"]

GATED_ACTIVATIONS = frozenset({"swiglu", "geglu"})


def ffn_biases(width: int, d_model: int, gated: bool) -> int:
    """The biases of one FFN (a dense FFN, one expert, a shared expert) of this width: gated
    b_gate and b_up [width] and b_down [d_model]; plain b1 [width] and b2 [d_model]."""
    return (2 * width + d_model) if gated else (width + d_model)


_set = object.__setattr__  # frozen models are written once, when made


class PositionLimitError(UsageError):
    """A length past the model's learned position table (exit 2)."""


class ModelConfig(BaseModel):
    """A Transformer's shape: everything the parameter and FLOP counts depend on."""

    view: ClassVar[str] = "ffn_calc.views.listings:config_tables"

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

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

    layer_mixers: list[str] = Field(
        default_factory=list,
        description="A hybrid: each decoder layer's token mixer by name (full, mamba2, none, "
        "full+mamba2, ...; model.layer_kinds.MIXERS); empty: every layer attends.",
    )
    ffn_free_layers: list[int] = Field(
        default_factory=list, description="Layers with no FFN (a mixer-only layer)."
    )
    mamba2: Mamba2Config | None = Field(None, description="The Mamba-2 mixers' sizes.")
    mamba: MambaConfig | None = Field(None, description="The Mamba-1 mixers' sizes.")
    lightning: LightningConfig | None = Field(
        None, description="The lightning-attention mixers' sizes."
    )
    short_conv: ShortConvConfig | None = Field(
        None, description="The short-convolution mixers' sizes."
    )

    @field_validator("family")
    @classmethod
    def _known_family(cls, value: str) -> str:
        if value not in family_names():
            raise InvariantError(
                N_("unknown family; use one of {families}"), families=", ".join(family_names())
            )
        return value

    @model_validator(mode="after")
    def _check(self) -> ModelConfig:
        self.check_invariants()
        return self

    def check_invariants(self) -> None:
        """Raise InvariantError naming the first invariant the fields break (model.rules)."""
        check_invariants(self)

    def varied(self, changes: Mapping[str, Any], values_checked: bool = False) -> ModelConfig:
        """This model with `changes`, validated as `ModelConfig(**{**fields, **changes})` would
        be (the same errors, as a ValidationError), but checking only the changed values
        against their fields before the invariants: a sweep builds many models a second.

        `values_checked`: each value has already passed `fields_model` (a sweep checks every
        value of an axis once), so only the invariants are left to check."""
        if not changes:
            return self
        if "family" in changes:  # the one field with a validator of its own
            return ModelConfig.model_validate({**self.__dict__, **changes})
        values = (
            changes
            if values_checked
            else fields_model(frozenset(changes)).model_validate(dict(changes)).__dict__
        )
        # What model_copy(update=values) makes, without its deep-copy machinery.
        new = ModelConfig.__new__(ModelConfig)
        _set(new, "__dict__", {**self.__dict__, **values})
        _set(new, "__pydantic_fields_set__", self.__pydantic_fields_set__ | values.keys())
        _set(new, "__pydantic_extra__", None)
        _set(new, "__pydantic_private__", None)
        try:
            new.check_invariants()
        except ValueError as exc:
            raise ValidationError.from_exception_data(
                "ModelConfig",
                [{"type": "value_error", "loc": (), "input": changes, "ctx": {"error": exc}}],
            ) from None
        return new

    # Derived values: one place, so every count agrees.

    @property
    def position_limit(self) -> int | None:
        """The most tokens one stack takes: a learned position table's rows less the rows no
        position reads (position_offset). None where positions are not a table (rotary,
        sinusoidal, relative or none): the model itself sets no length limit."""
        if self.positions != "learned" or self.max_positions is None:
            return None
        return self.max_positions - self.position_offset

    def check_positions(
        self, tokens: int, what: str, need: str = "tokens", *, source: bool = False
    ) -> None:
        """Raise PositionLimitError when `tokens` positions do not fit the learned position
        table: `what` names the option or metric that asked for them ("--context 100000"),
        `need` says what they are: "tokens" (a sequence of that many), "decode" (the cached
        tokens and the new one), "generate" (the prompt and every new token but the last) or
        "decoder" (an encoder-decoder's decoder: its start token and every new token but the
        last). `source`: the length is an encoder-decoder's source, which the encoder's own
        table bounds where it has one (source_positions). Every length that reaches a model
        passes here (one rule, one message)."""
        limit = self.source_position_limit if source else self.position_limit
        if limit is None or tokens <= limit:
            return
        template = {
            "tokens": N_(
                "{what}: {tokens} tokens do not fit the learned position table of {model} "
                "({limit} positions)."
            ),
            "decode": N_(
                "{what}: one decode step needs {tokens} positions (the cached tokens and the "
                "new one), past the learned position table of {model} ({limit} positions)."
            ),
            "generate": N_(
                "{what}: generating needs {tokens} positions (the prompt and every new token "
                "but the last), past the learned position table of {model} ({limit} positions)."
            ),
            "decoder": N_(
                "{what}: the decoder needs {tokens} positions (its start token and every new "
                "token but the last), past the learned position table of {model} ({limit} "
                "positions)."
            ),
        }[need]
        raise PositionLimitError(
            say(template, what=what, tokens=f"{tokens:,}", model=self.name, limit=f"{limit:,}")
        )

    @property
    def kv_heads(self) -> int:
        return self.n_heads if self.n_kv_heads is None else self.n_kv_heads

    @property
    def head_size(self) -> int:
        return self.d_model // self.n_heads if self.head_dim is None else self.head_dim

    @property
    def q_dim(self) -> int:
        """Width of Q (and of O's input): n_heads x head_dim."""
        return self.n_heads * self.head_size

    @property
    def kv_dim(self) -> int:
        """Width of K and of V: n_kv_heads x head_dim."""
        return self.kv_heads * self.head_size

    @property
    def cache_kv_heads(self) -> int:
        """Heads of K and of V the cache holds per layer: n_kv_heads, or n_heads where the
        reference broadcasts them before caching (cache_broadcast_kv)."""
        return self.n_heads if self.cache_broadcast_kv else self.kv_heads

    @property
    def k_bias(self) -> bool:
        return self.attention_bias if self.attention_k_bias is None else self.attention_k_bias

    @property
    def source_position_limit(self) -> int | None:
        """The most positions the encoder of an encoder-decoder model takes: its own table
        (source_positions) or the one position_limit describes."""
        return self.source_positions if self.source_positions is not None else self.position_limit

    def conv_lengths(self, positions: int) -> list[tuple[int, int]]:
        """The front end's convolutions for `positions` encoder positions: (input channels,
        output length) of each; the frames it reads are positions x the product of the strides."""
        out, later = [], 1
        for stride in reversed(self.conv_strides):
            out.append(positions * later)
            later *= stride
        lengths = out[::-1]
        d, first = self.d_model, self.conv_in_channels or 0
        return [(first if i == 0 else d, n) for i, n in enumerate(lengths)]

    @property
    def out_bias(self) -> bool:
        return self.attention_bias if self.attention_out_bias is None else self.attention_out_bias

    @property
    def routed_expert_bias(self) -> bool:
        """MoE: the routed experts have biases (expert_bias, default ffn_bias)."""
        return self.ffn_bias if self.expert_bias is None else self.expert_bias

    @property
    def gated(self) -> bool:
        return self.activation in GATED_ACTIVATIONS

    @property
    def ffn_kind(self) -> str:
        return "gated" if self.gated else "plain"

    @property
    def has_encoder(self) -> bool:
        return self.architecture != "decoder-only"

    @property
    def has_decoder(self) -> bool:
        return self.architecture != "encoder-only"

    @property
    def encoder_layers(self) -> int:
        return self.n_layers if self.has_encoder else 0

    @property
    def decoder_layers(self) -> int:
        if not self.has_decoder:
            return 0
        if self.architecture == "encoder-decoder" and self.n_decoder_layers is not None:
            return self.n_decoder_layers
        return self.n_layers

    @property
    def has_lm_head(self) -> bool:
        return self.lm_head and self.vocab_size is not None

    @property
    def norms_per_layer(self) -> int:
        """Norms around self-attention and the FFN in one layer (cross-attention adds one)."""
        return 2 if self.layer_norms is None else self.layer_norms

    @property
    def position_scores(self) -> list[str]:
        """DeBERTa's disentangled score kinds, in order: c2p, p2c."""
        return [k for k, on in (("c2p", self.c2p_attention), ("p2c", self.p2c_attention)) if on]

    @property
    def position_projections(self) -> int:
        """Projections of the relative table per layer: the shared query and key projections
        (both), or one of its own per disentangled score kind."""
        if self.relative_position_rows is None:
            return 0
        return 2 if self.shared_position_projections else len(self.position_scores)

    @property
    def first_norms(self) -> int:
        """Norms of layer 0 (first_layer_norms, else as every layer)."""
        return self.norms_per_layer if self.first_layer_norms is None else self.first_layer_norms

    @property
    def embed_width(self) -> int:
        """Width of the token embedding and of the head's output projection."""
        return self.d_model if self.embedding_dim is None else self.embedding_dim

    @property
    def side_width(self) -> int:
        """Width of position and token-type embeddings and the embedding norm."""
        return self.embed_width if self.embedding_projection == "all" else self.d_model

    @property
    def project_out(self) -> bool:
        """A d_model -> embedding_dim projection before the head (OPT's project_out)."""
        return self.embedding_dim is not None and self.has_lm_head and not self.lm_head_transform

    @property
    def is_moe(self) -> bool:
        return self.n_experts is not None and self.experts_per_token is not None

    def moe_layers(self, layers: int) -> int:
        """How many of a stack's `layers` have a routed-expert FFN."""
        if not self.is_moe or not layers:
            return 0
        free = set(self.ffn_free_layers) - set(self.dense_ffn_layers)  # no FFN at all
        return layers - len(self.dense_ffn_layers) - len(free)

    @property
    def has_indexer(self) -> bool:
        """Sparse attention: a lightning indexer in every layer (indexer_heads set)."""
        return self.indexer_heads is not None

    @property
    def qk_head_size(self) -> int:
        """Width of one head in QK^T (MLA: the no-rotary and rotary parts together)."""
        if self.attention == "mla":
            assert self.qk_nope_head_dim is not None and self.qk_rope_head_dim is not None
            return self.qk_nope_head_dim + self.qk_rope_head_dim
        return self.head_size

    @property
    def v_head_size(self) -> int:
        """Width of one head in AV and of O's input per head."""
        if self.attention == "mla":
            assert self.v_head_dim is not None
            return self.v_head_dim
        return self.head_size

    @property
    def compressed(self) -> bool:
        """Compressed attention (DeepSeek-V4): attention = 'compressed'."""
        return self.attention == "compressed"

    def compress_rate(self, layer: int) -> int | None:
        """Tokens per compressed entry of a layer's compressor (None: no compressor)."""
        if layer in self.csa_layers:
            return self.csa_rate
        if layer in self.hca_layers:
            return self.hca_rate
        return None

    def param_layers(self, layers: int) -> int:
        """How many of `layers` applied layers hold parameters of their own."""
        return layers if self.unique_layers is None else self.unique_layers


@lru_cache(maxsize=256)
def fields_model(names: frozenset[str]) -> type[BaseModel]:
    """A model of just these ModelConfig fields, with their types and bounds (and, like
    ModelConfig, strict and closed: an unknown name is an error)."""
    fields: dict[str, Any] = {
        n: (f.annotation, f) for n, f in ModelConfig.model_fields.items() if n in names
    }
    extra = ConfigDict(extra="forbid", strict=True)
    return create_model("ModelConfig", __config__=extra, **fields)
