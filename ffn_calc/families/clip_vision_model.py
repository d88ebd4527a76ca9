"""CLIP's vision encoder (`CLIPVisionModel`), a tower of multimodal wrappers (LLaVA).

SigLIP's stack (siglip_vision_model: LayerNorms with biases, Q, K, V and out_proj with
biases, a plain FFN fc1 / fc2 with biases, post_layernorm after the layers) with a LayerNorm
before the layers (pre_layrnorm, spelled so in transformers) and a class token: a learned
class_embedding [d] goes before the patches, so the stack runs over patches + 1 tokens and the
position table has patches + 1 rows. The patch Conv2d has no bias. quick_gelu (the class
default) counts as gelu: an activation changes no count.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import PLAIN_ACT, Reader
from ffn_calc.families.siglip_vision_model import NAMING, square, stack_fields
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import Part, conv_part

ARCHITECTURE = "CLIPVisionModel"

# transformers 5.24.0 CLIPVisionConfig's defaults for the sizes a vision_config may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 12,
    "hidden_size": 768,
    "num_attention_heads": 12,
    "intermediate_size": 3072,
    "num_channels": 3,
    "image_size": 224,
    "patch_size": 32,
}

ACTIVATIONS = {**PLAIN_ACT, "quick_gelu": "gelu"}


def tower(r: Reader, prefix: str) -> dict[str, Any]:
    """Tower fields (without the projector) for a clip_vision_model vision_config."""
    size, patch, patches = square(r)
    stack = stack_fields(r, "clip_vision_model", patches + 1, "quick_gelu", ACTIVATIONS)
    stack["embedding_norm"] = True  # pre_layrnorm
    d, c = stack["d_model"], r.req("num_channels")
    parts = [Part(name=f"{prefix}embeddings.class_embedding", group="embedding", shape=[d])]
    parts += conv_part(f"{prefix}embeddings.patch_embedding", d, c, patch, patches, bias=False)
    return {
        "name": "vision",
        "family": "clip_vision_model",
        "prefix": prefix,
        "stack": stack,
        "parts": parts,
        "tokens": patches + 1,
        "output_tokens": patches,  # the patches; a wrapper that keeps the class token says so
        "image_size": [size, size],
    }


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
