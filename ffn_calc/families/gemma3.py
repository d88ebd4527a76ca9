"""Gemma 3 with images (`Gemma3ForConditionalGeneration`): the Gemma 3 language model, a SigLIP
vision tower and a projector.

text_config is a Gemma3TextConfig, read by gemma3_text with its defaults (absent: the class's
defaults); vision_config a siglip_vision_model config (absent: SiglipVisionConfig's defaults,
whose vision_use_head is true). The projector (model.multi_modal_projector) average-pools the
tower's (image_size // patch_size)^2 patches to mm_tokens_per_image (default 256) tokens,
normalises them (mm_soft_emb_norm, an RMSNorm over the vision width) and multiplies them by
mm_input_projection_weight [d_vision, d_text]; those tokens take their places in the language
model's sequence. The head is tied when tie_word_embeddings (default true) at the top level.

Names: the language model under `model.language_model.`, the tower under
`model.vision_tower.`, the head at the top level (`lm_head`).
"""

from __future__ import annotations

from math import isqrt
from typing import Any

from ffn_calc.families import gemma3_text
from ffn_calc.families.base import Reader, check_padding
from ffn_calc.families.tensor_names import Naming
from ffn_calc.families.wrappers import read_tower, wrapped
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import Part, norm_part

ARCHITECTURE = "Gemma3ForConditionalGeneration"

# Gemma3Config reads no size of its own at the top level but mm_tokens_per_image.
DEFAULTS: dict[str, int | None] = {"mm_tokens_per_image": 256}

LANGUAGE_MODEL = "model.language_model."
VISION_TOWER = "model.vision_tower."
PROJECTOR = "model.multi_modal_projector."


def fields(r: Reader) -> dict[str, Any]:
    text = read_tower_text(r)
    vision = read_tower(r, "vision_config", "siglip_vision_model", VISION_TOWER)
    rows = pooled(vision["tokens"], r.req("mm_tokens_per_image"))
    dv, dt = vision["stack"]["d_model"], text["d_model"]
    # Pooled, then RMSNorm and [d_vision, d_text] (one matmul).
    vision["parts"] = [
        *vision["parts"],
        Part(name=f"{PROJECTOR}mm_input_projection_weight", group="projector", shape=[dv, dt],
             macs=rows * dv * dt),
        *norm_part(f"{PROJECTOR}mm_soft_emb_norm", dv, "projector", bias=False),
    ]  # fmt: skip
    vision["output_tokens"] = rows
    text.update(
        family="gemma3",
        tie_embeddings=r.boolean("tie_word_embeddings", True),
        towers=[vision],
    )
    return text


def pooled(patches: int, tokens: int) -> int:
    """The tokens Gemma3MultiModalProjector's average pooling leaves of an image's patches: a
    kernel of (patches' side) // (tokens' side), so tokens itself when its side divides the
    patches' (the released configs). Where the kernel would be 0 the model still builds (its
    parameters count) but no image runs through it: tokens, as the config says."""
    side, per_side = isqrt(patches), isqrt(tokens)
    kernel = side // per_side if per_side else 0
    return (side // kernel) ** 2 if kernel else tokens


def read_tower_text(r: Reader) -> dict[str, Any]:
    """The language model: text_config as Gemma3TextConfig reads it (gemma3_text)."""
    from ffn_calc.families.base import merge_defaults, sub_reader

    sub = sub_reader(r, "text_config", gemma3_text.DEFAULTS)
    out = gemma3_text.fields(sub)
    check_padding(sub, out["vocab_size"], gemma3_text.PAD_DEFAULT)
    merge_defaults(r, sub, "text_config")
    return out


def naming(cfg: ModelConfig) -> Naming:
    return wrapped(gemma3_text.naming(cfg), LANGUAGE_MODEL)
