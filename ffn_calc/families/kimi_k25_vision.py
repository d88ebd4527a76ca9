"""Kimi K2.5's vision tower (`Kimi_K25VisionModel`, `model.vision_tower.`), a MoonViT.

Before the layers: a Conv2d patch embedding with a bias, `patch_embed.proj` [d, 3, p, p]
(kernel = stride = patch_size), and a learned grid `patch_embed.pos_emb.position_embeddings`
[pos_emb_height, pos_emb_width, d], bicubically resampled to each image's grid (a weighted
gather: no matmul; the time table is a buffer). `num_hidden_layers` layers (`layers.{i}.`):
LayerNorms with biases (norm1, norm2), Q, K, V and `attn.proj` with biases over
num_attention_heads heads of hidden_size / heads, a plain MLP with biases (mlp.fc1, mlp.fc2;
hidden_act, gelu_pytorch_tanh); 2-D rotary positions; each image attends over its own patches
(eager attention runs the images one by one); a LayerNorm after the layers
(`final_layernorm`). Then merge_kernel_size (2 x 2) patches are gathered into one token of the
language model (an index_add: no matmul).

An image of H x W pixels (multiples of patch_size x merge, as the processor resizes them) is
(H / p) x (W / p) patches through the layers and one token of the language model per merge^2
patches; the wrapper adds the projector (kimi_k25).
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import PLAIN_ACT, Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import Part

ARCHITECTURE = "Kimi_K25VisionModel"

# transformers 5.24.0 Kimi_K25VisionConfig's defaults for the sizes a vision_config may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 27,
    "hidden_size": 1152,
    "num_attention_heads": 16,
    "intermediate_size": 4304,
    "patch_size": 14,
    "pos_emb_height": 64,
    "pos_emb_width": 64,
}

NAMING = Naming(
    layer="layers.{i}.",
    q="attn.q_proj",
    k="attn.k_proj",
    v="attn.v_proj",
    o="attn.proj",
    up="mlp.fc1",
    down="mlp.fc2",
    gate="mlp.gate",  # none: the MLP is plain
    norm_attn="norm1",
    norm_ffn="norm2",
    final_norm="final_layernorm",
    tok="embed_tokens",  # none: vocab_size is None
    architecture="encoder-only",
)


def merge_kernel(r: Reader) -> tuple[int, int]:
    """merge_kernel_size: [height, width] patches merged into one token (default 2 x 2)."""
    value = r.data.get("merge_kernel_size", [2, 2])
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in value)
    ):
        raise ConfigError(
            _("{where}: {field} = {value}: expected two positive integers.").format(
                where=r.where("merge_kernel_size"), field="merge_kernel_size", value=shown(value)
            )
        )
    return value[0], value[1]


def tower(r: Reader, prefix: str) -> dict[str, Any]:
    """Tower fields (without the projector) for a kimi_k25_vision vision_config."""
    d, heads = r.req("hidden_size"), r.req("num_attention_heads")
    mh, mw = merge_kernel(r)
    if d % heads or mh != mw:
        raise ConfigError(
            _(
                "{where}: hidden_size = {d} must be a multiple of num_attention_heads = {h}, "
                "and merge_kernel_size square."
            ).format(where=r.origin, d=d, h=heads)
        )
    stack = {
        "name": "kimi_k25_vision tower",
        "family": "kimi_k25_vision",
        "architecture": "encoder-only",
        "n_layers": r.req("num_hidden_layers"),
        "d_model": d,
        "n_heads": heads,
        "d_ff": r.req("intermediate_size"),
        "activation": r.choice("hidden_act", PLAIN_ACT, "gelu_pytorch_tanh"),
        "attention_bias": True,
        "ffn_bias": True,
        "norm": "layernorm",
        "final_norm": True,
        "positions": "rotary",
        "lm_head": False,
    }
    p = r.req("patch_size")
    grid_shape = [r.req("pos_emb_height"), r.req("pos_emb_width"), d]
    # Per patch: the Conv2d, as FlopCounterMode counts a convolution (output x C x p x p).
    parts = [
        Part(name=f"{prefix}patch_embed.proj.weight", group="embedding", shape=[d, 3, p, p],
             macs=d * 3 * p * p, per="token"),
        Part(name=f"{prefix}patch_embed.proj.bias", group="embedding", shape=[d]),
        Part(name=f"{prefix}patch_embed.pos_emb.position_embeddings", group="embedding",
             shape=grid_shape),
    ]  # fmt: skip
    return {
        "name": "vision",
        "family": "kimi_k25_vision",
        "prefix": prefix,
        "stack": stack,
        "parts": parts,
        "tokens": mh * mh,
        "output_tokens": 1,
        "image_size": [p * mh, p * mh],
        "grid": {"patch": p, "merge": mh},
    }


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
