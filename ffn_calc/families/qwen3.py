"""Qwen3 (`Qwen3ForCausalLM`): Llama's layout plus q/k RMSNorms over head_dim, no Q/K/V biases.

Fixed by the architecture: two RMSNorms of [d_model] per layer, an RMSNorm of [head_dim] on
the queries and one on the keys (self_attn.q_norm / k_norm, shared by every head), a gated FFN
without biases, rotary positions; `attention_bias` (default false) puts a bias on Q, K, V and
O alike. Class defaults for absent fields: head_dim 128 (not hidden_size / heads),
num_key_value_heads 32 (null: the number of heads), an untied head.

No parameters: sliding-window layers (use_sliding_window, max_window_layers; a mask only).
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, Reader, decoder, qwen_windows
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Qwen3ForCausalLM"

# transformers 5.24.0 Qwen3Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "intermediate_size": 22016,
    "vocab_size": 151936,
}
# Its token embedding takes pad_token_id (class default None) as padding_idx.
PAD_DEFAULT: int | None = None


def fields(r: Reader) -> dict[str, Any]:
    # num_key_value_heads absent: the class default 32; null: __post_init__ sets the heads.
    kv = r.req("num_attention_heads") if "num_key_value_heads" in r.data else 32
    return decoder(
        r,
        "qwen3",
        **qwen_windows(r),
        n_kv_heads=r.integer("num_key_value_heads", kv),
        head_dim=r.integer("head_dim", 128),
        attention_bias=r.boolean("attention_bias", False),
        qk_norm="head",
    )


def naming(cfg: ModelConfig) -> Naming:
    return LLAMA_NAMING
