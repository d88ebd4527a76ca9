"""Pixtral's vision encoder (`PixtralVisionModel`), the vision tower of Mistral 3.

A pre-norm Transformer encoder with RMSNorms (attention_norm / ffn_norm, weight only), Q, K,
V and o_proj without biases (head_dim = hidden_size // num_attention_heads), a gated FFN
(gate_proj, up_proj, down_proj, no biases; hidden_act, gelu by default) and no norm after the
layers. Before them: a Conv2d patch embedding without a bias (`patch_conv`, kernel = stride =
patch_size) and an RMSNorm (`ln_pre`). Positions are 2D rotary (no parameters, no table).

The tower takes images of any size up to image_size (its config's maximum, the rotary's
longest side): an H x W image gives (H // p) x (W // p) patches. The images of a forward run
through the stack as one sequence, attention masked block-diagonally per image (`packed`).
`tower(r, prefix)` reads a vision_config into Tower fields; the wrapper adds its projector.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import GATED_ACT, Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import Part

ARCHITECTURE = "PixtralVisionModel"

# transformers 5.24.0 PixtralVisionConfig's defaults for the sizes a vision_config may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 24,
    "hidden_size": 1024,
    "num_attention_heads": 16,
    "intermediate_size": 4096,
    "num_channels": 3,
    "image_size": 1024,
    "patch_size": 16,
}

NAMING = Naming(
    layer="transformer.layers.{i}.",
    q="attention.q_proj",
    k="attention.k_proj",
    v="attention.v_proj",
    o="attention.o_proj",
    up="feed_forward.up_proj",
    down="feed_forward.down_proj",
    gate="feed_forward.gate_proj",
    norm_attn="attention_norm",
    norm_ffn="ffn_norm",
    final_norm="ln_post",  # none: no norm after the layers
    tok="embed_tokens",  # none: vocab_size is None
    emb_norm="ln_pre",
    architecture="encoder-only",
)


def side(r: Reader, key: str) -> tuple[int, int]:
    """An int or [height, width] size (image_size, patch_size) as (height, width)."""
    value = r.data.get(key)
    if isinstance(value, list) and len(value) == 2 and all(type(x) is int and x > 0 for x in value):
        return value[0], value[1]
    if value is not None and not isinstance(value, int):
        raise ConfigError(
            _("{where}: {field} = {value}: expected an integer or [height, width].").format(
                where=r.where(key), field=key, value=shown(value)
            )
        )
    n = r.req(key)
    return n, n


def tower(r: Reader, prefix: str) -> dict[str, Any]:
    """Tower fields (without the projector) for a pixtral vision_config."""
    size = side(r, "image_size")
    ph, pw = side(r, "patch_size")
    if ph != pw:
        raise ConfigError(
            _("{where}: {field} = {value}: expected an integer or [height, width].").format(
                where=r.where("patch_size"), field="patch_size", value=shown([ph, pw])
            )
        )
    if size[0] < ph or size[1] < ph:
        raise ConfigError(
            _("{where}: patch_size = {patch} is larger than image_size = {size}.").format(
                where=r.where("patch_size"), patch=ph, size=shown(r.data.get("image_size"))
            )
        )
    d, c = r.req("hidden_size"), r.req("num_channels")
    heads = r.req("num_attention_heads")
    stack = {
        "name": "pixtral tower",
        "family": "pixtral",
        "architecture": "encoder-only",
        "n_layers": r.req("num_hidden_layers"),
        "d_model": d,
        "n_heads": heads,
        "head_dim": max(d // heads, 1),
        "d_ff": r.req("intermediate_size"),
        "activation": r.choice("hidden_act", GATED_ACT, "gelu"),
        "norm": "rmsnorm",
        "final_norm": False,
        "embedding_norm": True,  # ln_pre
        "positions": "rotary",
        "lm_head": False,
    }
    patches = (size[0] // ph) * (size[1] // ph)
    parts = [
        Part(name=f"{prefix}patch_conv.weight", group="embedding", shape=[d, c, ph, ph],
             macs=d * c * ph * ph, per="token"),
    ]  # fmt: skip
    return {
        "name": "vision",
        "family": "pixtral",
        "prefix": prefix,
        "stack": stack,
        "parts": parts,
        "tokens": patches,
        "output_tokens": patches,
        "image_size": list(size),
        "grid": {"patch": ph, "up_to": list(size)},
        "packed": True,
    }


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
