"""MiniMax-M2 (`MiniMaxM2ForCausalLM`): Mixtral's routed SwiGLU MoE behind GQA attention with
q/k RMSNorms over the whole projection width.

Fixed by the architecture: Llama's pre-norm layer (RMSNorm `input_layernorm` and
`post_attention_layernorm`, rotary positions, GQA), no bias anywhere (Q, K, V, O, the router,
the experts, the head), an RMSNorm of [n_heads x head_dim] on the queries and one of
[n_kv_heads x head_dim] on the keys, applied to the whole projection before the split into
heads (`self_attn.q_norm` / `k_norm`, as OLMo 2's). Every layer is MoE: a bias-free router
`mlp.gate` [num_local_experts, d_model] and num_local_experts SwiGLU experts of
`intermediate_size` (top `num_experts_per_tok`); no shared expert, no dense layer. The head is
untied unless `tie_word_embeddings`. The expert count is `num_local_experts` or its alias
`num_experts` (with both, the alias wins, as the class's attribute_map sets it last). Class
defaults for absent fields: head_dim 128 (not hidden_size / heads), num_key_value_heads 8.

The routing-score bias `mlp.e_score_correction_bias` [num_local_experts] (added to the
sigmoid scores before top-k) is a buffer in transformers 5.24, not a parameter: not counted,
yet checkpoints store it (`verify --checkpoint` reports it as a buffer; `params --explain`
gives the stored elements).

Checkpoints: transformers keeps the experts fused in memory (`mlp.experts.gate_up_proj`
[E, 2 x intermediate_size, d_model], `mlp.experts.down_proj`); `save_pretrained` writes, and
the Hub files hold, Mixtral's names (`block_sparse_moe.gate`, one
`block_sparse_moe.experts.{e}.w1` / `w3` / `w2` per expert,
`block_sparse_moe.e_score_correction_bias`), which transformers' conversion renames and merges
on load and undoes on save: `tensors` and `verify --checkpoint` list those.

The class has no sliding window; transformers' cache still reads a `sliding_window` (or
`layer_types`) that a config.json carries, so ffn-calc does too (every layer then caches the
last window tokens). No parameters and no matmuls: the sigmoid routing and its score bias,
the top-k renormalisation, partial rotary (`rotary_dim`, `partial_rotary_factor`), router
jitter.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.families import mixtral
from ffn_calc.families.base import Reader, decoder, every_layer_window
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "MiniMaxM2ForCausalLM"

# transformers 5.24.0 MiniMaxM2Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 62,
    "hidden_size": 3072,
    "num_attention_heads": 48,
    "num_key_value_heads": 8,
    "intermediate_size": 1536,
    "num_local_experts": 256,
    "num_experts": 256,
    "num_experts_per_tok": 8,
    "vocab_size": 200064,
}
# Its token embedding takes pad_token_id (class default None) as padding_idx.
PAD_DEFAULT: int | None = None

NOTE = (
    "mlp.e_score_correction_bias [n_experts] is a buffer in MiniMaxM2ForCausalLM: stored in "
    "checkpoints (block_sparse_moe.e_score_correction_bias), not counted."
)


def fields(r: Reader) -> dict[str, Any]:
    # The attribute_map alias num_experts, when given, sets num_local_experts last.
    key = "num_experts" if r.data.get("num_experts") is not None else "num_local_experts"
    return decoder(
        r,
        "minimax_m2",
        **every_layer_window(r),
        head_dim=r.integer("head_dim", 128),
        qk_norm="full",
        n_experts=r.req(key),
        experts_per_token=r.req("num_experts_per_tok"),
        router_score_bias="buffer",
        note=NOTE,
    )


NAMING = replace(mixtral.NAMING, score_bias="block_sparse_moe.e_score_correction_bias")


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
