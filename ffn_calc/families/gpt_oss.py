"""gpt-oss (`GptOssForCausalLM`): GQA attention with biases and sinks, a routed MoE in every layer.

Fixed by the architecture: RMSNorm (a [d_model] weight) before attention and before the MoE
(input_layernorm, post_attention_layernorm) and a final one; rotary positions (YaRN: no
parameters). Attention: q_proj [n_heads x head_dim, d_model], k_proj and v_proj
[n_kv_heads x head_dim, d_model], o_proj [d_model, n_heads x head_dim]; `attention_bias`
(default true) puts a bias on all four; head_dim (absent: 64) need not divide d_model
(gpt-oss-20b: 64 x 64 = 4096 != 2880). Every layer holds `self_attn.sinks` [n_heads], one
learned sink logit per head (a parameter; softmax over the scores and the sink, no matmul).

The MoE (`mlp`): a router `mlp.router` [n_experts, d_model] with a bias [n_experts], and the
experts as fused tensors, [in, out] per expert: `mlp.experts.gate_up_proj` [E, d_model,
2 x d_ff] with `gate_up_proj_bias` [E, 2 x d_ff], `mlp.experts.down_proj` [E, d_ff, d_model]
with `down_proj_bias` [E, d_model]. Gate and up are interleaved along the last axis (gate at
even columns, up at odd ones): the layout changes no shape. The experts apply their own clamped
SwiGLU (swiglu_alpha, swiglu_limit: no parameters); `hidden_act` is not read. No shared expert,
no dense layers. The head follows `tie_word_embeddings` (default false).

Zero parameters: alternating sliding-window layers (`layer_types`, `sliding_window`), YaRN
rotary scaling, the router's top-k softmax.

Checkpoints: transformers 5.24 `save_pretrained` writes the names above, the experts fused.
The released gpt-oss checkpoints store each expert matrix quantized (MXFP4) as two uint8
tensors instead: `gate_up_proj_blocks` [E, 2 x d_ff, d_model / 32, 16] and
`gate_up_proj_scales` [E, 2 x d_ff, d_model / 32] (likewise `down_proj_blocks` and
`down_proj_scales`, with d_model and d_ff swapped), biases unquantized. `verify --checkpoint`
lists those four names as unexpected (their uint8 elements are not parameters: each block byte
holds two 4-bit values) and `gate_up_proj` / `down_proj` as missing, and exits 1.

Active parameters count the input embedding; OpenAI's "active" figure leaves it out, which is
`active_params_without_embedding` (gpt-oss-20b: 4,187,440,704 - 579,133,440 = 3,608,307,264).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.families.base import (
    LLAMA_NAMING,
    Reader,
    check_listed,
    decoder,
    layer_types,
    window_fields,
)
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "GptOssForCausalLM"

# transformers 5.24.0 GptOssConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 36,
    "hidden_size": 2880,
    "num_attention_heads": 64,
    "intermediate_size": 2880,
    "num_local_experts": 128,
    "num_experts_per_tok": 4,
    "vocab_size": 201088,
}
# Its token embedding takes pad_token_id (class default None) as padding_idx.
PAD_DEFAULT: int | None = None

NOTE = (
    "GptOssForCausalLM: biased Q, K, V, O; an [n_heads] attention sink per layer; a biased "
    "router and biased experts (gate and up interleaved in gate_up_proj). Active parameters "
    "include the input embedding; OpenAI's active figure leaves it out (the row 'active "
    "without the input embedding'). Released checkpoints store the experts in MXFP4 "
    "(*_blocks, *_scales), which verify --checkpoint reports as unexpected."
)


def fields(r: Reader) -> dict[str, Any]:
    layers = check_listed(r, "num_hidden_layers", r.req("num_hidden_layers"))
    # GptOssConfig: absent layer_types alternate sliding (even layers) and full attention.
    alternate = ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(layers)]
    types = layer_types(r, layers, alternate)
    return decoder(
        r,
        "gpt_oss",
        n_layers=layers,
        n_kv_heads=r.integer("num_key_value_heads", 8),
        **window_fields(r, types, "sliding_attention", "sliding_window", 128),
        head_dim=r.integer("head_dim", 64),
        activation="swiglu",
        attention_bias=r.boolean("attention_bias", True),
        ffn_bias=True,
        n_experts=r.req("num_local_experts"),
        experts_per_token=r.req("num_experts_per_tok"),
        router_bias=True,
        attention_sinks=True,
        note=NOTE,
    )


NAMING = replace(
    LLAMA_NAMING,
    router="mlp.router",
    fused_experts="mlp.experts.",
    fused_experts_layout="in_out",
    expert_gate_up="gate_up_proj",
    expert_down="down_proj",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
