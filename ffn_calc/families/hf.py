"""Read a Hugging Face config.json into ModelConfig fields, as `transformers` builds the model.

Offline and torch-free. The FFN kind, biases and norms follow from `model_type` (the
architecture), never from a d_ff / d_model ratio. Size fields are required: a missing one is
named rather than replaced by a library default.
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


def hf_fields(data: dict[str, Any], origin: str, text: str = "", file: str = "") -> dict[str, Any]:
    """ModelConfig fields for a parsed config.json, by its family's module."""
    from ffn_calc.families import family_module
    from ffn_calc.families.base import Reader
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
    reader = Reader(data, origin, text)
    fields = module.fields(reader)
    fields["source"] = f"Hugging Face config.json ({model_type}, {module.ARCHITECTURE})" + (
        f": {file}" if file else ""
    )
    named = data.get("architectures")
    if isinstance(named, list) and named and named[0] != module.ARCHITECTURE:
        said = f"config.json names {shown(named[0])} in architectures; ffn-calc counts {module.ARCHITECTURE}, the class it models for {model_type}."
        fields["note"] = f"{said} {fields['note']}" if fields.get("note") else said
    if reader.defaults:
        absent = ", ".join(f"{k} = {_json(v)}" for k, v in sorted(reader.defaults.items()))
        fields["source"] += f"; absent, so transformers' defaults: {absent}"
    return {k: v for k, v in fields.items() if v is not None}


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
    fields = hf_fields(data, origin, text, str(file))
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
