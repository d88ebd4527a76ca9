"""Mixtral (`MixtralForCausalLM`): Mistral's attention, a routed SwiGLU MoE in every layer."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, Reader, decoder, every_layer_window
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "MixtralForCausalLM"

# transformers 5.24.0 MixtralConfig's defaults for the sizes config.json may leave out.
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
# Its token embedding takes pad_token_id (class default None) as padding_idx.
PAD_DEFAULT: int | None = None


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
