"""Qwen2.5-VL's vision tower (`Qwen2_5_VisionTransformerPretrainedModel`, `model.visual.`).

Before the blocks: a Conv3d patch embedding without bias, `patch_embed.proj` [d, C,
temporal_patch_size, p, p] (kernel = stride; an image is its patches repeated over
temporal_patch_size frames, one step of the kernel). `depth` blocks: two RMSNorms of [d]
(norm1, norm2; weight only), a fused `attn.qkv` [3d, d] and `attn.proj` [d, d], both with
biases, a gated MLP with biases (mlp.gate_proj / up_proj [intermediate_size, d], down_proj;
hidden_act, silu by default); 2-D rotary positions (no parameters); no norm after the blocks.
The merger (`merger.`): an RMSNorm `ln_q` of [d], then over each spatial_merge_size^2 patches
concatenated (m^2 d wide) `mlp.0` [m^2 d, m^2 d] and `mlp.2` [out_hidden_size, m^2 d], both
with biases; each merged patch is one token of the language model.

Attention: the blocks in `fullatt_block_indexes` (default 7, 15, 23, 31) attend over the whole
image; the others within windows of window_size pixels (default 112): window_size //
spatial_merge_size // patch_size merged patches a side, the last windows of a row or column
ragged at the image's edge (transformers' get_vision_window_index).
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families import qwen_vl
from ffn_calc.families.base import Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Qwen2_5_VisionTransformerPretrainedModel"

# transformers 5.24.0 Qwen2_5_VLVisionConfig's defaults for the sizes a vision_config may leave out.
DEFAULTS: dict[str, int | None] = {
    "depth": 32,
    "hidden_size": 3584,
    "intermediate_size": 3420,
    "num_heads": 16,
    "in_channels": 3,
    "patch_size": 14,
    "spatial_merge_size": 2,
    "temporal_patch_size": 2,
    "window_size": 112,
    "out_hidden_size": 3584,
}


def tower(r: Reader, prefix: str) -> dict[str, Any]:
    """Tower fields, the merger included, for a Qwen2.5-VL vision_config."""
    return qwen_vl.tower(r, prefix, qwen_vl.QWEN2_5)


def naming(cfg: ModelConfig) -> Naming:
    return qwen_vl.VISION_NAMING_2_5
