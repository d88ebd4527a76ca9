"""Torch-free instantiation: every parameter tensor and every matmul of one forward pass.

Built by walking the architecture (stacks, layers, modules) and giving each module the
name and storage layout of the family's reference implementation (transformers' class, or
`torch.nn.Transformer` for the original Transformer). It never calls the closed-form formulas
in counts/, so the two can check each other (`ffn-calc verify`).

Identical layers and experts are described once: a name is a template such as
`model.layers.{i}.mlp.experts.{e}.w1.weight` with the range of each index (`{i}` over the
layers of its stack, `{e}` over the experts of a layer), and the tensor stands for every
combination. The size of an inventory depends on the architecture, never on the number of
layers or experts.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace

from ffn_calc.families.tensor_names import GENERIC, Naming, moved
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import PART_FLOPS, Part, Tower
from ffn_calc.reference import attention
from ffn_calc.reference.inventory import (
    Inventory,
    Matmul,
    Ranges,
    Span,
    Tensor,
    index_set,
    spell,
    values,
)
from ffn_calc.reference.towers import windowed


def naming_for(cfg: ModelConfig) -> Naming:
    """The family's names when the config has the family's architecture, else generic ones."""
    from ffn_calc.families import family_module

    module = family_module(cfg.family)
    naming: Naming | None = getattr(module, "naming", lambda _: None)(cfg)
    if naming is None or naming.architecture != cfg.architecture:
        return GENERIC
    return naming


def _in_stack(template: str, stack: str) -> str:
    """A name of one stack's own copy: `{stack}` filled in, or the stack put in front."""
    return template.format(stack=stack) if "{stack}" in template else f"{stack}.{template}"


class _Walker:
    """Adds modules with the reference implementation's names and layouts."""

    def __init__(self, cfg: ModelConfig, naming: Naming, batch: int, s: int, t: int) -> None:
        self.cfg, self.nm = cfg, naming
        self.inv = Inventory(prefixes=naming.prefixes, renames=naming.renames)
        self.batch, self.s, self.t = batch, s, t
        self.ranges: Ranges = ()  # the copies of the tensors being added: a layer's, an expert's
        self.runs: Ranges = ()  # the layers that run the matmuls being added
        self.spans: dict[str, Span] = {}  # shared layers: the modules a matmul runs

    def tensor(
        self, name: str, shape: tuple[int, ...], component: str, tied_to: str | None = None
    ) -> None:
        self.inv.tensors.append(Tensor(name, shape, component, tied_to, self.ranges))

    def matmul(self, name: str, component: str, m: int, k: int, n: int, count: int = 1) -> None:
        if self.spans:  # shared layers: name every module that runs, braces kept for label()
            name = spell(name, self.spans).replace("{", "{{").replace("}", "}}")
        self.inv.matmuls.append(Matmul(name, component, m, k, n, count, self.runs))

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

    def norm(self, name: str, shape: tuple[int, ...] | None = None) -> None:
        """A LayerNorm (weight and bias, or weight only) or an RMSNorm (weight)."""
        shape = (self.cfg.d_model,) if shape is None else shape
        self.tensor(f"{name}.weight", shape, "norm")
        if self.cfg.norm == "layernorm" and self.cfg.norm_bias:
            self.tensor(f"{name}.bias", shape, "norm")

    def attention(
        self, p: str, q_rows: int, kv_rows: int, q_len: int, kv_len: int, cross: bool
    ) -> None:
        cfg, nm = self.cfg, self.nm
        if cfg.attention_sinks and not cross:  # gpt-oss: one sink logit per head
            self.tensor(p + nm.sinks, (cfg.n_heads,), "attention")
        if cfg.attention == "mla" and not cross:
            attention.mla(self, p, q_rows)
            self.scores(p, q_len, kv_len, "")
            return
        if cfg.compressed and not cross:
            attention.compressed(self, p, q_rows)
            self.scores(p, q_len, kv_len, "")
            return
        d, q, kv = cfg.d_model, cfg.q_dim, cfg.kv_dim
        fused = nm.cross_fused if cross else nm.fused_qkv
        names = (
            (nm.cross_q, nm.cross_k, nm.cross_v, nm.cross_o) if cross else (nm.q, nm.k, nm.v, nm.o)
        )
        g, proj = "attention", "attention_projections"
        if fused and (not nm.torch_mha or q == kv == d):
            # One [q + 2 kv] projection; self-attention runs it as one matmul, cross-attention
            # (torch MHA) applies its Q rows to the target and its K/V rows to the source.
            suffix, bias_suffix = ("_weight", "_bias") if nm.torch_mha else (".weight", ".bias")
            self.linear(p + fused, d, q + 2 * kv, g, 0, proj, cfg.attention_bias,
                        conv1d=nm.conv1d, suffix=suffix, bias_suffix=bias_suffix)  # fmt: skip
            if cross:
                self.matmul(p + fused + "[q]", proj, q_rows, d, q)
                self.matmul(p + fused + "[kv]", proj, kv_rows, d, 2 * kv)
            else:
                self.matmul(p + fused, proj, q_rows, d, q + 2 * kv)
        elif nm.torch_mha:  # separate q/k/v weights (kdim or vdim differ); one in_proj_bias
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
            self.linear(p + names[0], d, cfg.q_proj_dim, g, q_rows, proj, cfg.attention_bias,
                        conv1d=nm.conv1d)  # fmt: skip
            ranges, runs = self.own_kv(cross)
            # keys_as_values: no V projection, the keys serve as values
            kv_names = names[1:2] if cfg.keys_as_values == "all" and not cross else names[1:3]
            for name, bias in zip(kv_names, (cfg.k_bias, cfg.attention_bias), strict=False):
                self.linear(p + name, d, kv, g, kv_rows, proj, bias, conv1d=nm.conv1d)
            self.ranges, self.runs = ranges, runs
            with self.dropped(cross):  # the shared layers' copies a checkpoint may hold
                for name, bias in zip(kv_names, (cfg.k_bias, cfg.attention_bias), strict=False):
                    self.linear(p + name, d, kv, g, 0, proj, bias, conv1d=nm.conv1d)
        self.linear(p + names[3], q, d, g, q_rows, proj, cfg.out_bias, conv1d=nm.conv1d)
        if not cross:
            self.qk_norms(p)
            self.position_projections(p)
        self.scores(p, q_len, kv_len, "cross " if cross else "")

    def own_kv(self, cross: bool) -> tuple[Ranges, Ranges]:
        """Narrow the layers being walked to those that compute their own keys and values
        (not kv_shared_layers, which reuse an earlier layer's); returns the ranges to put
        back."""
        ranges, runs = self.ranges, self.runs
        shared = set(self.cfg.kv_shared_layers)
        if shared and not cross and len(ranges) == 1:
            ((key, span),) = ranges
            own = [i for i in values(span) if i not in shared]
            self.ranges = self.runs = ((key, index_set(own)),)
        return ranges, runs

    @contextmanager
    def dropped(self, cross: bool) -> Iterator[None]:
        """Tensors added within go to the inventory's `ignored`, over the KV-shared layers:
        the K and V a checkpoint may store for them, which the model drops on load."""
        shared = self.cfg.kv_shared_layers
        if cross or not shared or len(self.ranges) != 1:
            self.inv.ignored, kept = [], self.inv.ignored  # nothing to drop: a scratch list
            tensors, self.inv.tensors = self.inv.tensors, self.inv.ignored
            yield
            self.inv.tensors, self.inv.ignored = tensors, kept
            return
        ranges, runs = self.ranges, self.runs
        ((key, _),) = ranges
        self.ranges = ((key, index_set(shared)),)
        tensors, self.inv.tensors = self.inv.tensors, self.inv.ignored
        yield
        self.inv.tensors = tensors
        self.ranges, self.runs = ranges, runs

    def parts(self, p: str, parts: Sequence[Part], rows: int) -> None:
        """Tensors given as data (layer_parts under the layer's prefix p, model_parts with
        whole names), each one matmul of its multiply-adds per row, run once per use."""
        for part in parts:
            component = "projector" if part.projector else part.group
            self.tensor(p + part.name, tuple(part.shape), component)
            if rows and part.macs:
                name = p + part.name.removesuffix(".weight")
                self.matmul(name, PART_FLOPS[part.group], rows, part.macs, 1, part.uses)

    def position_projections(self, p: str) -> None:
        """DeBERTa: each layer projects the relative table (its rows, once per forward pass
        whatever the batch): with the layer's query and key projections (share_att_key), or
        with a pos_key_proj (c2p) and a pos_query_proj (p2c) of its own."""
        cfg, nm = self.cfg, self.nm
        r = cfg.relative_position_rows
        if r is None:
            return
        d, q, proj = cfg.d_model, cfg.q_dim, "attention_projections"
        if cfg.shared_position_projections:
            self.matmul(p + nm.q + "[positions]", proj, r, d, q)
            self.matmul(p + nm.k + "[positions]", proj, r, d, q)
            return
        for kind in cfg.position_scores:
            name = nm.pos_key_proj if kind == "c2p" else nm.pos_query_proj
            self.linear(p + name, d, q, "attention", r, proj, cfg.attention_bias)

    def scores(self, p: str, q_len: int, kv_len: int, kind: str) -> None:
        """Per batch element and query head, [q_len, hq] x [hq, kv_len], then [q_len, kv_len]
        x [kv_len, hv]. GQA repeats K/V heads, so every query head runs both. hq and hv are
        head_dim, or under MLA the no-rotary plus rotary width and the value width."""
        cfg = self.cfg
        hq, hv = cfg.qk_head_size, cfg.v_head_size
        if cfg.attention == "mla":
            assert cfg.qk_nope_head_dim is not None and cfg.qk_rope_head_dim is not None
            assert cfg.v_head_dim is not None
            hq, hv = cfg.qk_nope_head_dim + cfg.qk_rope_head_dim, cfg.v_head_dim
        else:
            hq = hv = cfg.head_size
        heads = self.batch * cfg.n_heads
        self.matmul(f"{p}{kind}scores QK^T", "attention_scores", q_len, hq, kv_len, heads)
        self.matmul(f"{p}{kind}scores AV", "attention_scores", q_len, kv_len, hv, heads)
        if cfg.indexer_heads is not None and cfg.indexer_head_dim is not None and not kind:
            # The indexer: per batch element and query, [heads, width] x [width, keys] against
            # its one shared key, then [1, heads] x [heads, keys] (each head's weight).
            ix, ih, rows = p + self.nm.mla_indexer, cfg.indexer_heads, self.batch * q_len
            self.matmul(f"{ix}scores", "attention_scores", ih, cfg.indexer_head_dim, kv_len, rows)
            self.matmul(f"{ix}weighted sum", "attention_scores", 1, ih, kv_len, rows)
        r = cfg.relative_position_rows
        if r is not None and not kind:  # DeBERTa: queries and keys against the table
            for score in cfg.position_scores:
                length = q_len if score == "c2p" else kv_len
                self.matmul(f"{p}scores {score}", "attention_scores", length, hq, r, heads)

    def qk_norms(self, p: str) -> None:
        """Norms on queries and keys: per head_dim (shared by heads), per head, or full width."""
        cfg, nm = self.cfg, self.nm
        hd, h, kv = cfg.head_size, cfg.n_heads, cfg.kv_heads
        shapes = {
            "head": ((hd,), (hd,)),  # Qwen3RMSNorm(head_dim), applied to every head
            "per_head": ((h, hd), (kv, hd)),  # CohereLayerNorm((heads, head_dim))
            "full": ((h * hd,), (kv * hd,)),  # Olmo2RMSNorm(heads x head_dim)
        }.get(cfg.qk_norm)
        if shapes is not None:
            self.norm(p + nm.q_norm, shapes[0])
            ranges, runs = self.own_kv(False)
            self.norm(p + nm.k_norm, shapes[1])
            self.ranges, self.runs = ranges, runs
            with self.dropped(False):
                self.norm(p + nm.k_norm, shapes[1])

    def ffn(self, p: str, rows: int, width: int | None = None) -> None:
        """One FFN: dense (of `width`, default d_ff) or, in a MoE model, routed experts."""
        cfg, nm = self.cfg, self.nm
        d, f, b = cfg.d_model, cfg.d_ff if width is None else width, cfg.ffn_bias
        if cfg.is_moe and width is None:
            self.moe(p, rows)
            return
        if cfg.gated and nm.fused_gate_up:  # one [2 d_ff, d] matmul, split after
            self.linear(p + nm.fused_gate_up, d, 2 * f, "ffn", rows, "ffn", b, conv1d=nm.conv1d)
        else:
            if cfg.gated:
                self.linear(p + nm.gate, d, f, "ffn", rows, "ffn", b, conv1d=nm.conv1d)
            self.linear(p + nm.up, d, f, "ffn", rows, "ffn", b, conv1d=nm.conv1d)
        self.linear(p + nm.down, f, d, "ffn", rows, "ffn", b, conv1d=nm.conv1d)

    def moe(self, p: str, rows: int) -> None:
        """Router, experts ({e} per expert, or fused [E, ...] tensors), a shared expert."""
        cfg, nm = self.cfg, self.nm
        d, f, b, eb = cfg.d_model, cfg.d_ff, cfg.ffn_bias, cfg.routed_expert_bias
        assert cfg.n_experts is not None and cfg.experts_per_token is not None
        e, gated, w, lat = cfg.n_experts, cfg.gated, cfg.expert_width, cfg.moe_latent_dim
        self.linear(p + nm.router, d, e, "ffn", rows, "ffn", cfg.router_bias)
        if cfg.router_score_bias == "parameter":
            self.tensor(p + nm.score_bias, nm.score_bias_shape(e), "ffn")
        for name, d_in, d_out in ((nm.latent_down, d, lat), (nm.latent_up, lat, d)) if lat else ():
            self.linear(p + name, d_in, d_out, "ffn", rows, "ffn", b)  # the experts' latent width
        mats = [(nm.expert_gate, w, f)] if gated else []
        mats += [(nm.expert_up, w, f), (nm.expert_down, f, w)]
        if nm.fused_experts is not None:  # [E, ...] tensors, gate and up stacked (gate_up_proj)
            self.fused_experts(p + nm.fused_experts, w, f)
        else:
            layer, self.ranges = self.ranges, (*self.ranges, ("e", e))
            for name, d_in, d_out in mats:  # once per expert {e} of the layer
                self.linear(p + nm.expert + name, d_in, d_out, "ffn", 0, "ffn", eb)
            self.ranges = layer
        # Each row passes through experts_per_token experts: the routed rows of all experts.
        routed = rows * cfg.experts_per_token
        every = p + nm.expert.replace("{e}", "*")
        for name, d_in, d_out in mats:
            self.matmul(every + name, "ffn", routed, d_in, d_out)
        if cfg.shared_expert_d_ff is not None:  # every row, one MLP of its own width
            fs, sp = cfg.shared_expert_d_ff, p + nm.shared_expert
            if gated and nm.shared_gate_up:  # one [2 fs, d] Linear (Granite's input_linear)
                self.linear(sp + nm.shared_gate_up, d, 2 * fs, "ffn", rows, "ffn", b)
            else:
                for name in [nm.shared_gate, nm.shared_up] if gated else [nm.shared_up]:
                    self.linear(sp + name, d, fs, "ffn", rows, "ffn", b)
            self.linear(sp + nm.shared_down, fs, d, "ffn", rows, "ffn", b)
            if cfg.shared_expert_gate:
                self.linear(p + nm.shared_expert_gate, d, 1, "ffn", rows, "ffn", False)

    def fused_experts(self, p: str, d: int, f: int) -> None:
        """Experts stored as [E, ...] tensors: gate and up stacked in one gate_up tensor."""
        cfg, nm = self.cfg, self.nm
        assert cfg.n_experts is not None
        e, up = cfg.n_experts, (2 * f if cfg.gated else f)
        in_out = nm.fused_experts_layout == "in_out"  # [E, in, out] (gpt-oss, Llama 4)
        self.tensor(p + nm.expert_gate_up, (e, d, up) if in_out else (e, up, d), "ffn")
        self.tensor(p + nm.expert_down, (e, f, d) if in_out else (e, d, f), "ffn")
        if cfg.routed_expert_bias:
            self.tensor(p + nm.expert_gate_up + "_bias", (e, up), "ffn")
            self.tensor(p + nm.expert_down + "_bias", (e, d), "ffn")

    def stack(self, stack: str, layers: int, length: int, source_len: int | None) -> None:
        """One layer of the stack, standing for all of them ({i} in 0..layers-1); an
        encoder-decoder's decoder of its own FFN width and heads (ModelConfig.stack)."""
        whole = self.cfg
        cfg = self.cfg = whole.stack(stack)
        nm = self.nm
        if source_len is not None and nm.decoder:  # a decoder with cross-attention
            nm = self.nm = replace(nm, **nm.decoder)
        p = nm.layer.replace("{stack}", stack)
        # Tensors: the layers that hold parameters (fewer when shared, ALBERT); matmuls: every
        # layer applied.
        own, k = cfg.param_layers(layers), cfg.layers_per_group or 1
        if "{g}" in p:  # layers nested in groups (ALBERT): group {g}, its layer {j}
            self.ranges = (("g", own // k), ("j", k))
        else:
            self.ranges = (("i", own),)
        self.runs = (("i", layers),)
        if self.ranges != self.runs:  # shared: a matmul names its modules, counts every run
            self.spans = {key: values(span) for key, span in self.ranges}
        self.layer(p, self.batch * length, length, source_len)
        if cfg.relative_attention_buckets is not None and cfg.relative_attention_per_layer:
            shape = (cfg.relative_attention_buckets, cfg.n_heads)  # UMT5: in every layer
            self.tensor(p + nm.rel_bias + ".weight", shape, "attention")
        self.ranges = self.runs = ()
        self.spans = {}
        if cfg.relative_attention_buckets is not None and not cfg.relative_attention_per_layer:
            shape = (cfg.relative_attention_buckets, cfg.n_heads)  # T5: layer 0's only
            self.tensor(p.replace("{i}", "0") + nm.rel_bias + ".weight", shape, "attention")
        if cfg.relative_position_rows is not None:  # DeBERTa: the table every layer reads
            self.tensor(f"{nm.rel_embeddings}.weight", (cfg.relative_position_rows, cfg.d_model), "embedding")  # fmt: skip
        if cfg.relative_position_norm:
            self.norm(nm.rel_norm)
        if cfg.final_norm:
            self.norm(nm.final_norm.format(stack=stack))
        self.nm = self.base
        self.cfg = whole

    def layer(self, p: str, rows: int, length: int, source_len: int | None) -> None:
        nm = self.nm
        if self.cfg.layer_mixers:  # a hybrid: each kind over its own layers (reference.mixers)
            from ffn_calc.reference.mixers import hybrid_layers

            hybrid_layers(self, p, rows, length)
            return
        names = nm.layer_norm_names(self.cfg.norms_per_layer)
        # Layer 0 keeps the last first_layer_norms norms: the others run over layers 1 and up.
        skipped = names[: len(names) - self.cfg.first_norms]
        first, *rest = names or ("",)
        if first:  # listed in the reference order: a norm, attention, the other norms, FFN
            self.layer_norm(p + first, first in skipped)
        self.self_attention(p, rows, length)
        if source_len is not None:
            self.norm(p + nm.norm_cross)
            self.attention(p, rows, self.batch * source_len, length, source_len, cross=True)
        for name in rest:
            self.layer_norm(p + name, name in skipped)
        attention.compressors(self, p, length)
        attention.hyper(self, p + nm.attn_hc, rows, "attention", "attention_projections")
        self.ffn_kinds(p, rows)
        attention.hyper(self, p + nm.ffn_hc, rows, "ffn", "ffn")
        self.parts(p, self.cfg.layer_parts, rows)
        self.per_layer_input(p, rows)

    def self_attention(self, p: str, rows: int, length: int) -> None:
        """The layer's self-attention; where the global layers have their own width
        (ModelConfig.attending), each kind over its own layer indices ({i} over the local
        layers, then over the others)."""
        cfg = self.cfg
        wide = cfg.attending(False)
        if wide is cfg or self.ranges != self.runs or "{i}" not in p:
            self.attention(p, rows, rows, length, length, cross=False)
            return
        ranges, runs = self.ranges, self.runs
        ((_, span),) = ranges
        n = len(values(span))
        local = set(cfg.window_layers)
        kinds = (([i for i in range(n) if i in local], cfg),
                 ([i for i in range(n) if i not in local], wide))  # fmt: skip
        for indices, c in kinds:
            if indices:
                self.ranges = self.runs = (("i", index_set(indices)),)
                self.cfg = c
                self.attention(p, rows, rows, length, length, cross=False)
        self.cfg, self.ranges, self.runs = cfg, ranges, runs

    def per_layer_input(self, p: str, rows: int) -> None:
        """A layer's per-layer input (Gemma 4): its gate, the projection back, the norm."""
        dim, nm = self.cfg.per_layer_dim, self.nm
        if dim is None:
            return
        d = self.cfg.d_model
        self.linear(p + nm.per_layer_gate, d, dim, "ffn", rows, "ffn", False)
        self.linear(p + nm.per_layer_up, dim, d, "ffn", rows, "ffn", False)
        self.norm(p + nm.per_layer_norm)

    def layer_norm(self, name: str, after_first: bool) -> None:
        """A norm of every layer, or (`after_first`) of layers 1 and up only (one stack of
        layers {i} that hold their own parameters: a ModelConfig invariant)."""
        if not after_first:
            self.norm(name)
            return
        ranges = self.ranges
        ((key, span),) = ranges
        n = len(values(span))
        if n > 1:
            self.ranges = ((key, range(1, n)),)
            self.norm(name)
        self.ranges = ranges

    def ffn_kinds(self, p: str, rows: int) -> None:
        """The FFN of every layer; a MoE stack with dense layers (or KV-shared layers of their
        own width: attention.kv_shared_ffns) walks each kind over its own layer indices."""
        cfg = self.cfg
        if attention.kv_shared_ffns(self, p, rows):
            return
        dense = sorted(cfg.dense_ffn_layers) if cfg.is_moe else []
        if not dense or self.ranges != self.runs or "{i}" not in p:
            self.ffn(p, rows)
            return
        ranges, runs = self.ranges, self.runs
        ((_, span),) = ranges
        n, k = len(values(span)), len(dense)
        moe: Sequence[int]  # the complement of the dense layers, a range where it is one
        if dense == list(range(k)):
            moe = range(k, n)
        elif dense == list(range(n - k, n)):
            moe = range(n - k)
        else:  # scattered: at most MAX_LISTED_LAYERS layers (a ModelConfig invariant)
            listed = set(dense)
            moe = [i for i in range(n) if i not in listed]
        for indices, width in ((dense, cfg.dense_d_ff or cfg.d_ff), (moe, None)):
            if indices:
                self.ranges = self.runs = (("i", index_set(indices)),)
                self.ffn(p, rows, width)
        self.ranges, self.runs = ranges, runs

    def embeddings(self) -> None:
        """Token, position and token-type tables, a narrow embedding's projection, norms."""
        cfg, nm = self.cfg, self.nm
        e, side, v = cfg.embed_width, cfg.side_width, cfg.vocab_size
        if v is not None:
            # A tied head listed under its own name: the token table is the tied copy.
            under_head = nm.tied_under_head and cfg.has_lm_head and cfg.tie_embeddings
            tied = f"{nm.lm_head}.weight" if under_head else None
            self.tensor(f"{nm.tok}.weight", (v, e), "embedding", tied)
            if cfg.architecture == "encoder-decoder" and not cfg.shared_embeddings:
                self.tensor(f"{nm.target_tok}.weight", (v, e), "embedding")
            for stack in ("encoder", "decoder") if cfg.stack_embeddings else ():
                self.tensor(f"{_in_stack(nm.stack_tok, stack)}.weight", (v, e), "embedding")
        encdec = cfg.architecture == "encoder-decoder"
        stacks = ["encoder", "decoder"] if encdec else [self.only_stack]
        if cfg.positions == "learned" and cfg.max_positions is not None:
            if encdec and cfg.separate_position_tables:
                for stack in stacks:
                    rows = cfg.max_positions
                    if stack == "encoder" and cfg.source_positions is not None:
                        rows = cfg.source_positions  # the encoder's own table (Whisper)
                    self.tensor(f"{_in_stack(nm.pos, stack)}.weight", (rows, side), "embedding")
            else:
                self.tensor(f"{nm.pos.format(stack=stacks[0])}.weight", (cfg.max_positions, side), "embedding")  # fmt: skip
        if cfg.type_vocab_size:
            self.tensor(f"{nm.types}.weight", (cfg.type_vocab_size, side), "embedding")
        self.convolutions()
        if cfg.per_layer_dim is not None:  # Gemma 4: every layer's slice of a second table
            width, rows = cfg.per_layer_width, cfg.per_layer_vocab or v or 0
            self.tensor(f"{nm.per_layer_table}.weight", (rows, width), "embedding")
            self.linear(nm.per_layer_projection, cfg.d_model, width, "embedding",
                        self.batch * self.s, "embedding", False)  # fmt: skip
            self.norm(nm.per_layer_projection_norm, (cfg.per_layer_dim,))
        if cfg.embedding_dim is not None:
            b, rows = cfg.embedding_projection_bias, self.batch * self.s
            self.linear(nm.proj_in, e, cfg.d_model, "embedding", rows, "embedding", b)
        if cfg.embedding_norm:
            for stack in stacks:
                self.norm(_in_stack(nm.emb_norm, stack) if encdec else nm.emb_norm.format(stack=stack), (side,))  # fmt: skip

    def convolutions(self) -> None:
        """The encoder's front end: Conv1d weights [d_model, in, kernel] with biases, each over
        its output length (a matmul of B x length rows by in x kernel columns to d_model)."""
        d, k = self.cfg.d_model, self.cfg.conv_kernel
        for n, (channels, length) in enumerate(self.cfg.conv_lengths(self.s), start=1):
            name = self.nm.conv.format(n=n)
            self.tensor(f"{name}.weight", (d, channels, k), "embedding")
            self.tensor(f"{name}.bias", (d,), "embedding")
            self.matmul(name, "embedding", self.batch * length, channels * k, d)

    def head(self, rows: int) -> None:
        """A narrow embedding's projection out, a masked-LM transform, the output head."""
        cfg, nm = self.cfg, self.nm
        d, e, v = cfg.d_model, cfg.embed_width, cfg.vocab_size
        if not cfg.has_lm_head or v is None:
            return
        if cfg.project_out:
            self.linear(nm.proj_out, d, e, "embedding", rows, "embedding", cfg.embedding_projection_bias)  # fmt: skip
        if cfg.lm_head_transform:
            self.linear(nm.head_dense, d, e, "lm_head", rows, "lm_head", cfg.lm_head_transform_bias)
            self.norm(nm.head_norm, (e,))
        target = f"{nm.target_tok if not cfg.shared_embeddings else nm.tok}.weight"
        if cfg.tie_embeddings and nm.tied_under_head:  # the token table, under the head's name
            self.tensor(f"{nm.lm_head}.weight", (v, e), "embedding")
        else:
            tied = target if cfg.tie_embeddings else None
            self.tensor(f"{nm.lm_head}.weight", (v, e), "lm_head", tied)
        self.matmul(nm.lm_head, "lm_head", rows, e, v)
        if cfg.lm_head_bias:
            self.tensor(nm.lm_head_bias, (v,), "lm_head")
        if cfg.lm_head_projection_bias:  # the projection's own, beside lm_head_bias
            self.tensor(f"{nm.lm_head}.bias", (v,), "lm_head")

    def aliases(self) -> None:
        """State-dict names that share another tensor's storage (T5's encoder.embed_tokens)."""
        by_name = {t.name: t for t in self.inv.tensors}
        for alias, target in self.nm.aliases.items():
            t = by_name.get(target)
            if t is not None and alias not in by_name:
                self.tensor(alias, t.shape, t.component, tied_to=target)

    def build(self) -> Inventory:
        cfg = self.cfg
        self.base = self.nm
        self.only_stack = "encoder" if cfg.architecture == "encoder-only" else "decoder"
        self.embeddings()
        if cfg.architecture == "encoder-decoder":
            self.stack("encoder", cfg.encoder_layers, self.s, None)
            self.stack("decoder", cfg.decoder_layers, self.t, self.s)
            out_rows = self.batch * self.t
        else:
            self.stack(self.only_stack, cfg.n_layers, self.s, None)
            out_rows = self.batch * self.s
        self.parts("", cfg.model_parts, self.batch * self.s)
        if cfg.pooler:  # BertPooler: dense over the first token of each sequence
            self.linear(self.nm.pooler, cfg.d_model, cfg.d_model, "pooler", self.batch, "pooler", True)  # fmt: skip
        n = cfg.hc_streams
        if n is not None:  # DeepseekV4HyperHead: the streams' weights before the final norm
            h = self.nm.hc_head
            self.tensor(h + "hc_fn", (n, n * cfg.d_model), "norm")
            self.tensor(h + "hc_base", (n,), "norm")
            self.tensor(h + "hc_scale", (1,), "norm")
            self.matmul(h + "hc_fn", "ffn", out_rows, n * cfg.d_model, n)
        self.head(out_rows)
        self.aliases()
        return self.inv


def instantiate(
    cfg: ModelConfig,
    batch: int = 1,
    seq_len: int = 1,
    target_len: int | None = None,
    images: int = 0,
) -> Inventory:
    """Every parameter tensor and the matmuls of one forward pass at (batch, S, T); with
    towers, `images` images per sequence through them (their tokens are part of S)."""
    t = seq_len if target_len is None else target_len
    inv = _Walker(cfg, naming_for(cfg), batch, seq_len, t).build()
    inv.ignored_prefixes = tuple(u.prefix for u in cfg.not_counted)
    for tower in cfg.towers:  # images run through the vision towers only
        _tower(inv, tower, batch * images if tower.takes_images else 0)
    return inv


def _tower(inv: Inventory, tower: Tower, images: int) -> None:
    """A tower's stack under its prefix with its family's names, and its parts; the matmuls
    of `images` images (over the batch). Its tensors count in the component named after the
    tower, the projector's in `projector`."""
    naming = moved(naming_for(tower.stack), "", tower.prefix)
    # packed: the images run as one sequence of all their tokens (counts.towers.stack_workload)
    rows, length = (1, images * tower.tokens) if tower.packed else (images, tower.tokens)
    own = _Walker(tower.stack, naming, rows, length, length).build()
    inv.tensors += [replace(x, component=tower.name) for x in own.tensors]
    for p in tower.parts:
        component = "projector" if p.projector else tower.name
        copies: Ranges = (("i", p.layers),) if "{i}" in p.name else ()  # one per layer
        inv.tensors.append(Tensor(p.name, tuple(p.shape), component, ranges=copies))
        if images and p.macs:  # as one [rows, macs] x [macs, 1] product: its multiply-adds
            rows = images * tower.units(p.per)  # per image, token, merged or output token
            inv.matmuls.append(Matmul(p.name.removesuffix(".weight"), component, rows, p.macs, 1))
    if images:
        inv.matmuls += [replace(m, component=tower.name) for m in windowed(tower, own.matmuls)]
    if images and tower.pooling_macs:  # a weightless pooling matmul (Gemma 4's pooler)
        pooler = Matmul(f"{tower.prefix}pooler", tower.name, images, tower.pooling_macs, 1)
        inv.matmuls.append(pooler)
