"""Nemotron-H (`NemotronHForCausalLM`): blocks of one kind each, a norm and one mixer.

`layers_block_type` (alias `layer_types`; the legacy `hybrid_override_pattern` string: M =
Mamba-2, * = attention, - = MLP, E = MoE) lists each block; `num_hidden_layers` is then
ignored, as the configuration class ignores it. A Mamba-2 block (linear_attention) and an
attention block (full_attention) have no FFN; an MLP block (mlp) and a MoE block (moe) have no
token mixer. Every block is `model.layers.{i}.norm` (RMSNorm) and `model.layers.{i}.mixer`:
Mamba-2 (inner = mamba_num_heads x mamba_head_dim; the gated RMSNorm), attention without
positions or biases (q/k/v/o_proj, head_dim 128 by default), an MLP of up_proj and down_proj
(squared ReLU, relu2: ModelConfig's plain FFN with "relu", the same matrices), or a MoE:
the router `gate.weight` [n_routed_experts, d] (its `e_score_correction_bias` a buffer), the
routed experts `experts.up_proj` [E, f, w] and `experts.down_proj` [E, w, f] (squared ReLU, no
gate, no biases; f = moe_intermediate_size, w = moe_latent_size or hidden_size; checkpoints
hold them per expert, `experts.{e}.up_proj.weight`), with moe_latent_size the projections
`fc1_latent_proj` [w, d] and `fc2_latent_proj` [d, w] around them (biases as mlp_bias:
ModelConfig.moe_latent_dim), and one shared MLP `shared_experts` of
moe_shared_expert_intermediate_size (n_shared_experts is not read). With MoE blocks the MLP
blocks are the dense layers (intermediate_size). Routing (n_group, topk_group, norm_topk_prob,
routed_scaling_factor) changes no count. `model.embeddings`, `model.norm_f`, an untied
`lm_head` (whatever tie_word_embeddings says: the class ties nothing). Multi-token-prediction
layers (mtp.*, num_nextn_predict_layers) are not built by the class.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import Reader, kv_heads
from ffn_calc.families.hybrid import block_types, mamba2_sizes
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "NemotronHForCausalLM"

# transformers 5.24.0 NemotronHConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "hidden_size": 4096,
    "vocab_size": 131072,
    "num_attention_heads": 32,
    "intermediate_size": 21504,
    "mamba_num_heads": 128,
    "mamba_head_dim": 64,
    "ssm_state_size": 128,
    "moe_intermediate_size": 7688,
}
TYPES = ("linear_attention", "full_attention", "mlp", "moe")
PATTERN = {"M": "linear_attention", "*": "full_attention", "-": "mlp", "E": "moe"}
MIXER = {"linear_attention": "mamba2", "full_attention": "full", "mlp": "none", "moe": "none"}
# The class's layers when config.json names none.
DEFAULT_TYPES = ["linear_attention", "moe", "full_attention", "mlp"]


def _types(r: Reader) -> list[str]:
    for key in ("layers_block_type", "layer_types"):
        found = block_types(r, key, TYPES)
        if found is not None:
            return found
    pattern = r.data.get("hybrid_override_pattern")
    if pattern is None:
        return list(DEFAULT_TYPES)
    if not isinstance(pattern, str) or not pattern or any(c not in PATTERN for c in pattern):
        raise ConfigError(
            _("{where}: {field} = {value}: expected a string of M, *, - and E.").format(
                where=r.where("hybrid_override_pattern"),
                field="hybrid_override_pattern",
                value=shown(pattern),
            )
        )
    return [PATTERN[c] for c in pattern]


def fields(r: Reader) -> dict[str, Any]:
    types = _types(r)
    heads = r.req("num_attention_heads")
    mamba2 = mamba2_sizes(
        r,
        {
            "heads": ("mamba_num_heads",),
            "head_dim": ("mamba_head_dim",),
            "state_size": ("ssm_state_size",),
            # NemotronHConfig's __post_init__ lets the legacy mamba_* names win over the fields;
            # the mixer's in_proj / out_proj biases follow `use_bias` (mamba_proj_bias is
            # stored but unused by the modeling code).
            "n_groups": ("mamba_n_groups", "n_groups"),
            "conv_kernel": ("mamba_d_conv", "conv_kernel"),
            "chunk_size": ("mamba_chunk_size", "chunk_size"),
            "proj_bias": ("use_bias",),
            "conv_bias": ("mamba_conv_bias", "use_conv_bias"),
        },
        heads=DEFAULTS["mamba_num_heads"], head_dim=DEFAULTS["mamba_head_dim"],
        state_size=DEFAULTS["ssm_state_size"], n_groups=8, conv_kernel=4, chunk_size=128,
        proj_bias=False, conv_bias=True,
    )  # fmt: skip
    d_ff = r.req("intermediate_size")
    out = {
        "family": "nemotron_h",
        "architecture": "decoder-only",
        "n_layers": len(types),
        "d_model": r.req("hidden_size"),
        "n_heads": heads,
        "n_kv_heads": kv_heads(r, heads) if "num_key_value_heads" in r.data else 8,
        "head_dim": r.integer("head_dim", 128),
        "attention_bias": r.boolean("attention_bias", False),
        "d_ff": d_ff,
        "activation": "relu",
        "ffn_bias": r.boolean("mlp_bias", False),
        "norm": "rmsnorm",
        "positions": "none",
        "layer_norms": 1,
        "vocab_size": r.req("vocab_size"),
        "tie_embeddings": False,  # the class ties nothing (_tied_weights_keys = {})
        "layer_mixers": [MIXER[t] for t in types],
        "ffn_free_layers": [i for i, t in enumerate(types) if t not in ("mlp", "moe")],
        "mamba2": mamba2,
    }
    return {**out, **_moe(r, types, d_ff)} if "moe" in types else out


def _moe(r: Reader, types: list[str], dense: int) -> dict[str, Any]:
    """The MoE blocks' fields: top-k routed experts of moe_intermediate_size (up and down, no
    biases) at moe_latent_size where set, the router's score bias a buffer, one shared MLP of
    moe_shared_expert_intermediate_size (0: intermediate_size, as NemotronHMLP's `or`); the
    MLP blocks are the dense layers, of intermediate_size."""
    # n_routed_experts, or its alias num_local_experts where only that is given (a default
    # taken is named by the field's own name).
    alias = "num_local_experts" in r.data and "n_routed_experts" not in r.data
    experts = "num_local_experts" if alias else "n_routed_experts"
    shared = r.index("moe_shared_expert_intermediate_size", 7688)
    mlp = [i for i, t in enumerate(types) if t == "mlp"]
    return {
        "d_ff": r.req("moe_intermediate_size"),
        "n_experts": r.integer(experts, 8),
        "experts_per_token": r.integer("num_experts_per_tok", 2),
        "expert_bias": False,
        "shared_expert_d_ff": shared or dense,
        "router_score_bias": "buffer",
        "moe_latent_dim": r.opt("moe_latent_size"),
        "dense_ffn_layers": mlp,
        "dense_d_ff": dense if mlp else None,
    }


NAMING = Naming(
    layer="model.layers.{i}.",
    q="mixer.q_proj",
    k="mixer.k_proj",
    v="mixer.v_proj",
    o="mixer.o_proj",
    up="mixer.up_proj",
    down="mixer.down_proj",
    gate="mixer.gate_proj",
    norm_attn="norm",
    final_norm="model.norm_f",
    tok="model.embeddings",
    prefixes=("model.",),
    architecture="decoder-only",
    mixer="mixer.",
    router="mixer.gate",
    score_bias="mixer.gate.e_score_correction_bias",
    expert="mixer.experts.{e}.",
    shared_expert="mixer.shared_experts.",
    latent_down="mixer.fc1_latent_proj",
    latent_up="mixer.fc2_latent_proj",
    # save_pretrained writes the released checkpoints' names (transformers' conversion maps
    # them back on loading): backbone.* for model.*.
    renames={"backbone.": "model."},
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
