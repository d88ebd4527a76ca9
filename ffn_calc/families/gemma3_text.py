"""Gemma 3 text (`Gemma3ForCausalLM`): Gemma 2's four norms per layer plus q/k norms over head_dim.

Fixed by the architecture: four RMSNorms of [d_model] per layer (as Gemma 2), an RMSNorm of
[head_dim] on the queries and one on the keys (self_attn.q_norm / k_norm, shared by every
head), a gated FFN without biases, rotary positions; `attention_bias` on Q, K, V and O alike.
Class defaults for absent fields: head_dim 256, num_key_value_heads 4, a tied head,
`hidden_activation` gelu_pytorch_tanh.

No parameters and no matmuls: the embedding scaling, soft-capping, query_pre_attn_scalar,
local (sliding-window) and global layers with their own rotary bases, bidirectional attention
(masks only; eager attention multiplies the full S x S square in every layer).
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families import gemma2
from ffn_calc.families.base import Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Gemma3ForCausalLM"

# transformers 5.24.0 Gemma3TextConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 26,
    "hidden_size": 2304,
    "num_attention_heads": 8,
    "intermediate_size": 9216,
    "vocab_size": 262208,
}
# Its token embedding takes pad_token_id (class default 0) as padding_idx.
PAD_DEFAULT: int | None = 0


def fields(r: Reader) -> dict[str, Any]:
    """Gemma 2's fields (the same class defaults), plus q/k norms over head_dim."""
    every = r.integer("sliding_window_pattern", 6) or 6
    out = {**gemma2.fields(r, every), "family": "gemma3_text", "qk_norm": "head"}
    if r.boolean("use_bidirectional_attention", False) and out.get("attention_window"):
        # Gemma3TextConfig halves the window it reads: sliding_window // 2 + 1
        out["attention_window"] = out["attention_window"] // 2 + 1
    return out


def naming(cfg: ModelConfig) -> Naming:
    return gemma2.NAMING  # q_norm / k_norm: Naming's self_attn.q_norm / k_norm
