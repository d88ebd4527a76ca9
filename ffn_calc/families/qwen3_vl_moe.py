"""Qwen3-VL-MoE (`Qwen3VLMoeForConditionalGeneration`): a Qwen3-MoE language model beside
Qwen3-VL's vision tower.

The language model (`model.language_model.`, Qwen3VLMoeTextConfig, read from text_config;
absent, the class's defaults): Qwen3's attention with q/k RMSNorms over head_dim,
`attention_bias` (default false) on Q, K, V and O alike, two RMSNorms per layer. A MoE layer
holds a router `mlp.gate` [num_experts, d_model] (no bias; softmax, top num_experts_per_tok,
renormalised) and num_experts routed experts of moe_intermediate_size (SwiGLU, no biases), no
shared expert; layer i is MoE unless it is in `mlp_only_layers` or (i + 1) is no multiple of
`decoder_sparse_step` (default 1), the others hold a dense SwiGLU MLP of intermediate_size.
The expert count is `num_experts` or `num_local_experts` (the class's attribute_map makes them
one; num_local_experts, what save_pretrained writes, wins). Class defaults for absent fields:
2,048 wide, 24 layers of 16 heads, 16 kv heads (null: the heads), head_dim hidden_size / heads
(floored), 60 experts of 1,408, top-4, intermediate_size 5,632. The head is `lm_head`, tied only
when the top-level tie_word_embeddings is true (text_config's, true by default, is not read).

Expert storage: fused, `mlp.experts.gate_up_proj` [E, 2 x moe_intermediate_size, d_model]
and `mlp.experts.down_proj` [E, d_model, moe_intermediate_size], in memory and as
save_pretrained writes them, which `tensors` and `verify --checkpoint` follow. The Hub's
released checkpoints hold the two transposed ([E, d_model, 2 x moe_intermediate_size],
[E, moe_intermediate_size, d_model]; transformers transposes them on load): verify reports
those as shape mismatches of the same parameter count.

The vision tower (`model.visual.`): see qwen3_vl_vision.

No parameters: norm_topk_prob, mrope sections, the router's auxiliary loss.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.families import qwen2_moe, qwen3_vl_vision, qwen_vl
from ffn_calc.families.base import Reader, check_padding, kv_heads
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Qwen3VLMoeForConditionalGeneration"

# transformers 5.24.0 Qwen3VLMoeTextConfig's defaults for the sizes text_config may leave out.
TEXT_DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 24,
    "hidden_size": 2048,
    "num_attention_heads": 16,
    "num_key_value_heads": 16,
    "intermediate_size": 5632,
    "moe_intermediate_size": 1408,
    "num_experts": 60,
    "num_local_experts": 60,
    "num_experts_per_tok": 4,
    "vocab_size": 151936,
}
# The wrapper reads no size of its own.
DEFAULTS: dict[str, int | None] = {}

NOTE = (
    "Qwen3VLMoeForConditionalGeneration keeps each MoE layer's experts fused "
    "(mlp.experts.gate_up_proj [E, 2 x moe_intermediate_size, d_model], mlp.experts.down_proj "
    "[E, d_model, moe_intermediate_size]), as save_pretrained writes them; the Hub's released "
    "checkpoints hold both transposed."
)


def fields(r: Reader) -> dict[str, Any]:
    t = qwen_vl.text_reader(r, TEXT_DEFAULTS)
    key = "num_local_experts" if t.data.get("num_local_experts") is not None else "num_experts"
    heads = t.req("num_attention_heads")
    out = qwen2_moe.moe_fields(
        t,
        "qwen3_vl_moe",
        ARCHITECTURE,
        key,
        shared=False,
        n_kv_heads=kv_heads(t, heads),
        attention_bias=t.boolean("attention_bias", False),
        qk_norm="head",
        tie_embeddings=r.boolean("tie_word_embeddings", False),
    )
    if out.get("n_experts") is not None:
        out["note"] = NOTE
    check_padding(t, out["vocab_size"], None)
    qwen_vl.note_defaults(r, t)
    out["towers"] = [qwen_vl.vision_tower(r, qwen3_vl_vision)]
    return out


# Router `mlp.gate`; the experts fused under `mlp.experts.` as [E, out, in] (in memory and
# in save_pretrained's checkpoints); dense layers as Llama's `mlp.gate_proj` etc.
NAMING = replace(
    qwen_vl.TEXT_NAMING,
    router="mlp.gate",
    fused_experts="mlp.experts.",
    fused_experts_layout="out_in",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
