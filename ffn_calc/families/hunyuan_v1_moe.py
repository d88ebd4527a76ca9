"""HunYuan MoE (`HunYuanMoEV1ForCausalLM`): HunYuan's attention, routed experts plus a shared MLP.

Fixed by the architecture: the attention of hunyuan_v1_dense (Llama's pre-norm layer, GQA,
[head_dim] RMSNorms `self_attn.query_layernorm` / `key_layernorm` after rotary,
`attention_bias` on Q, K, V and O alike). Every layer is MoE: a bias-free router
`mlp.gate.wg` [num_experts, d_model], num_experts SwiGLU experts of `intermediate_size` (top
`moe_topk`), and one shared SwiGLU MLP `mlp.shared_mlp` of `intermediate_size` that every
token passes through; no bias in any FFN. The head is untied unless `tie_word_embeddings`.
The class reads neither `moe_intermediate_size` nor `num_shared_expert` (released config.json
files carry them): the experts and the shared MLP are as wide as `intermediate_size`, and
there is one shared MLP. `num_local_experts` and `num_experts_per_tok`, the attribute_map
aliases, win over `num_experts` and `moe_topk` when given. `moe_topk` may be a list, one per
layer; transformers 5.24 routes layer i with its entry i, so a list whose first
num_hidden_layers entries are equal is that one top-k (others are refused). Class defaults
for absent fields: num_experts 1, moe_topk 1, num_key_value_heads = heads; `head_dim` is
required, as for hunyuan_v1_dense.

Checkpoints: transformers keeps the experts fused in memory (`mlp.experts.gate_up_proj`
[E, 2 x intermediate_size, d_model], `mlp.experts.down_proj`); `save_pretrained` writes one
`mlp.experts.{e}.gate_proj` / `up_proj` / `down_proj` per expert (the qwen2_moe conversion):
`tensors` and `verify --checkpoint` list those.

No parameters and no matmuls: the softmax routing, the top-k renormalisation, the NTK-alpha
rotary scaling.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families import hunyuan_v1_dense
from ffn_calc.families.base import Reader, decoder
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "HunYuanMoEV1ForCausalLM"

# transformers 5.24.0 HunYuanMoEV1Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "intermediate_size": 11008,
    "vocab_size": 290943,
    "num_experts": 1,
    "num_local_experts": 1,
    "moe_topk": 1,
    "num_experts_per_tok": 1,
}
# Its token embedding takes pad_token_id (class default 0) as padding_idx.
PAD_DEFAULT: int | None = 0


def top_k(r: Reader, key: str, layers: int) -> int:
    """The experts per token: an integer, or a list of one per layer whose first `layers`
    entries agree (the class reads entry i for layer i)."""
    value = r.data.get(key)
    if not isinstance(value, list):
        return r.req(key)
    used = value[:layers]
    if (
        len(used) < layers
        or any(isinstance(k, bool) or not isinstance(k, int) or k <= 0 for k in used)
        or len(set(used)) != 1
    ):
        raise ConfigError(
            _(
                "{where}: {field} = {value}: expected one integer, or one per layer "
                "({layers}), the same for every layer."
            ).format(where=r.where(key), field=key, value=shown(value), layers=layers)
        )
    return int(used[0])


def fields(r: Reader) -> dict[str, Any]:
    out = decoder(r, "hunyuan_v1_moe", **hunyuan_v1_dense.attention(r))
    experts = "num_local_experts" if r.data.get("num_local_experts") is not None else "num_experts"
    k = "num_experts_per_tok" if r.data.get("num_experts_per_tok") is not None else "moe_topk"
    return out | {
        "n_experts": r.req(experts),
        "experts_per_token": top_k(r, k, out["n_layers"]),
        "shared_expert_d_ff": out["d_ff"],
    }


NAMING = replace(
    hunyuan_v1_dense.NAMING,
    router="mlp.gate.wg",
    expert="mlp.experts.{e}.",
    shared_expert="mlp.shared_mlp.",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
