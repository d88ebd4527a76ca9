"""Find, list and load models: shipped presets, user config files, flags on top of either
(ffn_calc.families.resolve picks the one source given, a Hugging Face config.json too).

Only the file asked for is read. Every problem becomes a ConfigError / FileError whose text
names the file, the line, the field and the value where there is one.

A preset is package data: its file is read, parsed and validated once per process, so a loop
of `load(preset=..., d_ff=f)` checks just the fields it changes. A user's --config file is read
afresh every time.

The listing (`ffn-calc presets`) reads every preset: their fields come from the folder's parse
cache, `parsed.json` (each file's fields as tomllib parses them, under the file's size and
CRC-32), for every file unchanged since the cache was written, and from the file itself for any
other; tomllib takes about 9 ms for the sixty-odd files, JSON about 0.5 ms. The cache is written
by `python scripts/presets_cache.py`, and a test fails when it is not current.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Mapping
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ffn_calc.errors import ConfigError
from ffn_calc.files import line_of as line_of
from ffn_calc.files import parse_json_object as parse_json_object  # re-exported
from ffn_calc.files import parse_toml as parse_toml
from ffn_calc.files import printable
from ffn_calc.files import read_text_file as read_text_file
from ffn_calc.files import shown as shown
from ffn_calc.i18n.translate import N_, _
from ffn_calc.model.config import MAX_SIZE, ModelConfig
from ffn_calc.model.rules import InvariantError

_PRESET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_CHECKOUT_PRESETS = Path(__file__).resolve().parents[2] / "presets"


@cache
def presets_dir() -> Traversable:
    """The presets shipped in the wheel, else the checkout's top-level presets/ folder (looked
    up once per process)."""
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
    fields = preset_entry(name).fields
    data = {k: list(v) if isinstance(v, list) else v for k, v in fields.items()}
    return data, preset_origin(name)


def preset_origin(name: str) -> str:
    return _("preset '{name}' ({file})").format(name=name, file=f"{name}.toml")


class PresetEntry:
    """A preset file's fields, and its model once a second load in the process asks for it (a
    command loads once: it validates the fields with its changes in one go)."""

    __slots__ = ("fields", "loaded", "model")

    def __init__(self, fields: Mapping[str, Any]) -> None:
        self.fields = fields
        self.loaded = False
        self.model: ModelConfig | None = None


def preset_entry(name: str) -> PresetEntry:
    """A preset's fields: read once per process from the presets folder (package data; a
    folder that is not a plain path, such as a zip, is read each time)."""
    if not name.strip():
        raise ConfigError(_("the preset name is empty; see `ffn-calc presets` for the names."))
    if "/" in name or "\\" in name or name.endswith((".toml", ".json")):
        raise ConfigError(
            _(
                "--preset takes a preset name, not a file: '{name}'. "
                "Use --config FILE for your own config, or --hf-config PATH for a config.json."
            ).format(name=name[:200])
        )
    folder = presets_dir()
    if not isinstance(folder, Path):
        return _read_preset(folder, name)
    entry = _ENTRIES.get((folder, name))
    if entry is None:  # an unknown name raises: nothing is kept
        entry = _ENTRIES[folder, name] = _read_preset(folder, name)
    return entry


# The presets read in this process, by folder and name (a folder of package data holds a few
# dozen files: no bound needed).
_ENTRIES: dict[tuple[Path, str], PresetEntry] = {}

PARSE_CACHE = "parsed.json"


def read_every_preset() -> list[str]:
    """Read every preset of the folder at once (the listing): each unchanged file's fields from
    the parse cache, any other file's from its TOML (see the module's docstring). Returns
    their names, sorted (preset_names)."""
    folder = presets_dir()
    names = preset_names()
    if not isinstance(folder, Path):
        return names  # read one by one, each time (a zip): nothing is kept
    try:
        cached = json.loads((folder / PARSE_CACHE).read_bytes())["presets"]
    except (OSError, ValueError, KeyError, TypeError):
        cached = {}
    if not isinstance(cached, dict):
        cached = {}
    for name in names:
        if (folder, name) in _ENTRIES:
            continue
        raw = (folder / f"{name}.toml").read_bytes()
        hit = cached.get(name)
        if isinstance(hit, dict) and hit.get("key") == _cache_key(raw):
            data = hit["fields"]
            data.setdefault("name", name)
            _ENTRIES[folder, name] = PresetEntry(data)
        else:
            _ENTRIES[folder, name] = _read_preset(folder, name)
    return names


def _cache_key(raw: bytes) -> str:
    return f"{len(raw)}:{zlib.crc32(raw):08x}"


def parse_cache_text(folder: Path) -> str:
    """The parse cache of a presets folder as `scripts/presets_cache.py` writes it: every
    preset's fields as tomllib parses them, under its file's size and CRC-32."""
    presets = {}
    for path in sorted(folder.glob("*.toml")):
        raw = path.read_bytes()
        fields = parse_toml(raw.decode("utf-8"), path.name)
        presets[path.stem] = {"key": _cache_key(raw), "fields": fields}
    body = json.dumps({"presets": presets}, ensure_ascii=False, indent=1, allow_nan=False)
    return body + "\n"


def _read_preset(folder: Traversable, name: str) -> PresetEntry:
    resource = folder / f"{name}.toml"
    if not _PRESET_NAME.fullmatch(name) or not resource.is_file():
        import difflib

        names = preset_names()
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
        if close:
            message = _(
                "unknown preset '{name}'. Did you mean {suggestions}? Available presets: {names}."
            )
        else:
            message = _("unknown preset '{name}'. Available presets: {names}.")
        raise ConfigError(
            message.format(name=name[:200], suggestions=", ".join(close), names=", ".join(names))
        )
    text = resource.read_text(encoding="utf-8")
    data = parse_toml(text, _("preset {name}").format(name=name))
    data.setdefault("name", name)
    return PresetEntry(data)


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


# Pydantic's messages for the fields' checks, lowercased as a message shows them, by error
# type: translated with the values of the error's ctx. One whose English differs from what
# pydantic said (another pydantic version) is shown as pydantic said it.
_FIELD_MESSAGES = {
    "greater_than": N_("input should be greater than {gt}"),
    "greater_than_equal": N_("input should be greater than or equal to {ge}"),
    "less_than": N_("input should be less than {lt}"),
    "less_than_equal": N_("input should be less than or equal to {le}"),
    "int_type": N_("input should be a valid integer"),
    "int_parsing": N_("input should be a valid integer, unable to parse string as an integer"),
    "int_from_float": N_("input should be a valid integer, got a number with a fractional part"),
    "float_type": N_("input should be a valid number"),
    "bool_type": N_("input should be a valid boolean"),
    "bool_parsing": N_("input should be a valid boolean, unable to interpret input"),
    "string_type": N_("input should be a valid string"),
    "list_type": N_("input should be a valid list"),
    "dict_type": N_("input should be a valid dictionary"),
    "literal_error": N_("input should be {choices} or {last}"),
    "string_too_short": N_("string should have at least {min_length} character"),
    "finite_number": N_("input should be a finite number"),
    "value_error": N_("value error, {error}"),
}


def field_message(err: Mapping[str, Any]) -> str:
    """What is wrong with one field's value, lowercased, in the reader's language."""
    msg = str(err["msg"])
    english = f"{msg[0].lower()}{msg[1:]}" if msg else msg
    template = _FIELD_MESSAGES.get(err["type"])
    if template is None:
        return english
    ctx = err.get("ctx") or {}
    bounds = ("gt", "ge", "lt", "le", "min_length")
    values: dict[str, str] = {k: str(v) for k, v in ctx.items() if k in bounds}
    error = ctx.get("error")
    if err["type"] == "value_error":
        values["error"] = str(error)
    elif err["type"] == "literal_error":
        choices = re.findall(r"'[^']*'", str(ctx.get("expected", "")))
        if len(choices) < 2:
            return english
        values["choices"], values["last"] = ", ".join(choices[:-1]), choices[-1]
    try:
        if template.format(**values) != english:
            return english
    except (KeyError, IndexError):
        return english
    if isinstance(error, InvariantError):
        values["error"] = error.translated()
    return _(template).format(**values)


def describe_error(err: Mapping[str, Any], origin: str, text: str | None) -> str:
    loc = ".".join(str(p) for p in err["loc"])
    line = line_of(text, str(err["loc"][0])) if err["loc"] else None
    where = _("{origin}, line {line}").format(origin=origin, line=line) if line else origin
    kind, msg = err["type"], str(err["msg"])
    if kind == "extra_forbidden":
        import difflib

        close = difflib.get_close_matches(loc, list(ModelConfig.model_fields), n=1, cutoff=0.6)
        if close:
            return _("{where}: unknown field '{field}' (did you mean '{suggestion}'?).").format(
                where=where, field=loc, suggestion=close[0]
            )
        return _("{where}: unknown field '{field}'.").format(where=where, field=loc)
    if kind == "missing":
        return _("{where}: required field '{field}' is missing.").format(where=where, field=loc)
    if kind == "less_than_equal" and err["ctx"].get("le") == MAX_SIZE:
        return _(
            "{where}: {field} = {value}: larger than ffn-calc's bound on sizes, 2^40 = {bound}."
        ).format(where=where, field=loc, value=shown(err["input"]), bound=f"{MAX_SIZE:,}")
    if not loc:  # a model_validator invariant
        error = (err.get("ctx") or {}).get("error")
        message = (
            error.translated()
            if isinstance(error, InvariantError)
            else msg.removeprefix("Value error, ")
        )
        return _("{where}: {message}.").format(where=where, message=message)
    return _("{where}: {field} = {value}: {message}.").format(
        where=where, field=loc, value=shown(err["input"]), message=field_message(err)
    )


def dump_toml(cfg: ModelConfig) -> str:
    """The config as TOML in ffn-calc's schema (unset optional fields left out)."""
    from ffn_calc.model.config import dumped

    lines = [f"{key} = {_toml(value)}" for key, value in dumped(cfg).items()]
    return "\n".join(lines) + "\n"


def dump_json(cfg: ModelConfig) -> str:
    """The config as JSON in ffn-calc's schema (unset optional fields left out)."""
    import json

    from ffn_calc.model.config import dumped

    return json.dumps(dumped(cfg), indent=2, ensure_ascii=False)


def _toml(value: Any) -> str:
    """A value in TOML: a table (a tower, its stack) inline, lists and strings as JSON
    spells them (TOML reads those alike)."""
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value)


def build_config(data: Mapping[str, Any], origin: str, text: str | None = None) -> ModelConfig:
    """Validate raw fields into a ModelConfig; errors name file, line, field and value."""
    try:
        return ModelConfig.model_validate(dict(data))
    except ValidationError as exc:
        messages = [describe_error(e, origin, text) for e in exc.errors()]
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
