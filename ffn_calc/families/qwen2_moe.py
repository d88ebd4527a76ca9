"""Qwen2-MoE (`Qwen2MoeForCausalLM`): Qwen2's attention, routed experts plus a gated shared expert.

Fixed by the architecture: two RMSNorms of [d_model] per layer (input_layernorm,
post_attention_layernorm), biases on Q, K and V when `qkv_bias` (default true) and never on O,
rotary positions, SwiGLU everywhere without biases, an untied head unless
tie_word_embeddings. A MoE layer holds a router `mlp.gate` [num_experts, d_model] (no bias),
num_experts routed experts of moe_intermediate_size, one shared expert of
shared_expert_intermediate_size that every token passes through and its sigmoid gate
`mlp.shared_expert_gate` [1, d_model]. Layer i is MoE unless it is in `mlp_only_layers` or
(i + 1) is no multiple of `decoder_sparse_step` (default 1); the other layers hold a dense
SwiGLU MLP of intermediate_size. Indices in mlp_only_layers outside the layers change nothing
(the class never asks for them); with num_experts 0, or no layer MoE, the model is dense.
head_dim is hidden_size / heads (floored, as the class computes it) unless the config.json
gives one. Absent num_key_value_heads: 16.

Expert storage: transformers 5.24 keeps a MoE layer's experts fused in memory
(`mlp.experts.gate_up_proj` [E, 2 x moe_intermediate_size, d_model], `mlp.experts.down_proj`
[E, d_model, moe_intermediate_size]); checkpoints, as `save_pretrained` writes them and as the
Hub holds them (the conversion mapping merges them on load and splits them on save), store one
`mlp.experts.{e}.gate_proj` / `up_proj` / `down_proj` per expert. `tensors` and
`verify --checkpoint` follow the checkpoint.

Sliding windows (no parameters; a mask for the FLOPs, eager attention multiplying the full
square): with `use_sliding_window` (default false), layers i < max_window_layers (default 28)
with i + 1 odd slide over sliding_window (default 4,096) tokens, or those `layer_types` names
sliding_attention (Qwen2MoeConfig); their cache keeps the last window - 1 tokens.

No parameters: norm_topk_prob (a renormalisation of the top-k weights), rotary scaling, the
router's auxiliary loss.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import (
    LLAMA_NAMING,
    Reader,
    check_listed,
    decoder,
    layer_types,
    optional_window,
    window_fields,
)
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Qwen2MoeForCausalLM"

# transformers 5.24.0 Qwen2MoeConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 24,
    "hidden_size": 2048,
    "num_attention_heads": 16,
    "intermediate_size": 5632,
    "moe_intermediate_size": 1408,
    "shared_expert_intermediate_size": 5632,
    "num_experts": 60,
    "num_experts_per_tok": 4,
    "vocab_size": 151936,
}
# Its token embedding takes pad_token_id (class default None) as padding_idx.
PAD_DEFAULT: int | None = None

NOTE = (
    "{arch} keeps each MoE layer's experts fused in memory (mlp.experts.gate_up_proj, "
    "mlp.experts.down_proj); checkpoints, as save_pretrained writes them and the Hub holds "
    "them, store each expert's gate_proj, up_proj and down_proj, which `tensors` lists."
)


def dense_layers(r: Reader, layers: int) -> list[int]:
    """The layers with a dense MLP: those in mlp_only_layers, and those whose (i + 1) is no
    multiple of decoder_sparse_step (Qwen2-MoE's and Qwen3-MoE's decoder layer)."""
    key = "mlp_only_layers"
    only = r.data.get(key)
    if only is None:
        only = []
    if not isinstance(only, list) or any(
        isinstance(i, bool) or not isinstance(i, int) for i in only
    ):
        raise ConfigError(
            _("{where}: {field} = {value}: expected a list of layer indices.").format(
                where=r.where(key), field=key, value=shown(only)
            )
        )
    step = r.integer("decoder_sparse_step", 1)
    assert step is not None
    return [i for i in range(layers) if i in only or (i + 1) % step]


def windows(r: Reader, layers: int, *, alternate: bool) -> dict[str, Any]:
    """The sliding windows transformers' mask and cache apply, with use_sliding_window
    (default false) over sliding_window (default 4,096) tokens. Qwen2MoeConfig (`alternate`):
    the layers i < max_window_layers (default 28) with i + 1 odd, or those `layer_types`
    names sliding_attention; Qwen3MoeConfig (no layer_types): every layer, as its cache reads
    a config without layer types."""
    if not r.boolean("use_sliding_window", False):
        return {}
    if not alternate:
        window = optional_window(r, "sliding_window", 4096)
        return {"attention_window": window} if window else {}
    first = r.index("max_window_layers", 28)
    pattern = [
        "sliding_attention" if (i + 1) % 2 and i < first else "full_attention"
        for i in range(layers)
    ]
    return window_fields(
        r, layer_types(r, layers, pattern), "sliding_attention", "sliding_window", 4096
    )


def moe_fields(
    r: Reader, family: str, arch: str, experts_key: str, *, shared: bool, **fixed: Any
) -> dict[str, Any]:
    """The fields Qwen2-MoE and Qwen3-MoE share: routed experts (and, with `shared`, the gated
    shared expert) in the layers that are MoE, a dense MLP of intermediate_size in the others.
    With num_experts 0, or no layer MoE, the class builds a dense model: so does this."""
    layers = check_listed(r, "num_hidden_layers", r.req("num_hidden_layers"))
    d, heads = r.req("hidden_size"), r.req("num_attention_heads")
    head_dim = r.opt("head_dim")
    if head_dim is None and d % heads:  # the class floors hidden_size / heads
        head_dim = d // heads
    local = windows(r, layers, alternate=family == "qwen2_moe")
    base = {"n_layers": layers, "d_model": d, "n_heads": heads, "head_dim": head_dim, **local}
    base |= fixed
    zero = type(r.data.get(experts_key)) is int and r.data[experts_key] == 0
    dense = list(range(layers)) if zero else dense_layers(r, layers)
    if len(dense) == layers:  # no MoE block anywhere: Llama's layout
        return decoder(r, family, **base)
    out = decoder(
        r,
        family,
        d_ff=r.req("moe_intermediate_size"),
        n_experts=r.req(experts_key),
        experts_per_token=r.req("num_experts_per_tok"),
        note=NOTE.format(arch=arch),
        **base,
    )
    if shared:  # every token also passes one gated expert of its own width
        out |= {
            "shared_expert_d_ff": r.req("shared_expert_intermediate_size"),
            "shared_expert_gate": True,
        }
    if dense:  # a dense MLP of intermediate_size in these layers
        out |= {"dense_ffn_layers": dense, "dense_d_ff": r.req("intermediate_size")}
    return out


def fields(r: Reader) -> dict[str, Any]:
    return moe_fields(
        r,
        "qwen2_moe",
        ARCHITECTURE,
        "num_experts",
        shared=True,
        n_kv_heads=r.integer("num_key_value_heads", 16),
        attention_bias=r.boolean("qkv_bias", True),
        attention_out_bias=False,
    )


# Router `mlp.gate`; experts by index as checkpoints store them; the shared expert and its
# gate under `mlp.` (Naming's defaults); dense layers as Llama's `mlp.gate_proj` etc.
NAMING = replace(LLAMA_NAMING, router="mlp.gate", expert="mlp.experts.{e}.")


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
