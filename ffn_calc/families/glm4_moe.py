"""GLM-4.5 (`Glm4MoeForCausalLM`): DeepSeek-style routed experts behind standard GQA attention.

Fixed by the architecture: Llama's pre-norm layer (RMSNorm `input_layernorm` and
`post_attention_layernorm`, rotary positions, GQA) with `attention_bias` (class default false)
on Q, K and V only, never on O; with `use_qk_norm` an RMSNorm of [head_dim] on the queries and
one on the keys (`self_attn.q_norm` / `k_norm`, shared by every head). The first
`first_k_dense_replace` layers (default 1) have a dense SwiGLU MLP of `intermediate_size`;
every later layer a routed MoE: a bias-free router `mlp.gate` [n_routed_experts, d_model],
n_routed_experts SwiGLU experts of `moe_intermediate_size`, and one shared SwiGLU MLP
`mlp.shared_experts` of n_shared_experts x moe_intermediate_size (default 1) that every token
passes through. No biases in any FFN. The head is untied unless `tie_word_embeddings`.
With n_shared_experts 0 the class still builds the shared MLP, with empty [0, d_model]
tensors: no parameters, no FLOPs, not listed (`verify --checkpoint` reports the empty tensors
of such a checkpoint as unexpected).

The routing-score bias `mlp.gate.e_score_correction_bias` [n_routed_experts] is a buffer in
transformers 5.24: not a parameter, yet checkpoints store it (reported by `verify
--checkpoint` as a buffer; `params --explain` gives the stored elements).

Checkpoints: transformers keeps the experts fused in memory (`mlp.experts.gate_up_proj`
[E, 2 x moe_intermediate_size, d_model], `mlp.experts.down_proj`), while `save_pretrained`
writes, and the Hub files hold, one `mlp.experts.{e}.gate_proj` / `up_proj` / `down_proj`
per expert (transformers' qwen2_moe conversion merges them on load and splits them on
save): `tensors` and `verify --checkpoint` list those.

The released GLM-4.5 checkpoints also hold `num_nextn_predict_layers` multi-token-prediction
layers (`model.layers.{num_hidden_layers}.*`), which transformers does not build (it ignores
them on load): not counted, and `verify --checkpoint` on the Hub files reports them as
unexpected.

No parameters and no matmuls: partial rotary (`partial_rotary_factor`, default 0.5), the
sigmoid scoring with group-limited top-k (n_group, topk_group), norm_topk_prob,
routed_scaling_factor.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, Reader, check_listed, decoder
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Glm4MoeForCausalLM"

# transformers 5.24.0 Glm4MoeConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 46,
    "hidden_size": 4096,
    "num_attention_heads": 96,
    "num_key_value_heads": 8,
    "intermediate_size": 10944,
    "moe_intermediate_size": 1408,
    "n_routed_experts": 128,
    "num_experts_per_tok": 8,
    "vocab_size": 151552,
}
# Its token embedding takes pad_token_id (class default None) as padding_idx.
PAD_DEFAULT: int | None = None


def _note(mtp: int, first: int) -> str | None:
    """The multi-token-prediction layers a released checkpoint holds beyond the model."""
    if not mtp:
        return None
    names = (
        f"model.layers.{first}.*" if mtp == 1 else f"model.layers.{{{first}..{first + mtp - 1}}}.*"
    )
    what = "a multi-token-prediction layer" if mtp == 1 else f"{mtp} multi-token-prediction layers"
    return (
        f"The released checkpoint also stores {what} ({names}, num_nextn_predict_layers) "
        "that Glm4MoeForCausalLM does not build: not counted. e_score_correction_bias is a "
        "buffer in transformers: stored in checkpoints, not counted."
    )


def fields(r: Reader) -> dict[str, Any]:
    out = decoder(
        r, "glm4_moe", attention_bias=r.boolean("attention_bias", False), attention_out_bias=False
    )
    n = out["n_layers"]
    f = r.req("moe_intermediate_size")
    shared = r.index("n_shared_experts", 1)  # 0: an empty [0, d_model] MLP, no parameters
    # layers 0 .. k - 1 stay dense
    dense = check_listed(r, "first_k_dense_replace", min(r.index("first_k_dense_replace", 1), n))
    mtp = r.index("num_nextn_predict_layers", 1)
    return out | {
        "d_ff": f,
        "dense_d_ff": out["d_ff"],
        "dense_ffn_layers": list(range(dense)),
        "n_experts": r.req("n_routed_experts"),
        "experts_per_token": r.req("num_experts_per_tok"),
        "shared_expert_d_ff": shared * f if shared else None,
        "router_score_bias": "buffer",
        "qk_norm": "head" if r.boolean("use_qk_norm", False) else "none",
        "note": _note(mtp, n),
    }


NAMING = replace(
    LLAMA_NAMING, router="mlp.gate", expert="mlp.experts.{e}.", shared_expert="mlp.shared_experts."
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
