"""Mixtral (`MixtralForCausalLM`): Mistral's attention, a routed SwiGLU MoE in every layer."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, Reader, decoder, every_layer_window
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "MixtralForCausalLM"


def fields(r: Reader) -> dict[str, Any]:
    return decoder(
        r,
        "mixtral",
        **every_layer_window(r),
        n_experts=r.req("num_local_experts"),
        experts_per_token=r.req("num_experts_per_tok"),
    )


NAMING = replace(
    LLAMA_NAMING,
    router="block_sparse_moe.gate",
    expert="block_sparse_moe.experts.{e}.",
    expert_gate="w1",
    expert_up="w3",
    expert_down="w2",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
