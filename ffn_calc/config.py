"""ModelConfig: one validated, frozen description of a Transformer.

Field names are the same in preset files, user config files, Python and the JSON output.
Sizes are strict positive integers; invariants are checked once, here, so the counting
code can divide exactly (`//`) without re-checking.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

# The largest size any field may take: 2^40 (about 1.1 x 10^12), far beyond any real model
# (vocabularies reach 2^18, d_model 2^15, context lengths 2^24). It keeps every count an exact
# integer that the shares and human-readable summaries can also show as a float.
MAX_SIZE = 2**40

PositiveInt = Annotated[int, Field(gt=0, le=MAX_SIZE)]

Architecture = Literal["decoder-only", "encoder-only", "encoder-decoder"]
Activation = Literal["relu", "gelu", "gelu_tanh", "silu", "swiglu", "geglu"]
Norm = Literal["layernorm", "rmsnorm"]
Positions = Literal["learned", "sinusoidal", "rotary", "none"]
Family = Literal["gpt2", "llama", "mistral", "mixtral", "qwen2", "bert", "transformer", "custom"]

GATED_ACTIVATIONS = frozenset({"swiglu", "geglu"})


class ModelConfig(BaseModel):
    """A Transformer's shape: everything the parameter and FLOP counts depend on."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    name: str = Field("custom", description="Display name (a preset's file name).")
    family: Family = Field(
        "custom", description="Reference implementation whose tensor names the model follows."
    )
    source: str | None = Field(None, description="Paper table or config the numbers come from.")
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
    ffn_bias: bool = Field(False, description="Biases on the FFN matrices.")
    norm: Norm = Field("layernorm", description="layernorm (weight and bias) or rmsnorm (weight).")
    final_norm: bool = Field(True, description="A norm after the last layer of each stack.")
    embedding_norm: bool = Field(False, description="A norm after the embeddings (BERT).")
    positions: Positions = Field("none", description="Position encoding; only learned has weights.")
    max_positions: PositiveInt | None = Field(
        None, description="Rows of the learned position table (required when learned)."
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

    @model_validator(mode="after")
    def _check(self) -> ModelConfig:
        if self.head_dim is None and self.d_model % self.n_heads:
            raise ValueError(
                f"n_heads ({self.n_heads}) must divide d_model ({self.d_model}); "
                "set head_dim to use heads that do not divide it"
            )
        if self.n_kv_heads is not None and (
            self.n_kv_heads > self.n_heads or self.n_heads % self.n_kv_heads
        ):
            raise ValueError(f"n_kv_heads ({self.n_kv_heads}) must divide n_heads ({self.n_heads})")
        if (self.n_experts is None) != (self.experts_per_token is None):
            raise ValueError("n_experts and experts_per_token go together: set both or neither")
        if (
            self.n_experts is not None
            and self.experts_per_token is not None
            and (self.experts_per_token > self.n_experts)
        ):
            raise ValueError(
                f"experts_per_token ({self.experts_per_token}) cannot exceed "
                f"n_experts ({self.n_experts})"
            )
        if self.positions == "learned" and self.max_positions is None:
            raise ValueError("positions = 'learned' needs max_positions (the table's rows)")
        if self.n_decoder_layers is not None and self.architecture != "encoder-decoder":
            raise ValueError("n_decoder_layers applies only to an encoder-decoder model")
        if self.vocab_size is None and (self.type_vocab_size or self.tie_embeddings):
            raise ValueError("type_vocab_size and tie_embeddings need a vocab_size")
        if self.tie_embeddings and not self.lm_head:
            raise ValueError("tie_embeddings needs an lm_head to tie")
        return self

    # Derived values: one place, so every count agrees.

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
    def out_bias(self) -> bool:
        return self.attention_bias if self.attention_out_bias is None else self.attention_out_bias

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
