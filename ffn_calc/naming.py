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
    stack_tok: str = "{stack}.embed_tokens"  # a stack's own token table (stack_embeddings)
    # Names that share storage with another tensor and appear in state_dicts (tied copies):
    # whole name -> the whole name of the tensor it shares.
    aliases: Mapping[str, str] = field(default_factory=dict)
    # Names that differ in the decoder layers of an encoder-decoder model (T5's layer.2).
    decoder: Mapping[str, Any] = field(default_factory=dict)
    # Prefixes that a family's Hub checkpoints may add or leave out (`model.`, `roberta.`).
    prefixes: tuple[str, ...] = ()
    # Name prefixes that checkpoints store in place of the reference's (transformers renames
    # them on load and back on save): stored prefix -> the reference's (`embed_out.` -> `lm_head.`).
    renames: Mapping[str, str] = field(default_factory=dict)
    architecture: str | None = None  # the architecture the names are for

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
