"""A model from the one source given: a shipped preset, a config file, a Hugging Face
config.json, or flags alone, with flag and field overrides on top.

It sits with the families because a config.json is read by its family's module
(ffn_calc.families.hf); presets, config files and validation are ffn_calc.model.sources.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ffn_calc.errors import ConfigError, UsageError
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.sources import (
    PresetEntry,
    build_config,
    describe_error,
    flag_fields,
    load_config_file,
    preset_entry,
    preset_origin,
)


def resolve_model(
    *,
    preset: str | None = None,
    config: Path | None = None,
    hf_config: Path | str | None = None,  # a str is a Hugging Face repo id, never a path
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
        sources = given[0]
        for option in given[1:]:
            sources = _("{first} and {second}").format(first=sources, second=option)
        raise UsageError(
            _("choose one model source: {sources} were both given.").format(sources=sources)
        )
    overrides = {**flag_fields(flags or {}), **(fields or {})}
    text: str | None = None
    entry: PresetEntry | None = None
    if preset is not None:
        entry = preset_entry(preset)
        data, origin = dict(entry.fields), preset_origin(preset)
        if entry.loaded and entry.model is None:
            entry.model = build_config(data, origin)
        entry.loaded = True
    elif config is not None:
        data, origin, text = load_config_file(config)
    elif hf_config is not None:
        from ffn_calc.families.hf import load_hf_config  # only when asked for

        data, origin = load_hf_config(hf_config)
    else:
        if "d_model" not in overrides or "n_heads" not in overrides:
            raise UsageError(
                _(
                    "no model given: use --preset NAME, --config FILE, --hf-config PATH, "
                    "or size flags with at least --d-model and --n-heads."
                )
            )
        d = overrides["d_model"]
        data = {"name": "custom", "n_layers": 1, "attention_bias": True, "ffn_bias": True}
        if type(d) is int:  # a d_model that is not an integer is reported as such
            data["d_ff"] = 4 * d
        origin = _("the size flags") if not fields else _("the fields given")
    if overrides and given:
        changed = ", ".join(f"{k}={v}" for k, v in overrides.items() if k != "attention_out_bias")
        data = {**data, "name": f"{data.get('name', 'custom')} ({changed})"}
        with_changes = (
            _("{origin} with fields {changed}") if fields else _("{origin} with flags {changed}")
        )
        origin = with_changes.format(origin=origin, changed=changed)
    if entry is not None and entry.model is not None:  # validated once: check what changes
        try:
            return entry.model.varied({"name": data["name"], **overrides} if overrides else {})
        except ValidationError as exc:
            raise ConfigError(
                "\n".join(describe_error(e, origin, None) for e in exc.errors())
            ) from None
    cfg = build_config({**data, **overrides}, origin, text)
    if entry is not None and not overrides:
        entry.model = cfg
    return cfg
