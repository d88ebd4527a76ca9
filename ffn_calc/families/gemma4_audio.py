"""Gemma 4's audio tower (`Gemma4AudioModel`, `model.audio_tower.`): a Conformer.

Before the layers (`subsample_conv_projection.`): two Conv2d of kernel 3 x 3, stride 2,
without biases (`layer0.conv` [c0, 1, 3, 3], `layer1.conv` [c1, c0, 3, 3];
subsampling_conv_channels, default 128, 32), each followed by a LayerNorm without a bias over
its channels (`layerN.norm`), then `input_proj_linear` [d, (c0 // 4) x c1]. After the layers:
`output_proj` [output_proj_dims, d] with a bias.

`num_hidden_layers` Conformer layers (`layers.{i}.`), every linear without a bias under
`.linear` (Gemma4ClippableLinear: its clipping bounds are buffers):
- two macaron FFNs (`feed_forward1.`, `feed_forward2.`): `ffw_layer_1` [4d, d],
  `ffw_layer_2` [d, 4d] (hidden_act, silu; plain), an RMSNorm before and after;
- attention (`self_attn.`): q_proj, k_proj, v_proj [d, d], `post` [d, d],
  `relative_k_proj` [d, d] (a plain Linear over the relative positions) and `per_dim_scale`
  [d // heads]; chunked local attention;
- a light convolution (`lconv1d.`): `linear_start` [2d, d] (a GLU), a depthwise causal
  Conv1d `depthwise_conv1d` [d, 1, conv_kernel_size], `linear_end` [d, d], RMSNorms
  `pre_layer_norm` and `conv_norm`;
- RMSNorms `norm_pre_attn`, `norm_post_attn`, `norm_out`.

Counted as a tower: its stack holds the attention's Q, K, V and post, the first FFN and seven
norms; the second FFN with its norms, relative_k_proj, per_dim_scale and the light convolution are
parts with a copy in each layer (`{i}`), the subsampling and output_proj parts outside the layers (groups:
the subsampling `embedding`, the convolution module and output_proj `ffn`). Its parameters
and tensor names are exact; its FLOPs are not counted (no audio runs through `flops`).
`tokens`: the processor's audio_seq_length, 750 tokens (30 s at 40 ms a token).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import PLAIN_ACT, Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import Part, PartGroup

ARCHITECTURE = "Gemma4AudioModel"

# transformers 5.24.0 Gemma4AudioConfig's defaults for the sizes an audio_config may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 12,
    "hidden_size": 1024,
    "num_attention_heads": 8,
    "conv_kernel_size": 5,
    "output_proj_dims": 1536,
}
# Gemma4Processor's audio_seq_length: the tokens of one clip (30 s at 40 ms a token).
AUDIO_TOKENS = 750

NORMS = (
    "norm_pre_attn",
    "norm_post_attn",
    "norm_out",
    "feed_forward1.pre_layer_norm",
    "feed_forward1.post_layer_norm",
    "lconv1d.pre_layer_norm",
    "lconv1d.conv_norm",
)

NAMING = Naming(
    layer="layers.{i}.",
    q="self_attn.q_proj.linear",
    k="self_attn.k_proj.linear",
    v="self_attn.v_proj.linear",
    o="self_attn.post.linear",
    up="feed_forward1.ffw_layer_1.linear",
    down="feed_forward1.ffw_layer_2.linear",
    gate="feed_forward1.gate",  # none: the FFN is plain
    norms={len(NORMS): NORMS},
    final_norm="norm",  # none: no norm after the layers
    tok="embed_tokens",  # none: vocab_size is None
    architecture="encoder-only",
)


def _channels(r: Reader) -> tuple[int, int]:
    value = r.data.get("subsampling_conv_channels", [128, 32])
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in value)
    ):
        raise ConfigError(
            _("{where}: {field} = {value}: expected two positive integers.").format(
                where=r.where("subsampling_conv_channels"),
                field="subsampling_conv_channels",
                value=shown(value),
            )
        )
    return value[0], value[1]


def tower(r: Reader, prefix: str) -> dict[str, Any]:
    """Tower fields (without the projector) for a gemma4_audio audio_config."""
    d, heads = r.req("hidden_size"), r.req("num_attention_heads")
    layers = r.req("num_hidden_layers")
    kernel, out_dims = r.req("conv_kernel_size"), r.req("output_proj_dims")
    c0, c1 = _channels(r)
    if d % heads or c0 < 4:
        raise ConfigError(
            _("{where}: hidden_size = {d} must be a multiple of num_attention_heads = {h}, and "
              "subsampling_conv_channels[0] at least 4.").format(where=r.origin, d=d, h=heads)
        )  # fmt: skip
    stack = {
        "name": "gemma4_audio tower",
        "family": "gemma4_audio",
        "architecture": "encoder-only",
        "n_layers": layers,
        "d_model": d,
        "n_heads": heads,
        "d_ff": 4 * d,
        "activation": r.choice("hidden_act", PLAIN_ACT, "silu"),
        "norm": "rmsnorm",
        "layer_norms": len(NORMS),
        "final_norm": False,
        "positions": "none",
        "lm_head": False,
    }
    p = prefix
    parts = [
        Part(name=f"{p}subsample_conv_projection.layer0.conv.weight", group="embedding",
             shape=[c0, 1, 3, 3]),
        Part(name=f"{p}subsample_conv_projection.layer0.norm.weight", group="norm", shape=[c0]),
        Part(name=f"{p}subsample_conv_projection.layer1.conv.weight", group="embedding",
             shape=[c1, c0, 3, 3]),
        Part(name=f"{p}subsample_conv_projection.layer1.norm.weight", group="norm", shape=[c1]),
        Part(name=f"{p}subsample_conv_projection.input_proj_linear.weight", group="embedding",
             shape=[d, (c0 // 4) * c1]),
    ]  # fmt: skip
    per_layer: list[tuple[str, PartGroup, list[int]]] = [
        ("feed_forward2.ffw_layer_1.linear.weight", "ffn", [4 * d, d]),
        ("feed_forward2.ffw_layer_2.linear.weight", "ffn", [d, 4 * d]),
        ("feed_forward2.pre_layer_norm.weight", "norm", [d]),
        ("feed_forward2.post_layer_norm.weight", "norm", [d]),
        ("self_attn.relative_k_proj.weight", "attention", [d, d]),
        ("self_attn.per_dim_scale", "attention", [d // heads]),
        ("lconv1d.linear_start.linear.weight", "ffn", [2 * d, d]),
        ("lconv1d.linear_end.linear.weight", "ffn", [d, d]),
        ("lconv1d.depthwise_conv1d.weight", "ffn", [d, 1, kernel]),
    ]
    parts += [
        Part(name=f"{p}layers.{{i}}.{n}", group=g, shape=s, layers=layers) for n, g, s in per_layer
    ]
    parts += [
        Part(name=f"{p}output_proj.weight", group="ffn", shape=[out_dims, d]),
        Part(name=f"{p}output_proj.bias", group="ffn", shape=[out_dims]),
    ]
    return {
        "name": "audio",
        "family": "gemma4_audio",
        "prefix": prefix,
        "stack": stack,
        "parts": parts,
        "tokens": AUDIO_TOKENS,
        "output_tokens": AUDIO_TOKENS,
    }


def output_width(tower: dict[str, Any]) -> int:
    """The width the tower gives its projector: output_proj's outputs."""
    shape: list[int] = next(x.shape for x in tower["parts"] if x.name.endswith("output_proj.bias"))
    return shape[0]


def naming(cfg: ModelConfig) -> Naming:
    return replace(NAMING)
