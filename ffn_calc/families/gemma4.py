"""Gemma 4 with images and audio (`Gemma4ForConditionalGeneration`): the Gemma 4 language
model, a vision tower and an audio tower, each with its projector.

text_config is a Gemma4TextConfig, read by gemma4_text (absent: the class's defaults).
vision_config (gemma4_vision) and audio_config (gemma4_audio) are optional: Gemma4Config
builds no tower for a config that is absent or null, `{}` gives the class's defaults. Each
tower's projector (`model.embed_vision.`, `model.embed_audio.`) is an RMSNorm without a
weight and `embedding_projection` [d_text, the tower's output width] (the vision tower's
hidden_size, the audio tower's output_proj_dims), over each token given to the language
model. The head is tied when tie_word_embeddings (default true) at the top level.

Names: the language model under `model.language_model.`, the towers under
`model.vision_tower.` and `model.audio_tower.`, the head at the top level (`lm_head`).
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families import gemma4_audio, gemma4_text
from ffn_calc.families.base import Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.families.wrappers import read_text, read_tower, wrapped
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import linear_part

ARCHITECTURE = "Gemma4ForConditionalGeneration"

# Gemma4Config reads no size of its own at the top level.
DEFAULTS: dict[str, int | None] = {}

LANGUAGE_MODEL = "model.language_model."
TOWERS = (
    # (config key, default model_type, prefix, projector)
    ("vision_config", "gemma4_vision", "model.vision_tower.", "model.embed_vision."),
    ("audio_config", "gemma4_audio", "model.audio_tower.", "model.embed_audio."),
)


def fields(r: Reader) -> dict[str, Any]:
    text, _kind = read_text(r, "gemma4_text")
    towers = []
    for key, default, prefix, projector in TOWERS:
        if r.data.get(key) is None:  # Gemma4Config builds no tower for it
            continue
        t = read_tower(r, key, default, prefix)
        width = gemma4_audio.output_width(t) if t["name"] == "audio" else t["stack"]["d_model"]
        t["parts"] = [
            *t["parts"],
            *linear_part(f"{projector}embedding_projection", width, text["d_model"],
                         t["output_tokens"], "projector", bias=False),
        ]  # fmt: skip
        towers.append(t)
    text.update(
        family="gemma4",
        tie_embeddings=r.boolean("tie_word_embeddings", True),
        towers=towers,
    )
    return text


def naming(cfg: ModelConfig) -> Naming:
    return wrapped(gemma4_text.naming(cfg), LANGUAGE_MODEL)
