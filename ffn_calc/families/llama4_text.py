"""Llama 4's text model (`Llama4ForCausalLM`): GQA attention, MoE and dense FFN layers.

Fixed by the architecture: RMSNorm (a [d_model] weight) before attention and before the FFN
(input_layernorm, post_attention_layernorm) and a final one; q_proj, k_proj, v_proj, o_proj
with n_kv_heads key/value heads and head_dim (absent: 128) per head; `attention_bias` (default
false) puts a bias on all four. The FFN of a layer is `feed_forward`:

- in a MoE layer (an index in `moe_layers`; absent: every `interleave_moe_layer_step`-th layer,
  indices step - 1, 2 step - 1, ...; indices past the last layer name no layer): a router
  `feed_forward.router` [n_experts, d_model] without bias; the routed experts as fused
  tensors, [in, out] per expert, `feed_forward.experts.gate_up_proj` [E, d_model,
  2 x intermediate_size] (gate, then up) and `feed_forward.experts.down_proj`
  [E, intermediate_size, d_model], no biases; a shared expert `feed_forward.shared_expert`
  (gate_proj, up_proj, down_proj of intermediate_size) that every token passes through, with
  no gate on its output;
- in a dense layer: gate_proj, up_proj, down_proj of `intermediate_size_mlp`.

The head follows `tie_word_embeddings` (default false). Zero parameters: the L2 q/k norm of
`use_qk_norm` (weightless), NoPE layers (`no_rope_layers`), chunked attention
(`attention_chunk_size`, `layer_types`), attention temperature tuning, rotary scaling.

FLOPs: ffn-calc counts the top-k dispatch, experts_per_token expert passes per token.
transformers' Llama4TextExperts run every expert over every token (the tokens scaled by their
router score, zero where not routed), so FlopCounterMode reports n_experts / experts_per_token
times the routed-expert FLOPs: 2 x B x S x (n_experts - experts_per_token) x 3 x d_model x
intermediate_size more per MoE layer (the model's `note`).

Checkpoints: transformers 5.24 `save_pretrained` writes the names above under `model.`, the
experts fused; the released Llama 4 checkpoints (Llama4ForConditionalGeneration) hold the same
fused tensors under `language_model.` (taken as a prefix), beside the vision tower and
projector (`vision_model.`, `multi_modal_projector.`), which `verify --checkpoint` lists as
unexpected: this family counts the text model only.
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
    window_fields,
)
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Llama4ForCausalLM"

# transformers 5.24.0 Llama4TextConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 48,
    "hidden_size": 5120,
    "num_attention_heads": 40,
    "intermediate_size": 8192,
    "intermediate_size_mlp": 16384,
    "num_local_experts": 16,
    "num_experts_per_tok": 1,
    "vocab_size": 202048,
}
# Its token embedding takes pad_token_id (class default None) as padding_idx.
PAD_DEFAULT: int | None = None

NOTE = (
    "Llama4ForCausalLM (the text model of Llama 4; the vision tower is not counted). FLOPs "
    "count experts_per_token routed experts per token; transformers' eager Llama 4 experts "
    "run every expert over every token (zero-weighted where not routed), so FlopCounterMode "
    "reports n_experts / experts_per_token times the routed-expert FLOPs: 2 x B x S x "
    "(n_experts - experts_per_token) x 3 x d_model x d_ff more per MoE layer."
)


def _moe_layers(r: Reader, layers: int) -> set[int]:
    """The MoE layers: `moe_layers` as given, else every interleave_moe_layer_step-th layer."""
    given = r.data.get("moe_layers")
    if given is None:
        step = r.integer("interleave_moe_layer_step", 1)
        assert step is not None
        return set(range(step - 1, layers, step))  # step - 1, 2 step - 1, ...
    if not isinstance(given, list) or any(
        isinstance(i, bool) or not isinstance(i, int) for i in given
    ):
        raise ConfigError(
            _("{where}: moe_layers = {value}: expected a list of layer indices (integers).").format(
                where=r.where("moe_layers"), value=shown(given)
            )
        )
    return {i for i in given if 0 <= i < layers}  # transformers tests `layer_idx in moe_layers`


def _chunked(r: Reader, layers: int) -> list[str]:
    """Llama4TextConfig's layer_types when absent: layers with rotary (no_rope_layers[i] = 1;
    absent, all but every no_rope_layer_interval-th) attend within chunks of
    attention_chunk_size tokens (none when it is null); NoPE layers attend to every token."""
    interval = r.integer("no_rope_layer_interval", 4)
    assert interval is not None
    rope = r.data.get("no_rope_layers") or [int((i + 1) % interval != 0) for i in range(layers)]
    if not isinstance(rope, list) or len(rope) != layers or not all(x in (0, 1) for x in rope):
        message = (
            _("{where}: no_rope_layers = {value}: expected 0 or 1 for the {layers} layer.")
            if layers == 1
            else _(
                "{where}: no_rope_layers = {value}: expected 0 or 1 for each of the {layers} layers."
            )
        )
        raise ConfigError(
            message.format(where=r.where("no_rope_layers"), value=shown(rope), layers=layers)
        )
    chunked = "attention_chunk_size" not in r.data or r.data["attention_chunk_size"] is not None
    return ["chunked_attention" if x and chunked else "full_attention" for x in rope]


def fields(r: Reader) -> dict[str, Any]:
    layers = check_listed(r, "num_hidden_layers", r.req("num_hidden_layers"))
    dense = [i for i in range(layers) if i not in _moe_layers(r, layers)]
    # Llama4TextConfig: absent layer_types, layers with rotary (no_rope_layers[i] = 1; absent,
    # every 4th layer is NoPE) attend within chunks of attention_chunk_size tokens.
    windows = window_fields(
        r,
        layer_types(r, layers, _chunked(r, layers)),
        "chunked_attention",
        "attention_chunk_size",
        8192,
    )
    return decoder(
        r,
        "llama4_text",
        n_layers=layers,
        **windows,
        window_kind="chunked",
        n_kv_heads=r.integer("num_key_value_heads", 8),
        head_dim=r.integer("head_dim", 128),
        attention_bias=r.boolean("attention_bias", False),
        n_experts=r.req("num_local_experts"),
        experts_per_token=r.req("num_experts_per_tok"),
        shared_expert_d_ff=r.req("intermediate_size"),
        dense_ffn_layers=dense,
        dense_d_ff=r.req("intermediate_size_mlp") if dense else None,
        note=NOTE,
    )


NAMING = replace(
    LLAMA_NAMING,
    gate="feed_forward.gate_proj",
    up="feed_forward.up_proj",
    down="feed_forward.down_proj",
    router="feed_forward.router",
    expert="feed_forward.experts.{e}.",
    fused_experts="feed_forward.experts.",
    fused_experts_layout="in_out",
    shared_expert="feed_forward.shared_expert.",
    prefixes=("model.", "language_model."),
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
