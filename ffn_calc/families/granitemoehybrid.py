"""Granite 4.0-H (`GraniteMoeHybridForCausalLM`): Mamba-2 and attention layers, each with a
MoE and a shared MLP (or the shared MLP alone where num_local_experts is 0).

`layer_types` names each layer's mixer: linear_attention (Mamba-2 at `mamba.`: inner =
mamba_expand x hidden_size, mamba_d_head "auto" = inner / mamba_n_heads) or full_attention
(`self_attn.` q/k/v/o_proj, rotary where position_embedding_type is "rope", none otherwise; no
parameters either way). Absent: every layer Mamba-2. Every layer has input_layernorm and
post_attention_layernorm (RMSNorm), then `block_sparse_moe` (router [E, d], fused experts
gate_up_proj [E, 2 f, d] and down_proj [E, d, f], f = intermediate_size) plus `shared_mlp`
(input_linear [2 x shared_intermediate_size, d], output_linear), a gated SiLU MLP. The head
is tied to the embedding where tie_word_embeddings (default false). Multipliers scale
activations only.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import Reader, kv_heads
from ffn_calc.families.hybrid import block_types
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "GraniteMoeHybridForCausalLM"

# transformers 5.24.0 GraniteMoeHybridConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "intermediate_size": 11008,
    "vocab_size": 32000,
}
TYPES = ("linear_attention", "full_attention")
MIXER = {"linear_attention": "mamba2", "full_attention": "full"}


def mamba_head_dim(r: Reader, inner: int, heads: int) -> int:
    value = r.data.get("mamba_d_head", "auto")
    if value == "auto" or value is None:
        if inner % heads:
            raise ConfigError(
                _("{where}: mamba_n_heads = {heads} must divide mamba_expand x hidden_size "
                  "= {inner}.").format(where=r.where("mamba_n_heads"), heads=heads, inner=inner)
            )  # fmt: skip
        return inner // heads
    head_dim = r.integer("mamba_d_head")
    assert head_dim is not None
    if head_dim * heads != inner:
        raise ConfigError(
            _("{where}: mamba_d_head = {value}: mamba_d_head x mamba_n_heads must equal "
              "mamba_expand x hidden_size = {inner}.").format(
                where=r.where("mamba_d_head"), value=shown(head_dim), inner=inner)
        )  # fmt: skip
    return head_dim


def fields(r: Reader) -> dict[str, Any]:
    n, d = r.req("num_hidden_layers"), r.req("hidden_size")
    types = block_types(r, "layer_types", TYPES) or ["linear_attention"] * n
    heads = r.req("num_attention_heads")
    expand = r.integer("mamba_expand", 2)
    m_heads = r.integer("mamba_n_heads", 128)
    assert expand is not None and m_heads is not None
    inner = expand * d
    experts = r.data.get("num_local_experts", 8)
    shared = r.integer("shared_intermediate_size", 1024)
    out: dict[str, Any] = {
        "family": "granitemoehybrid",
        "architecture": "decoder-only",
        "n_layers": len(types),
        "d_model": d,
        "n_heads": heads,
        "n_kv_heads": kv_heads(r, heads),
        "attention_bias": r.boolean("attention_bias", False),
        "activation": "swiglu",
        "norm": "rmsnorm",
        "positions": "rotary" if r.data.get("position_embedding_type") == "rope" else "none",
        "vocab_size": r.req("vocab_size"),
        "tie_embeddings": r.boolean("tie_word_embeddings", False),
        "layer_mixers": [MIXER[t] for t in types],
        "mamba2": {
            "heads": m_heads,
            "head_dim": mamba_head_dim(r, inner, m_heads),
            "state_size": r.integer("mamba_d_state", 256),
            "n_groups": r.integer("mamba_n_groups", 1),
            "conv_kernel": r.integer("mamba_d_conv", 4),
            "chunk_size": r.integer("mamba_chunk_size", 256),
            "inner": inner,
            "proj_bias": r.boolean("mamba_proj_bias", False),
            "conv_bias": r.boolean("mamba_conv_bias", True),
        },
    }
    if experts == 0:  # the shared MLP alone: a dense gated FFN
        return {**out, "d_ff": shared}
    return {
        **out,
        "d_ff": r.req("intermediate_size"),
        "n_experts": r.integer("num_local_experts", 8),
        "experts_per_token": r.integer("num_experts_per_tok", 2),
        "shared_expert_d_ff": shared,
    }


def naming(cfg: ModelConfig) -> Naming:
    dense = cfg.n_experts is None
    return Naming(
        layer="model.layers.{i}.",
        q="self_attn.q_proj",
        k="self_attn.k_proj",
        v="self_attn.v_proj",
        o="self_attn.o_proj",
        up="shared_mlp.up",
        down="shared_mlp.output_linear",
        gate="shared_mlp.gate",
        fused_gate_up="shared_mlp.input_linear" if dense else None,
        norm_attn="input_layernorm",
        norm_ffn="post_attention_layernorm",
        final_norm="model.norm",
        tok="model.embed_tokens",
        router="block_sparse_moe.router",
        fused_experts="block_sparse_moe.experts.",
        shared_expert="shared_mlp.",
        shared_gate_up="input_linear",
        shared_down="output_linear",
        prefixes=("model.",),
        architecture="decoder-only",
        mixer="mamba.",
        # save_pretrained writes the legacy names (transformers' conversion maps them back).
        renames={
            ".block_sparse_moe.input_linear.weight": ".block_sparse_moe.experts.gate_up_proj",
            ".block_sparse_moe.output_linear.weight": ".block_sparse_moe.experts.down_proj",
            ".block_sparse_moe.router.layer.": ".block_sparse_moe.router.",
        },
    )
