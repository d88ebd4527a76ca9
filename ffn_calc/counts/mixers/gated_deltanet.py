"""Gated DeltaNet counts: transformers' Qwen3NextGatedDeltaNet as its torch fallback path runs
(no fla / causal_conv1d kernels).

Parameters: in_proj_qkvz [2 key_dim + 2 value_dim, d_model], in_proj_ba [2 Hv, d_model]
(Qwen3.5's split_projections: in_proj_qkv [2 key_dim + value_dim, d_model], in_proj_z
[value_dim, d_model], in_proj_b and in_proj_a [Hv, d_model], the same in all),
conv1d [conv_dim, 1, K] with conv_dim = 2 key_dim + value_dim (no bias), dt_bias and A_log
[Hv], the gated RMSNorm [value_head_dim] (one weight shared by the heads), out_proj
[d_model, value_dim]; key_dim = Hk x dk, value_dim = Hv x dv.

FLOPs over B sequences of S tokens (FlopCounterMode's count of the torch path): the three
projections 2 B S d_model x width; the depthwise convolution padded by K - 1,
2 B conv_dim K (S + K - 1) (with a cache, as generate()'s prefill runs, the input is first
padded to at least K: max(S, K)); the chunked delta rule over c = ceil(S / Q) chunks of
Q = chunk_size tokens (64, the function's default; the input padded to c Q), per sequence,
chunk and value head (queries and keys repeated to Hv heads): the UT system beta K K^T
2 Q^2 dk, the intra-chunk scores Q K^T 2 Q^2 dk, the state reads of the decayed keys and of
the queries 2 Q dk dv each, the intra-chunk output 2 Q^2 dv, the state update K^T V
2 dk Q dv. The triangular solve (torch.linalg.solve_triangular) has no FLOP formula in
FlopCounterMode: it counts 0, as do the elementwise decays. The products are matmuls (the
@ operator), counted even where they sum over one element (key_head_dim 1). One decode step (the recurrent form): the projections,
the convolution over the K cached inputs and the new one (2 B conv_dim K x 2 outputs); the
per-token delta rule (decay, read, update, output) is elementwise products and sums:
no FLOPs counted.

The cache per layer and sequence: the convolution's last K inputs [conv_dim, K] and the
recurrent state [Hv, dk, dv], whatever the context.
"""

from __future__ import annotations

from ffn_calc.counts.mixers.state import FP32, StateTensor
from ffn_calc.counts.mixers.traffic import Moves, Traffic, conv
from ffn_calc.counts.terms import Term, norm_formula, term
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.mixers import GatedDeltaNetConfig

G = "mixer"


def sizes(cfg: ModelConfig) -> GatedDeltaNetConfig:
    m = cfg.gated_deltanet
    assert m is not None  # a ModelConfig invariant for a model with gated DeltaNet layers
    return m


def params(cfg: ModelConfig) -> list[Term]:
    m, d = sizes(cfg), cfg.d_model
    return [
        *(term(G, name, f"d_model x {_par(width)}", d, n) for name, width, n in m.projections),
        term(G, "conv1d", "conv_dim x K", m.conv_dim, m.conv_kernel),
        term(G, "dt_bias", "value_heads", m.value_heads),
        term(G, "A_log", "value_heads", m.value_heads),
        term("norm", "mixer norm", norm_formula("value_head_dim"), m.value_head_dim),
        term(G, "out_proj", "value_dim x d_model", m.value_dim, d),
    ]


def scan(m: GatedDeltaNetConfig, b: int, s: int) -> list[tuple[str, int, int, int, int]]:
    """The delta rule's products [rows, summed] x [summed, cols], each `count` times:
    (name, rows, summed, cols, count), as the torch chunked path runs them."""
    q, h, dk, dv = m.chunk_size, m.value_heads, m.key_head_dim, m.value_head_dim
    n = b * -(-s // q) * h  # sequences x chunks x value heads
    return [
        ("delta rule beta K K^T", q, dk, q, n),
        ("delta rule Q K^T", q, dk, q, n),
        ("delta rule decayed-key state read", q, dk, dv, n),
        ("delta rule query state read", q, dk, dv, n),
        ("delta rule intra-chunk output", q, q, dv, n),
        ("delta rule state update", dk, q, dv, n),
    ]


_SCAN_SHAPES = {
    "delta rule beta K K^T": "2 x B x chunks x value_heads x Q^2 x key_head_dim",
    "delta rule Q K^T": "2 x B x chunks x value_heads x Q^2 x key_head_dim",
    "delta rule decayed-key state read": "2 x B x chunks x value_heads x Q x dk x dv",
    "delta rule query state read": "2 x B x chunks x value_heads x Q x dk x dv",
    "delta rule intra-chunk output": "2 x B x chunks x value_heads x Q^2 x value_head_dim",
    "delta rule state update": "2 x B x chunks x value_heads x dk x Q x dv",
}


def _par(width: str) -> str:
    """A projection's outputs in a shape: a sum in parentheses ("(2 key_dim + value_dim)")."""
    return f"({width})" if " + " in width else width


def _projections(m: GatedDeltaNetConfig, d: int, b: int, s: int, sym: str) -> list[Term]:
    return [
        term(G, name, f"2 x B x {sym}d_model x {_par(width)}", 2, b, s, d, n)
        for name, width, n in m.projections
    ]


def prefill(cfg: ModelConfig, b: int, s: int, cached: bool = False) -> list[Term]:
    m, d, k = sizes(cfg), cfg.d_model, sizes(cfg).conv_kernel
    conv_in, sym = (max(s, k), "max(S, K)") if cached else (s, "S")
    return [
        *_projections(m, d, b, s, "S x "),
        term(G, "conv1d", f"2 x B x conv_dim x K x ({sym} + K - 1)",
             2, b, m.conv_dim, k, conv_in + k - 1),
        *(term(G, name, _SCAN_SHAPES[name], 2, rows, summed, cols, count)
          for name, rows, summed, cols, count in scan(m, b, s)),
        term(G, "out_proj", "2 x B x S x value_dim x d_model", 2, b, s, m.value_dim, d),
    ]  # fmt: skip


def decode(cfg: ModelConfig, b: int) -> list[Term]:
    m, d = sizes(cfg), cfg.d_model
    return [
        *_projections(m, d, b, 1, ""),
        term(G, "conv1d", "2 x B x conv_dim x K x 2", 2, b, m.conv_dim, m.conv_kernel, 2),
        term(G, "out_proj", "2 x B x value_dim x d_model", 2, b, m.value_dim, d),
    ]


def state(cfg: ModelConfig) -> list[StateTensor]:
    """The conv state in the model's dtype, the recurrent state in float32 (transformers'
    torch delta rule runs and returns it in float32)."""
    m = sizes(cfg)
    return [
        StateTensor("conv state", m.conv_dim * m.conv_kernel),
        StateTensor("recurrent state", m.value_heads * m.key_head_dim * m.value_head_dim, FP32),
    ]


# The roofline's view of the layer (counts.mixers.traffic): what each kernel moves.
LINEAR = ("in_proj_qkvz", "in_proj_ba", "out_proj")


def traffic(cfg: ModelConfig, b: int, s: int, decode: bool) -> Traffic:
    """Prefill: the delta rule reads k, beta and g (key_dim + 2 Hv per token) with beta K K^T,
    q (key_dim) with Q K^T, v (value_dim) with the intra-chunk output, which writes o
    (value_dim); the rest stays on chip. Decode: the convolution's state, and the recurrent
    step (elementwise, 0 FLOPs) reads q, k, v, beta, g, writes o, and reads and writes the
    state [Hv, dk, dv]."""
    m = sizes(cfg)
    rows, hv = b * s, m.value_heads
    out = {"conv1d": conv(b, s, m.conv_dim, m.conv_kernel, decode)}
    if decode:
        step = Moves(
            0, b * (2 * m.key_dim + m.value_dim + 2 * hv) + b * m.value_dim,
            2 * b * hv * m.key_head_dim * m.value_head_dim, FP32,
        )  # fmt: skip
        return Traffic(out, {"delta rule step": step})
    out["delta rule beta K K^T"] = Moves(0, rows * (m.key_dim + 2 * hv))
    out["delta rule Q K^T"] = Moves(0, rows * m.key_dim)
    out["delta rule intra-chunk output"] = Moves(0, 2 * rows * m.value_dim)
    for name in ("delta rule decayed-key state read", "delta rule query state read",
                 "delta rule state update"):  # fmt: skip
        out[name] = Moves()
    return Traffic(out)
