"""Read a Hugging Face config.json into ModelConfig fields, as `transformers` builds the model.

Offline and torch-free. The FFN kind, biases and norms follow from `model_type` (the
architecture), never from a d_ff / d_model ratio. A field left out takes the default of the
family's transformers configuration class (sizes from the module's DEFAULTS), as
`from_pretrained` does; the model's source names every default taken, and so do the errors
of a model a default makes invalid. A size whose class has no default is required.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ffn_calc.errors import ConfigError, FileError
from ffn_calc.files import is_dir, parse_json_object, printable, read_text_file, shown
from ffn_calc.i18n.translate import _


def find_config_json(path: Path) -> Path:
    """`path` itself, or the config.json inside a directory."""
    if is_dir(path):  # False for a name the system refuses: reading it says why
        inner = path / "config.json"
        if not inner.is_file():
            raise FileError(_("directory '{path}' holds no config.json.").format(path=path))
        return inner
    return path


def hf_fields(
    data: dict[str, Any],
    origin: str,
    text: str = "",
    file: str = "",
    taken: dict[str, object] | None = None,
) -> dict[str, Any]:
    """ModelConfig fields for a parsed config.json, by its family's module; `taken` receives
    the absent fields that took the class's defaults."""
    from ffn_calc.families import family_module
    from ffn_calc.families.base import Reader, check_padding
    from ffn_calc.model.families import REGISTRY

    model_type = data.get("model_type")
    if model_type is None:
        raise ConfigError(
            _("{where}: required field '{field}' is missing.").format(
                where=origin, field="model_type"
            )
        )
    if not isinstance(model_type, str):
        raise ConfigError(
            _('{origin}: model_type = {value}: expected a string such as "llama".').format(
                origin=origin, value=shown(model_type)
            )
        )
    if model_type not in REGISTRY:
        raise ConfigError(
            _("{origin}: model_type {value} is not supported; supported: {supported}.").format(
                origin=origin, value=shown(model_type), supported=", ".join(sorted(REGISTRY))
            )
        )
    module = family_module(model_type)
    assert module is not None
    reader = Reader(data, origin, text, getattr(module, "DEFAULTS", None))
    try:
        fields = module.fields(reader)
        if hasattr(module, "PAD_DEFAULT"):
            check_padding(reader, fields["vocab_size"], module.PAD_DEFAULT)
    except ConfigError as exc:  # a default taken may be why: say which
        if not reader.defaults:
            raise
        raise ConfigError(f"{exc} {defaults_taken(reader.defaults)}") from None
    if taken is not None:
        taken.update(reader.defaults)
    fields["source"] = f"Hugging Face config.json ({model_type}, {module.ARCHITECTURE})" + (
        f": {file}" if file else ""
    )
    named = data.get("architectures")
    if isinstance(named, list) and named and named[0] != module.ARCHITECTURE:
        said = f"config.json names {shown(named[0])} in architectures; ffn-calc counts {module.ARCHITECTURE}, the class it models for {model_type}."
        fields["note"] = f"{said} {fields['note']}" if fields.get("note") else said
    if reader.defaults:
        fields["source"] += f"; absent, so transformers' defaults: {_listed(reader.defaults)}"
    return {k: v for k, v in fields.items() if v is not None}


def defaults_taken(defaults: dict[str, object]) -> str:
    """The sentence naming the absent fields that took the class's defaults."""
    return _("(Absent from config.json, so the class defaults were taken: {fields}.)").format(
        fields=_listed(defaults)
    )


def _listed(defaults: dict[str, object]) -> str:
    return ", ".join(f"{k} = {_json(v)}" for k, v in sorted(defaults.items()))


def _json(value: object) -> str:
    import json

    return json.dumps(value)


def load_hf_config(path: Path | str) -> tuple[dict[str, Any], str]:
    """Raw ModelConfig fields (with a name and source) from a config.json or its directory,
    or from the local Hugging Face cache: a Path that exists is read (a local path always
    wins); one that does not, shaped like ORG/NAME[@REVISION], is looked up in the cache
    (ffn_calc.families.hub); a str is a repo id only, never a path."""
    cached = _in_cache(path)
    if cached is not None:
        file, label, repo = cached
        text = read_text_file(file, "config.json")
        origin = f"'{label}'"
        data = parse_json_object(text, origin)
        fields = hf_fields(data, origin, text, label)
        fields["name"] = printable(repo)
        return fields, origin
    assert isinstance(path, Path)
    file = find_config_json(path)
    text = read_text_file(file, "config.json")
    origin = f"'{file}'"
    data = parse_json_object(text, origin)
    taken: dict[str, object] = {}
    fields = hf_fields(data, origin, text, str(file), taken)
    if taken:  # a model the defaults make invalid: its errors name them
        origin = _("{origin} (absent, so the class defaults: {fields})").format(
            origin=origin, fields=_listed(taken)
        )
    if is_dir(path):
        name = path.name
    elif not file.is_file():  # a pipe (`--hf-config <(...)`): its "name" is a descriptor number
        name = ""
    else:
        name = file.parent.name if file.name == "config.json" else file.stem
    fields["name"] = printable(name or str(data["model_type"]))
    return fields, origin


def _in_cache(path: Path | str) -> tuple[Path, str, str] | None:
    """The cached config.json, its label and repo id when `path` names a repo in the cache."""
    if isinstance(path, Path):
        try:
            if os.path.lexists(path):
                return None
        except (OSError, ValueError):  # a name the system refuses: reading it says why
            return None
    from ffn_calc.families.hub import cached_config, parse_repo_id  # only for a repo id

    ref = parse_repo_id(str(path))
    if ref is None:
        if isinstance(path, str):
            raise FileError(
                _(
                    "'{value}' is not a Hugging Face repo id (ORG/NAME or ORG/NAME@REVISION)."
                ).format(value=printable(path))
            )
        return None
    file, label = cached_config(ref)
    return file, label, ref.repo
