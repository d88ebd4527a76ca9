"""Falcon-H1 (`FalconH1ForCausalLM`): attention and a Mamba-2 mixer side by side in every
layer, then a gated FFN.

Each layer: input_layernorm, `self_attn` (q/k/v/o_proj, rotary, biases as attention_bias)
and `mamba` (Mamba-2: inner = mamba_d_ssm, or mamba_expand x hidden_size where null;
mamba_d_head "auto" = inner / mamba_n_heads; in_proj's bias mamba_proj_bias, out_proj's
projectors_bias; the gated RMSNorm only where mamba_rms_norm) reading the same normed input,
pre_ff_layernorm, `feed_forward` (gate/up/down_proj, biases as mlp_bias). `model.embed_tokens`,
`model.final_layernorm`, `lm_head` (tied where tie_word_embeddings). `mamba.mup_vector`
[in_proj width] is a buffer (persistent=False: not a parameter, and save_pretrained does not
write it). The multipliers scale activations only.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import Reader, kv_heads
from ffn_calc.families.granitemoehybrid import mamba_head_dim
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "FalconH1ForCausalLM"

# transformers 5.24.0 FalconH1Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "intermediate_size": 14336,
    "vocab_size": 128000,
    "num_key_value_heads": 8,
}


def fields(r: Reader) -> dict[str, Any]:
    n, d = r.req("num_hidden_layers"), r.req("hidden_size")
    heads = r.req("num_attention_heads")
    m_heads = r.integer("mamba_n_heads", 128)
    assert m_heads is not None
    if "mamba_d_ssm" in r.data and r.data["mamba_d_ssm"] is None:
        expand = r.integer("mamba_expand", 2)
        assert expand is not None
        inner = expand * d
    else:
        inner = r.integer("mamba_d_ssm", 1024) or 1024
    return {
        "family": "falcon_h1",
        "architecture": "decoder-only",
        "n_layers": n,
        "d_model": d,
        "n_heads": heads,
        "n_kv_heads": kv_heads(r, heads),
        "head_dim": r.opt("head_dim"),
        "attention_bias": r.boolean("attention_bias", False),
        "d_ff": r.req("intermediate_size"),
        "activation": "swiglu",
        "ffn_bias": r.boolean("mlp_bias", False),
        "norm": "rmsnorm",
        "positions": "rotary",
        "vocab_size": r.req("vocab_size"),
        "tie_embeddings": r.boolean("tie_word_embeddings", False),
        "layer_mixers": ["full+mamba2"] * n,
        "mamba2": {
            "heads": m_heads,
            "head_dim": mamba_head_dim(r, inner, m_heads),
            "state_size": r.integer("mamba_d_state", 256),
            "n_groups": r.integer("mamba_n_groups", 1),
            "conv_kernel": r.integer("mamba_d_conv", 4),
            "chunk_size": r.integer("mamba_chunk_size", 256),
            "inner": inner,
            "proj_bias": r.boolean("mamba_proj_bias", False),
            "out_bias": r.boolean("projectors_bias", False),
            "conv_bias": r.boolean("mamba_conv_bias", True),
            "gated_norm": r.boolean("mamba_rms_norm", False),
        },
    }  # fmt: skip


NAMING = Naming(
    layer="model.layers.{i}.",
    q="self_attn.q_proj",
    k="self_attn.k_proj",
    v="self_attn.v_proj",
    o="self_attn.o_proj",
    up="feed_forward.up_proj",
    down="feed_forward.down_proj",
    gate="feed_forward.gate_proj",
    norm_attn="input_layernorm",
    norm_ffn="pre_ff_layernorm",
    final_norm="model.final_layernorm",
    tok="model.embed_tokens",
    prefixes=("model.",),
    architecture="decoder-only",
    mixer="mamba.",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
