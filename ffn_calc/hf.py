"""Read a Hugging Face config.json into ModelConfig fields, as `transformers` builds the model.

Offline and torch-free. The FFN kind, biases and norms follow from `model_type` (the
architecture), never from a d_ff / d_model ratio. Size fields are required: a missing one is
named rather than replaced by a library default.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ffn_calc.config import MAX_SIZE
from ffn_calc.errors import ConfigError, FileError
from ffn_calc.files import parse_json_object, read_text_file
from ffn_calc.presets import line_of, shown


class _Reader:
    """Typed access to the fields of one config.json, with messages naming file and line."""

    def __init__(self, data: dict[str, Any], origin: str, text: str) -> None:
        self.data, self.origin, self.text = data, origin, text

    def where(self, key: str) -> str:
        line = line_of(self.text, key)
        return f"{self.origin}, line {line}" if line else self.origin

    def integer(self, key: str, default: int | None = None, *, required: bool = True) -> int | None:
        value = self.data.get(key)
        if value is None:
            if default is None and required:
                raise ConfigError(f"{self.origin}: required field '{key}' is missing.")
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(
                f"{self.where(key)}: {key} = {shown(value)}: expected an integer, "
                f"found {type(value).__name__}."
            )
        if value <= 0:
            raise ConfigError(f"{self.where(key)}: {key} = {shown(value)}: must be greater than 0.")
        if value > MAX_SIZE:
            raise ConfigError(
                f"{self.where(key)}: {key} = {shown(value)}: larger than ffn-calc's bound on "
                f"sizes, 2^40 = {MAX_SIZE:,}."
            )
        return value

    def req(self, key: str) -> int:
        value = self.integer(key)
        assert value is not None
        return value

    def boolean(self, key: str, default: bool) -> bool:
        value = self.data.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise ConfigError(
                f"{self.where(key)}: {key} = {shown(value)}: expected true or false, "
                f"found {type(value).__name__}."
            )
        return value

    def string(self, key: str, default: str) -> str:
        value = self.data.get(key)
        if value is None:
            return default
        if not isinstance(value, str):
            raise ConfigError(f"{self.where(key)}: {key} = {shown(value)}: expected a string.")
        return value


_GPT2_ACT = {"gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh", "gelu": "gelu",
             "relu": "relu", "silu": "silu", "swish": "silu", "gelu_fast": "gelu_tanh"}  # fmt: skip
_GATED_ACT = {"silu": "swiglu", "swish": "swiglu", "gelu": "geglu", "gelu_new": "geglu",
              "gelu_pytorch_tanh": "geglu"}  # fmt: skip


def _act(r: _Reader, key: str, table: dict[str, str], default: str) -> str:
    name = r.string(key, default)
    if name not in table:
        raise ConfigError(
            f"{r.where(key)}: {key} = {shown(name)} is not supported; use one of {', '.join(sorted(table))}."
        )
    return table[name]


def _gpt2(r: _Reader) -> dict[str, Any]:
    d = r.req("n_embd")
    return {
        "family": "gpt2", "architecture": "decoder-only", "n_layers": r.req("n_layer"),
        "d_model": d, "n_heads": r.req("n_head"), "d_ff": r.integer("n_inner", 4 * d),
        "activation": _act(r, "activation_function", _GPT2_ACT, "gelu_new"),
        "attention_bias": True, "ffn_bias": True, "norm": "layernorm", "positions": "learned",
        "max_positions": r.req("n_positions"), "vocab_size": r.req("vocab_size"),
        "tie_embeddings": r.boolean("tie_word_embeddings", True),
    }  # fmt: skip


def _llama_like(r: _Reader, family: str) -> dict[str, Any]:
    heads = r.req("num_attention_heads")
    out: dict[str, Any] = {
        "family": family, "architecture": "decoder-only", "n_layers": r.req("num_hidden_layers"),
        "d_model": r.req("hidden_size"), "n_heads": heads,
        "n_kv_heads": r.integer("num_key_value_heads", heads),
        "head_dim": r.integer("head_dim", required=False), "d_ff": r.req("intermediate_size"),
        "activation": _act(r, "hidden_act", _GATED_ACT, "silu"), "norm": "rmsnorm",
        "positions": "rotary", "vocab_size": r.req("vocab_size"),
        "tie_embeddings": r.boolean("tie_word_embeddings", False),
        "attention_bias": False, "ffn_bias": False,
    }  # fmt: skip
    if family == "llama":
        out["attention_bias"] = r.boolean("attention_bias", False)
        out["ffn_bias"] = r.boolean("mlp_bias", False)
    elif family == "qwen2":  # Qwen2Attention: bias on q/k/v, none on o_proj
        out["attention_bias"], out["attention_out_bias"] = True, False
    elif family == "mixtral":
        out["n_experts"] = r.req("num_local_experts")
        out["experts_per_token"] = r.req("num_experts_per_tok")
    return out


def _bert(r: _Reader) -> dict[str, Any]:
    return {
        "family": "bert", "architecture": "encoder-only", "n_layers": r.req("num_hidden_layers"),
        "d_model": r.req("hidden_size"), "n_heads": r.req("num_attention_heads"),
        "d_ff": r.req("intermediate_size"),
        "activation": _act(r, "hidden_act", _GPT2_ACT, "gelu"),
        "attention_bias": True, "ffn_bias": True, "norm": "layernorm", "final_norm": False,
        "embedding_norm": True, "positions": "learned",
        "max_positions": r.req("max_position_embeddings"), "vocab_size": r.req("vocab_size"),
        "type_vocab_size": r.integer("type_vocab_size", 2), "lm_head": False, "pooler": True,
    }  # fmt: skip


MAPPERS: dict[str, Callable[[_Reader], dict[str, Any]]] = {
    "gpt2": _gpt2,
    "llama": lambda r: _llama_like(r, "llama"),
    "mistral": lambda r: _llama_like(r, "mistral"),
    "mixtral": lambda r: _llama_like(r, "mixtral"),
    "qwen2": lambda r: _llama_like(r, "qwen2"),
    "bert": _bert,
}


def find_config_json(path: Path) -> Path:
    """`path` itself, or the config.json inside a directory."""
    if path.is_dir():
        inner = path / "config.json"
        if not inner.is_file():
            raise FileError(f"directory '{path}' holds no config.json.")
        return inner
    return path


def hf_fields(data: dict[str, Any], origin: str, text: str = "") -> dict[str, Any]:
    """ModelConfig fields for a parsed config.json."""
    model_type = data.get("model_type")
    if model_type is None:
        raise ConfigError(f"{origin}: required field 'model_type' is missing.")
    if not isinstance(model_type, str):
        raise ConfigError(
            f'{origin}: model_type = {shown(model_type)}: expected a string such as "llama".'
        )
    if model_type not in MAPPERS:
        raise ConfigError(
            f"{origin}: model_type {shown(model_type)} is not supported; "
            f"supported: {', '.join(sorted(MAPPERS))}."
        )
    fields = MAPPERS[model_type](_Reader(data, origin, text))
    return {k: v for k, v in fields.items() if v is not None}


def load_hf_config(path: Path) -> tuple[dict[str, Any], str]:
    """Raw ModelConfig fields (with a name and source) from a config.json or its directory."""
    file = find_config_json(path)
    text = read_text_file(file, "config.json")
    origin = f"'{file}'"
    data = parse_json_object(text, origin)
    fields = hf_fields(data, origin, text)
    if path.is_dir():
        name = path.name
    elif not file.is_file():  # a pipe (`--hf-config <(...)`): its "name" is a descriptor number
        name = ""
    else:
        name = file.parent.name if file.name == "config.json" else file.stem
    fields["name"] = name or str(data["model_type"])
    fields["source"] = f"Hugging Face config.json ({data['model_type']}): {file}"
    return fields, origin
