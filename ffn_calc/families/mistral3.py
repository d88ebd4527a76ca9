"""Mistral 3 (`Mistral3ForConditionalGeneration`, Mistral Small 3.1): a Mistral language model,
a Pixtral vision tower and a projector that merges patches.

text_config is read by its own model_type's module (absent: mistral with Mistral3Config's own
sizes: hidden 5120, 40 layers of 32 heads and 8 KV heads of 128, intermediate 32768, vocab
131072, no sliding window); vision_config by its tower module (absent: pixtral with
Mistral3Config's sizes: hidden 1024, 24 layers of 16 heads, intermediate 4096, patch 14,
images up to 1540). The head is the wrapper's own Linear [vocab, d_text] without a bias, tied
when the top-level tie_word_embeddings is true (the class default), whatever text_config says.

The projector (model.multi_modal_projector): an RMSNorm over the vision width (`norm`), the
patch merger (each spatial_merge_size x spatial_merge_size block of patches unfolded into one
row, then `patch_merger.merging_layer` [d_vision, d_vision x merge^2] without a bias),
linear_1 [d_text, d_vision x feature layers], the activation, linear_2 [d_text, d_text], with
biases when multimodal_projector_bias (default false). An H x W image gives the language
model (H // p // merge) x (W // p // merge) image tokens and, as the processor writes them, an
[IMG_BREAK] after each row of them but the last and an [IMG_END] after it: one more token per
row, counted in the language model's sequence.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import Reader
from ffn_calc.families.llava import feature_layers
from ffn_calc.families.tensor_names import Naming
from ffn_calc.families.wrappers import read_text, read_tower, wrapped
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import linear_part, norm_part

ARCHITECTURE = "Mistral3ForConditionalGeneration"

DEFAULTS: dict[str, int | None] = {"spatial_merge_size": 2}

# Mistral3Config's text_config and vision_config when none is given (SubConfigSpec init_kwargs).
TEXT_DEFAULTS: dict[str, Any] = {
    "model_type": "mistral",
    "head_dim": 128,
    "hidden_act": "silu",
    "hidden_size": 5120,
    "intermediate_size": 32768,
    "max_position_embeddings": 131072,
    "num_attention_heads": 32,
    "num_hidden_layers": 40,
    "num_key_value_heads": 8,
    "sliding_window": None,
    "vocab_size": 131072,
}
VISION_DEFAULTS: dict[str, Any] = {
    "model_type": "pixtral",
    "intermediate_size": 4096,
    "hidden_size": 1024,
    "patch_size": 14,
    "image_size": 1540,
    "num_hidden_layers": 24,
    "num_attention_heads": 16,
    "hidden_act": "gelu",
}

LANGUAGE_MODEL = "model.language_model."
VISION_TOWER = "model.vision_tower."
PROJECTOR = "model.multi_modal_projector."


def fields(r: Reader) -> dict[str, Any]:
    text, kind = read_text(r, "mistral", TEXT_DEFAULTS)
    vision = read_tower(r, "vision_config", "pixtral", VISION_TOWER, VISION_DEFAULTS)
    m = r.req("spatial_merge_size")
    dv, dt = vision["stack"]["d_model"], text["d_model"]
    bias = r.boolean("multimodal_projector_bias", False)
    r.string("projector_hidden_act", "gelu")  # no parameters, no matmul
    width = dv * feature_layers(r, -1)
    merged = [
        p.model_copy(update={"per": "merged"})
        for p in [
            *linear_part(f"{PROJECTOR}patch_merger.merging_layer", dv * m * m, dv, 1,
                         "projector", bias=False),
            *linear_part(f"{PROJECTOR}linear_1", width, dt, 1, "projector", bias),
            *linear_part(f"{PROJECTOR}linear_2", dt, dt, 1, "projector", bias),
        ]
    ]  # fmt: skip
    vision["parts"] = [*vision["parts"], *norm_part(f"{PROJECTOR}norm", dv, "projector", False)]
    vision["parts"] += merged
    # [IMG_BREAK] after each row, [IMG_END] after the last
    vision["grid"] = {**vision["grid"], "merge": m, "row_tokens": 1}
    side = vision["image_size"]
    p = vision["grid"]["patch"]
    rows, cols = side[0] // p // m, side[1] // p // m
    vision["output_tokens"] = max(rows * cols + rows, 1)
    text.update(
        family="mistral3",
        text_family=kind,
        tie_embeddings=r.boolean("tie_word_embeddings", True),
        lm_head_bias=False,
        towers=[vision],
    )
    return text


def naming(cfg: ModelConfig) -> Naming:
    from ffn_calc.families import family_module

    module = family_module(cfg.text_family or "mistral")  # the language model's own names
    assert module is not None
    return wrapped(module.naming(cfg), LANGUAGE_MODEL)
