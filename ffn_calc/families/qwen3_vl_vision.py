"""Qwen3-VL's vision tower (`Qwen3VLVisionModel`, `model.visual.`; Qwen3-VL-MoE's is the same).

Before the blocks: a Conv3d patch embedding with a bias, `patch_embed.proj` [d, C,
temporal_patch_size, p, p] (kernel = stride; an image is its patches repeated over
temporal_patch_size frames), and a learned table `pos_embed` [num_position_embeddings, d],
bilinearly resampled to each image's grid (lookups and weighted sums: no matmul). `depth`
blocks: two LayerNorms of [d] with biases (norm1, norm2), a fused `attn.qkv` [3d, d] and
`attn.proj` [d, d], both with biases, a plain MLP with biases (mlp.linear_fc1
[intermediate_size, d], linear_fc2; hidden_act, gelu_pytorch_tanh by default); 2-D rotary
positions; every block attends over the whole image; no norm after the blocks.

The merger (`merger.`): a LayerNorm of [d], then over each spatial_merge_size^2 patches
concatenated (m^2 d wide) `linear_fc1` [m^2 d, m^2 d] and `linear_fc2` [out_hidden_size,
m^2 d], both with biases. The deepstack mergers (`deepstack_merger_list.{j}.`, one per entry
of deepstack_visual_indexes, default 8, 16, 24): the same, their LayerNorm over the m^2 d
concatenation; merger j runs on the output of block deepstack_visual_indexes[j] (an index no
block has, or a repeated one, leaves its merger idle) and its tokens are added to the
language model's hidden states at the image's positions after its first layers (adds: no
matmul).
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families import qwen_vl
from ffn_calc.families.base import Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Qwen3VLVisionModel"

# transformers 5.24.0 Qwen3VLVisionConfig's defaults (Qwen3VLMoeVisionConfig's are the same).
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


def tower(r: Reader, prefix: str) -> dict[str, Any]:
    """Tower fields, the mergers included, for a Qwen3-VL vision_config."""
    return qwen_vl.tower(r, prefix, qwen_vl.QWEN3)


def naming(cfg: ModelConfig) -> Naming:
    return qwen_vl.VISION_NAMING_3
