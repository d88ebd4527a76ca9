"""Gemma 3n's audio encoder (`Gemma3nAudioEncoder`), a tower of Gemma 3n: a subsampling
convolution front end and a stack of Conformer blocks.

The stack (conformer.{i}), with d = hidden_size, h = conf_num_attention_heads, head_dim =
d // h, all without biases, all norms RMSNorms of [d] with a weight: a macaron FFN before
attention (ffw_layer_start: pre_layer_norm, ffw_layer_1 [4d, d], ffw_layer_2 [d, 4d],
post_layer_norm), attention (pre_attn_norm, attn.q_proj / k_proj / v_proj [d, d], attn.per_dim_scale
[head_dim], attn.relative_position_embedding.pos_proj [d, d], post [d, d], post_norm), the
light convolution module (lconv1d: pre_layer_norm, linear_start [2d, d], depthwise_conv1d
[d, 1, conf_conv_kernel_size], conv_norm, linear_end [d, d]), a second FFN (ffw_layer_end)
and a norm: nine norms per layer. Counted as a stack of encoder layers: Q, K, V and O
(`post`), one plain FFN (ffw_layer_start), eight of the norms, and the rest of each layer as
layer_parts (the block's last norm; the second FFN in ffn; per_dim_scale, pos_proj and the
convolution module in attention, the token mixers).

Outside the layers (parts, under model.audio_tower.): subsample_conv_projection's two Conv2d
without bias (conv_0 [c0, 1, kh, kw], conv_1 [c1, c0, kh, kw]), each with a cumulative group
norm of a [channels] weight, and input_proj_linear [d, c1 x f] where f is input_feat_size
after both convolutions (padded by 1 on each side of the frequency axis: f -> (f + 2 - kw)
// sw + 1).

Parameters only: the Conformer's chunked local attention, its relative position terms and
the convolutions are not modelled as FLOPs (ffn-calc runs no audio through the tower).
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.limits import MAX_SIZE
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import Part

ARCHITECTURE = "Gemma3nAudioEncoder"

# transformers 5.24.0 Gemma3nAudioConfig's defaults for the sizes an audio_config may leave out.
DEFAULTS: dict[str, int | None] = {
    "hidden_size": 1536,
    "conf_num_hidden_layers": 12,
    "conf_num_attention_heads": 8,
    "conf_conv_kernel_size": 5,
    "input_feat_size": 128,
    "vocab_size": 128,
}

NORMS = (
    "ffw_layer_start.pre_layer_norm",
    "ffw_layer_start.post_layer_norm",
    "attention.pre_attn_norm",
    "attention.post_norm",
    "lconv1d.pre_layer_norm",
    "lconv1d.conv_norm",
    "ffw_layer_end.pre_layer_norm",
    "ffw_layer_end.post_layer_norm",
)

NAMING = Naming(
    layer="conformer.{i}.",
    q="attention.attn.q_proj",
    k="attention.attn.k_proj",
    v="attention.attn.v_proj",
    o="attention.post",
    up="ffw_layer_start.ffw_layer_1",
    down="ffw_layer_start.ffw_layer_2",
    gate="ffw_layer_start.gate",  # none: the FFN is plain
    norms={len(NORMS): NORMS},
    final_norm="final_norm",  # none: final_norm is false
    tok="embed_tokens",  # none: vocab_size is None
    architecture="encoder-only",
)


def _sizes(r: Reader, key: str, default: list[Any], depth: int) -> list[Any]:
    """A list of positive integers (depth 1) or of [height, width] pairs (depth 2), at least
    two long (the front end reads the first two)."""
    value = r.data.get(key)
    if value is None:
        return default

    def size(x: Any) -> bool:
        return isinstance(x, int) and not isinstance(x, bool) and 0 < x <= MAX_SIZE

    ok = isinstance(value, list) and len(value) >= 2
    if ok and depth == 1:
        ok = all(size(x) for x in value[:2])
    elif ok:
        ok = all(isinstance(x, list) and len(x) == 2 and all(size(y) for y in x) for x in value[:2])
    if not ok:
        raise ConfigError(
            _("{where}: {field} = {value}: expected two sizes (one per convolution).").format(
                where=r.where(key), field=key, value=shown(value)
            )
        )
    return list(value)


def front_end(r: Reader, prefix: str, d: int) -> list[Part]:
    """subsample_conv_projection: two convolutions with their norms, then input_proj_linear."""
    channels = _sizes(r, "sscp_conv_channel_size", [128, 32], 1)
    kernels = _sizes(r, "sscp_conv_kernel_size", [[3, 3], [3, 3]], 2)
    strides = _sizes(r, "sscp_conv_stride_size", [[2, 2], [2, 2]], 2)
    f = r.req("input_feat_size")
    p = f"{prefix}subsample_conv_projection."
    out: list[Part] = []
    c_in = 1
    for i in range(2):
        (kh, kw), sw, c = kernels[i], strides[i][1], channels[i]
        f = (f + 2 - kw) // sw + 1  # the frequency axis, padded by 1 on each side
        if f <= 0:
            raise ConfigError(
                _(
                    "{where}: the frequency axis has no positions left after convolution "
                    "{index} (input_feat_size too small for its kernel)."
                ).format(where=r.where("sscp_conv_kernel_size"), index=i)
            )
        out += [
            Part(name=f"{p}conv_{i}.conv.weight", group="embedding", shape=[c, c_in, kh, kw]),
            Part(name=f"{p}conv_{i}.norm.weight", group="norm", shape=[c]),
        ]
        c_in = c
    out.append(Part(name=f"{p}input_proj_linear.weight", group="embedding", shape=[d, c_in * f]))
    return out


def layer_parts(d: int, head_dim: int, kernel: int) -> list[Part]:
    """What a Conformer block has beyond Q, K, V, O, one FFN and its norms."""
    return [
        Part(name="norm.weight", group="norm", shape=[d]),
        Part(name="ffw_layer_end.ffw_layer_1.weight", group="ffn", shape=[4 * d, d]),
        Part(name="ffw_layer_end.ffw_layer_2.weight", group="ffn", shape=[d, 4 * d]),
        Part(name="attention.attn.per_dim_scale", group="attention", shape=[head_dim]),
        Part(name="attention.attn.relative_position_embedding.pos_proj.weight",
             group="attention", shape=[d, d]),
        Part(name="lconv1d.linear_start.weight", group="attention", shape=[2 * d, d]),
        Part(name="lconv1d.depthwise_conv1d.weight", group="attention", shape=[d, 1, kernel]),
        Part(name="lconv1d.linear_end.weight", group="attention", shape=[d, d]),
    ]  # fmt: skip


def tower(r: Reader, prefix: str) -> dict[str, Any]:
    """Tower fields (without the projector) for a gemma3n_audio audio_config; the wrapper
    sets the tokens it gives the language model (audio_soft_tokens_per_image)."""
    d, h = r.req("hidden_size"), r.req("conf_num_attention_heads")
    if d % h:  # q_proj [h x (d // h), d] would not give `post` its d inputs
        raise ConfigError(
            _(
                "{where}: hidden_size = {d} is not a multiple of conf_num_attention_heads = "
                "{h}: the encoder's attention output would not match its projection."
            ).format(where=r.where("hidden_size"), d=d, h=h)
        )
    kernel = r.req("conf_conv_kernel_size")
    stack = {
        "name": "gemma3n_audio tower",
        "family": "gemma3n_audio",
        "architecture": "encoder-only",
        "n_layers": r.req("conf_num_hidden_layers"),
        "d_model": d,
        "n_heads": h,
        "d_ff": 4 * d,
        "activation": "silu",
        "norm": "rmsnorm",
        "final_norm": False,
        "positions": "none",
        "lm_head": False,
        "layer_norms": len(NORMS),
        "layer_parts": layer_parts(d, d // h, kernel),
    }
    return {
        "name": "audio",
        "family": "gemma3n_audio",
        "prefix": prefix,
        "stack": stack,
        "parts": front_end(r, prefix, d),
        "tokens": 1,
        "output_tokens": 1,
    }


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
