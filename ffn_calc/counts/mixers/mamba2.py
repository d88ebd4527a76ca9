"""Mamba-2 (SSD) counts: transformers' Mamba2Mixer and its copies (Nemotron-H, Granite
4.0-H, Falcon-H1), as the torch fallback path runs without the CUDA kernels.

Parameters: in_proj [2 inner + 2 G N + H, d_model] (+ bias), conv1d [conv_dim, 1, K] (+ bias)
with conv_dim = inner + 2 G N, dt_bias, A_log, D [H] each, the gated RMSNorm [inner], out_proj
[d_model, inner] (+ bias).

FLOPs over B sequences of S tokens (FlopCounterMode's count of the torch path): in_proj and
out_proj 2 B S d_model x width; the depthwise convolution padded by K - 1 on both sides,
2 B conv_dim K (S + K - 1) (with a cache, as generate()'s prefill runs, the input is first
padded to at least K: 2 B conv_dim K (max(S, K) + K - 1)); the SSD scan over c = ceil(S / Q) chunks of Q = chunk_size tokens
(the input padded to c Q): C B^T 2 B c H Q^2 N, its product with x 2 B c H Q^2 P, the chunk
states 2 B c H Q P N, the states passed between chunks 2 B H (c + 1)^2 P N, their output
2 B c H Q P N; a product that sums over one element (state 1, a chunk of 1) is
computed elementwise and counts 0. One decode step (the recurrent form): in_proj, out_proj, the convolution over
the K cached inputs and the new one (2 B conv_dim K x 2 outputs), the state read-out
2 B H P N; the state update is elementwise (no FLOPs counted).

The cache per layer and sequence: the convolution's last K inputs [conv_dim, K] and the
recurrent state [H, P, N], whatever the context.
"""

from __future__ import annotations

from ffn_calc.counts.mixers.state import FP32, StateTensor
from ffn_calc.counts.mixers.traffic import Moves, Traffic, conv
from ffn_calc.counts.terms import Term, norm_formula, term
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.mixers import Mamba2Config

G = "mixer"


def sizes(cfg: ModelConfig) -> Mamba2Config:
    m = cfg.mamba2
    assert m is not None  # a ModelConfig invariant for a model with Mamba-2 layers
    return m


def params(cfg: ModelConfig) -> list[Term]:
    m, d = sizes(cfg), cfg.d_model
    out = [term(G, "in_proj", "d_model x (2 inner + 2 n_groups x state + heads)", d, m.in_width)]
    if m.proj_bias:
        out.append(term(G, "in_proj bias", "2 inner + 2 n_groups x state + heads", m.in_width))
    out.append(term(G, "conv1d", "conv_dim x K", m.conv_dim, m.conv_kernel))
    if m.conv_bias:
        out.append(term(G, "conv1d bias", "conv_dim", m.conv_dim))
    out += [
        term(G, "dt_bias", "heads", m.heads),
        term(G, "A_log", "heads", m.heads),
        term(G, "D", "heads", m.heads),
    ]
    if m.gated_norm:
        out.append(term("norm", "mixer norm", norm_formula("inner"), m.width))
    out.append(term(G, "out_proj", "inner x d_model", m.width, d))
    if m.out_proj_bias:
        out.append(term(G, "out_proj bias", "d_model", d))
    return out


def prefill(cfg: ModelConfig, b: int, s: int, cached: bool = False) -> list[Term]:
    m, d = sizes(cfg), cfg.d_model
    h, p, n, q, k = m.heads, m.head_dim, m.state_size, m.chunk_size, m.conv_kernel
    c = -(-s // q)  # chunks (the input padded to c x Q)
    # With a cache the convolution's input is padded on the left to at least K tokens.
    conv_in, sym = (max(s, k), "max(S, K)") if cached else (s, "S")
    # The scan's einsums, each with the length it sums over: torch computes one that sums
    # over a single element as an elementwise product, which FlopCounterMode does not count.
    scan = [
        (n, term(G, "SSD C B^T", "2 x B x chunks x heads x Q^2 x state", 2, b, c, h, q, q, n)),
        (q, term(G, "SSD intra-chunk", "2 x B x chunks x heads x Q^2 x head_dim",
                 2, b, c, h, q, q, p)),
        (q, term(G, "SSD chunk states", "2 x B x chunks x heads x Q x head_dim x state",
                 2, b, c, h, q, p, n)),
        (c + 1, term(G, "SSD state passing", "2 x B x heads x (chunks + 1)^2 x head_dim x state",
                     2, b, h, c + 1, c + 1, p, n)),
        (n, term(G, "SSD inter-chunk", "2 x B x chunks x heads x Q x head_dim x state",
                 2, b, c, h, q, p, n)),
    ]  # fmt: skip
    return [
        term(G, "in_proj", "2 x B x S x d_model x in_width", 2, b, s, d, m.in_width),
        term(
            G,
            "conv1d",
            f"2 x B x conv_dim x K x ({sym} + K - 1)",
            2,
            b,
            m.conv_dim,
            k,
            conv_in + k - 1,
        ),
        *(t for summed, t in scan if summed > 1),
        term(G, "out_proj", "2 x B x S x inner x d_model", 2, b, s, m.width, d),
    ]


def decode(cfg: ModelConfig, b: int) -> list[Term]:
    m, d = sizes(cfg), cfg.d_model
    return [
        term(G, "in_proj", "2 x B x d_model x in_width", 2, b, d, m.in_width),
        term(G, "conv1d", "2 x B x conv_dim x K x 2", 2, b, m.conv_dim, m.conv_kernel, 2),
        term(G, "SSM state read-out", "2 x B x heads x head_dim x state",
             2, b, m.heads, m.head_dim, m.state_size),
        term(G, "out_proj", "2 x B x inner x d_model", 2, b, m.width, d),
    ]  # fmt: skip


def state(cfg: ModelConfig) -> list[StateTensor]:
    """The conv state in the model's dtype, the SSM state in float32 (transformers' torch
    path: the scan returns it in float32)."""
    m = sizes(cfg)
    return [
        StateTensor("conv state", m.conv_dim * m.conv_kernel),
        StateTensor("SSM state", m.heads * m.head_dim * m.state_size, FP32),
    ]


# The roofline's view of the layer (counts.mixers.traffic): what each kernel moves.
LINEAR = ("in_proj", "out_proj")


def traffic(cfg: ModelConfig, b: int, s: int, decode: bool) -> Traffic:
    """Prefill: the scan reads C and B (2 G N per token) with C B^T, x and dt (H P + H) with
    the intra-chunk product, which writes y (H P); the chunk states stay on chip. Decode: the
    read-out reads x, B, C, dt, writes y, and reads and writes the SSM state [H, P, N]."""
    m = sizes(cfg)
    h, p, n, g = m.heads, m.head_dim, m.state_size, m.n_groups
    rows = b * s
    out = {"conv1d": conv(b, s, m.conv_dim, m.conv_kernel, decode)}
    if decode:
        out["SSM state read-out"] = Moves(
            0, b * (h * p + 2 * g * n + h) + b * h * p, 2 * b * h * p * n, FP32
        )
    else:
        out["SSD C B^T"] = Moves(0, rows * 2 * g * n)
        out["SSD intra-chunk"] = Moves(0, rows * (h * p + h) + rows * h * p)
        for name in ("SSD chunk states", "SSD state passing", "SSD inter-chunk"):
            out[name] = Moves()
    return Traffic(out)
