"""Llama 4 with images (`Llama4ForConditionalGeneration`): the Llama 4 text model (a
Llama4ForCausalLM, read by llama4_text), the Llama 4 vision model and a one-matrix projector.

text_config is read by llama4_text (absent: Llama4TextConfig's defaults); vision_config by
llama4_vision_model (absent: Llama4VisionConfig's defaults). The projector
(multi_modal_projector.linear_1 [d_text, vision_output_dim], no bias) maps each of an image's
shuffled tokens (the vision model's output) into the language model's sequence. The head is
the text model's own (language_model.lm_head), tied when text_config's tie_word_embeddings is
true (the top-level field is not read). Names: the text model under `language_model.`
(language_model.model.layers..., language_model.lm_head), the tower under `vision_model.`.
The processor's <|image_start|>, <|tile_x_separator|>, ... around the image tokens are the
language model's text tokens.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families import llama4_text, llama4_vision_model
from ffn_calc.families.base import Reader, merge_defaults, sub_reader
from ffn_calc.families.tensor_names import Naming, moved
from ffn_calc.families.wrappers import read_text, read_tower
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import linear_part

ARCHITECTURE = "Llama4ForConditionalGeneration"

DEFAULTS: dict[str, int | None] = {}

LANGUAGE_MODEL = "language_model."
VISION_TOWER = "vision_model."
PROJECTOR = "multi_modal_projector."


def fields(r: Reader) -> dict[str, Any]:
    text, kind = read_text(r, "llama4_text")
    vision = read_tower(r, "vision_config", "llama4_vision_model", VISION_TOWER)
    vr = sub_reader(r, "vision_config", llama4_vision_model.DEFAULTS)
    width = vr.req("vision_output_dim")  # the projector's input
    merge_defaults(r, vr, "vision_config")
    rows = vision["output_tokens"]
    vision["parts"] = [
        *vision["parts"],
        *linear_part(f"{PROJECTOR}linear_1", width, text["d_model"], rows, "projector", False),
    ]
    r.boolean("tie_word_embeddings", False)  # read by the class, used by none of its modules
    text.update(family="llama4", text_family=kind, towers=[vision])
    return text


def naming(cfg: ModelConfig) -> Naming:
    # Llama4ForCausalLM whole under language_model. (its head too): the names as stored.
    return moved(llama4_text.naming(cfg), "", LANGUAGE_MODEL, keep=())
