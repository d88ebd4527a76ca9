"""What every family module uses: typed access to the fields of one config.json."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import line_of, shown
from ffn_calc.i18n.translate import _
from ffn_calc.limits import MAX_SIZE
from ffn_calc.model.rules import MAX_LISTED_LAYERS


class Reader:
    """Typed access to the fields of one config.json, with messages naming file and line."""

    def __init__(
        self,
        data: dict[str, Any],
        origin: str,
        text: str,
        class_defaults: dict[str, int | None] | None = None,
    ) -> None:
        self.data, self.origin, self.text = data, origin, text
        # The family's configuration class defaults for the sizes `req` reads (its module's
        # DEFAULTS): a size absent from config.json takes it; a size without one is required.
        self.class_defaults = class_defaults or {}
        # Absent fields that took the transformers default, for the model's source line.
        self.defaults: dict[str, object] = {}

    def _default(self, key: str, value: Any) -> Any:
        if value is not None:
            self.defaults[key] = value
        return value

    def where(self, key: str) -> str:
        line = line_of(self.text, key)
        return (
            _("{origin}, line {line}").format(origin=self.origin, line=line)
            if line
            else self.origin
        )

    def integer(self, key: str, default: int | None = None, *, required: bool = True) -> int | None:
        """A positive integer; absent or null gives `default` (an error when required)."""
        value = self.data.get(key)
        if value is None:
            if default is None and required:
                raise ConfigError(
                    _("{where}: required field '{field}' is missing.").format(
                        where=self.origin, field=key
                    )
                )
            return self._default(key, default)  # type: ignore[no-any-return]
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(
                _("{where}: {field} = {value}: expected an integer, found {type}.").format(
                    where=self.where(key), field=key, value=shown(value), type=type(value).__name__
                )
            )
        if value <= 0:
            raise ConfigError(
                _("{where}: {field} = {value}: must be greater than 0.").format(
                    where=self.where(key), field=key, value=shown(value)
                )
            )
        if value > MAX_SIZE:
            raise ConfigError(
                _(
                    "{where}: {field} = {value}: larger than ffn-calc's bound on sizes, "
                    "2^40 = {bound}."
                ).format(
                    where=self.where(key), field=key, value=shown(value), bound=f"{MAX_SIZE:,}"
                )
            )
        return value

    def index(self, key: str, default: int, *, minimum: int = 0) -> int:
        """An integer of at least `minimum` that may be 0 (a layer index, a count of dense
        layers or shared experts); -1 where a class reads it as "the last layer"."""
        value = self.data.get(key)
        if value is None:
            return self._default(key, default)  # type: ignore[no-any-return]
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(
                _("{where}: {field} = {value}: expected an integer, found {type}.").format(
                    where=self.where(key), field=key, value=shown(value), type=type(value).__name__
                )
            )
        if not minimum <= value <= MAX_SIZE:
            raise ConfigError(
                _(
                    "{where}: {field} = {value}: must be between {minimum} and 2^40 = {bound}."
                ).format(
                    where=self.where(key),
                    field=key,
                    value=shown(value),
                    minimum=minimum,
                    bound=f"{MAX_SIZE:,}",
                )
            )
        return value

    def req(self, key: str) -> int:
        """A size: a positive integer, the configuration class's default when absent (the
        family's DEFAULTS), required when the class has none."""
        value = self.integer(key, self.class_defaults.get(key))
        assert value is not None
        return value

    def opt(self, key: str) -> int | None:
        """An optional positive integer (None when absent or null)."""
        return self.integer(key, required=False)

    def number(self, key: str, default: float) -> float:
        """A finite number (int or float), for multipliers and scales."""
        import math

        value = self.data.get(key)
        if value is None:
            return self._default(key, default)  # type: ignore[no-any-return]
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise ConfigError(
                _("{where}: {field} = {value}: expected a number.").format(
                    where=self.where(key), field=key, value=shown(value)
                )
            )
        return float(value)

    def boolean(self, key: str, default: bool) -> bool:
        value = self.data.get(key)
        if value is None:
            return self._default(key, default)  # type: ignore[no-any-return]
        if not isinstance(value, bool):
            raise ConfigError(
                _("{where}: {field} = {value}: expected true or false, found {type}.").format(
                    where=self.where(key), field=key, value=shown(value), type=type(value).__name__
                )
            )
        return value

    def string(self, key: str, default: str) -> str:
        value = self.data.get(key)
        if value is None:
            return self._default(key, default)  # type: ignore[no-any-return]
        if not isinstance(value, str):
            raise ConfigError(
                _("{where}: {field} = {value}: expected a string.").format(
                    where=self.where(key), field=key, value=shown(value)
                )
            )
        return value

    def choice(self, key: str, table: dict[str, str], default: str) -> str:
        """A string mapped through `table` (e.g. an activation name to ffn-calc's)."""
        name = self.string(key, default)
        if name not in table:
            raise ConfigError(
                _("{where}: {field} = {value} is not supported; use one of {choices}.").format(
                    where=self.where(key),
                    field=key,
                    value=shown(name),
                    choices=", ".join(sorted(table)),
                )
            )
        return table[name]


def check_padding(r: Reader, vocab: int, default: int | None) -> None:
    """pad_token_id (absent: the class's `default`) is the token embedding's padding_idx,
    which torch's nn.Embedding refuses outside [-vocab_size, vocab_size)."""
    given = "pad_token_id" in r.data
    pad = r.data["pad_token_id"] if given else default
    if isinstance(pad, bool) or not isinstance(pad, int) or -vocab <= pad < vocab:
        return
    shown_pad = str(pad) if given else _("{value} (the class default)").format(value=pad)
    raise ConfigError(
        _(
            "{where}: pad_token_id = {pad} must be below vocab_size = {vocab}: the token "
            "embedding takes it as its padding index."
        ).format(where=r.where("pad_token_id") if given else r.origin, pad=shown_pad, vocab=vocab)
    )


def check_listed(r: Reader, key: str, count: int) -> int:
    """`count` layers about to be listed one by one (a MoE layer pattern): refused past
    MAX_LISTED_LAYERS, so no config makes ffn-calc walk 2^40 layers."""
    if count > MAX_LISTED_LAYERS:
        raise ConfigError(
            _(
                "{where}: {field} = {value}: layers that differ one by one (dense and MoE, "
                "local and global attention) are listed layer by layer, up to {limit} layers."
            ).format(
                where=r.where(key), field=key, value=f"{count:,}", limit=f"{MAX_LISTED_LAYERS:,}"
            )
        )
    return count


# The attention types transformers' layer_types may name (its validate_layer_type).
ATTENTION_TYPES = ("full_attention", "sliding_attention", "chunked_attention")


def layer_types(
    r: Reader, layers: int, default: list[str], allowed: tuple[str, ...] = ATTENTION_TYPES
) -> list[str]:
    """`layer_types` (one type per layer out of `allowed`, e.g. "sliding_attention"), or the
    class's default pattern when absent."""
    value = r.data.get("layer_types")
    if value is None:
        return default
    if (
        not isinstance(value, list)
        or len(value) != layers
        or not all(isinstance(x, str) and x in allowed for x in value)
    ):
        raise ConfigError(
            _("{where}: {field} = {value}: expected one of {choices} per layer ({layers}).").format(
                where=r.where("layer_types"),
                field="layer_types",
                value=shown(value),
                choices=", ".join(allowed),
                layers=layers,
            )
        )
    return value


def optional_window(r: Reader, key: str, default: int | None) -> int | None:
    """A window size: null or 0 means none (not the default), absent the class default."""
    value = r.data.get(key, "absent")
    if value is None or (value == 0 and not isinstance(value, bool)):  # 0: no window either
        return None
    return r.integer(key, default, required=False)


def every_layer_window(r: Reader, default: int | None = None) -> dict[str, Any]:
    """transformers' cache without layer_types: a `sliding_window` makes every layer slide
    (Mistral, Mixtral, Phi-3, StarCoder2); `layer_types`, when given, says which."""
    layers = check_listed(r, "num_hidden_layers", r.req("num_hidden_layers"))
    if r.data.get("layer_types") is not None:
        types = layer_types(r, layers, [])
        return window_fields(r, types, "sliding_attention", "sliding_window", default)
    window = optional_window(r, "sliding_window", default)
    return {"attention_window": window} if window else {}


def qwen_windows(r: Reader, first_default: int = 28) -> dict[str, Any]:
    """Qwen2/Qwen3Config: with use_sliding_window (default false), layers from
    max_window_layers (default 28; Qwen2.5-VL's text: 80) on slide over sliding_window
    (default 4,096) tokens; `layer_types`, when given, says which."""
    layers = check_listed(r, "num_hidden_layers", r.req("num_hidden_layers"))
    use = r.boolean("use_sliding_window", False)
    first = r.index("max_window_layers", first_default)
    window = optional_window(r, "sliding_window", 4096) if use else None
    pattern = [
        "sliding_attention" if window and i >= first else "full_attention" for i in range(layers)
    ]
    types = layer_types(r, layers, pattern)
    return window_fields(r, types, "sliding_attention", "sliding_window", 4096) if use else {}


def window_fields(
    r: Reader, types: list[str], local: str, window_key: str, default: int | None
) -> dict[str, Any]:
    """window_layers and attention_window for the layers whose type is `local`."""
    indices = [i for i, t in enumerate(types) if t == local]
    window = optional_window(r, window_key, default) if indices else None
    if not window:
        return {}
    if len(indices) == len(types):  # every layer local: no list (any layer count)
        return {"attention_window": window}
    return {"window_layers": indices, "attention_window": window}


# transformers' ACT2FN names -> ffn-calc's activations, plain and gated.
PLAIN_ACT = {
    "gelu_new": "gelu_tanh",
    "gelu_pytorch_tanh": "gelu_tanh",
    "gelu": "gelu",
    "relu": "relu",
    "silu": "silu",
    "swish": "silu",
    "gelu_fast": "gelu_tanh",
}
GATED_ACT = {
    "silu": "swiglu",
    "swish": "swiglu",
    "gelu": "geglu",
    "gelu_new": "geglu",
    "gelu_pytorch_tanh": "geglu",
}


def kv_heads(r: Reader, heads: int) -> int:
    """num_key_value_heads: absent, the class default (DEFAULTS; none: the heads); null, the
    heads (the classes' __post_init__)."""
    default = heads if "num_key_value_heads" in r.data else None
    value = r.integer(
        "num_key_value_heads", default or r.class_defaults.get("num_key_value_heads") or heads
    )
    assert value is not None
    return value


def decoder(r: Reader, family: str, **fixed: Any) -> dict[str, Any]:
    """The fields every Llama-style decoder shares (RMSNorm, rotary, gated FFN, GQA).

    A field given in `fixed` is not read from the config, so the transformers defaults noted
    for absent fields are the family's own (e.g. a tied head, a head_dim of 256).
    """
    reads: dict[str, Callable[[], Any]] = {
        "n_layers": lambda: r.req("num_hidden_layers"),
        "d_model": lambda: r.req("hidden_size"),
        "n_heads": lambda: r.req("num_attention_heads"),
        "n_kv_heads": lambda: kv_heads(r, out["n_heads"]),
        "head_dim": lambda: r.opt("head_dim"),
        "d_ff": lambda: r.req("intermediate_size"),
        "activation": lambda: r.choice("hidden_act", GATED_ACT, "silu"),
        "vocab_size": lambda: r.req("vocab_size"),
        "tie_embeddings": lambda: r.boolean("tie_word_embeddings", False),
    }
    out: dict[str, Any] = {
        "family": family,
        "architecture": "decoder-only",
        "norm": "rmsnorm",
        "positions": "rotary",
        "attention_bias": False,
        "ffn_bias": False,
    }
    for key, read in reads.items():
        out[key] = fixed[key] if key in fixed else read()
    out.update(fixed)
    return out


# Llama's module names, which many decoders share.
LLAMA_NAMING = Naming(
    layer="model.layers.{i}.",
    q="self_attn.q_proj",
    k="self_attn.k_proj",
    v="self_attn.v_proj",
    o="self_attn.o_proj",
    up="mlp.up_proj",
    down="mlp.down_proj",
    gate="mlp.gate_proj",
    norm_attn="input_layernorm",
    norm_ffn="post_attention_layernorm",
    final_norm="model.norm",
    tok="model.embed_tokens",
    prefixes=("model.",),
    architecture="decoder-only",
)


def sub_reader(r: Reader, key: str, defaults: dict[str, int | None] | None) -> Reader:
    """A reader of a wrapper's nested config (text_config, vision_config): its own fields
    over the sub-config class's `defaults`; absent or null, the class's defaults alone.
    Defaults it takes are noted in `r`'s, as `key.field` (merge_defaults)."""
    value = r.data.get(key)
    if value is None:
        value = {}
    if not isinstance(value, dict):
        raise ConfigError(
            _("{where}: {field} = {value}: expected an object.").format(
                where=r.where(key), field=key, value=shown(value)
            )
        )
    return Reader(value, f"{r.origin}, {key}", r.text, defaults)


def merge_defaults(r: Reader, sub: Reader, key: str) -> None:
    """Note the defaults a nested reader took in the wrapper's reader, as `key.field`."""
    r.defaults.update({f"{key}.{k}": v for k, v in sub.defaults.items()})
