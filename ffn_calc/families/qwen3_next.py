"""Qwen3-Next (`Qwen3NextForCausalLM`): gated DeltaNet and gated attention layers, MoE with a
gated shared expert.

`layer_types` names each layer's token mixer: "linear_attention" (a gated DeltaNet,
`linear_attn.`: in_proj_qkvz, in_proj_ba, conv1d, dt_bias, A_log, the gated norm
[linear_value_head_dim], out_proj) or "full_attention" (`self_attn.`); absent, every
full_attention_interval-th layer (default 4) attends. The attention is Qwen3's (q_norm /
k_norm of [head_dim], `attention_bias` on Q, K, V and O) with an output gate: q_proj yields
2 x n_heads x head_dim (half the queries, half a sigmoid gate on the attention output;
ModelConfig.attention_output_gate). The FFN is Qwen2-MoE's: routed experts, a shared expert
of shared_expert_intermediate_size and its sigmoid gate, dense layers by `mlp_only_layers` /
`decoder_sparse_step` (see qwen2_moe; checkpoints store experts one by one). Two RMSNorms of
[d_model] per layer; an untied head unless tie_word_embeddings.

No parameters: partial_rotary_factor (0.25), the chunk size of the delta rule (the torch
path's default 64, not a config field), norm_topk_prob, the auxiliary loss.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families import qwen2_moe
from ffn_calc.families.base import Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Qwen3NextForCausalLM"

# transformers 5.24.0 Qwen3NextConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 48,
    "hidden_size": 2048,
    "num_attention_heads": 16,
    "num_key_value_heads": 2,
    "head_dim": 256,
    "intermediate_size": 5632,
    "moe_intermediate_size": 512,
    "shared_expert_intermediate_size": 512,
    "num_experts": 512,
    "num_experts_per_tok": 10,
    "linear_key_head_dim": 128,
    "linear_value_head_dim": 128,
    "linear_num_key_heads": 16,
    "linear_num_value_heads": 32,
    "linear_conv_kernel_dim": 4,
    "vocab_size": 151936,
}
PAD_DEFAULT: int | None = None

# layer_types' names -> ModelConfig.layer_mixers' names.
LAYER_TYPES = {"linear_attention": "gated_deltanet", "full_attention": "full"}


def layer_mixers(r: Reader, layers: int, interval_default: int = 4) -> list[str]:
    """Each layer's mixer from `layer_types`, or every full_attention_interval-th attends."""
    key = "layer_types"
    types = r.data.get(key)
    if types is None:
        every = r.integer("full_attention_interval", interval_default)
        assert every is not None
        return ["full" if (i + 1) % every == 0 else "gated_deltanet" for i in range(layers)]
    if (
        not isinstance(types, list)
        or len(types) != layers
        or any(t not in LAYER_TYPES for t in types)
    ):
        raise ConfigError(
            _("{where}: {field} = {value}: expected one of {names} for each of the {layers} "
              "layers.").format(
                where=r.where(key), field=key, value=shown(types),
                names=", ".join(LAYER_TYPES), layers=layers,
            )
        )  # fmt: skip
    return [LAYER_TYPES[t] for t in types]


def deltanet_sizes(r: Reader) -> dict[str, Any]:
    return {
        "key_heads": r.req("linear_num_key_heads"),
        "value_heads": r.req("linear_num_value_heads"),
        "key_head_dim": r.req("linear_key_head_dim"),
        "value_head_dim": r.req("linear_value_head_dim"),
        "conv_kernel": r.req("linear_conv_kernel_dim"),
    }


def fields(r: Reader) -> dict[str, Any]:
    out = qwen2_moe.moe_fields(
        r,
        "qwen3_next",
        ARCHITECTURE,
        "num_experts",
        shared=True,
        n_kv_heads=r.req("num_key_value_heads"),
        head_dim=r.req("head_dim"),
        attention_bias=r.boolean("attention_bias", False),
        qk_norm="head",
    )
    out["layer_mixers"] = layer_mixers(r, out["n_layers"])
    out["gated_deltanet"] = deltanet_sizes(r)
    out["attention_output_gate"] = True
    return out


def naming(cfg: ModelConfig) -> Naming:
    return NAMING


NAMING = replace(qwen2_moe.NAMING, mixer="linear_attn.")
