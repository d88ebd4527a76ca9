"""DeepSeek-V2 (`DeepseekV2ForCausalLM`): multi-head latent attention, routed and shared experts.

Fixed by the architecture: DeepSeek-V3's layout (see deepseek_v3.py) with these differences.
- MLA as in V3; `q_lora_rank` null (DeepSeek-V2-Lite) gives one `q_proj` [h x
  (qk_nope_head_dim + qk_rope_head_dim), d_model] in place of q_a_proj, q_a_layernorm and
  q_b_proj; absent, the class default 1536 applies. hidden_size must be a multiple of
  num_attention_heads (the class rejects it otherwise).
- The MoE layers: transformers 5.24 builds layer i as MoE when i >= first_k_dense_replace
  (class default 0) and as a dense SwiGLU MLP of `intermediate_size` before it.
  `moe_layer_freq` (DeepSeek's own code: MoE only where i % moe_layer_freq == 0) is not read
  by transformers; every released config has 1, where the two agree.
- `mlp_bias` (default false) puts biases on the dense MLP and the shared experts
  (DeepseekV2MLP) but never on the routed experts (DeepseekV2Experts has none).
- The router `mlp.gate` [n_routed_experts, d_model] has no bias and no routing-score bias;
  num_experts_per_tok has no class default (required).
- n_shared_experts (default 2) x moe_intermediate_size is the shared experts' width.

Checkpoints: as DeepSeek-V3, fused experts in memory, one `mlp.experts.{e}.gate_proj` /
`up_proj` / `down_proj` per expert in what `save_pretrained` writes and the Hub files hold.

No parameters and no matmuls: the rotary embedding (complex multiplication, YaRN scaling),
softmax scoring with greedy or group-limited top-k (topk_method, n_group, topk_group),
routed_scaling_factor.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import Reader, decoder
from ffn_calc.families.deepseek_v3 import NAMING, mla_moe, q_lora_rank
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "DeepseekV2ForCausalLM"

# transformers 5.24.0 DeepseekV2Config's defaults for the sizes config.json may leave out.
# num_experts_per_tok has no class default (None): it stays required.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "intermediate_size": 11008,
    "vocab_size": 102400,
    "moe_intermediate_size": 1407,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "kv_lora_rank": 512,
    "v_head_dim": 128,
    "n_routed_experts": 64,
}
# Its token embedding takes pad_token_id (class default None) as padding_idx.
PAD_DEFAULT: int | None = None


def fields(r: Reader) -> dict[str, Any]:
    bias = r.boolean("mlp_bias", False)  # dense and shared MLPs only
    out = decoder(
        r,
        "deepseek_v2",
        n_kv_heads=None,
        head_dim=None,
        ffn_bias=bias,
        attention_bias=r.boolean("attention_bias", False),
    )
    if out["d_model"] % out["n_heads"]:  # DeepseekV2Config.validate_architecture
        raise ConfigError(
            _(
                "{where}: num_attention_heads = {heads} must divide hidden_size = "
                "{hidden_size} (DeepseekV2Config requires it)."
            ).format(
                where=r.where("num_attention_heads"),
                heads=out["n_heads"],
                hidden_size=out["d_model"],
            )
        )
    freq = r.data.get("moe_layer_freq")
    note = None
    if freq not in (None, 1):
        note = (
            f"moe_layer_freq = {shown(freq)} is not read by DeepseekV2ForCausalLM: every layer "
            "from first_k_dense_replace on is MoE, as counted here (DeepSeek's own code makes "
            "only every moe_layer_freq-th one MoE)."
        )
    return mla_moe(
        r, out, dense=r.index("first_k_dense_replace", 0), shared=r.index("n_shared_experts", 2)
    ) | {
        "q_lora_rank": q_lora_rank(r, 1536),
        "n_experts": r.req("n_routed_experts"),
        "experts_per_token": r.req("num_experts_per_tok"),
        "expert_bias": False if bias else None,
        "note": note,
    }


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
