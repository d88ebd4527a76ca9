"""How a reference implementation names and lays out its tensors: data for the instantiation.

Each family module builds a Naming; `instantiate.py` walks the architecture and asks it for
names. Names are relative to the layer prefix unless marked as whole names. `{stack}` is
`encoder` or `decoder`, `{i}` the layer index, `{e}` an expert's. A layer template with `{g}`
and `{j}` in place of `{i}` names layers nested in shared groups (ALBERT's
`albert_layer_groups.{g}.albert_layers.{j}.`; ModelConfig.layers_per_group layers a group).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Naming:
    """The names of one family's modules (a module name plus `.weight` / `.bias`)."""

    layer: str  # whole name of a layer's prefix: `model.layers.{i}.`, `{stack}.block.{i}.`
    q: str
    k: str
    v: str
    o: str
    up: str
    down: str
    gate: str
    final_norm: str  # whole name; may hold {stack}
    tok: str  # whole name of the token embedding
    # Norms around self-attention and the FFN, by how many a layer has (ModelConfig.layer_norms).
    norms: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    norm_attn: str = "norm_attn"  # the defaults for 1 and 2 norms
    norm_ffn: str = "norm_ffn"
    norm_cross: str = "norm_cross"
    lm_head: str = "lm_head"  # whole name
    fused_qkv: str | None = None  # one [q + 2 kv, d] projection (c_attn, qkv_proj, in_proj)
    fused_gate_up: str | None = None  # one [2 d_ff, d] projection (Phi-3's gate_up_proj)
    conv1d: bool = False  # GPT-2's Conv1D stores weights as [in, out]
    torch_mha: bool = False  # torch.nn.MultiheadAttention's in_proj_weight / _bias layout
    q_norm: str = "self_attn.q_norm"
    k_norm: str = "self_attn.k_norm"
    cross_q: str = "cross_attn.q_proj"
    cross_k: str = "cross_attn.k_proj"
    cross_v: str = "cross_attn.v_proj"
    cross_o: str = "cross_attn.o_proj"
    cross_fused: str | None = None
    rel_bias: str = "self_attn.relative_attention_bias"  # in layer 0 of each stack (T5)
    pos: str = "embed_positions"  # whole names below; may hold {stack}
    types: str = "embed_types"
    emb_norm: str = "embed_norm"
    proj_in: str = "project_in"
    proj_out: str = "project_out"
    head_dense: str = "lm_head.dense"
    head_norm: str = "lm_head.norm"
    lm_head_bias: str = "lm_head.bias"
    pooler: str = "pooler"
    router: str = "mlp.router"
    expert: str = "mlp.experts.{e}."
    expert_gate: str = "gate_proj"
    expert_up: str = "up_proj"
    expert_down: str = "down_proj"
    target_tok: str = "decoder.embed_tokens"
    # Mixture of experts beyond per-expert Linear layers.
    score_bias: str = "mlp.gate.e_score_correction_bias"  # a routing-score bias parameter
    score_bias_2d: bool = False  # stored as [1, n_experts] (ERNIE 4.5's moe_statics)
    fused_experts: str | None = None  # experts as [E, ...] tensors under this prefix
    fused_experts_layout: str = "out_in"  # "out_in": [E, out, in]; "in_out": [E, in, out]
    expert_gate_up: str = "gate_up_proj"  # the stacked gate and up tensor of fused experts
    shared_expert: str = "mlp.shared_expert."
    shared_gate: str = "gate_proj"
    shared_up: str = "up_proj"
    shared_down: str = "down_proj"
    shared_gate_up: str | None = None  # a shared expert's gate and up in one [2 f, d] Linear
    shared_expert_gate: str = "mlp.shared_expert_gate"
    latent_down: str = "mlp.fc1_latent_proj"  # latent experts (ModelConfig.moe_latent_dim)
    latent_up: str = "mlp.fc2_latent_proj"
    # Multi-head latent attention and attention sinks.
    mla_q: str = "self_attn.q_proj"
    mla_q_a: str = "self_attn.q_a_proj"
    mla_q_a_norm: str = "self_attn.q_a_layernorm"
    mla_q_b: str = "self_attn.q_b_proj"
    mla_kv_a: str = "self_attn.kv_a_proj_with_mqa"
    mla_kv_a_norm: str = "self_attn.kv_a_layernorm"
    mla_kv_b: str = "self_attn.kv_b_proj"
    mla_indexer: str = "self_attn.indexer."  # sparse attention: wq_b, wk, k_norm, weights_proj
    sinks: str = "self_attn.sinks"
    # Compressed attention (DeepSeek-V4): its own modules, its compressors, hyper-connections.
    kv_proj: str = "self_attn.kv_proj"
    kv_norm: str = "self_attn.kv_norm"
    o_a: str = "self_attn.o_a_proj"
    o_b: str = "self_attn.o_b_proj"
    compressor: str = "self_attn.compressor."
    indexer: str = "self_attn.compressor.indexer."  # the indexer's q_b and weights_proj
    indexer_compressor: str = "self_attn.compressor.indexer."  # the indexer's own compressor
    comp_kv: str = "kv_proj"  # a compressor's modules (under compressor / indexer_compressor)
    comp_gate: str = "gate_proj"
    comp_bias: str = "position_bias"
    comp_norm: str = "kv_norm"
    index_q_b: str = "q_b_proj"  # under indexer
    index_weights: str = "scorer.weights_proj"
    attn_hc: str = "attn_hc."  # + fn, base, scale
    ffn_hc: str = "ffn_hc."
    hc_head: str = "model.hc_head."  # whole name; + hc_fn, hc_base, hc_scale
    # DeBERTa's relative positions: the table and its norm (whole names), and the layer's own
    # projections of the table.
    rel_embeddings: str = "encoder.rel_embeddings"
    rel_norm: str = "encoder.rel_norm"
    pos_key_proj: str = "self_attn.pos_key_proj"
    pos_query_proj: str = "self_attn.pos_query_proj"
    stack_tok: str = "{stack}.embed_tokens"  # a stack's own token table (stack_embeddings)
    # Per-layer inputs (Gemma 4): the table, its projection and norm (whole names), and each
    # layer's gate, projection back and norm.
    per_layer_table: str = "embed_tokens_per_layer"
    per_layer_projection: str = "per_layer_model_projection"
    per_layer_projection_norm: str = "per_layer_projection_norm"
    per_layer_gate: str = "per_layer_input_gate"
    per_layer_up: str = "per_layer_projection"
    per_layer_norm: str = "post_per_layer_input_norm"
    conv: str = "encoder.conv{n}"  # whole name of the front end's n-th convolution (1-based)
    # Names that share storage with another tensor and appear in state_dicts (tied copies):
    # whole name -> the whole name of the tensor it shares.
    aliases: Mapping[str, str] = field(default_factory=dict)
    # A tied head and token embedding share one tensor, which `named_parameters()` lists under
    # the name met first: the token embedding's, or the head's where the head module is
    # registered before the model (XLMRobertaForMaskedLM). Checkpoints hold the embedding's.
    tied_under_head: bool = False
    # Names that differ in the decoder layers of an encoder-decoder model (T5's layer.2).
    decoder: Mapping[str, Any] = field(default_factory=dict)
    # Prefixes that a family's Hub checkpoints may add or leave out (`model.`, `roberta.`).
    prefixes: tuple[str, ...] = ()
    # Name prefixes that checkpoints store in place of the reference's (transformers renames
    # them on load and back on save): stored prefix -> the reference's (`embed_out.` -> `lm_head.`).
    renames: Mapping[str, str] = field(default_factory=dict)
    architecture: str | None = None  # the architecture the names are for
    mixer: str = "mixer."  # a token mixer's module in a layer (Mamba-2: in_proj, conv1d, ...)
    # A hybrid's layers of one mixer whose norms and mixer sit one module deeper: mixer name ->
    # that module's prefix under the layer (Zamba2's hybrid layers: `mamba_decoder.`).
    kind_prefixes: Mapping[str, str] = field(default_factory=dict)

    def score_bias_shape(self, experts: int) -> tuple[int, ...]:
        return (1, experts) if self.score_bias_2d else (experts,)

    def layer_norm_names(self, count: int) -> tuple[str, ...]:
        """The names of `count` norms around self-attention and the FFN."""
        if count in self.norms:
            return self.norms[count]
        default = {0: (), 1: (self.norm_attn,), 2: (self.norm_attn, self.norm_ffn)}
        return default.get(count) or tuple(f"norm_{n}" for n in range(count))


GENERIC = Naming(
    layer="{stack}.layers.{i}.", q="attn.q_proj", k="attn.k_proj", v="attn.v_proj",
    o="attn.o_proj", up="mlp.up_proj", down="mlp.down_proj", gate="mlp.gate_proj",
    final_norm="{stack}.norm", tok="embed_tokens",
)  # fmt: skip


# Fields of a Naming that hold whole names (the rest are relative to a layer's prefix).
WHOLE_NAMES = (
    "layer", "final_norm", "tok", "lm_head", "pos", "types", "emb_norm", "proj_in", "proj_out",
    "head_dense", "head_norm", "lm_head_bias", "pooler", "target_tok", "stack_tok",
    "per_layer_table", "per_layer_projection", "per_layer_projection_norm",
)  # fmt: skip


def moved(naming: Naming, old: str, new: str, keep: tuple[str, ...] = ("lm_head",)) -> Naming:
    """The same names with the whole names under `old` moved under `new`: a language model
    inside a multimodal wrapper (`model.layers.` -> `model.language_model.layers.`), a tower
    under its prefix (old ""). The fields in `keep` stay (the wrapper's head is its own)."""
    from dataclasses import replace

    changes: dict[str, Any] = {}
    for key in WHOLE_NAMES:
        value = getattr(naming, key)
        if key not in keep and value.startswith(old):
            changes[key] = new + value[len(old) :]
    return replace(naming, **changes, prefixes=(), aliases={}, renames={})
