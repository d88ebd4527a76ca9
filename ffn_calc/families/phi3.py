"""Phi-3 (`Phi3ForCausalLM`): Llama's decoder with fused projections, no biases.

Fixed by the architecture: RMSNorm before attention and before the MLP and after the last
layer; rotary positions (no parameters; partial rotary, LongRoPE factors and the sliding
window are buffers or masks, 0 parameters); no bias anywhere; Q, K and V in one fused
`qkv_proj` of [n_heads x head_dim + 2 x n_kv_heads x head_dim, d_model], run as one matmul;
gate and up in one fused `gate_up_proj` of [2 x d_ff, d_model] (gate rows first), run as one
matmul and split after; an untied head unless tie_word_embeddings says otherwise.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, Reader, decoder, every_layer_window
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Phi3ForCausalLM"


def fields(r: Reader) -> dict[str, Any]:
    return decoder(r, "phi3", **every_layer_window(r))


NAMING = replace(
    LLAMA_NAMING,
    q="",
    k="",
    v="",
    fused_qkv="self_attn.qkv_proj",
    gate="",
    up="",
    fused_gate_up="mlp.gate_up_proj",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
