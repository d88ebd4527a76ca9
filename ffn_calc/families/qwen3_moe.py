"""Qwen3-MoE (`Qwen3MoeForCausalLM`): Qwen3's attention with q/k norms, routed experts only.

Fixed by the architecture: two RMSNorms of [d_model] per layer (input_layernorm,
post_attention_layernorm), an RMSNorm of [head_dim] on the queries and one on the keys
(self_attn.q_norm / k_norm, shared by every head), rotary positions, SwiGLU everywhere without
biases, an untied head unless tie_word_embeddings; `attention_bias` (default false) puts a bias
on Q, K, V and O alike. A MoE layer holds a router `mlp.gate` [num_experts, d_model] (no bias)
and num_experts routed experts of moe_intermediate_size; no shared expert. Layer i is MoE
unless it is in `mlp_only_layers` or (i + 1) is no multiple of `decoder_sparse_step` (default
1); the other layers hold a dense SwiGLU MLP of intermediate_size (with num_experts 0, or no
layer MoE, the model is dense). The expert count is `num_local_experts` (what save_pretrained
writes) or, absent, `num_experts` (what the Hub's config.json files hold); with both,
num_local_experts wins, as in the class. Class defaults for absent fields: num_key_value_heads
4, head_dim hidden_size / heads (floored; unlike Qwen3's 128).

Expert storage: as Qwen2-MoE (see qwen2_moe): fused [E, ...] tensors in memory, one
`mlp.experts.{e}.gate_proj` / `up_proj` / `down_proj` per expert in checkpoints
(save_pretrained and the Hub), which `tensors` and `verify --checkpoint` follow.

Sliding window (no parameters; a mask for the FLOPs): with `use_sliding_window` (default
false) every layer slides over sliding_window (default 4,096) tokens, as Qwen3MoeConfig, which
has no layer_types, gives its mask and its cache; the cache keeps the last window - 1 tokens.

No parameters: norm_topk_prob, rotary scaling, the auxiliary loss.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families import qwen2_moe
from ffn_calc.families.base import Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Qwen3MoeForCausalLM"

# transformers 5.24.0 Qwen3MoeConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 24,
    "hidden_size": 2048,
    "num_attention_heads": 32,
    "intermediate_size": 6144,
    "moe_intermediate_size": 768,
    "num_experts": 128,
    "num_local_experts": 128,
    "num_experts_per_tok": 8,
    "vocab_size": 151936,
}
# Its token embedding takes pad_token_id (class default None) as padding_idx.
PAD_DEFAULT: int | None = None


def fields(r: Reader) -> dict[str, Any]:
    key = "num_local_experts" if r.data.get("num_local_experts") is not None else "num_experts"
    return qwen2_moe.moe_fields(
        r,
        "qwen3_moe",
        ARCHITECTURE,
        key,
        shared=False,
        n_kv_heads=r.integer("num_key_value_heads", 4),
        attention_bias=r.boolean("attention_bias", False),
        qk_norm="head",
    )


def naming(cfg: ModelConfig) -> Naming:
    return qwen2_moe.NAMING  # q_norm / k_norm: Naming's self_attn.q_norm / k_norm
