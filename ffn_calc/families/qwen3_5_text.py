"""Qwen3.5 text (`Qwen3_5ForCausalLM`, model_type qwen3_5_text): Qwen3-Next's hybrid of gated
DeltaNet and gated attention layers with a dense SwiGLU MLP in every layer.

`layer_types` names each layer's token mixer as in qwen3_next ("linear_attention": a gated
DeltaNet under `linear_attn.`; "full_attention": `self_attn.`; absent, every
full_attention_interval-th layer, default 4, attends). The gated DeltaNet is Qwen3-Next's with
its input projections split (Qwen3_5GatedDeltaNet): in_proj_qkv [2 key_dim + value_dim,
d_model], in_proj_z [value_dim, d_model], in_proj_b and in_proj_a [linear_num_value_heads,
d_model] (GatedDeltaNetConfig.split_projections: the same widths as in_proj_qkvz and
in_proj_ba, so the same parameters and FLOPs), then conv1d (no bias), dt_bias, A_log, the
gated norm [linear_value_head_dim], out_proj. The attention is Qwen3-Next's: q_norm / k_norm
of [head_dim], `attention_bias` on Q, K, V and O, q_proj of 2 x n_heads x head_dim (half an
output gate). Every layer's MLP is gate_proj, up_proj, down_proj of intermediate_size, no
biases. Two RMSNorms of [d_model] per layer; an untied head unless tie_word_embeddings.
Class defaults for absent fields: 32 layers 4,096 wide, 16 heads, 4 kv heads, head_dim 256,
intermediate_size 12,288, vocab 248,320, linear heads 16 (keys) and 32 (values) of 128,
kernel 4.

No parameters: partial_rotary_factor (0.25), mrope sections (the multimodal rotary, no matmul
counted), the delta rule's chunk (64), the multi-token-prediction weights of the released
checkpoints (`mtp.*`, which the class skips on load).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.families import qwen3_next
from ffn_calc.families.base import LLAMA_NAMING, Reader, check_listed, decoder
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Qwen3_5ForCausalLM"

# transformers 5.24.0 Qwen3_5TextConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 16,
    "num_key_value_heads": 4,
    "head_dim": 256,
    "intermediate_size": 12288,
    "linear_key_head_dim": 128,
    "linear_value_head_dim": 128,
    "linear_num_key_heads": 16,
    "linear_num_value_heads": 32,
    "linear_conv_kernel_dim": 4,
    "vocab_size": 248320,
}
PAD_DEFAULT: int | None = None


def hybrid(r: Reader, out: dict[str, Any]) -> dict[str, Any]:
    """The fields Qwen3.5's text models add to a decoder's: each layer's mixer, the split gated
    DeltaNet's sizes, the gated attention."""
    out["layer_mixers"] = qwen3_next.layer_mixers(r, out["n_layers"])
    out["gated_deltanet"] = {**qwen3_next.deltanet_sizes(r), "split_projections": True}
    out["attention_output_gate"] = True
    return out


def text_fields(r: Reader, family: str, *, tie: bool) -> dict[str, Any]:
    """A Qwen3.5 dense text model's fields (the head tied when `tie`)."""
    layers = check_listed(r, "num_hidden_layers", r.req("num_hidden_layers"))
    out = decoder(
        r,
        family,
        n_layers=layers,
        n_kv_heads=r.req("num_key_value_heads"),
        head_dim=r.req("head_dim"),
        attention_bias=r.boolean("attention_bias", False),
        qk_norm="head",
        tie_embeddings=tie,
    )
    return hybrid(r, out)


def fields(r: Reader) -> dict[str, Any]:
    return text_fields(r, "qwen3_5_text", tie=r.boolean("tie_word_embeddings", False))


NAMING = replace(LLAMA_NAMING, mixer="linear_attn.")


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
