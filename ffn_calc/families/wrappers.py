"""What the multimodal wrappers share: reading a tower from a nested config (vision_config,
audio_config) by its model_type's module (model.families.TOWER_FAMILIES), and the language
model from text_config by its own model_type's module (model.families.REGISTRY)."""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import Reader, check_padding, merge_defaults, sub_reader
from ffn_calc.families.tensor_names import Naming, moved
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _

# The names save_pretrained writes (and the Hub's checkpoints hold) for a wrapper's tensors, as
# transformers renames them on load ("llava" in its conversion_mapping): stored -> reference.
# Older checkpoints keep CLIP's vision_model level under the tower.
RENAMES: dict[str, str] = {
    "language_model.lm_head.": "lm_head.",
    "language_model.model.": "model.language_model.",
    "vision_tower.vision_model.": "model.vision_tower.",
    "vision_tower.": "model.vision_tower.",
    "multi_modal_projector.": "model.multi_modal_projector.",
}


def wrapped(inner: Naming, language_model: str) -> Naming:
    """A language model's names inside a wrapper: under `language_model` (the base model's
    prefix, `model.` for Llama's names, moved there), the head at the top, and the stored
    names of the wrapper's checkpoints (RENAMES)."""
    from dataclasses import replace

    base = inner.prefixes[0] if inner.prefixes else "model."
    return replace(moved(inner, base, language_model), renames=RENAMES)


def _model_type(r: Reader, key: str, default: str, known: dict[str, str]) -> str:
    """The model_type of the nested config `key` (absent: the wrapper's `default`)."""
    value = r.data.get(key)
    kind = value.get("model_type") if isinstance(value, dict) else None
    kind = default if kind is None else kind
    if kind not in known:
        raise ConfigError(
            _(
                "{where}: {field}.model_type = {value} is not supported; use one of {choices}."
            ).format(
                where=r.where(key), field=key, value=shown(kind), choices=", ".join(sorted(known))
            )
        )
    return kind


def read_tower(
    r: Reader, key: str, default: str, prefix: str, given: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Tower fields (without the projector) from the nested config `key`, read by its
    model_type's module (absent: `default`'s) under `prefix`. `given`: the fields the wrapper
    puts in place of an absent config (LLaVA's vision defaults)."""
    from ffn_calc.families import family_module
    from ffn_calc.model.families import TOWER_FAMILIES

    kind = _model_type(r, key, default, TOWER_FAMILIES)
    module = family_module(kind)
    assert module is not None
    sub = sub_reader(r, key, module.DEFAULTS)
    if r.data.get(key) is None and given:
        sub.data = dict(given)
    out: dict[str, Any] = module.tower(sub, prefix)
    merge_defaults(r, sub, key)
    return out


def read_text(
    r: Reader, default: str, given: dict[str, Any] | None = None
) -> tuple[dict[str, Any], str]:
    """The language model's fields from text_config, read by its model_type's module
    (absent: `default`), and that model_type. `given`: the fields the wrapper puts in place
    of an absent text_config (Mistral 3's sizes)."""
    from ffn_calc.families import family_module
    from ffn_calc.model.families import REGISTRY

    kind = _model_type(r, "text_config", default, REGISTRY)
    module = family_module(kind)
    assert module is not None
    sub = sub_reader(r, "text_config", getattr(module, "DEFAULTS", None))
    if r.data.get("text_config") is None and given:
        sub.data = dict(given)
    out: dict[str, Any] = module.fields(sub)
    if out.get("architecture") != "decoder-only" or out.get("towers"):
        raise ConfigError(
            _("{where}: text_config.model_type = {value}: a wrapper's language model must be a "
              "decoder.").format(where=r.where("text_config"), value=shown(kind))
        )  # fmt: skip
    if hasattr(module, "PAD_DEFAULT"):
        check_padding(sub, out["vocab_size"], module.PAD_DEFAULT)
    merge_defaults(r, sub, "text_config")
    return out, kind
