"""LFM2-MoE (`Lfm2MoeForCausalLM`): LFM2's layers (short convolutions and GQA attention by
`layer_types`, families.lfm2) with a mixture of experts after the first `num_dense_layers`.

The first num_dense_layers layers (default 2) have LFM2's gated MLP `feed_forward.w1/w3/w2`
of `intermediate_size`, as given (no block_auto_adjust_ff_dim here); every later layer a
routed MoE: the router `feed_forward.gate` [num_experts, d_model] (sigmoid scores),
num_experts SwiGLU experts of `moe_intermediate_size`, num_experts_per_tok per token; with
use_expert_bias (default true) a routing bias `feed_forward.expert_bias` [num_experts], a
buffer (stored in checkpoints, not a parameter). transformers keeps the experts fused in
memory (`feed_forward.experts.gate_up_proj`, `down_proj`); checkpoints store one
`feed_forward.experts.{e}.w1` / `w3` / `w2` per expert, which `tensors` lists.
`layer_types` is required: the class has no default pattern (without it, it cannot build).
No parameters: norm_topk_prob, routed_scaling_factor.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import Reader, check_listed, layer_types
from ffn_calc.families.lfm2 import NAMING as LFM2_NAMING
from ffn_calc.families.lfm2 import TYPES, common
from ffn_calc.families.tensor_names import Naming
from ffn_calc.i18n.translate import _, shown
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Lfm2MoeForCausalLM"

# transformers 5.24.0 Lfm2MoeConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 32,
    "hidden_size": 2048,
    "num_attention_heads": 32,
    "intermediate_size": 7168,
    "moe_intermediate_size": 1792,
    "num_experts": 32,
    "num_experts_per_tok": 4,
    "vocab_size": 65536,
}


def fields(r: Reader) -> dict[str, Any]:
    layers = check_listed(r, "num_hidden_layers", r.req("num_hidden_layers"))
    if r.data.get("layer_types") is None:
        raise ConfigError(
            _("{where}: {field} = {value}: expected one of {choices} per layer ({layers}).").format(
                where=r.where("layer_types"),
                field="layer_types",
                value=shown("null"),
                choices=", ".join(TYPES),
                layers=layers,
            )
        )
    types = layer_types(r, layers, [], TYPES)
    dense = min(r.index("num_dense_layers", 2), layers)
    moe: dict[str, Any] = {}
    if dense < layers:
        moe = {
            "d_ff": r.req("moe_intermediate_size"),
            "dense_d_ff": r.req("intermediate_size"),
            "dense_ffn_layers": list(range(dense)),
            "n_experts": r.req("num_experts"),
            "experts_per_token": r.req("num_experts_per_tok"),
            "router_score_bias": "buffer" if r.boolean("use_expert_bias", True) else "none",
        }
    else:
        moe = {"d_ff": r.req("intermediate_size")}
    return common(r, "lfm2_moe", layers, [t != "conv" for t in types], **moe)


NAMING = replace(
    LFM2_NAMING,
    router="feed_forward.gate",
    expert="feed_forward.experts.{e}.",
    expert_gate="w1",
    expert_up="w3",
    expert_down="w2",
    score_bias="feed_forward.expert_bias",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
