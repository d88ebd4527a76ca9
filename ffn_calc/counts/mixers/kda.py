"""Kimi Delta Attention (KDA) counts: transformers' KimiLinearDeltaAttention as its torch
fallback path runs (no fla / causal_conv1d kernels). W = heads x head_dim, h = head_dim.

Parameters: q_proj, k_proj, v_proj [W, d_model] each, conv1d [3 W, 1, K] (no bias), the
forget gate f_a_proj [h, d_model], f_b_proj [W, h], dt_bias [W], A_log [1, 1, heads, 1]
(transformers' forget_gate.*; checkpoints store them directly under the mixer, and the
convolution as q_conv1d, k_conv1d, v_conv1d [W, 1, K]: the names `tensors` lists),
b_proj [heads, d_model], the output gate g_a_proj [h, d_model], g_b_proj [W, h], the gated
RMSNorm o_norm [h], o_proj [d_model, W].

FLOPs over B sequences of S tokens (FlopCounterMode's count of the torch path): the
projections 2 B S x in x out each; the depthwise convolution padded by K - 1,
2 B 3W K (S + K - 1) (with a cache, as generate()'s prefill runs: max(S, K)); the chunked
delta rule over c = ceil(S / Q) chunks of Q = chunk_size tokens (64, the function's default),
per sequence, chunk and head: the UT products A V_beta 2 Q^2 h and A (K_beta decayed)
2 Q^2 h, the state reads of the decayed queries and of the decayed keys 2 Q h^2 each, the
intra-chunk output 2 Q^2 h and the state update K^T V 2 h Q h. The per-channel decays make
the intra-chunk scores (K_beta K^T, Q K^T) elementwise products and sums, like the forward
substitution: 0 FLOPs counted. One decode step (the recurrent form): the projections and
the convolution over the K cached inputs and the new one (2 B 3W K x 2 outputs); the
per-token delta rule is elementwise (0 FLOPs counted).

The cache per layer and sequence: the convolution's last K inputs [3 W, K] and the
recurrent state [heads, h, h], whatever the context.
"""

from __future__ import annotations

from ffn_calc.counts.mixers.state import FP32, StateTensor
from ffn_calc.counts.mixers.traffic import Moves, Traffic, conv
from ffn_calc.counts.terms import Term, norm_formula, term
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.mixers import KdaConfig

G = "mixer"


def sizes(cfg: ModelConfig) -> KdaConfig:
    m = cfg.kda
    assert m is not None  # a ModelConfig invariant for a model with KDA layers
    return m


def projections(cfg: ModelConfig) -> list[tuple[str, str, int, int]]:
    """Every linear layer of the mixer: (name, shape in words, inputs, outputs)."""
    m, d = sizes(cfg), cfg.d_model
    w, h = m.width, m.head_dim
    return [
        ("q_proj", "d_model x heads x head_dim", d, w),
        ("k_proj", "d_model x heads x head_dim", d, w),
        ("v_proj", "d_model x heads x head_dim", d, w),
        ("f_a_proj", "d_model x head_dim", d, h),
        ("f_b_proj", "head_dim x heads x head_dim", h, w),
        ("b_proj", "d_model x heads", d, m.heads),
        ("g_a_proj", "d_model x head_dim", d, h),
        ("g_b_proj", "head_dim x heads x head_dim", h, w),
        ("o_proj", "heads x head_dim x d_model", w, d),
    ]


def params(cfg: ModelConfig) -> list[Term]:
    m = sizes(cfg)
    return [
        *(term(G, name, shape, i, o) for name, shape, i, o in projections(cfg)),
        term(G, "conv1d", "3 x heads x head_dim x K", 3 * m.width, m.conv_kernel),
        term(G, "dt_bias", "heads x head_dim", m.width),
        term(G, "A_log", "heads", m.heads),
        term("norm", "mixer norm", norm_formula("head_dim"), m.head_dim),
    ]


def scan(m: KdaConfig, b: int, s: int) -> list[tuple[str, int, int, int, int]]:
    """The delta rule's matmuls [rows, summed] x [summed, cols], each `count` times."""
    q, h = m.chunk_size, m.head_dim
    n = b * -(-s // q) * m.heads  # sequences x chunks x heads
    return [
        ("KDA UT values", q, q, h, n),
        ("KDA UT keys", q, q, h, n),
        ("KDA query state read", q, h, h, n),
        ("KDA key state read", q, h, h, n),
        ("KDA intra-chunk output", q, q, h, n),
        ("KDA state update", h, q, h, n),
    ]


_SCAN_SHAPES = {
    "KDA UT values": "2 x B x chunks x heads x Q^2 x head_dim",
    "KDA UT keys": "2 x B x chunks x heads x Q^2 x head_dim",
    "KDA query state read": "2 x B x chunks x heads x Q x head_dim^2",
    "KDA key state read": "2 x B x chunks x heads x Q x head_dim^2",
    "KDA intra-chunk output": "2 x B x chunks x heads x Q^2 x head_dim",
    "KDA state update": "2 x B x chunks x heads x head_dim x Q x head_dim",
}


def _linear(cfg: ModelConfig, b: int, s: int, sym: str) -> list[Term]:
    return [term(G, name, f"2 x B x {sym}{shape}", 2, b, s, i, o)
            for name, shape, i, o in projections(cfg)]  # fmt: skip


def prefill(cfg: ModelConfig, b: int, s: int, cached: bool = False) -> list[Term]:
    m = sizes(cfg)
    k = m.conv_kernel
    conv_in, sym = (max(s, k), "max(S, K)") if cached else (s, "S")
    return [
        *_linear(cfg, b, s, "S x "),
        term(G, "conv1d", f"2 x B x 3 x heads x head_dim x K x ({sym} + K - 1)",
             2, b, 3 * m.width, k, conv_in + k - 1),
        *(term(G, name, _SCAN_SHAPES[name], 2, rows, summed, cols, count)
          for name, rows, summed, cols, count in scan(m, b, s)),
    ]  # fmt: skip


def decode(cfg: ModelConfig, b: int) -> list[Term]:
    m = sizes(cfg)
    return [
        *_linear(cfg, b, 1, ""),
        term(G, "conv1d", "2 x B x 3 x heads x head_dim x K x 2",
             2, b, 3 * m.width, m.conv_kernel, 2),
    ]  # fmt: skip


def state(cfg: ModelConfig) -> list[StateTensor]:
    """The conv states in the model's dtype, the recurrent state in float32 (transformers'
    torch KDA runs and returns it in float32)."""
    m = sizes(cfg)
    return [
        StateTensor("conv state", 3 * m.width * m.conv_kernel),
        StateTensor("recurrent state", m.heads * m.head_dim * m.head_dim, FP32),
    ]


# The roofline's view of the layer (counts.mixers.traffic): what each kernel moves.
LINEAR = (
    "q_proj",
    "k_proj",
    "v_proj",
    "f_a_proj",
    "f_b_proj",
    "b_proj",
    "g_a_proj",
    "g_b_proj",
    "o_proj",
)  # fmt: skip (projections' names)


def traffic(cfg: ModelConfig, b: int, s: int, decode: bool) -> Traffic:
    """Prefill (W = heads x head_dim per token): the delta rule reads v and beta (W + heads)
    with the UT values, k and the per-channel decay g (2 W) with the UT keys, q (W) with the
    query state read, and writes o (W) with the intra-chunk output; the rest stays on chip.
    Decode: the convolution's state, and the recurrent step (elementwise, 0 FLOPs) reads q,
    k, v, g, beta, writes o, and reads and writes the state [heads, h, h]."""
    m = sizes(cfg)
    rows, w, h = b * s, m.width, m.heads
    out = {"conv1d": conv(b, s, 3 * w, m.conv_kernel, decode)}
    if decode:
        step = Moves(0, b * (4 * w + h) + b * w, 2 * b * h * m.head_dim * m.head_dim, FP32)
        return Traffic(out, {"KDA step": step})
    out["KDA UT values"] = Moves(0, rows * (w + h))
    out["KDA UT keys"] = Moves(0, rows * 2 * w)
    out["KDA query state read"] = Moves(0, rows * w)
    out["KDA intra-chunk output"] = Moves(0, rows * w)
    for name in ("KDA key state read", "KDA state update"):
        out[name] = Moves()
    return Traffic(out)
