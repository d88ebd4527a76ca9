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

# transformers 5.24.0 Phi3Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 32,
    "hidden_size": 3072,
    "num_attention_heads": 32,
    "intermediate_size": 8192,
    "vocab_size": 32064,
}
# Its token embedding takes pad_token_id (class default 32000) as padding_idx.
PAD_DEFAULT: int | None = 32000


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
