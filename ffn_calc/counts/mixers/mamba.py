"""Mamba-1 (selective scan) counts: transformers' JambaMambaMixer, as its torch path runs
without the mamba_ssm / causal_conv1d kernels (the sequential scan, one step per token).

Parameters: in_proj [2 inner, d_model] (+ bias), conv1d [inner, 1, K] (+ bias), x_proj
[dt_rank + 2 N, inner], dt_proj [inner, dt_rank] + bias [inner], A_log [inner, N], D [inner],
out_proj [d_model, inner] (+ bias); Jamba's RMSNorms dt_layernorm [dt_rank], b_layernorm and
c_layernorm [N].

FLOPs over B sequences of S tokens (FlopCounterMode's count of the torch path): in_proj
2 B S d_model x 2 inner; the depthwise convolution padded by K - 1 on both sides,
2 B inner K (S + K - 1) (with a cache, as generate()'s prefill runs, the input is first
padded to at least K: max(S, K)); x_proj 2 B S inner (dt_rank + 2 N); dt_proj (its weight
times the time steps) 2 B S dt_rank x inner; the sequential scan's read-out, one
[inner, N] x [N, 1] product per token, 2 B S inner N (the state update and the
discretisation are elementwise, not counted; torch.matmul counts the read-out even with
N = 1); out_proj 2 B S inner x d_model. One decode step: the same with S = 1 and the
convolution over the K cached inputs and the new one (2 B inner K x 2 outputs).

The cache per layer and sequence: the convolution's last K inputs [inner, K] and the state
[inner, N], whatever the context.
"""

from __future__ import annotations

from ffn_calc.counts.mixers.state import FP32, StateTensor
from ffn_calc.counts.mixers.traffic import Moves, Traffic, conv
from ffn_calc.counts.terms import Term, term
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.mixers import MambaConfig

G = "mixer"


def sizes(cfg: ModelConfig) -> MambaConfig:
    m = cfg.mamba
    assert m is not None  # a ModelConfig invariant for a model with Mamba layers
    return m


def params(cfg: ModelConfig) -> list[Term]:
    m, d = sizes(cfg), cfg.d_model
    i, n, r = m.inner, m.state_size, m.dt_rank
    out = [term(G, "in_proj", "d_model x 2 inner", d, 2 * i)]
    if m.proj_bias:
        out.append(term(G, "in_proj bias", "2 inner", 2 * i))
    out.append(term(G, "conv1d", "inner x kernel", i, m.conv_kernel))
    if m.conv_bias:
        out.append(term(G, "conv1d bias", "inner", i))
    out += [
        term(G, "x_proj", "inner x (dt_rank + 2 state)", i, r + 2 * n),
        term(G, "dt_proj", "dt_rank x inner", r, i),
        term(G, "dt_proj bias", "inner", i),
        term(G, "A_log", "inner x state", i, n),
        term(G, "D", "inner", i),
        term(G, "out_proj", "inner x d_model", i, d),
    ]
    if m.proj_bias:
        out.append(term(G, "out_proj bias", "d_model", d))
    if m.dt_bc_norms:
        out += [
            term("norm", "dt norm", "dt_rank (weight)", r),
            term("norm", "B and C norms", "2 x state (weight)", 2, n),
        ]
    return out


def _steps(cfg: ModelConfig, b: int, s: int, conv: Term) -> list[Term]:
    m, d = sizes(cfg), cfg.d_model
    i, n, r = m.inner, m.state_size, m.dt_rank
    out = [
        term(G, "in_proj", "2 x B x S x d_model x 2 inner", 2, b, s, d, 2 * i),
        conv,
        term(G, "x_proj", "2 x B x S x inner x (dt_rank + 2 state)", 2, b, s, i, r + 2 * n),
        term(G, "dt_proj", "2 x B x S x dt_rank x inner", 2, b, s, r, i),
    ]
    out.append(term(G, "scan read-out", "2 x B x S x inner x state", 2, b, s, i, n))
    out.append(term(G, "out_proj", "2 x B x S x inner x d_model", 2, b, s, i, d))
    return out


def prefill(cfg: ModelConfig, b: int, s: int, cached: bool = False) -> list[Term]:
    m = sizes(cfg)
    k = m.conv_kernel
    conv_in, sym = (max(s, k), "max(S, K)") if cached else (s, "S")
    conv = term(G, "conv1d", f"2 x B x inner x K x ({sym} + K - 1)", 2, b, m.inner, k,
                conv_in + k - 1)  # fmt: skip
    return _steps(cfg, b, s, conv)


def decode(cfg: ModelConfig, b: int) -> list[Term]:
    m = sizes(cfg)
    conv = term(G, "conv1d", "2 x B x inner x K x 2", 2, b, m.inner, m.conv_kernel, 2)
    return _steps(cfg, b, 1, conv)


def state(cfg: ModelConfig) -> list[StateTensor]:
    """The conv state in the model's dtype, the SSM state in float32 (transformers' torch
    scan keeps it in float32)."""
    m = sizes(cfg)
    return [
        StateTensor("conv state", m.inner * m.conv_kernel),
        StateTensor("SSM state", m.inner * m.state_size, FP32),
    ]


# The roofline's view of the layer (counts.mixers.traffic): what each kernel moves.
LINEAR = ("in_proj", "x_proj", "dt_proj", "out_proj")


def traffic(cfg: ModelConfig, b: int, s: int, decode: bool) -> Traffic:
    """The selective scan as one kernel: it reads A [inner, N] and D [inner], x and dt
    (2 inner per token), B and C (2 N), writes y (inner); the state [inner, N] stays on chip
    over a prefill, and a decode step reads and writes it."""
    m = sizes(cfg)
    i, n = m.inner, m.state_size
    rows = b * s
    scan = Moves(i * n + i, rows * (2 * i + 2 * n) + rows * i, 2 * b * i * n if decode else 0, FP32)
    return Traffic({"conv1d": conv(b, s, i, m.conv_kernel, decode), "scan read-out": scan})
