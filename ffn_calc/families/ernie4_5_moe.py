"""ERNIE 4.5 MoE (`Ernie4_5_MoeForCausalLM`): routed and shared experts on a Llama-style decoder.

Fixed by the architecture: Llama's pre-norm layer (RMSNorm `input_layernorm` and
`post_attention_layernorm`, rotary positions, GQA). `use_bias` (class default false) puts a
bias on Q, K, V and O, on the dense MLP's and the shared experts' gate, up and down
projections, and on the LM head (`lm_head.bias` [vocab_size], tied head or not), but never on
the router or the routed experts. The head is tied unless `tie_word_embeddings` is false.

MoE layers: layer i is MoE when (i + 1) is a multiple of `moe_layer_interval` (default 1) and
`moe_layer_start_index` <= i <= `moe_layer_end_index` (defaults 1 and -1, which the class reads
as the last layer); every other layer has a dense SwiGLU MLP of `intermediate_size`. A MoE
layer has a bias-free router `mlp.gate` [moe_num_experts, d_model], moe_num_experts SwiGLU
experts of `moe_intermediate_size` (top `moe_k`), and, unless `moe_num_shared_experts` (default
2) is 0, one shared SwiGLU MLP `mlp.shared_experts` of moe_num_shared_experts x
moe_intermediate_size that every token passes through. The routing-score bias
`moe_statics.e_score_correction_bias` [1, moe_num_experts] is a parameter (requires_grad false)
in transformers 5.24: counted, and active with the router.

Checkpoints: transformers keeps the experts fused in memory (`mlp.experts.gate_up_proj`
[E, 2 x moe_intermediate_size, d_model], `mlp.experts.down_proj`) and the score bias under
`mlp.gate.moe_statics`; `save_pretrained` writes, and the Hub's PyTorch files hold, one
`mlp.experts.{e}.gate_proj` / `up_proj` / `down_proj` per expert and
`mlp.moe_statics.e_score_correction_bias` (transformers' conversion merges and renames them on
load and undoes it on save): `tensors` and `verify --checkpoint` list those. Names holding `mtp`
(multi-token-prediction weights a released checkpoint may carry) are ignored by transformers on
load: not counted, and `verify --checkpoint` reports them as unexpected.

No parameters and no matmuls: the softmax routing with its score bias added before top-k,
moe_norm_min, rotary positions.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, Reader, check_listed, decoder
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Ernie4_5_MoeForCausalLM"

# transformers 5.24.0 Ernie4_5_MoeConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 28,
    "hidden_size": 2560,
    "num_attention_heads": 20,
    "num_key_value_heads": 4,
    "intermediate_size": 12288,
    "moe_intermediate_size": 1536,
    "moe_num_experts": 64,
    "moe_k": 6,
    "vocab_size": 103424,
}
# Its token embedding takes pad_token_id (class default 0) as padding_idx.
PAD_DEFAULT: int | None = 0

NOTE = (
    "moe_statics.e_score_correction_bias [1, n_experts] is a parameter in "
    "Ernie4_5_MoeForCausalLM (not trained): counted once per MoE layer, and active."
)


def fields(r: Reader) -> dict[str, Any]:
    bias = r.boolean("use_bias", False)
    out = decoder(
        r,
        "ernie4_5_moe",
        tie_embeddings=r.boolean("tie_word_embeddings", True),
        attention_bias=bias,
        attention_out_bias=bias,
        ffn_bias=bias,
        lm_head_bias=bias,
    )
    n, f = out["n_layers"], r.req("moe_intermediate_size")
    start = r.index("moe_layer_start_index", 1)
    end = r.index("moe_layer_end_index", -1, minimum=-1)
    end = n - 1 if end == -1 else end  # Ernie4_5_MoeConfig.__post_init__
    interval = r.integer("moe_layer_interval", 1)
    assert interval is not None
    shared = r.index("moe_num_shared_experts", 2)
    check_listed(r, "num_hidden_layers", n)
    dense = [i for i in range(n) if (i + 1) % interval or not start <= i <= end]
    return out | {
        "d_ff": f,
        "dense_d_ff": out["d_ff"],
        "dense_ffn_layers": dense,
        "n_experts": r.req("moe_num_experts"),
        "experts_per_token": r.req("moe_k"),
        "expert_bias": False,
        "shared_expert_d_ff": shared * f if shared else None,
        "router_score_bias": "parameter",
        "note": NOTE if len(dense) < n else None,
    }


NAMING = replace(
    LLAMA_NAMING,
    router="mlp.gate",
    expert="mlp.experts.{e}.",
    shared_expert="mlp.shared_experts.",
    score_bias="mlp.moe_statics.e_score_correction_bias",
    score_bias_2d=True,
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
