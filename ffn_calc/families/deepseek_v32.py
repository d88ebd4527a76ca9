"""DeepSeek-V3.2 (`DeepseekV32ForCausalLM`): DeepSeek-V3 plus sparse attention's lightning indexer.

Fixed by the architecture: DeepSeek-V3's layer (see ffn_calc.families.deepseek_v3: RMSNorm
pre-norm, multi-head latent attention, dense SwiGLU MLPs in the first layers, then routed and
shared experts, the `mlp.gate.e_score_correction_bias` buffer, the experts fused in memory and
one tensor per expert in checkpoints), with two differences:
- the query always goes through its low-rank bottleneck (`q_a_proj`, `q_a_layernorm`,
  `q_b_proj`): DeepseekV32Attention has no plain `q_proj`, so a null `q_lora_rank` is refused;
- every layer's attention holds a lightning indexer, `self_attn.indexer` (no biases):
  `wq_b` [index_n_heads x index_head_dim, q_lora_rank] over the query latent
  (q_a_layernorm's output), `wk` [index_head_dim, d_model] (one key shared by its heads),
  `k_norm` a LayerNorm [index_head_dim] with weight and bias, `weights_proj` [index_n_heads,
  d_model] (each head's weight per token). ModelConfig holds it as data: indexer_heads,
  indexer_head_dim, indexer_topk.
The dense and MoE layers follow `mlp_layer_types` ("dense" / "sparse" per layer) where
config.json gives it, else the first `first_k_dense_replace` layers (default 3) are dense.

How the reference runs the indexer (its FLOPs, ffn_calc.counts.flops): its projections over
every token (with the attention projections), then per query and key q . k over
index_head_dim for each of its heads, each head's score weighted and summed over the heads
(the "indexer scores" term, with the attention scores: S x S x index_n_heads x
(index_head_dim + 1) multiply-adds), then the top `index_topk` keys per query. Eager (and
SDPA) attention folds that selection into the attention mask, a mask over the full S x S
square: QK^T and AV still run over every pair, and FlopCounterMode counts them so. A kernel
that gathers only the selected keys (flash-mla, which transformers 5.24 does not enable for
this class) would cost less; ffn-calc counts what the reference runs.

The cache (transformers' DynamicIndexedLayer per layer) holds MLA's latent and rotary key
(kv_lora_rank + qk_rope_head_dim per token) and the indexer's keys (index_head_dim per
token); a decode step runs the indexer over the new token against every cached indexer key.

No parameters and no matmuls: the rotary embedding (interleaved in MLA, half-split in the
indexer), the Hadamard rotation and FP8 scoring of the original kernels (transformers skips
both), the top-k, the routing (sigmoid scores, group-limited top-k, routed_scaling_factor).
num_key_value_heads changes no count (keys and values have n_heads heads).

The released checkpoint also holds `num_nextn_predict_layers` multi-token-prediction layers
(`model.layers.61.*`), which transformers does not build: not counted (noted where config.json
gives num_nextn_predict_layers; the class has no such field).
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import Reader, check_listed, decoder
from ffn_calc.families.deepseek_v3 import NAMING, mla_moe
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "DeepseekV32ForCausalLM"

# transformers 5.24.0 DeepseekV32Config's defaults for the sizes config.json may leave out.
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
    "q_lora_rank": 1536,
    "v_head_dim": 128,
    "n_routed_experts": 256,
    "num_experts_per_tok": 8,
    "index_n_heads": 64,
    "index_head_dim": 128,
    "index_topk": 2048,
}
# Its token embedding takes pad_token_id (class default None) as padding_idx.
PAD_DEFAULT: int | None = None


def dense_layers(r: Reader, n: int, first_k: int) -> list[int]:
    """The dense layers: `mlp_layer_types` ("dense" / "sparse", one per layer) where given,
    else the first `first_k` (the class's __post_init__ builds that pattern)."""
    value = r.data.get("mlp_layer_types")
    if value is None:
        return list(range(min(first_k, n)))
    if (
        not isinstance(value, list)
        or len(value) != n
        or not all(x in ("dense", "sparse") for x in value)
    ):
        raise ConfigError(
            _("{where}: {field} = {value}: expected one of {choices} per layer ({layers}).").format(
                where=r.where("mlp_layer_types"),
                field="mlp_layer_types",
                value=shown(value),
                choices="dense, sparse",
                layers=n,
            )
        )
    return [i for i, x in enumerate(value) if x == "dense"]


def note(r: Reader, architecture: str, first: int) -> str:
    """The score-bias buffer, and the multi-token-prediction layers a released checkpoint
    holds beyond the model where config.json says how many."""
    text = (
        "e_score_correction_bias [n_routed_experts] per MoE layer is a buffer in transformers: "
        "not a parameter; checkpoint_elements counts it."
    )
    if r.data.get("num_nextn_predict_layers") is None:  # not a field of the class
        return text
    mtp = r.index("num_nextn_predict_layers", 0)
    if not mtp:
        return text
    names = (
        f"model.layers.{first}.*" if mtp == 1 else f"model.layers.{{{first}..{first + mtp - 1}}}.*"
    )
    what = "a multi-token-prediction layer" if mtp == 1 else f"{mtp} multi-token-prediction layers"
    return (
        f"{text} The released checkpoint also stores {what} ({names}, num_nextn_predict_layers) "
        f"that {architecture} does not build: not counted."
    )


def sparse_mla_moe(r: Reader, family: str, architecture: str) -> dict[str, Any]:
    """The fields DeepSeek-V3.2 and GLM-5 share: MLA with a low-rank query, the lightning
    indexer, dense then routed layers."""
    if "q_lora_rank" in r.data and r.data["q_lora_rank"] is None:
        raise ConfigError(
            _(
                "{where}: q_lora_rank = null: {architecture} always compresses the query (its "
                "indexer reads the query latent); give the rank."
            ).format(where=r.where("q_lora_rank"), architecture=architecture)
        )
    out = decoder(
        r,
        family,
        n_kv_heads=None,
        head_dim=None,
        attention_bias=r.boolean("attention_bias", False),
    )
    n = check_listed(r, "num_hidden_layers", out["n_layers"])
    out = mla_moe(
        r, out, dense=r.index("first_k_dense_replace", 3), shared=r.index("n_shared_experts", 1)
    )
    dense = dense_layers(r, n, r.index("first_k_dense_replace", 3))
    return out | {
        "dense_ffn_layers": dense,
        "dense_d_ff": r.req("intermediate_size") if dense else None,
        "q_lora_rank": r.req("q_lora_rank"),
        "n_experts": r.req("n_routed_experts"),
        "experts_per_token": r.req("num_experts_per_tok"),
        "router_score_bias": "buffer",
        "indexer_heads": r.req("index_n_heads"),
        "indexer_head_dim": r.req("index_head_dim"),
        "indexer_topk": r.req("index_topk"),
        "note": note(r, architecture, n),
    }


def fields(r: Reader) -> dict[str, Any]:
    return sparse_mla_moe(r, "deepseek_v32", ARCHITECTURE)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
