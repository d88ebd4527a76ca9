"""Zamba2 (`Zamba2ForCausalLM`): Mamba-2 layers, and hybrid layers that first run a shared
transformer block over the hidden state concatenated with the original embeddings.

`layers_block_type` (alias `layer_types`; absent: the class's 54 layers, hybrid at 6, 12, ...,
42, 47 and 51; num_hidden_layers must count them) names each layer: linear_attention (legacy
"mamba") is `model.layers.{i}.mamba` (Mamba-2: inner = mamba_expand x hidden_size,
n_mamba_heads heads of inner / heads, mamba_ngroups, mamba_d_state, mamba_d_conv,
chunk_size; in_proj and out_proj biased when add_bias_linear, the conv1d always biased, the
gated RMSNorm) after `input_layernorm`; hybrid is the same Mamba layer one module deeper
(`mamba_decoder.`), plus `linear` [d, d] of its own and a shared block (`shared_transformer`).

The shared blocks: num_mem_blocks of them, the j-th hybrid layer using block j mod
num_mem_blocks; each block's tensors sit under the first hybrid layer that uses it (the
others tie to it). transformers ties them only where tie_word_embeddings is true (its
`_tied_weights_keys` apply with the embeddings' tie alone): untied, every hybrid layer keeps a
copy of its own, with the adapter slots of its block id, and runs its own slot. A block:
input_layernorm [2d]; attention over 2d = the hidden state and the embeddings concatenated
(q/k/v_proj [heads x head_dim, 2d], head_dim = 2d // heads, GQA, o_proj [d, heads x
head_dim], no biases; rotary only where use_mem_rope, no parameters); pre_ff_layernorm [d];
feed_forward (gate_up_proj [2 f, d], down_proj [d, f], biases when add_bias_linear; gated
with hidden_act). Per use j (LoRA-style adapters of rank adapter_rank, the other slots of the
block's lists nn.Identity): gate_up_proj_adapter_list.{j} (d -> r -> 2 f, always), and where
use_shared_attention_adapter linear_{q,k,v}_adapter_list.{j} (2d -> r -> 2d each). As data:
the blocks, the adapters and the `linear` layers are model_parts by whole name, each with the
multiply-adds one token costs through it and its uses (Part.uses); the hybrid layers' mixer
("shared+mamba2") counts the attention's scores and its keys and values in the cache, and its
Mamba-2.

`model.embed_tokens` (padding index pad_token_id, default 0), `model.final_layernorm`, the
head tied by default. Ignored by the class (no parameters): use_conv_bias, kv_channels,
num_query_groups, mamba_headdim and attention_head_dim (both computed), use_shared_mlp_adapter
(the MLP adapters are always built).
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import GATED_ACT, Reader, check_listed, kv_heads
from ffn_calc.families.hybrid import block_types
from ffn_calc.families.tensor_names import Naming
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import Part, PartGroup

ARCHITECTURE = "Zamba2ForCausalLM"

# transformers 5.24.0 Zamba2Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "hidden_size": 2560,
    "vocab_size": 32000,
    "num_attention_heads": 32,
    "n_mamba_heads": 8,
    "mamba_d_state": 64,
    "mamba_d_conv": 4,
    "mamba_expand": 2,
    "mamba_ngroups": 1,
    "chunk_size": 256,
    "num_mem_blocks": 1,
    "adapter_rank": 128,
}
# Its token embedding takes pad_token_id (class default 0) as padding_idx.
PAD_DEFAULT: int | None = 0

TYPES = ("linear_attention", "mamba", "hybrid")
MIXER = {"linear_attention": "mamba2", "mamba": "mamba2", "hybrid": "shared+mamba2"}
# Zamba2Config's layers when config.json names none.
DEFAULT_TYPES = (
    ["linear_attention"]
    + (["linear_attention"] * 5 + ["hybrid"]) * 7
    + ["linear_attention"] * 4
    + ["hybrid"]
    + ["linear_attention"] * 3
    + ["hybrid"]
    + ["linear_attention"] * 2
)


def _types(r: Reader) -> list[str]:
    """One type per layer; num_hidden_layers (default 54) must count them, as Zamba2Config's
    validate_layer_type requires."""
    types = list(DEFAULT_TYPES)
    for key in ("layers_block_type", "layer_types"):
        found = block_types(r, key, TYPES)
        if found is not None:
            types = found
            check_listed(r, key, len(found))
            break
    n = r.integer("num_hidden_layers", len(DEFAULT_TYPES))
    if n != len(types):
        raise ConfigError(
            _("{where}: num_hidden_layers = {layers} must equal the number of layers in "
              "layers_block_type ({count}), as Zamba2Config requires (absent: its 54 layers).")
            .format(where=r.where("num_hidden_layers"), layers=n, count=len(types))
        )  # fmt: skip
    return types


def _attention_sizes(r: Reader, d: int, adapters: bool) -> tuple[int, int, int]:
    """(heads, kv heads, head_dim = 2 d // heads), as the class runs them: a head_dim of at
    least 1, kv heads dividing the heads; with the attention adapters (whose outputs are 2d
    wide, added to Q, K and V) every head its own K and V and heads dividing 2d."""
    heads = r.req("num_attention_heads")
    kv = kv_heads(r, heads)
    head_dim = 2 * d // heads
    if not head_dim:
        raise ConfigError(
            _("{where}: num_attention_heads = {heads}: more heads than 2 x hidden_size = {width} "
              "channels.").format(where=r.where("num_attention_heads"), heads=heads, width=2 * d)
        )  # fmt: skip
    if kv > heads or heads % kv:
        raise ConfigError(
            _("{where}: num_key_value_heads = {kv} must divide num_attention_heads = {heads}.")
            .format(where=r.where("num_key_value_heads"), kv=kv, heads=heads)
        )  # fmt: skip
    if adapters and (kv != heads or heads * head_dim != 2 * d):
        raise ConfigError(
            _("{where}: use_shared_attention_adapter needs num_key_value_heads = "
              "num_attention_heads and heads dividing 2 x hidden_size: the adapters add 2 x "
              "hidden_size outputs to Q, K and V.").format(where=r.where("use_shared_attention_adapter"))
        )  # fmt: skip
    return heads, kv, head_dim


def fields(r: Reader) -> dict[str, Any]:
    types = _types(r)
    n, d = len(types), r.req("hidden_size")
    adapters = r.boolean("use_shared_attention_adapter", False)
    heads, kv, head_dim = _attention_sizes(r, d, adapters)
    f = r.integer("intermediate_size", 4 * d) or 4 * d
    m_heads, inner = r.req("n_mamba_heads"), r.req("mamba_expand") * d
    groups = r.req("mamba_ngroups")
    if inner % m_heads or m_heads % groups:
        raise ConfigError(
            _("{where}: n_mamba_heads = {heads} must divide mamba_expand x hidden_size = {inner}, "
              "and mamba_ngroups = {groups} the heads.").format(
                where=r.where("n_mamba_heads"), heads=m_heads, inner=inner, groups=groups)
        )  # fmt: skip
    bias = r.boolean("add_bias_linear", False)
    hybrid = [i for i, t in enumerate(types) if t == "hybrid"]
    tied = r.boolean("tie_word_embeddings", True)  # ties the blocks too
    sizes = Shared(d, heads, kv, head_dim, f, r.req("adapter_rank"), bias, adapters)
    return {
        "family": "zamba2",
        "architecture": "decoder-only",
        "n_layers": n,
        "d_model": d,
        "n_heads": heads,
        "n_kv_heads": kv,
        "head_dim": head_dim,
        "d_ff": f,
        "activation": r.choice("hidden_act", GATED_ACT, "gelu"),  # the shared MLP's
        "norm": "rmsnorm",
        "positions": "rotary" if r.boolean("use_mem_rope", False) else "none",
        "layer_norms": 1,
        "vocab_size": r.req("vocab_size"),
        "tie_embeddings": tied,
        "layer_mixers": [MIXER[t] for t in types],
        "ffn_free_layers": list(range(n)),
        "mamba2": {
            "heads": m_heads,
            "head_dim": inner // m_heads,
            "state_size": r.req("mamba_d_state"),
            "n_groups": groups,
            "conv_kernel": r.req("mamba_d_conv"),
            "chunk_size": r.req("chunk_size"),
            "inner": inner,
            "proj_bias": bias,
            "conv_bias": True,  # the class builds it whatever use_conv_bias says
        },
        "model_parts": shared_parts(sizes, hybrid, r.req("num_mem_blocks"), tied),
    }


class Shared:
    """The sizes of a shared block."""

    def __init__(
        self, d: int, heads: int, kv: int, head_dim: int, f: int, rank: int, bias: bool,
        adapters: bool,
    ) -> None:  # fmt: skip
        self.d, self.heads, self.kv, self.head_dim = d, heads, kv, head_dim
        self.f, self.rank, self.bias, self.adapters = f, rank, bias, adapters


def _linear(name: str, group: PartGroup, d_in: int, d_out: int, uses: int = 1) -> Part:
    """A Linear's weight [out, in], run `uses` times per token (its multiply-adds each time;
    none where it never runs)."""
    macs = d_in * d_out if uses else 0
    return Part(name=f"{name}.weight", group=group, shape=[d_out, d_in], macs=macs,
                uses=max(uses, 1), per="token")  # fmt: skip


def _vector(name: str, group: PartGroup, width: int) -> Part:
    return Part(name=name, group=group, shape=[width], per="token")


def _adapter(
    name: str, group: PartGroup, d_in: int, rank: int, d_out: int, runs: bool
) -> list[Part]:
    """A LoRA-style adapter of one use: d_in -> rank -> d_out (nn.Sequential of two Linears);
    `runs` false: a slot of an untied copy that no layer runs."""
    u = int(runs)
    return [_linear(f"{name}.0", group, d_in, rank, u), _linear(f"{name}.1", group, rank, d_out, u)]


def block_parts(s: Shared, p: str, slots: list[int], running: set[int]) -> list[Part]:
    """One block under `p`: its adapter slots that are not nn.Identity (`slots`: the hybrid
    layers j, in hybrid order, with j mod num_mem_blocks its block id), run by the hybrid
    layers `running` (all of them where the blocks are tied; its own layer alone in an
    untied copy), its attention and MLP once per layer that runs it."""
    d, aw, u = s.d, 2 * s.d, len(running)
    q, kv = s.heads * s.head_dim, s.kv * s.head_dim
    a = p + "self_attn."
    out = [
        _vector(p + "input_layernorm.weight", "norm", aw),
        _linear(a + "q_proj", "attention", aw, q, u),
        _linear(a + "k_proj", "attention", aw, kv, u),
        _linear(a + "v_proj", "attention", aw, kv, u),
        _linear(a + "o_proj", "attention", q, d, u),
    ]
    for j in slots if s.adapters else []:
        for x in "qkv":
            out += _adapter(f"{a}linear_{x}_adapter_list.{j}", "attention", aw, s.rank, aw, j in running)  # fmt: skip
    m = p + "feed_forward."
    out += [
        _vector(p + "pre_ff_layernorm.weight", "norm", d),
        _linear(m + "gate_up_proj", "ffn", d, 2 * s.f, u),
        _linear(m + "down_proj", "ffn", s.f, d, u),
    ]
    if s.bias:
        out += [_vector(m + "gate_up_proj.bias", "ffn", 2 * s.f), _vector(m + "down_proj.bias", "ffn", d)]  # fmt: skip
    for j in slots:
        out += _adapter(f"{m}gate_up_proj_adapter_list.{j}", "ffn", d, s.rank, 2 * s.f, j in running)  # fmt: skip
    return out


def shared_parts(s: Shared, hybrid: list[int], blocks: int, tied: bool) -> list[Part]:
    """The blocks and each hybrid layer's `linear` [d, d]. Hybrid layer j (in hybrid order) has
    block id j mod blocks. Tied (transformers ties the blocks only with tie_word_embeddings):
    block b under the b-th hybrid layer, run by every hybrid layer of its id. Untied: every
    hybrid layer keeps its own copy, with the adapter slots of its id, and runs only its own."""
    n, out = len(hybrid), []
    for j, layer in enumerate(hybrid):
        if tied and j >= blocks:
            break
        slots = [k for k in range(n) if k % blocks == j % blocks]
        running = set(slots) if tied else {j}
        out += block_parts(s, f"model.layers.{layer}.shared_transformer.", slots, running)
    return out + [_linear(f"model.layers.{i}.linear", "ffn", s.d, s.d) for i in hybrid]


NAMING = Naming(
    layer="model.layers.{i}.",
    q="self_attn.q_proj",
    k="self_attn.k_proj",
    v="self_attn.v_proj",
    o="self_attn.o_proj",
    up="feed_forward.up_proj",
    down="feed_forward.down_proj",
    gate="feed_forward.gate_proj",
    norm_attn="input_layernorm",
    final_norm="model.final_layernorm",
    tok="model.embed_tokens",
    prefixes=("model.",),
    architecture="decoder-only",
    mixer="mamba.",
    kind_prefixes={"shared+mamba2": "mamba_decoder."},
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
