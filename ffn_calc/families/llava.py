"""LLaVA (`LlavaForConditionalGeneration`): a language model, a CLIP vision tower and a
two-layer projector.

text_config is read by its own model_type's module (absent: llama, LlamaConfig's defaults);
vision_config by its model_type's tower module (absent: clip_vision_model with LlavaConfig's
own sizes: hidden 1024, 24 layers of 16 heads, intermediate 4096, patch 14, image 336). The
head is the wrapper's own Linear [vocab, d_text] without a bias, tied when the top-level
tie_word_embeddings is true (LlavaConfig also takes text_config's true).

The projector (model.multi_modal_projector): linear_1 [d_text, d_vision x feature layers],
the activation (projector_hidden_act), linear_2 [d_text, d_text], with biases when
multimodal_projector_bias (default true). The tower runs every one of its layers (the
features are taken from hidden_states[vision_feature_layer], default -2, after the whole
forward); vision_feature_select_strategy "default" drops each image's first token (CLIP's
class token, so each image gives the language model its patches; with a SigLIP tower, which
has none, its first patch), "full" keeps it.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.families.wrappers import read_text, read_tower, wrapped
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import linear_part

ARCHITECTURE = "LlavaForConditionalGeneration"

DEFAULTS: dict[str, int | None] = {}

# LlavaConfig's vision_config when none is given (its SubConfigSpec init_kwargs).
VISION_DEFAULTS: dict[str, Any] = {
    "model_type": "clip_vision_model",
    "intermediate_size": 4096,
    "hidden_size": 1024,
    "patch_size": 14,
    "image_size": 336,
    "num_hidden_layers": 24,
    "num_attention_heads": 16,
}

LANGUAGE_MODEL = "model.language_model."
VISION_TOWER = "model.vision_tower."
PROJECTOR = "model.multi_modal_projector."


def feature_layers(r: Reader, default: int = -2) -> int:
    """How many hidden states the projector concatenates: one for an integer
    vision_feature_layer, one per entry of a list."""
    value = r.data.get("vision_feature_layer", default)
    if isinstance(value, int) and not isinstance(value, bool):
        return 1
    if isinstance(value, list) and value and all(type(x) is int for x in value):
        return len(value)
    raise ConfigError(
        _("{where}: {field} = {value}: expected an integer or a list of integers.").format(
            where=r.where("vision_feature_layer"), field="vision_feature_layer", value=shown(value)
        )
    )


def fields(r: Reader) -> dict[str, Any]:
    text, kind = read_text(r, "llama")
    vision = read_tower(r, "vision_config", "clip_vision_model", VISION_TOWER, VISION_DEFAULTS)
    strategy = r.choice(
        "vision_feature_select_strategy", {"default": "default", "full": "full"}, "default"
    )
    # "default" drops each image's first token (CLIP's class token; a SigLIP tower's first
    # patch alike), "full" keeps every token.
    vision["output_tokens"] = vision["tokens"] - (strategy == "default")
    dv, dt, n = vision["stack"]["d_model"], text["d_model"], vision["output_tokens"]
    bias = r.boolean("multimodal_projector_bias", True)
    r.string("projector_hidden_act", "gelu")  # no parameters, no matmul
    width = dv * feature_layers(r)
    vision["parts"] = [
        *vision["parts"],
        *linear_part(f"{PROJECTOR}linear_1", width, dt, n, "projector", bias),
        *linear_part(f"{PROJECTOR}linear_2", dt, dt, n, "projector", bias),
    ]
    sub = r.data.get("text_config")
    text_tie = isinstance(sub, dict) and sub.get("tie_word_embeddings") is True
    text.update(
        family="llava",
        text_family=kind,
        tie_embeddings=r.boolean("tie_word_embeddings", False) or text_tie,
        lm_head_bias=False,
        towers=[vision],
    )
    return text


def naming(cfg: ModelConfig) -> Naming:
    from ffn_calc.families import family_module

    module = family_module(cfg.text_family or "llama")  # the language model's own names
    assert module is not None
    return wrapped(module.naming(cfg), LANGUAGE_MODEL)
