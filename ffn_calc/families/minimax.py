"""MiniMax-01 (`MiniMaxForCausalLM`): lightning attention in most layers, softmax attention in
the others (layer_types "linear_attention" / "full_attention"; absent: full in the even
layers, lightning in the odd), a Mixtral-style MoE in every layer.

A lightning layer (`self_attn.`): qkv_proj [3 H P, d_model], output_gate [H P, d_model],
norm [H P], out_proj [d_model, H P] (counts.mixers.lightning); its decay tables
(slope_rate, query_decay, key_decay, diagonal_decay) are buffers. A full layer: GQA q/k/v/o
without biases, rotary positions. head_dim: the config's, else hidden_size / heads. The MoE:
router `block_sparse_moe.gate`, num_local_experts experts w1/w3/w2 of intermediate_size,
num_experts_per_tok per token (fused in memory; checkpoints store them per expert). Norms
`input_layernorm`, `post_attention_layernorm`, `model.norm`; an untied head by default.
No parameters: the residual alpha/beta factors.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.families.base import Reader, check_listed, decoder, layer_types
from ffn_calc.families.mixtral import NAMING as MIXTRAL_NAMING
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "MiniMaxForCausalLM"

# transformers 5.24.0 MiniMaxConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 32000,
    "num_local_experts": 8,
    "num_experts_per_tok": 2,
}
PAD_DEFAULT: int | None = None

TYPES = ("full_attention", "linear_attention")


def fields(r: Reader) -> dict[str, Any]:
    n = check_listed(r, "num_hidden_layers", r.req("num_hidden_layers"))
    d, heads = r.req("hidden_size"), r.req("num_attention_heads")
    head_dim = r.opt("head_dim") or d // heads
    default = ["full_attention" if (i + 1) % 2 else "linear_attention" for i in range(n)]
    types = layer_types(r, n, default, TYPES)
    kv = r.integer("num_key_value_heads", 8) if r.data.get("num_key_value_heads", 8) else heads
    return decoder(
        r,
        "minimax",
        n_layers=n,
        n_heads=heads,
        head_dim=head_dim,
        n_kv_heads=kv,
        n_experts=r.req("num_local_experts"),
        experts_per_token=r.req("num_experts_per_tok"),
        layer_norms=2,
        layer_mixers=["lightning" if t == "linear_attention" else "full" for t in types],
        lightning={
            "heads": heads,
            "head_dim": head_dim,
            "block_size": r.integer("block_size", 256),
        },
    )


NAMING = replace(MIXTRAL_NAMING, mixer="self_attn.")


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
