"""Gemma 4's vision tower (`Gemma4VisionModel`, `model.vision_tower.`).

Before the layers, the patch embedder (`patch_embedder.`): each patch of patch_size x
patch_size pixels (3 channels) flattened through `input_proj` [d, 3 p^2] (a Linear without a
bias), plus the sum of two rows of `position_embedding_table` [2, position_embedding_size, d]
(its x and y positions: lookups, no matmul). `num_hidden_layers` layers as Gemma's decoder
layers (`encoder.layers.{i}.`): four RMSNorms of [d], Q, K, V, O without biases over
num_attention_heads / num_key_value_heads heads of head_dim, RMSNorms of [head_dim] on queries
and keys (the value norm has no weight), a gated MLP (hidden_activation, gelu_pytorch_tanh);
the linears sit under `.linear` (Gemma4ClippableLinear: its clipping bounds are buffers);
2-D rotary positions; bidirectional attention; no norm after the layers. The pooler averages
pooling_kernel_size^2 patches into one soft token and scales it (no parameter; with k > 1 one
matmul, [280, 280 k^2] x [280 k^2, d] per image: Tower.pooling_macs); the padding is dropped
and the soft tokens go through the projector.

An image: Gemma4ImageProcessor resizes it, keeping its aspect, to at most max_soft_tokens
(280) x k^2 patches with sides multiples of k x patch_size (k = pooling_kernel_size), and
pads the patches to 280 x k^2: a square image becomes 768 x 768 pixels (48 x 48 patches,
256 soft tokens) and the tower runs 2,520 patches.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.families.base import GATED_ACT, Reader
from ffn_calc.families.gemma2 import NAMING as GEMMA2_NAMING
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import Part

ARCHITECTURE = "Gemma4VisionModel"

# transformers 5.24.0 Gemma4VisionConfig's defaults for the sizes a vision_config may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 16,
    "hidden_size": 768,
    "num_attention_heads": 12,
    "intermediate_size": 3072,
    "patch_size": 16,
    "position_embedding_size": 10240,
}
# Gemma4ImageProcessor's max_soft_tokens: the patches per image are padded to this x k^2.
MAX_SOFT_TOKENS = 280

NAMING = Naming(
    layer="encoder.layers.{i}.",
    q="self_attn.q_proj.linear",
    k="self_attn.k_proj.linear",
    v="self_attn.v_proj.linear",
    o="self_attn.o_proj.linear",
    up="mlp.up_proj.linear",
    down="mlp.down_proj.linear",
    gate="mlp.gate_proj.linear",
    norms=GEMMA2_NAMING.norms,
    final_norm="encoder.norm",  # none: no norm after the layers
    tok="embed_tokens",  # none: vocab_size is None
    architecture="encoder-only",
)


def square_image(patch: int, k: int) -> tuple[int, int, int]:
    """(side in pixels, patches, soft tokens) of a square image as the processor resizes it:
    the largest side, a multiple of k x patch, whose patches fit MAX_SOFT_TOKENS x k^2."""
    per_side = 1
    while ((per_side + 1) * k) ** 2 <= MAX_SOFT_TOKENS * k * k:
        per_side += 1
    side = per_side * k * patch
    return side, (per_side * k) ** 2, per_side * per_side


def tower(r: Reader, prefix: str) -> dict[str, Any]:
    """Tower fields (without the projector) for a gemma4_vision vision_config."""
    d, p = r.req("hidden_size"), r.req("patch_size")
    heads = r.req("num_attention_heads")
    k = r.integer("pooling_kernel_size", 3)
    assert k is not None
    stack = {
        "name": "gemma4_vision tower",
        "family": "gemma4_vision",
        "architecture": "encoder-only",
        "n_layers": r.req("num_hidden_layers"),
        "d_model": d,
        "n_heads": heads,
        "n_kv_heads": r.integer("num_key_value_heads", 12),
        "head_dim": r.integer("head_dim", 64),
        "d_ff": r.req("intermediate_size"),
        "activation": r.choice("hidden_activation", GATED_ACT, "gelu_pytorch_tanh"),
        "norm": "rmsnorm",
        "layer_norms": 4,
        "qk_norm": "head",
        "final_norm": False,
        "positions": "rotary",
        "lm_head": False,
    }
    side, _patches, soft = square_image(p, k)
    tokens = MAX_SOFT_TOKENS * k * k  # padded
    parts = [
        Part(name=f"{prefix}patch_embedder.position_embedding_table", group="embedding",
             shape=[2, r.req("position_embedding_size"), d]),
        Part(name=f"{prefix}patch_embedder.input_proj.weight", group="embedding",
             shape=[d, 3 * p * p], macs=3 * p * p * d, per="token"),
    ]  # fmt: skip
    # The pooler averages k x k patches: a [tokens / k^2, tokens] matrix times the patches
    # [tokens, d] (none where k is 1: the patches are the soft tokens).
    pooling = (tokens // (k * k)) * tokens * d if k > 1 else 0
    return {
        "name": "vision",
        "family": "gemma4_vision",
        "prefix": prefix,
        "stack": stack,
        "parts": parts,
        "tokens": tokens,
        "output_tokens": soft,
        "image_size": [side, side],
        "pooling_macs": pooling,
    }


def naming(cfg: ModelConfig) -> Naming:
    return replace(NAMING)
