"""The vision encoder of Idefics3 and SmolVLM (`Idefics3VisionTransformer`,
`SmolVLMVisionTransformer`; vision_config model_type idefics3_vision or smolvlm_vision).

SigLIP's vision encoder without its pooling head (siglip_vision_model's stack and names):
LayerNorms with biases, Q, K, V and out_proj with biases, a plain FFN fc1 / fc2 with biases
(hidden_act, gelu_pytorch_tanh by default), post_layernorm after the layers; a Conv2d patch
embedding with a bias and a learned table of (image_size // patch_size)^2 positions. The two
model_types are the same class under two names (one module; the tower keeps its model_type).

An image is one tile of image_size x image_size pixels (the processor cuts larger images
into such tiles plus a downscaled whole: each counts as an image here), its patches through
the stack; the wrapper's connector shuffles them into fewer, wider tokens.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import Reader
from ffn_calc.families.siglip_vision_model import NAMING, square, stack_fields
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import conv_part

ARCHITECTURE = "Idefics3VisionTransformer"

# transformers 5.24.0 Idefics3VisionConfig's (and SmolVLMVisionConfig's, the same) defaults.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 12,
    "hidden_size": 1152,
    "num_attention_heads": 16,
    "intermediate_size": 3072,
    "num_channels": 3,
    "image_size": 224,
    "patch_size": 32,
}

KINDS = ("idefics3_vision", "smolvlm_vision")


def tower(r: Reader, prefix: str) -> dict[str, Any]:
    """Tower fields (without the connector) for an idefics3_vision or smolvlm_vision config."""
    kind = r.data.get("model_type")
    family = kind if kind in KINDS else KINDS[0]
    size, patch, patches = square(r)
    stack = stack_fields(r, family, patches, "gelu_pytorch_tanh")
    d, c = stack["d_model"], r.req("num_channels")
    return {
        "name": "vision",
        "family": family,
        "prefix": prefix,
        "stack": stack,
        "parts": conv_part(f"{prefix}embeddings.patch_embedding", d, c, patch, patches, True),
        "tokens": patches,
        "output_tokens": patches,
        "image_size": [size, size],
    }


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
