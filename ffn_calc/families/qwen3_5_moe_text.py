"""Qwen3.5-MoE text (`Qwen3_5MoeForCausalLM`, model_type qwen3_5_moe_text): Qwen3.5's hybrid
of gated DeltaNet and gated attention layers (see qwen3_5_text) with a MoE block in every
layer.

Every layer's MLP is Qwen3-Next's sparse block: a router `mlp.gate` [num_experts, d_model]
(no bias; softmax, top num_experts_per_tok, renormalised), num_experts routed experts of
moe_intermediate_size (SwiGLU, no biases), a shared expert of
shared_expert_intermediate_size and its sigmoid gate `mlp.shared_expert_gate` [1, d_model].
The class has no dense layers: mlp_only_layers, decoder_sparse_step and intermediate_size are
not read. Class defaults for absent fields: 40 layers 2,048 wide, 16 heads, 2 kv heads,
head_dim 256, 256 experts of 512, top-8, a shared expert of 512, vocab 248,320, linear heads
16 (keys) and 32 (values) of 128, kernel 4.

Expert storage: fused in memory (`mlp.experts.gate_up_proj`, `mlp.experts.down_proj`); the
checkpoints save_pretrained writes store each expert's gate_proj, up_proj and down_proj (the
conversion mapping splits them), which `tensors` and `verify --checkpoint` follow.

No parameters: partial_rotary_factor, mrope sections, the delta rule's chunk, the router's
auxiliary loss, the released checkpoints' multi-token-prediction weights (`mtp.*`).
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families import qwen2_moe, qwen3_5_text, qwen3_next
from ffn_calc.families.base import Reader, check_listed, decoder
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Qwen3_5MoeForCausalLM"

# transformers 5.24.0 Qwen3_5MoeTextConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 40,
    "hidden_size": 2048,
    "num_attention_heads": 16,
    "num_key_value_heads": 2,
    "head_dim": 256,
    "moe_intermediate_size": 512,
    "shared_expert_intermediate_size": 512,
    "num_experts": 256,
    "num_experts_per_tok": 8,
    "linear_key_head_dim": 128,
    "linear_value_head_dim": 128,
    "linear_num_key_heads": 16,
    "linear_num_value_heads": 32,
    "linear_conv_kernel_dim": 4,
    "vocab_size": 248320,
}
PAD_DEFAULT: int | None = None


def text_fields(r: Reader, family: str, arch: str, *, tie: bool) -> dict[str, Any]:
    """A Qwen3.5-MoE text model's fields (the head tied when `tie`): MoE in every layer."""
    layers = check_listed(r, "num_hidden_layers", r.req("num_hidden_layers"))
    out = decoder(
        r,
        family,
        n_layers=layers,
        n_kv_heads=r.req("num_key_value_heads"),
        head_dim=r.req("head_dim"),
        attention_bias=r.boolean("attention_bias", False),
        qk_norm="head",
        tie_embeddings=tie,
        d_ff=r.req("moe_intermediate_size"),
        n_experts=r.req("num_experts"),
        experts_per_token=r.req("num_experts_per_tok"),
        shared_expert_d_ff=r.req("shared_expert_intermediate_size"),
        shared_expert_gate=True,
        note=qwen2_moe.NOTE.format(arch=arch),
    )
    return qwen3_5_text.hybrid(r, out)


def fields(r: Reader) -> dict[str, Any]:
    tie = r.boolean("tie_word_embeddings", False)
    return text_fields(r, "qwen3_5_moe_text", ARCHITECTURE, tie=tie)


NAMING = qwen3_next.NAMING


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
