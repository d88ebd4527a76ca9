"""Find, list and load models: shipped presets, user config files, flags on top of either.

Only the file asked for is read. Every problem becomes a ConfigError / FileError whose text
names the file, the line, the field and the value where there is one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ffn_calc.config import MAX_SIZE, ModelConfig
from ffn_calc.errors import ConfigError, UsageError
from ffn_calc.files import line_of as line_of
from ffn_calc.files import parse_json_object as parse_json_object  # re-exported
from ffn_calc.files import parse_toml as parse_toml
from ffn_calc.files import printable
from ffn_calc.files import read_text_file as read_text_file
from ffn_calc.files import shown as shown

_PRESET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_CHECKOUT_PRESETS = Path(__file__).resolve().parent.parent / "presets"


def presets_dir() -> Traversable:
    """The presets shipped in the wheel, else the checkout's top-level presets/ folder."""
    packaged = files("ffn_calc") / "presets"
    if packaged.is_dir():
        return packaged
    return _CHECKOUT_PRESETS


def preset_names() -> list[str]:
    """Names of every shipped preset, sorted."""
    return sorted(
        p.name[: -len(".toml")] for p in presets_dir().iterdir() if p.name.endswith(".toml")
    )


def load_preset_data(name: str) -> tuple[dict[str, Any], str]:
    """The raw fields of one preset (its file only) and its origin for messages."""
    if not name.strip():
        raise ConfigError("the preset name is empty; see `ffn-calc presets` for the names.")
    if "/" in name or "\\" in name or name.endswith((".toml", ".json")):
        raise ConfigError(
            f"--preset takes a preset name, not a file: '{name[:200]}'. "
            "Use --config FILE for your own config, or --hf-config PATH for a config.json."
        )
    resource = presets_dir() / f"{name}.toml"
    if not _PRESET_NAME.fullmatch(name) or not resource.is_file():
        import difflib

        names = preset_names()
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise ConfigError(
            f"unknown preset '{name[:200]}'.{hint} Available presets: {', '.join(names)}."
        )
    text = resource.read_text(encoding="utf-8")
    data = parse_toml(text, f"preset {name}")
    data.setdefault("name", name)
    return data, f"preset '{name}' ({name}.toml)"


def load_config_file(path: Path) -> tuple[dict[str, Any], str, str]:
    """Fields of a user config file (TOML or JSON, by suffix or content), origin, and text."""
    text = read_text_file(path)
    origin = f"'{path}'"
    is_json = path.suffix.lower() == ".json" or (
        path.suffix.lower() != ".toml" and text.lstrip().startswith(("{", "["))
    )
    data = parse_json_object(text, origin) if is_json else parse_toml(text, origin)
    # A pipe (`-c <(...)`) has a file descriptor, not a name, for a path: "63" is no name.
    data.setdefault("name", printable(path.stem) if path.is_file() else "custom")
    return data, origin, text


def _describe(err: Mapping[str, Any], origin: str, text: str | None) -> str:
    loc = ".".join(str(p) for p in err["loc"])
    line = line_of(text, str(err["loc"][0])) if err["loc"] else None
    where = f"{origin}, line {line}" if line else origin
    kind, msg = err["type"], str(err["msg"])
    if kind == "extra_forbidden":
        import difflib

        close = difflib.get_close_matches(loc, list(ModelConfig.model_fields), n=1, cutoff=0.6)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        return f"{where}: unknown field '{loc}'{hint}."
    if kind == "missing":
        return f"{where}: required field '{loc}' is missing."
    if kind == "less_than_equal" and err["ctx"].get("le") == MAX_SIZE:
        return (
            f"{where}: {loc} = {shown(err['input'])}: larger than ffn-calc's bound on sizes, "
            f"2^40 = {MAX_SIZE:,}."
        )
    if not loc:  # a model_validator invariant
        return f"{where}: {msg.removeprefix('Value error, ')}."
    return f"{where}: {loc} = {shown(err['input'])}: {msg[0].lower()}{msg[1:]}."


def dump_toml(cfg: ModelConfig) -> str:
    """The config as TOML in ffn-calc's schema (unset optional fields left out)."""
    import json

    lines = []
    for key, value in cfg.model_dump(exclude_none=True).items():
        text = ("true" if value else "false") if isinstance(value, bool) else json.dumps(value)
        lines.append(f"{key} = {text}")
    return "\n".join(lines) + "\n"


def build_config(data: Mapping[str, Any], origin: str, text: str | None = None) -> ModelConfig:
    """Validate raw fields into a ModelConfig; errors name file, line, field and value."""
    try:
        return ModelConfig.model_validate(dict(data))
    except ValidationError as exc:
        messages = [_describe(e, origin, text) for e in exc.errors()]
        raise ConfigError("\n".join(messages)) from None


# Flags that set ModelConfig fields directly (CLI name -> field).
FLAG_FIELDS = (
    "architecture", "n_layers", "n_decoder_layers", "d_model", "n_heads", "n_kv_heads",
    "head_dim", "d_ff", "activation", "norm", "positions", "max_positions", "vocab_size",
    "n_experts", "experts_per_token",
)  # fmt: skip


def flag_fields(flags: Mapping[str, Any]) -> dict[str, Any]:
    """ModelConfig fields set by flags (None = not given); --bias sets both bias fields."""
    out = {k: v for k, v in flags.items() if k in FLAG_FIELDS and v is not None}
    if flags.get("bias") is not None:
        out["attention_bias"] = out["ffn_bias"] = bool(flags["bias"])
        out["attention_out_bias"] = None
    if flags.get("tie") is not None:
        out["tie_embeddings"] = bool(flags["tie"])
    return out


def resolve_model(
    *,
    preset: str | None = None,
    config: Path | None = None,
    hf_config: Path | None = None,
    flags: Mapping[str, Any] | None = None,
    fields: Mapping[str, Any] | None = None,
) -> ModelConfig:
    """Pick the one model source given, apply flag overrides (CLI names) and then field
    overrides (ModelConfig names), validate once."""
    given = [
        n
        for n, v in (("--preset", preset), ("--config", config), ("--hf-config", hf_config))
        if v is not None
    ]
    if len(given) > 1:
        raise UsageError(f"choose one model source: {' and '.join(given)} were both given.")
    overrides = {**flag_fields(flags or {}), **(fields or {})}
    text: str | None = None
    if preset is not None:
        data, origin = load_preset_data(preset)
    elif config is not None:
        data, origin, text = load_config_file(config)
    elif hf_config is not None:
        from ffn_calc.hf import load_hf_config  # only when asked for

        data, origin = load_hf_config(hf_config)
    else:
        if "d_model" not in overrides or "n_heads" not in overrides:
            raise UsageError(
                "no model given: use --preset NAME, --config FILE, --hf-config PATH, "
                "or size flags with at least --d-model and --n-heads."
            )
        d = overrides["d_model"]
        data = {"name": "custom", "n_layers": 1, "attention_bias": True, "ffn_bias": True}
        if type(d) is int:  # a d_model that is not an integer is reported as such
            data["d_ff"] = 4 * d
        origin = "the size flags" if not fields else "the fields given"
    if overrides and given:
        changed = ", ".join(f"{k}={v}" for k, v in overrides.items() if k != "attention_out_bias")
        data = {**data, "name": f"{data.get('name', 'custom')} ({changed})"}
        origin = f"{origin} with {'fields' if fields else 'flags'} {changed}"
    return build_config({**data, **overrides}, origin, text)
