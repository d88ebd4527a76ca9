"""Jamba (`JambaForCausalLM`): Mamba-1 layers and attention layers interleaved, MoE FFNs in
every other layer.

Layer i attends when i % attn_layer_period == attn_layer_offset (defaults 8 and 4), else it
is a Mamba layer (`mamba.`: in_proj, conv1d, x_proj, dt_proj, A_log, D, out_proj and RMSNorms
on dt, B and C; counts.mixers.mamba); inner = mamba_expand x hidden_size, mamba_dt_rank
"auto" = ceil(hidden_size / 16). Attention: q/k/v/o_proj without biases, no positional
encoding. Layer i's FFN is a MoE when i % expert_layer_period == expert_layer_offset
(defaults 2 and 1) and num_experts > 1: the router `feed_forward.router` [E, d_model] and E
SwiGLU experts of intermediate_size, num_experts_per_tok per token (fused in memory,
`feed_forward.experts.{e}.gate_proj` / `up_proj` / `down_proj` in checkpoints); otherwise a
SwiGLU MLP `feed_forward.gate_proj` / `up_proj` / `down_proj`. Norms: `input_layernorm`,
`pre_ff_layernorm`, the final `model.final_layernorm`; an untied head by default.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, Reader, check_listed, decoder
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "JambaForCausalLM"

# transformers 5.24.0 JambaConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "intermediate_size": 14336,
    "vocab_size": 65536,
    "num_experts": 16,
    "num_experts_per_tok": 2,
}


def fields(r: Reader) -> dict[str, Any]:
    n = check_listed(r, "num_hidden_layers", r.req("num_hidden_layers"))
    d, heads = r.req("hidden_size"), r.req("num_attention_heads")
    kv = r.data.get("num_key_value_heads", 8)
    period = r.integer("attn_layer_period", 8)
    offset = r.index("attn_layer_offset", 4)
    e_period = r.integer("expert_layer_period", 2)
    e_offset = r.index("expert_layer_offset", 1)
    assert period is not None and e_period is not None
    experts = r.integer("num_local_experts", None, required=False) or r.req("num_experts")
    rank_value = r.data.get("mamba_dt_rank", "auto")
    rank = math.ceil(d / 16) if rank_value == "auto" else r.req("mamba_dt_rank")
    expand = r.integer("mamba_expand", 2)
    assert expand is not None
    moe_layers = [i for i in range(n) if i % e_period == e_offset] if experts > 1 else []
    out = decoder(
        r,
        "jamba",
        n_layers=n,
        n_heads=heads,
        head_dim=None if d % heads == 0 else d // heads,
        n_kv_heads=heads if kv is None else r.integer("num_key_value_heads", 8),
        positions="none",
        layer_norms=2,
        layer_mixers=["full" if i % period == offset else "mamba" for i in range(n)],
        mamba={
            "inner": expand * d,
            "state_size": r.integer("mamba_d_state", 16),
            "conv_kernel": r.integer("mamba_d_conv", 4),
            "dt_rank": rank,
            "conv_bias": r.boolean("mamba_conv_bias", True),
            "proj_bias": r.boolean("mamba_proj_bias", False),
        },
    )
    if moe_layers:
        out |= {
            "n_experts": experts,
            "experts_per_token": r.req("num_experts_per_tok"),
            "dense_ffn_layers": [i for i in range(n) if i not in moe_layers],
            "dense_d_ff": out["d_ff"],
        }
    return out


NAMING = replace(
    LLAMA_NAMING,
    up="feed_forward.up_proj",
    down="feed_forward.down_proj",
    gate="feed_forward.gate_proj",
    norm_attn="input_layernorm",
    norm_ffn="pre_ff_layernorm",
    final_norm="model.final_layernorm",
    router="feed_forward.router",
    expert="feed_forward.experts.{e}.",
    mixer="mamba.",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
