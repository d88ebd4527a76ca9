"""Gemma 4 text (`Gemma4ForCausalLM`): Gemma 3's layers, wider global layers and per-layer inputs.

Fixed by the architecture: four RMSNorms of [d_model] per layer (as Gemma 2 and 3), an RMSNorm
of [head_dim] on the queries and one on the keys (self_attn.q_norm / k_norm; the value norm
has no weight), a gated FFN without biases, rotary positions; `attention_bias` on Q, K, V and
O alike. Sliding-window layers (`layer_types`, default five in six; the last layer is forced
to full attention, as Gemma4TextConfig does) over `sliding_window` (default 512) tokens.

New in Gemma 4, as data:
- the full-attention layers have their own head_dim and kv heads (`per_layer_config`, else
  `global_head_dim`, default 512, and `num_global_key_value_heads` where attention_k_eq_v):
  ModelConfig.global_head_dim / global_kv_heads;
- per-layer inputs (`hidden_size_per_layer_input`, default 256; 0 turns them off): a second
  token table `embed_tokens_per_layer` [vocab_size_per_layer_input, n_layers x 256], the
  projection `per_layer_model_projection` [n_layers x 256, d_model] and its norm
  (`per_layer_projection_norm` [256]); in each layer `per_layer_input_gate` [256, d_model],
  `per_layer_projection` [d_model, 256] and `post_per_layer_input_norm` [d_model]:
  ModelConfig.per_layer_dim / per_layer_vocab (Gemma 3n's too);
- the last num_kv_shared_layers layers (default 0) reuse the keys and values of the last
  earlier layer of their type, as Gemma 3n's (kv_shared_layers: no k_proj, v_proj, k_norm,
  nothing cached); generate()'s prefill runs them over the prompt's last position only
  (Gemma4TextModel._maybe_slice_kv_shared_inputs): kv_shared_prefill_last;
- attention_k_eq_v: the full-attention layers have no v_proj, their keys serve as values
  (keys_as_values), with num_global_key_value_heads heads where per_layer_config is absent
  (read only then, as Gemma4TextConfig does); K and V are still cached apart;
- the MoE block beside the MLP (enable_moe_block, Gemma 4 26B-A4B): every layer keeps its
  dense MLP (intermediate_size; ModelConfig.shared_expert_d_ff: every token passes it) and adds
  num_experts routed experts of moe_intermediate_size (d_ff), top_k_experts of them per token
  (experts_per_token), fused as experts.gate_up_proj [E, 2 f, d] and experts.down_proj
  [E, d, f]; the router `router.proj` [E, d] over the layer's input (its RMSNorm has no
  weight) with two scales of its own, router.scale [d] and router.per_expert_scale [E]
  (layer_parts, no matmul); three more RMSNorms [d] (layer_norms 7: post_feedforward_layernorm_1
  after the MLP, pre_feedforward_layernorm_2 before the experts, post_feedforward_layernorm_2
  after them). The two outputs are added, then post_feedforward_layernorm. FLOPs as ffn-calc
  counts every MoE (eager experts): the router over every token, top_k_experts expert passes
  and the dense MLP per token;
- the KV-shared layers' double-wide MLP (use_double_wide_mlp with num_kv_shared_layers > 0):
  their MLP 2 x intermediate_size wide (ModelConfig.kv_shared_d_ff; with the MoE block, the
  dense MLP beside the experts).

Refused with the field named: every layer shared (no layer to share from), per_layer_config
overrides other than head_dim and num_key_value_heads, enable_moe_block without num_experts,
top_k_experts or moe_intermediate_size (the class has no default). No parameters: the
embedding scales, `layer_scalar` (a buffer), the soft-capping, the router's norm.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families import gemma3n_text
from ffn_calc.families.base import (
    GATED_ACT,
    Reader,
    check_listed,
    decoder,
    layer_types,
    window_fields,
)
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import Part

ARCHITECTURE = "Gemma4ForCausalLM"

# transformers 5.24.0 Gemma4TextConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 30,
    "hidden_size": 2304,
    "num_attention_heads": 8,
    "intermediate_size": 9216,
    "vocab_size": 262144,
}
# Its token embeddings take pad_token_id (class default 0) as padding_idx.
PAD_DEFAULT: int | None = 0

# The three norms the MoE block adds, after Gemma 2's four (Gemma4TextDecoderLayer).
MOE_NORMS = (
    "post_feedforward_layernorm_1",
    "post_feedforward_layernorm_2",
    "pre_feedforward_layernorm_2",
)


# Gemma 2's names, the per-layer inputs' tables under the base model (as Gemma 3n's), and the
# MoE block's: the dense MLP as the shared expert, the router's projection, fused experts.
NAMING = replace(
    gemma3n_text.NAMING,
    norms={4: gemma3n_text.NAMING.norms[4], 7: (*gemma3n_text.NAMING.norms[4], *MOE_NORMS)},
    router="router.proj",
    fused_experts="experts.",
    shared_expert="mlp.",
)


def _moe(r: Reader, d: int, dense: int) -> dict[str, Any]:
    """enable_moe_block: the routed experts beside the dense MLP (of width `dense`), the
    router's two scales and three more norms; {} without it."""
    if not r.boolean("enable_moe_block", False):
        return {}
    e = r.req("num_experts")
    parts = [
        Part(name="router.scale", group="ffn", shape=[d], per="token"),
        Part(name="router.per_expert_scale", group="ffn", shape=[e], per="token"),
    ]
    return {
        "n_experts": e,
        "experts_per_token": r.req("top_k_experts"),
        "d_ff": r.req("moe_intermediate_size"),
        "shared_expert_d_ff": dense,
        "layer_norms": 4 + len(MOE_NORMS),
        "layer_parts": parts,
    }


def _overrides(r: Reader, types: list[str]) -> dict[int, dict[str, Any]]:
    """per_layer_config by layer index (keys "5" or "05"), or the class's: global_head_dim
    (default 512) on every full-attention layer."""
    value = r.data.get("per_layer_config")
    if value is None:
        over: dict[str, Any] = {"head_dim": r.integer("global_head_dim", 512)}
        kv = r.opt("num_global_key_value_heads")  # read where attention_k_eq_v only
        if kv is not None and r.boolean("attention_k_eq_v", False):
            over["num_key_value_heads"] = kv
        return {i: over for i, t in enumerate(types) if t == "full_attention"}
    bad = not isinstance(value, dict)
    out: dict[int, dict[str, Any]] = {}
    for key, layer in ({} if bad else value).items():
        index = int(key) if isinstance(key, str) and key.isdigit() else -1
        allowed = {"head_dim", "num_key_value_heads"}
        if not isinstance(layer, dict) or not 0 <= index < len(types) or set(layer) - allowed:
            bad = True
            break
        out[index] = layer
    if bad:
        raise ConfigError(
            _(
                "{where}: {field} = {value}: expected layer indices with head_dim or "
                "num_key_value_heads only."
            ).format(
                where=r.where("per_layer_config"), field="per_layer_config", value=shown(value)
            )
        )
    return out


def _global(r: Reader, types: list[str], head_dim: int, kv: int) -> tuple[int, int]:
    """(head_dim, kv heads) of the full-attention layers: one value for all of them, the
    sliding layers keeping the model's."""
    over = _overrides(r, types)
    found = set()
    for i, t in enumerate(types):
        layer = over.get(i, {})
        pair = (layer.get("head_dim", head_dim), layer.get("num_key_value_heads", kv))
        if t == "full_attention":
            found.add(pair)
        elif pair != (head_dim, kv):
            found.add(("sliding", i))
    if len(found) != 1 or not all(isinstance(x, int) and x > 0 for x in next(iter(found))):
        raise ConfigError(
            _(
                "{where}: {field}: layers of one attention type must share head_dim and "
                "num_key_value_heads (the sliding layers the model's)."
            ).format(where=r.where("per_layer_config"), field="per_layer_config")
        )
    g_hd, g_kv = next(iter(found))
    return int(g_hd), int(g_kv)


def fields(r: Reader) -> dict[str, Any]:
    layers = check_listed(r, "num_hidden_layers", r.req("num_hidden_layers"))
    pattern = ["sliding_attention" if (i + 1) % 6 else "full_attention" for i in range(layers)]
    types = list(layer_types(r, layers, pattern))
    types[-1] = "full_attention"  # Gemma4TextConfig forces the last layer to full attention
    windows = window_fields(r, types, "sliding_attention", "sliding_window", 512)
    bidirectional = r.data.get("use_bidirectional_attention")
    if bidirectional == "all" and windows.get("attention_window"):
        windows["attention_window"] = windows["attention_window"] // 2 + 1
    head_dim = r.integer("head_dim", 256)
    kv = r.integer("num_key_value_heads", 4)
    assert head_dim is not None and kv is not None
    g_hd, g_kv = _global(r, types, head_dim, kv)
    out = decoder(
        r,
        "gemma4_text",
        **windows,
        n_kv_heads=kv,
        head_dim=head_dim,
        activation=r.choice("hidden_activation", GATED_ACT, "gelu_pytorch_tanh"),
        tie_embeddings=r.boolean("tie_word_embeddings", True),
        attention_bias=r.boolean("attention_bias", False),
        layer_norms=4,
        qk_norm="head",
    )
    if not windows.get("window_layers"):  # no layer local, or every one: one width
        local = bool(windows)
        out["head_dim"], out["n_kv_heads"] = (head_dim, kv) if local else (g_hd, g_kv)
    else:
        if g_hd != head_dim:
            out["global_head_dim"] = g_hd
        if g_kv != kv:
            out["global_kv_heads"] = g_kv
    if r.boolean("attention_k_eq_v", False) and "full_attention" in types:
        # the full-attention layers have no v_proj: their keys serve as values
        out["keys_as_values"] = "global" if windows.get("window_layers") else "all"
    out["kv_shared_layers"] = gemma3n_text.shared_layers(r, types, default=0)
    # generate()'s prefill runs them over the last position (_maybe_slice_kv_shared_inputs)
    out["kv_shared_prefill_last"] = bool(out["kv_shared_layers"])
    dense = out["d_ff"]  # the MLP of every layer (beside the experts with the MoE block)
    out.update(_moe(r, out["d_model"], dense))
    if out["kv_shared_layers"] and r.boolean("use_double_wide_mlp", False):
        out["kv_shared_d_ff"] = 2 * dense  # the KV-shared layers' MLP twice as wide
    key = "hidden_size_per_layer_input"
    if r.data.get(key, 256) not in (0, None):  # 0 or null turns the per-layer inputs off
        out["per_layer_dim"] = r.integer(key, 256)
        rows = r.integer("vocab_size_per_layer_input", 262144)
        if rows != out["vocab_size"]:
            out["per_layer_vocab"] = rows
    return out


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
