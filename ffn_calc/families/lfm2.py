"""LFM2 (`Lfm2ForCausalLM`): gated short convolutions in most layers, GQA attention in the
others (layer_types "conv" / "full_attention"), a gated FFN in every layer.

A convolution layer's mixer (`conv.`): in_proj [3 d, d], a depthwise conv [d, 1, conv_L_cache],
out_proj [d, d], all with biases when conv_bias is set (counts.mixers.short_conv). An
attention layer: q/k/v_proj, `self_attn.out_proj`, RMSNorms of [head_dim] on the queries and
keys (q_layernorm, k_layernorm), no biases, rotary positions. Every layer: `operator_norm`
before the mixer, `ffn_norm` before the FFN (`feed_forward.w1` gate, `w3` up, `w2` down, no
biases, SiLU). `model.embedding_norm` is the final norm, after the last layer; the head is
tied by default (tie_word_embeddings, or the older `tie_embedding`).

The FFN width: with block_auto_adjust_ff_dim (default true) Lfm2MLP takes
int(2 x intermediate_size / 3), then int(block_ffn_dim_multiplier x that) rounded up to a multiple of block_multiple_of (the class's float
arithmetic, reproduced; the 5.24 config class refuses a null multiplier, read here as absent). `block_ff_dim` is an older name of intermediate_size.
Without layer_types, the layers in full_attn_idxs attend (absent: every layer).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import LLAMA_NAMING, Reader, check_listed, decoder, layer_types
from ffn_calc.families.tensor_names import Naming
from ffn_calc.i18n.translate import _, shown
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Lfm2ForCausalLM"

# transformers 5.24.0 Lfm2Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 32,
    "hidden_size": 2560,
    "num_attention_heads": 32,
    "intermediate_size": 12288,
    "vocab_size": 65536,
}


# The layer types Lfm2DecoderLayer builds: "conv", or attention (its mask mapping knows only
# "full_attention").
TYPES = ("full_attention", "conv")


def ffn_width(r: Reader) -> int:
    """Lfm2MLP's intermediate size (its own arithmetic, floats included)."""
    # block_ff_dim: read only when given (an older name, no default of its own).
    old = r.data.get("block_ff_dim") is not None
    width = r.req("block_ff_dim") if old else r.req("intermediate_size")
    if not r.boolean("block_auto_adjust_ff_dim", True):
        return width
    width = int(2 * width / 3)
    width = int(r.number("block_ffn_dim_multiplier", 1.0) * width)
    multiple = r.integer("block_multiple_of", 256)
    assert multiple is not None
    return multiple * ((width + multiple - 1) // multiple)


def _attention_layers(r: Reader, layers: int) -> list[bool]:
    key = "full_attn_idxs"
    idxs: Any = r.data.get(key)
    if idxs is None:
        idxs = list(range(layers))
    if not isinstance(idxs, list) or any(
        isinstance(i, bool) or not isinstance(i, int) for i in idxs
    ):
        raise ConfigError(
            _("{where}: {field} = {value}: expected a list of layer indices.").format(
                where=r.where(key), field=key, value=shown(idxs)
            )
        )
    default = ["full_attention" if i in idxs else "conv" for i in range(layers)]
    types = layer_types(r, layers, default, TYPES)
    return [t != "conv" for t in types]


def fields(r: Reader) -> dict[str, Any]:
    layers = check_listed(r, "num_hidden_layers", r.req("num_hidden_layers"))
    return common(r, "lfm2", layers, _attention_layers(r, layers), d_ff=ffn_width(r))


def common(
    r: Reader, family: str, layers: int, attends: list[bool], **fixed: Any
) -> dict[str, Any]:
    """The fields LFM2 and LFM2-MoE share: the layers' mixers, the attention, the head."""
    tie = r.boolean("tie_word_embeddings", True)
    if r.data.get("tie_embedding") is not None:  # the older name wins, as __post_init__ reads
        tie = r.boolean("tie_embedding", tie)
    d, heads = r.req("hidden_size"), r.req("num_attention_heads")
    head_dim = r.opt("head_dim")
    if head_dim is None and d % heads:  # the class floors hidden_size / heads
        head_dim = d // heads
    return decoder(
        r,
        family,
        n_layers=layers,
        n_heads=heads,
        head_dim=head_dim,
        n_kv_heads=r.integer("num_key_value_heads", 8),
        activation="swiglu",
        tie_embeddings=tie,
        qk_norm="head",
        layer_norms=2,
        layer_mixers=["full" if a else "short_conv" for a in attends],
        short_conv={
            "conv_kernel": r.integer("conv_L_cache", 3),
            "bias": r.boolean("conv_bias", False),
        },
        **fixed,
    )


NAMING = replace(
    LLAMA_NAMING,
    o="self_attn.out_proj",
    q_norm="self_attn.q_layernorm",
    k_norm="self_attn.k_layernorm",
    up="feed_forward.w3",
    down="feed_forward.w2",
    gate="feed_forward.w1",
    norm_attn="operator_norm",
    norm_ffn="ffn_norm",
    final_norm="model.embedding_norm",
    mixer="conv.",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
