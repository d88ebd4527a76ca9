"""Kimi K2.5 (`Kimi_K25ForConditionalGeneration`): a DeepSeek-V3 language model (Kimi K2's)
beside a MoonViT vision tower and a projector.

text_config is a DeepseekV3Config (model_type deepseek_v3; the released file's "kimi_k2" is
read as deepseek_v3, as Kimi_K25Config does), read by deepseek_v3 with its defaults (absent:
DeepseekV3Config's). vision_config: kimi_k25_vision (absent: Kimi_K25VisionConfig's
defaults). The projector (`model.mm_projector.`) takes each merged token's merge^2 patches
(merge^2 d wide): a LayerNorm with a bias over projection_hidden_size (each patch's d; the
class requires them equal), `in_proj` [m^2 d, m^2 d] and `out_proj` [d_text, m^2 d], both
with biases, a GELU between. The head is tied to the token embedding when the top-level
tie_word_embeddings (default true) is.

Names: the language model under `model.language_model.` (DeepSeek-V3's names), the tower
under `model.vision_tower.`, the head at the top level (`lm_head`).
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families import deepseek_v3
from ffn_calc.families.base import Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.families.wrappers import read_text, read_tower, wrapped
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import linear_part, norm_part

ARCHITECTURE = "Kimi_K25ForConditionalGeneration"

# Kimi_K25Config reads one size of its own: projection_hidden_size (default 1152).
DEFAULTS: dict[str, int | None] = {"projection_hidden_size": 1152}

LANGUAGE_MODEL = "model.language_model."
VISION_TOWER = "model.vision_tower."
PROJECTOR = "model.mm_projector."


def fields(r: Reader) -> dict[str, Any]:
    text_config = r.data.get("text_config")
    if isinstance(text_config, dict) and text_config.get("model_type") == "kimi_k2":
        r.data = {**r.data, "text_config": {**text_config, "model_type": "deepseek_v3"}}
    text, _kind = read_text(r, "deepseek_v3")
    vision = read_tower(r, "vision_config", "kimi_k25_vision", VISION_TOWER)
    d, dt = vision["stack"]["d_model"], text["d_model"]
    m = vision["grid"]["merge"]
    width = r.req("projection_hidden_size")
    if width != d:
        raise ConfigError(
            _(
                "{where}: projection_hidden_size = {width} must equal the vision tower's "
                "hidden_size ({d}): the projector normalises each patch."
            ).format(where=r.where("projection_hidden_size"), width=width, d=d)
        )
    wide = m * m * d
    projector = [
        *norm_part(f"{PROJECTOR}pre_norm", width, "projector", bias=True),
        *linear_part(f"{PROJECTOR}in_proj", wide, wide, 1, "projector", bias=True),
        *linear_part(f"{PROJECTOR}out_proj", wide, dt, 1, "projector", bias=True),
    ]
    vision["parts"] = [
        *vision["parts"],
        *(p.model_copy(update={"per": "output_token"}) for p in projector),
    ]
    text.update(
        family="kimi_k25",
        tie_embeddings=r.boolean("tie_word_embeddings", True),
        towers=[vision],
    )
    return text


def naming(cfg: ModelConfig) -> Naming:
    return wrapped(deepseek_v3.naming(cfg), LANGUAGE_MODEL)
