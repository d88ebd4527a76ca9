"""Llama 4's vision encoder (`Llama4VisionModel`), the vision tower of
Llama4ForConditionalGeneration (vision_config model_type llama4_vision_model).

A pre-norm Transformer encoder: LayerNorms with biases (input_layernorm /
post_attention_layernorm), Q, K, V and o_proj with biases (head_dim = hidden_size //
num_attention_heads), a plain FFN fc1 / fc2 with biases (hidden_act, gelu), 2D rotary
positions in the attention (no parameters). Before the layers: the patch embedding, an
unfold and a Linear [hidden, C x p x p] without a bias (`patch_embedding.linear`), a class
embedding [hidden] appended after the patches, a learned table `positional_embedding_vlm`
[(image_size // p)^2 + 1, hidden] added to every token, and `layernorm_pre`; after them
`layernorm_post`, the class token dropped, and the `vision_adapter`: a pixel shuffle by
pixel_shuffle_ratio (a reshape: ratio^2 x patches tokens of hidden / ratio^2 features) and a
two-layer MLP without biases, mlp.fc1 [projector_input_dim, intermediate_size] and mlp.fc2
[projector_output_dim, projector_output_dim] (GELU after each). These are all the tower's.

An image (a tile of image_size x image_size; the processor's tiles and its global view are
images here) runs (image_size // p)^2 + 1 tokens through the stack and gives
(side x ratio)^2 tokens. `tower(r, prefix)` reads a vision_config into Tower fields.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import PLAIN_ACT, Reader
from ffn_calc.families.siglip_vision_model import square
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import Part, linear_part

ARCHITECTURE = "Llama4VisionModel"

# transformers 5.24.0 Llama4VisionConfig's defaults for the sizes a vision_config may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 34,
    "hidden_size": 768,
    "num_attention_heads": 16,
    "intermediate_size": 5632,
    "num_channels": 3,
    "image_size": 448,
    "patch_size": 14,
    "vision_output_dim": 7680,
    "projector_input_dim": 4096,
    "projector_output_dim": 4096,
}

NAMING = Naming(
    layer="model.layers.{i}.",
    q="self_attn.q_proj",
    k="self_attn.k_proj",
    v="self_attn.v_proj",
    o="self_attn.o_proj",
    up="mlp.fc1",
    down="mlp.fc2",
    gate="mlp.gate_proj",  # none: the FFN is plain
    norm_attn="input_layernorm",
    norm_ffn="post_attention_layernorm",
    final_norm="layernorm_post",
    tok="embed_tokens",  # none: vocab_size is None
    emb_norm="layernorm_pre",
    architecture="encoder-only",
)


def shuffled(r: Reader, patches: int) -> int:
    """Tokens per image after the pixel shuffle: (int(side x ratio))^2 of side^2 patches."""
    value = r.data.get("pixel_shuffle_ratio", 0.5)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise ConfigError(
            _("{where}: {field} = {value}: expected a number in (0, 1].").format(
                where=r.where("pixel_shuffle_ratio"), field="pixel_shuffle_ratio",
                value=shown(value),
            )
        )  # fmt: skip
    side = round(patches**0.5)
    return max(int(side * Fraction(str(value))) ** 2, 1)


def tower(r: Reader, prefix: str) -> dict[str, Any]:
    """Tower fields (without the projector) for a llama4_vision_model vision_config."""
    size, patch, patches = square(r)
    d, c, f = r.req("hidden_size"), r.req("num_channels"), r.req("intermediate_size")
    heads = r.req("num_attention_heads")
    stack = {
        "name": "llama4_vision_model tower",
        "family": "llama4_vision_model",
        "architecture": "encoder-only",
        "n_layers": r.req("num_hidden_layers"),
        "d_model": d,
        "n_heads": heads,
        "head_dim": max(d // heads, 1),
        "d_ff": f,
        "activation": r.choice("hidden_act", PLAIN_ACT, "gelu"),
        "attention_bias": True,
        "ffn_bias": True,
        "norm": "layernorm",
        "final_norm": True,  # layernorm_post
        "embedding_norm": True,  # layernorm_pre
        "positions": "rotary",
        "lm_head": False,
    }
    rows = shuffled(r, patches)
    p_in, p_out = r.req("projector_input_dim"), r.req("projector_output_dim")
    cpp = c * patch * patch
    parts = [
        Part(name=f"{prefix}class_embedding", group="embedding", shape=[d]),
        Part(name=f"{prefix}positional_embedding_vlm", group="embedding", shape=[patches + 1, d]),
        *linear_part(f"{prefix}patch_embedding.linear", cpp, d, patches, "embedding", False),
        *linear_part(f"{prefix}vision_adapter.mlp.fc1", f, p_in, rows, "ffn", False),
        *linear_part(f"{prefix}vision_adapter.mlp.fc2", p_out, p_out, rows, "ffn", False),
    ]
    return {
        "name": "vision",
        "family": "llama4_vision_model",
        "prefix": prefix,
        "stack": stack,
        "parts": parts,
        "tokens": patches + 1,
        "output_tokens": rows,
        "image_size": [size, size],
    }


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
