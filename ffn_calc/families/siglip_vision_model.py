"""SigLIP's vision encoder (`SiglipVisionModel`), a tower of multimodal wrappers (Gemma 3).

A pre-norm Transformer encoder: LayerNorm with biases (layer_norm1 / layer_norm2), Q, K, V and
out_proj with biases, a plain FFN fc1 / fc2 with biases (hidden_act, gelu_pytorch_tanh by
default), a LayerNorm after the layers (post_layernorm). Before the layers: a Conv2d patch
embedding with a bias (kernel = stride = patch_size) and a learned position table of one row
per patch, (image_size // patch_size)^2; no class token. With vision_use_head (the class
default; Gemma 3's released configs set it false) a multihead attention pooling head: a probe
[1, 1, d], torch's MultiheadAttention (in_proj [3d, d], out_proj), a LayerNorm and an MLP.

An image of image_size x image_size pixels runs the stack over its patches; the tower gives
every patch (a wrapper may pool them). `tower(r, prefix)` reads a vision_config into Tower
fields; the wrapper adds its projector.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import PLAIN_ACT, Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import Part, conv_part, linear_part, norm_part

ARCHITECTURE = "SiglipVisionModel"

# transformers 5.24.0 SiglipVisionConfig's defaults for the sizes a vision_config may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 12,
    "hidden_size": 768,
    "num_attention_heads": 12,
    "intermediate_size": 3072,
    "num_channels": 3,
    "image_size": 224,
    "patch_size": 16,
}

NAMING = Naming(
    layer="encoder.layers.{i}.",
    q="self_attn.q_proj",
    k="self_attn.k_proj",
    v="self_attn.v_proj",
    o="self_attn.out_proj",
    up="mlp.fc1",
    down="mlp.fc2",
    gate="mlp.gate_proj",  # none: the FFN is plain
    norm_attn="layer_norm1",
    norm_ffn="layer_norm2",
    final_norm="post_layernorm",
    tok="embeddings.token_embedding",  # none: vocab_size is None
    pos="embeddings.position_embedding",
    emb_norm="pre_layrnorm",
    architecture="encoder-only",
)


def stack_fields(
    r: Reader, family: str, positions: int, activation: str, table: dict[str, str] = PLAIN_ACT
) -> dict[str, Any]:
    """The encoder stack of a SigLIP- or CLIP-style vision tower: LayerNorms, biases on every
    projection, a plain FFN, a learned table of `positions` rows, no token table or head."""
    return {
        "name": f"{family} tower",
        "family": family,
        "architecture": "encoder-only",
        "n_layers": r.req("num_hidden_layers"),
        "d_model": r.req("hidden_size"),
        "n_heads": r.req("num_attention_heads"),
        "d_ff": r.req("intermediate_size"),
        "activation": r.choice("hidden_act", table, activation),
        "attention_bias": True,
        "ffn_bias": True,
        "norm": "layernorm",
        "final_norm": True,
        "positions": "learned",
        "max_positions": positions,
        "lm_head": False,
    }


def square(r: Reader) -> tuple[int, int, int]:
    """(image_size, patch_size, patches): the tower takes square images of image_size pixels
    and cuts (image_size // patch_size)^2 patches."""
    size, patch = r.req("image_size"), r.req("patch_size")
    side = size // patch
    if side == 0:
        from ffn_calc.errors import ConfigError
        from ffn_calc.i18n.translate import _

        raise ConfigError(
            _("{where}: patch_size = {patch} is larger than image_size = {size}.").format(
                where=r.where("patch_size"), patch=patch, size=size
            )
        )
    return size, patch, side * side


def tower(r: Reader, prefix: str) -> dict[str, Any]:
    """Tower fields (without the projector) for a siglip_vision_model vision_config."""
    size, patch, patches = square(r)
    stack = stack_fields(r, "siglip_vision_model", patches, "gelu_pytorch_tanh")
    d, f, c = stack["d_model"], stack["d_ff"], r.req("num_channels")
    parts = conv_part(f"{prefix}embeddings.patch_embedding", d, c, patch, patches, bias=True)
    if r.boolean("vision_use_head", True):
        parts += head_parts(f"{prefix}head", d, f, patches)
    return {
        "name": "vision",
        "family": "siglip_vision_model",
        "prefix": prefix,
        "stack": stack,
        "parts": parts,
        "tokens": patches,
        "output_tokens": patches,
        "image_size": [size, size],
    }


def head_parts(p: str, d: int, f: int, n: int) -> list[Part]:
    """SiglipMultiheadAttentionPoolingHead over n tokens: a probe query attends to them
    (torch's MultiheadAttention: the probe through Q, the tokens through K and V, both score
    matmuls, out_proj), then a LayerNorm and the MLP, on the one pooled row."""
    attention = d * d + n * 2 * d * d + 2 * n * d + d * d  # Q, K and V, QK^T and AV, out_proj
    return [
        Part(name=f"{p}.probe", group="attention", shape=[1, 1, d]),
        Part(name=f"{p}.attention.in_proj_weight", group="attention", shape=[3 * d, d],
             macs=attention - d * d),
        Part(name=f"{p}.attention.in_proj_bias", group="attention", shape=[3 * d]),
        *linear_part(f"{p}.attention.out_proj", d, d, 1, "attention", bias=True),
        *norm_part(f"{p}.layernorm", d, "norm", bias=True),
        *linear_part(f"{p}.mlp.fc1", d, f, 1, "ffn", bias=True),
        *linear_part(f"{p}.mlp.fc2", f, d, 1, "ffn", bias=True),
    ]  # fmt: skip


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
