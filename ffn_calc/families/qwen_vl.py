"""What the Qwen vision-language wrappers share (qwen2_5_vl, qwen3_vl, qwen3_vl_moe): their
language model read from text_config (Qwen2.5-VL: or the top level), and their vision tower,
whose differences are data (`VisionVariant`): the MLP, the norms, the conv's bias, a learned
position table, the windows, the deepstack mergers, the merger's module names.

An image of H x W pixels (each a multiple of patch_size x spatial_merge_size, as the
processor resizes it) is (H / p) x (W / p) patches through the tower's blocks, and one token
of the language model per spatial_merge_size^2 patches (the merger).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import (
    GATED_ACT,
    LLAMA_NAMING,
    PLAIN_ACT,
    Reader,
    merge_defaults,
    sub_reader,
)
from ffn_calc.families.tensor_names import Naming
from ffn_calc.families.wrappers import wrapped
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.towers import Part, linear_part, norm_part

LANGUAGE_MODEL = "model.language_model."
VISUAL = "model.visual."


@dataclass(frozen=True)
class VisionVariant:
    """One Qwen vision tower's layout, as data."""

    family: str  # the tower's model_type (its module in families/)
    activation: str  # hidden_act's default
    gated: bool  # a gated MLP (gate_proj, up_proj, down_proj) or a plain one (linear_fc1/2)
    norm: str  # the blocks' norms: rmsnorm (weight) or layernorm (weight and bias)
    conv_bias: bool  # patch_embed.proj has a bias
    position_table: bool  # a learned pos_embed [num_position_embeddings, d]
    windows: bool  # window_size and fullatt_block_indexes: windowed blocks
    deepstack: bool  # deepstack_visual_indexes: one extra merger per index
    merger_norm: str  # the merger's norm: its name
    merger_fc1: str
    merger_fc2: str
    full_blocks: tuple[int, ...] = ()  # fullatt_block_indexes' default
    deepstack_blocks: tuple[int, ...] = ()  # deepstack_visual_indexes' default


QWEN2_5 = VisionVariant(
    family="qwen2_5_vl_vision", activation="silu", gated=True, norm="rmsnorm",
    conv_bias=False, position_table=False, windows=True, deepstack=False,
    merger_norm="merger.ln_q", merger_fc1="merger.mlp.0", merger_fc2="merger.mlp.2",
    full_blocks=(7, 15, 23, 31),
)  # fmt: skip
QWEN3 = VisionVariant(
    family="qwen3_vl_vision", activation="gelu_pytorch_tanh", gated=False, norm="layernorm",
    conv_bias=True, position_table=True, windows=False, deepstack=True,
    merger_norm="merger.norm", merger_fc1="merger.linear_fc1", merger_fc2="merger.linear_fc2",
    deepstack_blocks=(8, 16, 24),
)  # fmt: skip

_VISION_BASE = Naming(
    layer="blocks.{i}.",
    q="attn.q",  # none: fused in attn.qkv
    k="attn.k",
    v="attn.v",
    o="attn.proj",
    up="mlp.up_proj",
    down="mlp.down_proj",
    gate="mlp.gate_proj",
    norm_attn="norm1",
    norm_ffn="norm2",
    final_norm="norm",  # none: no norm after the blocks
    tok="embed_tokens",  # none: no token table
    fused_qkv="attn.qkv",
    architecture="encoder-only",
)
VISION_NAMING_2_5 = _VISION_BASE
VISION_NAMING_3 = replace(_VISION_BASE, up="mlp.linear_fc1", down="mlp.linear_fc2")

# The language model: Llama's names under model.language_model., the head at the top.
TEXT_NAMING = wrapped(LLAMA_NAMING, LANGUAGE_MODEL)
# Qwen2.5-VL's checkpoints (the Hub's, and save_pretrained's in transformers 5.24) keep the
# names from before the language model moved: `model.layers.`, `visual.` (transformers renames
# them on load and back on save).
LEGACY_NAMING = replace(
    TEXT_NAMING,
    renames={
        "visual.": VISUAL,
        "model.layers.": f"{LANGUAGE_MODEL}layers.",
        "model.embed_tokens.": f"{LANGUAGE_MODEL}embed_tokens.",
        "model.norm.": f"{LANGUAGE_MODEL}norm.",
    },
)


# --- the language model ---------------------------------------------------------------------


def text_reader(r: Reader, defaults: dict[str, int | None], *, flat: bool = False) -> Reader:
    """A reader of the language model's fields: text_config over the text class's `defaults`
    (absent or null: the defaults alone), or with `flat` the wrapper's own top level."""
    if flat:
        return Reader(r.data, r.origin, r.text, defaults)
    return sub_reader(r, "text_config", defaults)


def note_defaults(r: Reader, t: Reader) -> None:
    """The defaults the language model took, noted in the wrapper's reader."""
    if t.data is r.data:
        r.defaults.update(t.defaults)
    else:
        merge_defaults(r, t, "text_config")


def check_head_split(t: Reader, d: int, heads: int) -> None:
    """Qwen2_5_VLAttention splits hidden_size over the heads, and refuses a remainder."""
    if d % heads:
        raise ConfigError(
            _(
                "{where}: hidden_size = {d} must be a multiple of num_attention_heads = {h}: "
                "the attention splits it over the heads."
            ).format(where=t.where("hidden_size"), d=d, h=heads)
        )


# --- the vision tower -----------------------------------------------------------------------


def _indices(r: Reader, key: str, default: tuple[int, ...]) -> list[int]:
    """A list of block indices (absent or null: the class default)."""
    value = r.data.get(key)
    if value is None:
        return list(default)
    if not isinstance(value, list) or any(type(i) is not int for i in value):
        raise ConfigError(
            _("{where}: {field} = {value}: expected a list of layer indices.").format(
                where=r.where(key), field=key, value=shown(value)
            )
        )
    return value


def tower(r: Reader, prefix: str, v: VisionVariant) -> dict[str, Any]:
    """Tower fields for a Qwen vision_config: the blocks as a stack, the patch embedding, the
    position table and the mergers as parts (the mergers: the projector)."""
    depth, d = r.req("depth"), r.req("hidden_size")
    heads, f = r.req("num_heads"), r.req("intermediate_size")
    if d % heads:
        raise ConfigError(
            _(
                "{where}: hidden_size = {d} must be a multiple of num_heads = {h}: the vision "
                "attention splits its fused qkv over the heads."
            ).format(where=r.where("hidden_size"), d=d, h=heads)
        )
    table = GATED_ACT if v.gated else PLAIN_ACT
    stack = {
        "name": f"{v.family} tower",
        "family": v.family,
        "architecture": "encoder-only",
        "n_layers": depth,
        "d_model": d,
        "n_heads": heads,
        "d_ff": f,
        "activation": r.choice("hidden_act", table, v.activation),
        "attention_bias": True,
        "ffn_bias": True,
        "norm": v.norm,
        "final_norm": False,
        "positions": "rotary",
        "lm_head": False,
    }
    c, t, p = r.req("in_channels"), r.req("temporal_patch_size"), r.req("patch_size")
    m, out = r.req("spatial_merge_size"), r.req("out_hidden_size")
    wide = m * m * d
    bias = v.norm == "layernorm"
    # Per patch: the Conv3d, as FlopCounterMode counts a convolution (output x C x t x p x p).
    parts = [
        Part(name=f"{prefix}patch_embed.proj.weight", group="embedding", shape=[d, c, t, p, p],
             macs=d * c * t * p * p, per="token"),
    ]  # fmt: skip
    if v.conv_bias:
        parts.append(Part(name=f"{prefix}patch_embed.proj.bias", group="embedding", shape=[d]))
    if v.position_table:
        rows = r.req("num_position_embeddings")
        parts.append(Part(name=f"{prefix}pos_embed.weight", group="embedding", shape=[rows, d]))
    # Per merged token (the language model's): the merger's two Linear layers.
    parts += merger(prefix, v.merger_norm, v.merger_fc1, v.merger_fc2, d, wide, out, bias, True)
    grid: dict[str, Any] = {"patch": p, "merge": m}  # the smallest image: one merged token
    if v.deepstack:
        indexes = _indices(r, "deepstack_visual_indexes", v.deepstack_blocks)
        # Block l runs merger indexes.index(l): the first entry naming a block runs.
        ran = {indexes.index(i) for i in range(depth) if i in indexes}
        for j in range(len(indexes)):
            base = f"deepstack_merger_list.{j}."
            parts += merger(
                prefix, base + "norm", base + "linear_fc1", base + "linear_fc2",
                wide, wide, out, True, j in ran,
            )  # fmt: skip
    if v.windows:
        full = set(_indices(r, "fullatt_block_indexes", v.full_blocks))
        grid["window"] = r.req("window_size") // m // p  # merged patches a side (0: none fit)
        grid["window_layers"] = [i for i in range(depth) if i not in full]
    return {
        "name": "vision",
        "family": v.family,
        "prefix": prefix,
        "stack": stack,
        "parts": parts,
        "tokens": m * m,
        "output_tokens": 1,
        "image_size": [p * m, p * m],
        "grid": grid,
    }


def merger(
    prefix: str, norm: str, fc1: str, fc2: str, width: int, wide: int, out: int, bias: bool,
    runs: bool,
) -> list[Part]:  # fmt: skip
    """A patch merger: a norm over `width` (d, or the m^2 d concatenation), Linear(m^2 d,
    m^2 d) with a bias, the GELU, Linear(m^2 d, out) with a bias, per merged token (none if
    it never `runs`)."""
    rows = 1 if runs else 0
    return [
        *norm_part(f"{prefix}{norm}", width, "projector", bias=bias),
        *_per_token(linear_part(f"{prefix}{fc1}", wide, wide, rows, "projector", bias=True)),
        *_per_token(linear_part(f"{prefix}{fc2}", wide, out, rows, "projector", bias=True)),
    ]


def _per_token(parts: list[Part]) -> list[Part]:
    """Parts whose multiply-adds are per token given to the language model."""
    return [p.model_copy(update={"per": "output_token"}) for p in parts]


def vision_tower(r: Reader, module: Any) -> dict[str, Any]:
    """The wrapper's vision tower from vision_config (absent or null: the vision class's
    defaults), read by its tower `module` under model.visual.; the class builds its own
    vision config whatever vision_config's model_type says."""
    sub = sub_reader(r, "vision_config", module.DEFAULTS)
    out: dict[str, Any] = module.tower(sub, VISUAL)
    merge_defaults(r, sub, "vision_config")
    return out
