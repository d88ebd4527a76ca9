"""Qwen3.5's vision tower (`Qwen3_5VisionModel`, `model.visual.`; Qwen3.5-MoE's,
qwen3_5_moe_vision, is the same): Qwen3-VL's tower (see qwen3_vl_vision) without the deepstack
mergers (deepstack_visual_indexes is not read): the Conv3d patch embedding with a bias, the
learned position table, `depth` blocks of LayerNorms, a fused qkv and a plain MLP with biases,
and the merger over spatial_merge_size^2 patches into out_hidden_size.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.families import qwen_vl
from ffn_calc.families.base import Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Qwen3_5VisionModel"

# transformers 5.24.0 Qwen3_5VisionConfig's defaults (Qwen3_5MoeVisionConfig's are the same).
DEFAULTS: dict[str, int | None] = {
    "depth": 27,
    "hidden_size": 1152,
    "intermediate_size": 4304,
    "num_heads": 16,
    "in_channels": 3,
    "patch_size": 16,
    "spatial_merge_size": 2,
    "temporal_patch_size": 2,
    "out_hidden_size": 3584,
    "num_position_embeddings": 2304,
}

# Qwen3-VL's layout, no deepstack mergers.
VARIANT = replace(qwen_vl.QWEN3, family="qwen3_5_vision", deepstack=False, deepstack_blocks=())


def tower(r: Reader, prefix: str) -> dict[str, Any]:
    """Tower fields, the merger included, for a Qwen3.5 vision_config."""
    return qwen_vl.tower(r, prefix, VARIANT)


def naming(cfg: ModelConfig) -> Naming:
    return qwen_vl.VISION_NAMING_3
