"""OLMoE (`OlmoeForCausalLM`): q/k RMSNorms over the whole projection width, routed experts only.

Fixed by the architecture: two RMSNorms of [d_model] per layer (input_layernorm,
post_attention_layernorm), an RMSNorm of [hidden_size] on the queries and one of
[hidden_size / heads x n_kv_heads] on the keys (before the split into heads), rotary
positions, an untied head unless tie_word_embeddings; `attention_bias` (default false) puts a
bias on Q, K, V and O alike. Every layer is MoE: a router `mlp.gate` [num_experts, d_model] (no
bias) and num_experts routed SwiGLU experts of intermediate_size, no shared expert, no dense
layer. The expert count is `num_experts` or its alias `num_local_experts` (which wins when both
are given, as in the class). Absent num_key_value_heads: the number of heads. The q norm spans
hidden_size while Q spans heads x head_dim, so the class runs only where they are equal: a
config.json whose head_dim (or hidden_size / heads) breaks that is refused.

Expert storage: transformers 5.24 keeps the experts fused in memory (`mlp.experts.gate_up_proj`
[E, 2 x intermediate_size, d_model], `mlp.experts.down_proj` [E, d_model, intermediate_size]);
checkpoints, as save_pretrained writes them and as the Hub holds them, store one
`mlp.experts.{e}.gate_proj` / `up_proj` / `down_proj` per expert, which `tensors` and
`verify --checkpoint` follow.

No parameters: clip_qkv (a clamp), norm_topk_prob, rotary scaling, the auxiliary loss.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families import qwen2_moe
from ffn_calc.families.base import Reader, decoder
from ffn_calc.families.tensor_names import Naming
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "OlmoeForCausalLM"

# transformers 5.24.0 OlmoeConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 16,
    "hidden_size": 2048,
    "num_attention_heads": 16,
    "intermediate_size": 2048,
    "num_experts": 64,
    "num_local_experts": 64,
    "num_experts_per_tok": 8,
    "vocab_size": 50304,
}
# Its token embedding takes pad_token_id (class default 1) as padding_idx.
PAD_DEFAULT: int | None = 1


def fields(r: Reader) -> dict[str, Any]:
    key = "num_local_experts" if r.data.get("num_local_experts") is not None else "num_experts"
    d, heads = r.req("hidden_size"), r.req("num_attention_heads")
    head_dim = r.opt("head_dim")
    if (head_dim or d // heads) * heads != d:  # q_norm [hidden_size] after q_proj [heads x hd]
        where = r.where("head_dim" if head_dim else "hidden_size")
        raise ConfigError(
            _(
                "{where}: OlmoeForCausalLM normalises the queries over hidden_size "
                "({hidden_size}), so num_attention_heads ({heads}) x head_dim ({head_dim}) "
                "must equal it."
            ).format(where=where, hidden_size=d, heads=heads, head_dim=head_dim or d // heads)
        )
    return decoder(
        r,
        "olmoe",
        d_model=d,
        n_heads=heads,
        head_dim=head_dim,
        n_experts=r.req(key),
        experts_per_token=r.req("num_experts_per_tok"),
        attention_bias=r.boolean("attention_bias", False),
        qk_norm="full",
        note=qwen2_moe.NOTE.format(arch=ARCHITECTURE),
    )


def naming(cfg: ModelConfig) -> Naming:
    return qwen2_moe.NAMING  # q_norm / k_norm: Naming's self_attn.q_norm / k_norm
