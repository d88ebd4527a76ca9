"""DeepSeek-V3 (`DeepseekV3ForCausalLM`): multi-head latent attention, routed and shared experts.

Fixed by the architecture: Llama's pre-norm layer (RMSNorm `input_layernorm` and
`post_attention_layernorm`, a final `model.norm`, rotary positions) around multi-head latent
attention (MLA) and a SwiGLU FFN. MLA per layer, h heads:
- queries through a low-rank bottleneck: `q_a_proj` [q_lora_rank, d_model], an RMSNorm
  `q_a_layernorm` [q_lora_rank], `q_b_proj` [h x (qk_nope_head_dim + qk_rope_head_dim),
  q_lora_rank]; with `q_lora_rank` null, one `q_proj` [h x (nope + rope), d_model] instead;
- keys and values through a latent: `kv_a_proj_with_mqa` [kv_lora_rank + qk_rope_head_dim,
  d_model] (the latent and one rotary key shared by every head), an RMSNorm `kv_a_layernorm`
  [kv_lora_rank], `kv_b_proj` [h x (qk_nope_head_dim + v_head_dim), kv_lora_rank];
- `o_proj` [d_model, h x v_head_dim]; `attention_bias` (default false) on q_a_proj,
  kv_a_proj_with_mqa and o_proj only (q_proj, q_b_proj and kv_b_proj never have one).
The scores use two head widths: QK^T over nope + rope (192 in DeepSeek-V3), AV over
v_head_dim (128). num_key_value_heads changes no count (keys and values have h heads).
ffn-calc's head_dim is the query/key head width nope + rope (transformers' qk_head_dim;
config.json's head_dim is the rotary width): comparisons show it, no count reads it.

The first `first_k_dense_replace` layers (default 3) have a dense SwiGLU MLP of
`intermediate_size`; every later layer a routed MoE: a bias-free router `mlp.gate`
[n_routed_experts, d_model], n_routed_experts SwiGLU experts of `moe_intermediate_size` and
one shared SwiGLU MLP `mlp.shared_experts` of n_shared_experts x moe_intermediate_size
(default 1; 0 gives empty [0, d_model] layers, no parameters) that every token passes
through. No biases in any FFN. The head is untied unless `tie_word_embeddings`.

The routing-score bias `mlp.gate.e_score_correction_bias` [n_routed_experts] is a buffer in
transformers 5.24: not a parameter, yet checkpoints store it (`checkpoint_elements` counts
it; `verify --checkpoint` reports it as a buffer).

Checkpoints: transformers keeps the experts fused in memory (`mlp.experts.gate_up_proj`
[E, 2 x moe_intermediate_size, d_model], `mlp.experts.down_proj` [E, d_model,
moe_intermediate_size]), while `save_pretrained` writes, and the Hub files hold, one
`mlp.experts.{e}.gate_proj` / `up_proj` / `down_proj` per expert (transformers' qwen2_moe
conversion merges them on load and splits them on save): `tensors` and `verify --checkpoint`
list those.

The released checkpoint also holds `num_nextn_predict_layers` multi-token-prediction layers
(`model.layers.{num_hidden_layers}.*`: its own copies of the embedding and the head, the
norms `enorm`, `hnorm` and `shared_head.norm`, `eh_proj` [d_model, 2 x d_model] and one
decoder layer), which transformers does not build (it ignores them on load): not counted,
and `verify --checkpoint` on the Hub files reports them as unexpected.

No parameters and no matmuls: the rotary embedding (interleaved or not, YaRN scaling), the
sigmoid scoring with group-limited top-k (n_group, topk_group), norm_topk_prob,
routed_scaling_factor.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, Reader, check_listed, decoder
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "DeepseekV3ForCausalLM"

# transformers 5.24.0 DeepseekV3Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 61,
    "hidden_size": 7168,
    "num_attention_heads": 128,
    "intermediate_size": 18432,
    "vocab_size": 129280,
    "moe_intermediate_size": 2048,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "kv_lora_rank": 512,
    "v_head_dim": 128,
    "n_routed_experts": 256,
    "num_experts_per_tok": 8,
}
# Its token embedding takes pad_token_id (class default None) as padding_idx.
PAD_DEFAULT: int | None = None


def q_lora_rank(r: Reader, default: int) -> int | None:
    """The query rank: null in config.json means a plain q_proj, absent the class default."""
    if "q_lora_rank" in r.data and r.data["q_lora_rank"] is None:
        return None
    return r.integer("q_lora_rank", default)


def mla_moe(r: Reader, out: dict[str, Any], *, dense: int, shared: int) -> dict[str, Any]:
    """The MLA and MoE fields DeepSeek-V2 and V3 share: `dense` and `shared` are the read
    first_k_dense_replace and n_shared_experts."""
    n, f = out["n_layers"], r.req("moe_intermediate_size")
    nope, rope = r.req("qk_nope_head_dim"), r.req("qk_rope_head_dim")
    # layers 0 .. k - 1 are dense (layer_idx >= first_k_dense_replace: MoE)
    k = check_listed(r, "first_k_dense_replace", min(dense, n))
    return out | {
        "head_dim": nope + rope,
        "attention": "mla",
        "kv_lora_rank": r.req("kv_lora_rank"),
        "qk_nope_head_dim": nope,
        "qk_rope_head_dim": rope,
        "v_head_dim": r.req("v_head_dim"),
        "d_ff": f,
        "dense_d_ff": out["d_ff"] if k else None,
        "dense_ffn_layers": list(range(k)),
        "shared_expert_d_ff": shared * f if shared else None,
    }


def _note(mtp: int, first: int) -> str:
    """The score-bias buffer, and the multi-token-prediction layers the released checkpoint
    holds beyond the model."""
    note = (
        "e_score_correction_bias [n_routed_experts] per MoE layer is a buffer in transformers: "
        "not a parameter; checkpoint_elements counts it."
    )
    if not mtp:
        return note
    names = (
        f"model.layers.{first}.*" if mtp == 1 else f"model.layers.{{{first}..{first + mtp - 1}}}.*"
    )
    what = "a multi-token-prediction layer" if mtp == 1 else f"{mtp} multi-token-prediction layers"
    return (
        f"{note} The released checkpoint also stores {what} ({names}, num_nextn_predict_layers) "
        "that DeepseekV3ForCausalLM does not build: not counted."
    )


def fields(r: Reader) -> dict[str, Any]:
    # Keys and values have n_heads heads under MLA; config.json's head_dim is the rotary width.
    out = decoder(
        r,
        "deepseek_v3",
        n_kv_heads=None,
        head_dim=None,
        attention_bias=r.boolean("attention_bias", False),
    )
    key = "num_mtp_layers" if "num_mtp_layers" in r.data else "num_nextn_predict_layers"
    mtp = r.index(key, 1)  # transformers' alias of num_nextn_predict_layers
    return mla_moe(
        r, out, dense=r.index("first_k_dense_replace", 3), shared=r.index("n_shared_experts", 1)
    ) | {
        "q_lora_rank": q_lora_rank(r, 1536),
        "n_experts": r.req("n_routed_experts"),
        "experts_per_token": r.req("num_experts_per_tok"),
        "router_score_bias": "buffer",
        "note": _note(mtp, out["n_layers"]),
    }


NAMING = replace(
    LLAMA_NAMING, router="mlp.gate", expert="mlp.experts.{e}.", shared_expert="mlp.shared_experts."
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
