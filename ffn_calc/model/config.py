"""ModelConfig: one validated, frozen description of a Transformer.

Field names are the same in preset files, user config files, Python and the JSON output.
Sizes are strict positive integers; invariants are checked once, here, so the counting
code can divide exactly (`//`) without re-checking.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializerFunctionWrapHandler,
    ValidationError,
    create_model,
    field_validator,
    model_serializer,
    model_validator,
)

from ffn_calc.errors import UsageError
from ffn_calc.i18n.translate import N_, say
from ffn_calc.limits import MAX_SIZE as MAX_SIZE  # re-exported: the one bound (limits.py)
from ffn_calc.model.families import family_names
from ffn_calc.model.fields import (
    AttentionKind as AttentionKind,
)
from ffn_calc.model.fields import (
    EmbeddingProjection as EmbeddingProjection,
)
from ffn_calc.model.fields import (
    ModelFields,
)
from ffn_calc.model.fields import (
    PositiveInt as PositiveInt,
)
from ffn_calc.model.fields import (
    QkNorm as QkNorm,
)
from ffn_calc.model.fields import (
    ScoreBias as ScoreBias,
)
from ffn_calc.model.fields import (
    WindowKind as WindowKind,
)
from ffn_calc.model.rules import InvariantError, check_invariants

GATED_ACTIVATIONS = frozenset({"swiglu", "geglu"})


def ffn_biases(width: int, d_model: int, gated: bool) -> int:
    """The biases of one FFN (a dense FFN, one expert, a shared expert) of this width: gated
    b_gate and b_up [width] and b_down [d_model]; plain b1 [width] and b2 [d_model]."""
    return (2 * width + d_model) if gated else (width + d_model)


_set = object.__setattr__  # frozen models are written once, when made


class PositionLimitError(UsageError):
    """A length past the model's learned position table (exit 2)."""


class ModelConfig(ModelFields):
    """A Transformer's shape: everything the parameter and FLOP counts depend on."""

    view: ClassVar[str] = "ffn_calc.views.listings:config_tables"

    @field_validator("family", "text_family")
    @classmethod
    def _known_family(cls, value: str | None) -> str | None:
        if value is None:
            return value
        if value not in family_names():
            raise InvariantError(
                N_("unknown family; use one of {families}"), families=", ".join(family_names())
            )
        return value

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> Any:
        """A language model alone dumps no `towers` and no `text_family` (as before they
        existed): the keys appear only where the model is a multimodal wrapper."""
        out = handler(self)
        if isinstance(out, dict):
            if not self.towers:
                out.pop("towers", None)
            if self.text_family is None:
                out.pop("text_family", None)
        return out

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
        if "family" in changes or "text_family" in changes:  # fields with validators of their own
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
    def q_proj_dim(self) -> int:
        """Outputs of q_proj: q_dim, twice that with an output gate (attention_output_gate)."""
        return 2 * self.q_dim if self.attention_output_gate else self.q_dim

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
    def expert_width(self) -> int:
        """MoE: the width the routed experts read and write (moe_latent_dim, else d_model)."""
        return self.d_model if self.moe_latent_dim is None else self.moe_latent_dim

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
    def stacks_differ(self) -> bool:
        """An encoder-decoder whose decoder has an FFN width or heads of its own."""
        return self.decoder_d_ff is not None or self.decoder_n_heads is not None

    def stack(self, name: str) -> ModelConfig:
        """The model as the layers of stack `name` ("encoder" | "decoder") see it: for the
        decoder of an encoder-decoder with a width or heads of its own, the same fields with
        d_ff = decoder_d_ff and n_heads = decoder_n_heads (its self- and cross-attention);
        otherwise the model itself. Every count of a decoder layer reads this."""
        if name != "decoder" or not self.stacks_differ:
            return self
        values = {
            "d_ff": self.decoder_d_ff or self.d_ff,
            "n_heads": self.decoder_n_heads or self.n_heads,
            "decoder_d_ff": None,
            "decoder_n_heads": None,
        }
        # Built without validation: the invariants hold (model.rules checks the decoder's).
        new = ModelConfig.__new__(ModelConfig)
        _set(new, "__dict__", {**self.__dict__, **values})
        _set(new, "__pydantic_fields_set__", self.__pydantic_fields_set__ | values.keys())
        _set(new, "__pydantic_extra__", None)
        _set(new, "__pydantic_private__", None)
        return new

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

    @property
    def has_parts(self) -> bool:
        """Tensors given as data (layer_parts, model_parts) or KV-shared layers."""
        return bool(self.layer_parts or self.model_parts or self.kv_shared_layers)

    def attending(self, local: bool) -> ModelConfig:
        """The model as one kind of its layers sees it: the local layers' (itself), or the
        global layers' with their own head_dim and n_kv_heads (global_head_dim,
        global_kv_heads, keys_as_values) where they differ."""
        own = self.global_head_dim is None and self.global_kv_heads is None
        if local or (own and self.keys_as_values != "global"):
            return self
        update = {
            "head_dim": self.global_head_dim or self.head_size,
            "n_kv_heads": self.global_kv_heads or self.kv_heads,
            "global_head_dim": None,
            "global_kv_heads": None,
            "keys_as_values": self.keys_as_values and "all",  # their keys serve as values
        }
        return self.model_copy(update=update)

    def ffn_of(self, kv_shared: bool) -> ModelConfig:
        """The model as one kind of its layers' FFN sees it: the KV-shared layers' with their
        own width (kv_shared_d_ff: d_ff of a dense FFN, a MoE layer's shared_expert_d_ff),
        every other layer's the model itself."""
        width = self.kv_shared_d_ff
        if not kv_shared or width is None:
            return self
        key = "shared_expert_d_ff" if self.n_experts is not None else "d_ff"
        return self.model_copy(update={key: width, "kv_shared_d_ff": None})

    @property
    def per_layer_width(self) -> int:
        """Width of the per-layer inputs of all the layers: n_layers x per_layer_dim (0
        without per-layer inputs)."""
        return 0 if self.per_layer_dim is None else self.n_layers * self.per_layer_dim

    def param_layers(self, layers: int) -> int:
        """How many of `layers` applied layers hold parameters of their own."""
        return layers if self.unique_layers is None else self.unique_layers


# A tower holds a ModelConfig (its stack): both are complete once both exist. ModelConfig
# first: Tower's build then reuses its schema instead of generating it again (start-up).
from ffn_calc.model.towers import Tower  # noqa: E402

ModelConfig.model_rebuild(_types_namespace={"Tower": Tower})
Tower.model_rebuild(_types_namespace={"ModelConfig": ModelConfig})


def dumped(cfg: ModelConfig) -> dict[str, Any]:
    """The fields as a config file holds them: unset optional fields left out, and `towers`
    only where the model has some."""
    return cfg.model_dump(exclude_none=True)


@lru_cache(maxsize=256)
def fields_model(names: frozenset[str]) -> type[BaseModel]:
    """A model of just these ModelConfig fields, with their types and bounds (and, like
    ModelConfig, strict and closed: an unknown name is an error)."""
    fields: dict[str, Any] = {
        n: (f.annotation, f) for n, f in ModelConfig.model_fields.items() if n in names
    }
    extra = ConfigDict(extra="forbid", strict=True)
    return create_model("ModelConfig", __config__=extra, **fields)
