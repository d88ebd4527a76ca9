"""Kimi Linear (`KimiLinearForCausalLM`): KDA (Kimi Delta Attention) and MLA layers, DeepSeek-V3's
MoE.

`layer_types` names each layer's token mixer: "linear_attention" (KDA under `self_attn.`:
q/k/v_proj, conv1d, forget_gate.{f_a_proj, f_b_proj, dt_bias, A_log}, b_proj, g_a_proj,
g_b_proj, o_norm [linear_head_dim], o_proj) or "full_attention" (MLA as DeepSeek-V3's, see
deepseek_v3, without rotary positions: q_proj, or q_a_proj / q_a_layernorm / q_b_proj with a
q_lora_rank; kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj, o_proj). Absent, the
checkpoint's `linear_attn_config` lists `full_attn_layers` and `kda_layers` (1-based), else
layer i > 0 with i % 4 == 0 attends. `linear_attn_config` also carries head_dim, num_heads
and short_conv_kernel_size (over linear_head_dim, linear_num_heads, linear_conv_kernel_dim).
Checkpoints (save_pretrained, the Hub) store the FFN under `block_sparse_moe.`, experts one by
one as w1 (gate), w3 (up), w2 (down), and the KDA's convolution as q_conv1d, k_conv1d,
v_conv1d [W, 1, K] with f_a_proj, f_b_proj, dt_bias and A_log directly under `self_attn.`;
transformers' conversion maps them to its modules on load: `tensors` and `verify
--checkpoint` list the stored names.
`mlp_layer_types` names each FFN "dense" (a SwiGLU MLP of intermediate_size) or "sparse"
(router `mlp.gate` with the score-bias buffer, num_experts experts of moe_intermediate_size,
num_experts_per_token per token, `mlp.shared_experts` of num_shared_experts x
moe_intermediate_size); absent, the first first_k_dense_replace (default 1) are dense.

The head is never tied: the class declares no tied weights, whatever tie_word_embeddings says.
No parameters: the routing's scaling and group limits, num_key_value_heads (MLA's keys and
values have n_heads heads), the delta rule's chunk size (the torch path's default 64).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families import deepseek_v3
from ffn_calc.families.base import Reader, decoder
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "KimiLinearForCausalLM"

# transformers 5.24.0 KimiLinearConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 27,
    "hidden_size": 2304,
    "num_attention_heads": 32,
    "intermediate_size": 9216,
    "moe_intermediate_size": 1024,
    "vocab_size": 163840,
    "kv_lora_rank": 512,
    "qk_rope_head_dim": 64,
    "qk_nope_head_dim": 128,
    "v_head_dim": 128,
    "num_experts": 256,
    "num_experts_per_token": 8,
    "linear_head_dim": 128,
    "linear_num_heads": 32,
    "linear_conv_kernel_dim": 4,
}
PAD_DEFAULT: int | None = 163839


def _listed(r: Reader, key: str, names: dict[str, str], layers: int) -> list[str] | None:
    """A per-layer list of names (layer_types, mlp_layer_types) mapped, or None if absent."""
    given = r.data.get(key)
    if given is None:
        return None
    if not isinstance(given, list) or len(given) != layers or any(t not in names for t in given):
        raise ConfigError(
            _("{where}: {field} = {value}: expected one of {names} for each of the {layers} "
              "layers.").format(
                where=r.where(key), field=key, value=shown(given),
                names=", ".join(names), layers=layers,
            )
        )  # fmt: skip
    return [names[t] for t in given]


def _mixers(r: Reader, linear: dict[str, Any], n: int) -> list[str]:
    types = _listed(r, "layer_types", {"linear_attention": "kda", "full_attention": "full"}, n)
    if types is not None:
        return types
    full, kda = linear.get("full_attn_layers"), linear.get("kda_layers")
    if isinstance(full, list) and isinstance(kda, list):  # 1-based, as the class reads them
        out = ["full" if i + 1 in full else "kda" if i + 1 in kda else "" for i in range(n)]
        if all(out):
            return out
    return ["full" if i and i % 4 == 0 else "kda" for i in range(n)]


def fields(r: Reader) -> dict[str, Any]:
    out = decoder(
        r, "kimi_linear", n_kv_heads=None, head_dim=None, positions="none", tie_embeddings=False,
        attention_bias=r.boolean("attention_bias", False),
    )  # fmt: skip
    n = out["n_layers"]
    linear = r.data.get("linear_attn_config")
    linear = linear if isinstance(linear, dict) else {}
    ffns = _listed(r, "mlp_layer_types", {"dense": "dense", "sparse": "sparse"}, n)
    if ffns is None:
        k = r.index("first_k_dense_replace", 1)
        ffns = ["dense" if i < k else "sparse" for i in range(n)]
    dense = [i for i, f in enumerate(ffns) if f == "dense"]
    nope, rope, f = (
        r.req("qk_nope_head_dim"),
        r.req("qk_rope_head_dim"),
        r.req("moe_intermediate_size"),
    )
    shared = r.index("num_shared_experts", 1)
    # KimiLinearConfig reads num_experts_per_tok as num_experts_per_token (its attribute_map);
    # absent, the class default of num_experts_per_token.
    key = "num_experts_per_tok" if "num_experts_per_tok" in r.data else "num_experts_per_token"

    def size(name: str, key: str) -> Any:
        return linear[name] if isinstance(linear.get(name), int) else r.req(key)

    return out | {
        "head_dim": nope + rope,
        "attention": "mla",
        "q_lora_rank": deepseek_v3.q_lora_rank(r, 0) if r.data.get("q_lora_rank") else None,
        "kv_lora_rank": r.req("kv_lora_rank"),
        "qk_nope_head_dim": nope,
        "qk_rope_head_dim": rope,
        "v_head_dim": r.req("v_head_dim"),
        "d_ff": f,
        "dense_d_ff": out["d_ff"] if dense else None,
        "dense_ffn_layers": dense,
        "shared_expert_d_ff": shared * f if shared else None,
        "n_experts": r.req("num_experts"),
        "experts_per_token": r.req(key),
        "router_score_bias": "buffer",
        "note": deepseek_v3._note(0, n),  # the score-bias buffer
        "layer_mixers": _mixers(r, linear, n),
        "kda": {
            "heads": size("num_heads", "linear_num_heads"),
            "head_dim": size("head_dim", "linear_head_dim"),
            "conv_kernel": size("short_conv_kernel_size", "linear_conv_kernel_dim"),
        },
    }


# The names save_pretrained writes (transformers' kimi_linear conversion maps them to the
# modules: block_sparse_moe. -> mlp., experts' w1 / w3 / w2 fused into gate_up_proj and
# down_proj, the KDA's q/k/v_conv1d stacked and its forget gate's tensors moved).
_FFN = "block_sparse_moe."
NAMING = replace(
    deepseek_v3.NAMING,
    mixer="self_attn.",
    up=_FFN + "up_proj",
    down=_FFN + "down_proj",
    gate=_FFN + "gate_proj",
    router=_FFN + "gate",
    expert=_FFN + "experts.{e}.",
    expert_gate="w1",
    expert_up="w3",
    expert_down="w2",
    score_bias=_FFN + "gate.e_score_correction_bias",
    shared_expert=_FFN + "shared_experts.",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
