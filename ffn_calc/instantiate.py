"""Torch-free instantiation: every parameter tensor and every matmul of one forward pass.

Built by walking the architecture (stacks, layers, modules) and giving each module the
name and storage layout of the family's reference implementation (Hugging Face
`transformers` for gpt2 / llama / mistral / mixtral / qwen2 / bert, `torch.nn.Transformer`
for the original Transformer). It never calls the closed-form formulas in params.py and
flops.py, so the two can check each other (`ffn-calc verify`).

Identical layers and experts are described once: a name is a template such as
`model.layers.{i}.mlp.experts.{e}.w1.weight` with the range of each index (`{i}` over the
layers of its stack, `{e}` over the experts of a layer), and the tensor stands for every
combination. The size of an inventory depends on the architecture, never on the number of
layers or experts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from math import prod
from typing import TypeAlias

from ffn_calc.config import ModelConfig

# The indices of a name template, outermost first: (("i", 32), ("e", 8)) is {i} in 0..31 and
# {e} in 0..7, 32 x 8 copies.
Ranges: TypeAlias = tuple[tuple[str, int], ...]


def spell(template: str, spans: Mapping[str, tuple[int, int]]) -> str:
    """A template with each index's span written out: (0, 31) -> `{0..31}`, (5, 5) -> `5`."""
    return template.format_map(
        {key: str(a) if a == b else f"{{{a}..{b}}}" for key, (a, b) in spans.items()}
    )


def label(template: str, ranges: Ranges) -> str:
    """The name of every copy at once: `model.layers.{0..31}.mlp.up_proj.weight`."""
    return spell(template, {key: (0, n - 1) for key, n in ranges})


@dataclass(frozen=True)
class Tensor:
    """One parameter as a state_dict holds it, once for every index in `ranges`."""

    name: str  # a template when ranges is not empty
    shape: tuple[int, ...]
    component: str
    tied_to: str | None = None  # a tied tensor shares its storage and counts once
    ranges: Ranges = ()

    @property
    def numel(self) -> int:
        """Parameters of one copy."""
        return prod(self.shape)

    @property
    def count(self) -> int:
        """How many tensors the template stands for."""
        return prod(n for _, n in self.ranges)

    @property
    def label(self) -> str:
        return label(self.name, self.ranges)


@dataclass(frozen=True)
class Matmul:
    """[m, k] x [k, n], `count` times per copy (e.g. once per batch element and head)."""

    name: str
    component: str
    m: int
    k: int
    n: int
    count: int = 1
    ranges: Ranges = ()  # the layers that run it

    @property
    def times(self) -> int:
        """How often the forward pass runs it: count x copies."""
        return self.count * prod(n for _, n in self.ranges)

    @property
    def flops(self) -> int:
        return 2 * self.m * self.k * self.n * self.times

    @property
    def label(self) -> str:
        return label(self.name, self.ranges)


@dataclass(frozen=True)
class Naming:
    """How one family names its modules; `{i}` is the layer index, `{e}` the expert's,
    `{stack}` the stack."""

    layer: str
    q: str
    k: str
    v: str
    o: str
    up: str
    down: str
    gate: str
    norm_attn: str
    norm_ffn: str
    final_norm: str
    tok: str
    lm_head: str = "lm_head"
    fused_qkv: str | None = None  # one [q+2kv] projection (GPT-2 c_attn, torch in_proj)
    conv1d: bool = False  # GPT-2's Conv1D stores weights as [in, out]
    cross_q: str = "cross_attn.q_proj"
    cross_k: str = "cross_attn.k_proj"
    cross_v: str = "cross_attn.v_proj"
    cross_o: str = "cross_attn.o_proj"
    cross_fused: str | None = None
    norm_cross: str = "norm_cross"
    pos: str = "embed_positions"
    types: str = "embed_types"
    emb_norm: str = "embed_norm"
    pooler: str = "pooler"
    router: str = "mlp.router"
    expert: str = "mlp.experts.{e}."
    expert_gate: str = "gate_proj"
    expert_up: str = "up_proj"
    expert_down: str = "down_proj"
    target_tok: str = "decoder.embed_tokens"
    architecture: str | None = None  # the architecture the family's names are for


GPT2 = Naming(
    layer="transformer.h.{i}.", q="", k="", v="", fused_qkv="attn.c_attn", o="attn.c_proj",
    up="mlp.c_fc", down="mlp.c_proj", gate="mlp.c_gate", norm_attn="ln_1", norm_ffn="ln_2",
    final_norm="transformer.ln_f", tok="transformer.wte", pos="transformer.wpe",
    conv1d=True, architecture="decoder-only",
)  # fmt: skip
LLAMA = Naming(
    layer="model.layers.{i}.", q="self_attn.q_proj", k="self_attn.k_proj", v="self_attn.v_proj",
    o="self_attn.o_proj", up="mlp.up_proj", down="mlp.down_proj", gate="mlp.gate_proj",
    norm_attn="input_layernorm", norm_ffn="post_attention_layernorm", final_norm="model.norm",
    tok="model.embed_tokens", architecture="decoder-only",
)  # fmt: skip
MIXTRAL = Naming(
    **{**LLAMA.__dict__, "router": "block_sparse_moe.gate",
       "expert": "block_sparse_moe.experts.{e}.", "expert_gate": "w1", "expert_up": "w3",
       "expert_down": "w2"},
)  # fmt: skip
BERT = Naming(
    layer="encoder.layer.{i}.", q="attention.self.query", k="attention.self.key",
    v="attention.self.value", o="attention.output.dense", up="intermediate.dense",
    down="output.dense", gate="intermediate.gate", norm_attn="attention.output.LayerNorm",
    norm_ffn="output.LayerNorm", final_norm="encoder.norm", tok="embeddings.word_embeddings",
    pos="embeddings.position_embeddings", types="embeddings.token_type_embeddings",
    emb_norm="embeddings.LayerNorm", pooler="pooler.dense", architecture="encoder-only",
)  # fmt: skip
TORCH_TRANSFORMER = Naming(
    layer="{stack}.layers.{i}.", q="self_attn.q_proj_weight", k="self_attn.k_proj_weight",
    v="self_attn.v_proj_weight", fused_qkv="self_attn.in_proj", o="self_attn.out_proj",
    cross_q="multihead_attn.q_proj_weight", cross_k="multihead_attn.k_proj_weight",
    cross_v="multihead_attn.v_proj_weight", cross_fused="multihead_attn.in_proj",
    cross_o="multihead_attn.out_proj", up="linear1", down="linear2", gate="linear_gate",
    norm_attn="norm1", norm_cross="norm2", norm_ffn="norm2", final_norm="{stack}.norm",
    tok="embedding", target_tok="target_embedding", architecture="encoder-decoder",
)  # fmt: skip
GENERIC = Naming(
    layer="{stack}.layers.{i}.", q="attn.q_proj", k="attn.k_proj", v="attn.v_proj",
    o="attn.o_proj", up="mlp.up_proj", down="mlp.down_proj", gate="mlp.gate_proj",
    norm_attn="norm_attn", norm_ffn="norm_ffn", final_norm="{stack}.norm", tok="embed_tokens",
)  # fmt: skip

NAMINGS = {"gpt2": GPT2, "llama": LLAMA, "mistral": LLAMA, "qwen2": LLAMA, "mixtral": MIXTRAL,
           "bert": BERT, "transformer": TORCH_TRANSFORMER}  # fmt: skip

# Checkpoint prefixes that a family's Hub files may add or leave out.
PREFIXES = ("transformer.", "model.", "bert.")


def naming_for(cfg: ModelConfig) -> Naming:
    """The family's names when the config has the family's architecture, else generic ones."""
    naming = NAMINGS.get(cfg.family)
    if naming is None or naming.architecture != cfg.architecture:
        return GENERIC
    return naming


@dataclass
class Inventory:
    """The parameter tensors and forward matmuls of one model, as templates with counts."""

    tensors: list[Tensor] = field(default_factory=list)
    matmuls: list[Matmul] = field(default_factory=list)

    def params(self, component: str | None = None) -> int:
        return sum(
            t.numel * t.count for t in self.tensors
            if t.tied_to is None and (component is None or t.component == component)
        )  # fmt: skip

    def flops(self, component: str | None = None) -> int:
        return sum(m.flops for m in self.matmuls if component is None or m.component == component)


class _Walker:
    """Adds modules in the reference implementation's order, with its names and layouts."""

    def __init__(self, cfg: ModelConfig, naming: Naming, batch: int, s: int, t: int) -> None:
        self.cfg, self.nm, self.inv = cfg, naming, Inventory()
        self.batch, self.s, self.t = batch, s, t
        self.ranges: Ranges = ()  # the indices of the module being walked: a layer's, an expert's

    def tensor(
        self, name: str, shape: tuple[int, ...], component: str, tied_to: str | None = None
    ) -> None:
        self.inv.tensors.append(Tensor(name, shape, component, tied_to, self.ranges))

    def matmul(self, name: str, component: str, m: int, k: int, n: int, count: int = 1) -> None:
        self.inv.matmuls.append(Matmul(name, component, m, k, n, count, self.ranges))

    def linear(
        self, name: str, d_in: int, d_out: int, component: str, rows: int, flop_component: str,
        bias: bool, *, conv1d: bool = False, suffix: str = ".weight", bias_suffix: str = ".bias",
    ) -> None:  # fmt: skip
        """A Linear (weight [out, in]) or GPT-2 Conv1D (weight [in, out]) applied to `rows` rows."""
        self.tensor(name + suffix, (d_in, d_out) if conv1d else (d_out, d_in), component)
        if bias:
            self.tensor(name + bias_suffix, (d_out,), component)
        if rows:
            self.matmul(name, flop_component, rows, d_in, d_out)

    def norm(self, name: str) -> None:
        self.tensor(f"{name}.weight", (self.cfg.d_model,), "norm")
        if self.cfg.norm == "layernorm":
            self.tensor(f"{name}.bias", (self.cfg.d_model,), "norm")

    def attention(
        self, p: str, q_rows: int, kv_rows: int, q_len: int, kv_len: int, cross: bool
    ) -> None:
        cfg, nm = self.cfg, self.nm
        d, q, kv = cfg.d_model, cfg.q_dim, cfg.kv_dim
        fused = nm.cross_fused if cross else nm.fused_qkv
        names = (
            (nm.cross_q, nm.cross_k, nm.cross_v, nm.cross_o) if cross else (nm.q, nm.k, nm.v, nm.o)
        )
        g, proj = "attention", "attention_projections"
        torch_mha = nm is TORCH_TRANSFORMER
        if fused and (not torch_mha or q == kv == d):
            # One [q + 2 kv] projection; self-attention runs it as one matmul, cross-attention
            # (torch MHA) applies its Q rows to the target and its K/V rows to the source.
            suffix, bias_suffix = ("_weight", "_bias") if torch_mha else (".weight", ".bias")
            self.linear(p + fused, d, q + 2 * kv, g, 0, proj, cfg.attention_bias,
                        conv1d=nm.conv1d, suffix=suffix, bias_suffix=bias_suffix)  # fmt: skip
            if cross:
                self.matmul(p + fused + "[q]", proj, q_rows, d, q)
                self.matmul(p + fused + "[kv]", proj, kv_rows, d, 2 * kv)
            else:
                self.matmul(p + fused, proj, q_rows, d, q + 2 * kv)
        elif torch_mha:  # separate q/k/v weights (kdim or vdim differ); one in_proj_bias
            for name, width, rows in (
                (names[0], q, q_rows),
                (names[1], kv, kv_rows),
                (names[2], kv, kv_rows),
            ):
                self.tensor(p + name, (width, d), g)
                self.matmul(p + name, proj, rows, d, width)
            if cfg.attention_bias:
                fused_name = (nm.cross_fused if cross else nm.fused_qkv) or "in_proj"
                self.tensor(p + fused_name + "_bias", (q + 2 * kv,), g)
        else:
            self.linear(p + names[0], d, q, g, q_rows, proj, cfg.attention_bias, conv1d=nm.conv1d)
            self.linear(p + names[1], d, kv, g, kv_rows, proj, cfg.attention_bias, conv1d=nm.conv1d)
            self.linear(p + names[2], d, kv, g, kv_rows, proj, cfg.attention_bias, conv1d=nm.conv1d)
        self.linear(p + names[3], q, d, g, q_rows, proj, cfg.out_bias, conv1d=nm.conv1d)
        # Scores: per batch element and query head, [q_len, hd] x [hd, kv_len], then
        # [q_len, kv_len] x [kv_len, hd]. GQA repeats K/V heads, so every query head runs both.
        hd, heads = cfg.head_size, self.batch * cfg.n_heads
        kind = "cross " if cross else ""
        self.matmul(f"{p}{kind}scores QK^T", "attention_scores", q_len, hd, kv_len, heads)
        self.matmul(f"{p}{kind}scores AV", "attention_scores", q_len, kv_len, hd, heads)

    def ffn(self, p: str, rows: int) -> None:
        cfg, nm = self.cfg, self.nm
        d, f, b = cfg.d_model, cfg.d_ff, cfg.ffn_bias
        if cfg.n_experts is not None and cfg.experts_per_token is not None:
            self.linear(p + nm.router, d, cfg.n_experts, "ffn", rows, "ffn", cfg.router_bias)
            mats = [(nm.expert_gate, d, f)] if cfg.gated else []
            mats += [(nm.expert_up, d, f), (nm.expert_down, f, d)]
            layer, self.ranges = self.ranges, (*self.ranges, ("e", cfg.n_experts))
            for name, d_in, d_out in mats:  # once per expert {e} of the layer
                self.linear(p + nm.expert + name, d_in, d_out, "ffn", 0, "ffn", b)
            self.ranges = layer
            # Each row passes through experts_per_token experts: the routed rows of all experts.
            routed = rows * cfg.experts_per_token
            every = p + nm.expert.replace("{e}", "*")
            for name, d_in, d_out in mats:
                self.matmul(every + name, "ffn", routed, d_in, d_out)
            return
        if cfg.gated:
            self.linear(p + nm.gate, d, f, "ffn", rows, "ffn", b, conv1d=nm.conv1d)
        self.linear(p + nm.up, d, f, "ffn", rows, "ffn", b, conv1d=nm.conv1d)
        self.linear(p + nm.down, f, d, "ffn", rows, "ffn", b, conv1d=nm.conv1d)

    def stack(self, stack: str, layers: int, length: int, source_len: int | None) -> None:
        """One layer of the stack, standing for all of them ({i} in 0..layers-1)."""
        nm, rows = self.nm, self.batch * length
        p = nm.layer.replace("{stack}", stack)
        self.ranges = (("i", layers),)
        self.layer(p, rows, length, source_len)
        self.ranges = ()
        if self.cfg.final_norm:
            self.norm(nm.final_norm.format(stack=stack))

    def layer(self, p: str, rows: int, length: int, source_len: int | None) -> None:
        nm = self.nm
        if nm is BERT:  # BERT is post-LN: attention, its norm, FFN, its norm
            self.attention(p, rows, rows, length, length, cross=False)
            self.norm(p + nm.norm_attn)
            self.ffn(p, rows)
            self.norm(p + nm.norm_ffn)
            return
        self.norm(p + nm.norm_attn)
        self.attention(p, rows, rows, length, length, cross=False)
        if source_len is not None:
            self.norm(p + nm.norm_cross)
            self.attention(p, rows, self.batch * source_len, length, source_len, cross=True)
        ffn_norm = "norm3" if (nm is TORCH_TRANSFORMER and source_len is not None) else nm.norm_ffn
        self.norm(p + ffn_norm)
        self.ffn(p, rows)

    def build(self) -> Inventory:
        cfg, nm = self.cfg, self.nm
        d = cfg.d_model
        if cfg.vocab_size is not None:
            self.tensor(f"{nm.tok}.weight", (cfg.vocab_size, d), "embedding")
            if cfg.architecture == "encoder-decoder" and not cfg.shared_embeddings:
                self.tensor(f"{nm.target_tok}.weight", (cfg.vocab_size, d), "embedding")
        if cfg.positions == "learned" and cfg.max_positions is not None:
            self.tensor(f"{nm.pos}.weight", (cfg.max_positions, d), "embedding")
        if cfg.type_vocab_size:
            self.tensor(f"{nm.types}.weight", (cfg.type_vocab_size, d), "embedding")
        if cfg.embedding_norm:
            self.norm(nm.emb_norm)
        if cfg.architecture == "encoder-decoder":
            self.stack("encoder", cfg.encoder_layers, self.s, None)
            self.stack("decoder", cfg.decoder_layers, self.t, self.s)
            out_rows = self.batch * self.t
        else:
            stack = "encoder" if cfg.architecture == "encoder-only" else "decoder"
            self.stack(stack, cfg.n_layers, self.s, None)
            out_rows = self.batch * self.s
        if cfg.pooler:  # BertPooler: dense over the first token of each sequence
            self.linear(nm.pooler, d, d, "pooler", self.batch, "pooler", True)
        if cfg.has_lm_head and cfg.vocab_size is not None:
            target = f"{nm.target_tok if not cfg.shared_embeddings else nm.tok}.weight"
            tied = target if cfg.tie_embeddings else None
            self.tensor(f"{nm.lm_head}.weight", (cfg.vocab_size, d), "lm_head", tied)
            self.matmul(nm.lm_head, "lm_head", out_rows, d, cfg.vocab_size)
        return self.inv


def instantiate(
    cfg: ModelConfig, batch: int = 1, seq_len: int = 1, target_len: int | None = None
) -> Inventory:
    """Every parameter tensor and the matmuls of one forward pass at (batch, S, T)."""
    t = seq_len if target_len is None else target_len
    return _Walker(cfg, naming_for(cfg), batch, seq_len, t).build()
