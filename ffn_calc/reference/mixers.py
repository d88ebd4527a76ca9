"""The tensor walk of a hybrid stack (ModelConfig.layer_mixers): each layer kind over its own
layer indices, with its norms, its token mixer (attention, Mamba-2, both, or none) and its
FFN (dense, MoE or none), as the reference implementation names them.

A token mixer other than attention adds its tensors and its FLOPs here, by the kind's mixer
row (MIXER_WALKS); the FLOPs of a scan or a convolution are listed as the products the torch
path computes (counts.mixers states each), with the same total.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING

from ffn_calc.model.layer_kinds import (
    DENSE,
    FULL_MAMBA2,
    GATED_DELTANET,
    KDA,
    LIGHTNING,
    MAMBA,
    MAMBA2,
    MIXERS,
    MOE,
    NO_FFN,
    SHARED_MAMBA2,
    SHORT_CONV,
    Ffn,
    Mixer,
)

if TYPE_CHECKING:  # the walker calls in; this module imports nothing from it at run time
    from ffn_calc.reference.instantiate import _Walker


def index_set(indices: list[int]) -> range | tuple[int, ...]:
    """Sorted indices as a range when they step evenly, else a tuple (as instantiate's)."""
    xs = sorted(indices)
    if len(xs) > 1 and all(b - a == xs[1] - xs[0] for a, b in itertools.pairwise(xs)):
        return range(xs[0], xs[-1] + 1, xs[1] - xs[0])
    return range(xs[0], xs[0] + 1) if len(xs) == 1 else tuple(xs)


def mamba2(w: _Walker, p: str, rows: int, length: int) -> None:
    """A Mamba-2 mixer at `p` + Naming.mixer: in_proj, conv1d, dt_bias, A_log, D, the gated
    norm, out_proj; the convolution and the SSD scan's products over `length` tokens."""
    cfg = w.cfg
    m = cfg.mamba2
    assert m is not None
    x = p + w.nm.mixer
    d, b = cfg.d_model, w.batch
    h, hp, n, q, k = m.heads, m.head_dim, m.state_size, m.chunk_size, m.conv_kernel
    w.tensor(x + "dt_bias", (h,), "mixer")
    w.tensor(x + "A_log", (h,), "mixer")
    w.tensor(x + "D", (h,), "mixer")
    w.tensor(x + "conv1d.weight", (m.conv_dim, 1, k), "mixer")
    if m.conv_bias:
        w.tensor(x + "conv1d.bias", (m.conv_dim,), "mixer")
    w.linear(x + "in_proj", d, m.in_width, "mixer", rows, "mixer", m.proj_bias)
    if m.gated_norm:
        w.norm(x + "norm", (m.width,))
    w.linear(x + "out_proj", m.width, d, "mixer", rows, "mixer", m.out_proj_bias)
    if not rows:
        return
    c = -(-length // q)  # chunks
    w.matmul(x + "conv1d", "mixer", b * m.conv_dim, k, length + k - 1)
    # The scan's products [m, k] x [k, n]; one that sums over k = 1 is elementwise (no FLOPs).
    for name, mm, kk, nn, count in (
        ("SSD C B^T", q, n, q, b * c * h),
        ("SSD intra-chunk", q, q, hp, b * c * h),
        ("SSD chunk states", hp, q, n, b * c * h),
        ("SSD state passing", c + 1, c + 1, hp * n, b * h),
        ("SSD inter-chunk", q, n, hp, b * c * h),
    ):
        if kk > 1:
            w.matmul(x + name, "mixer", mm, kk, nn, count)


def gated_deltanet(w: _Walker, p: str, rows: int, length: int) -> None:
    """A gated DeltaNet mixer at `p` + Naming.mixer: its input projections (in_proj_qkvz and
    in_proj_ba, or Qwen3.5's four), conv1d, dt_bias, A_log, the gated norm, out_proj; the
    convolution and the chunked delta rule's products over `length` tokens
    (counts.mixers.gated_deltanet.scan)."""
    from ffn_calc.counts.mixers.gated_deltanet import scan

    cfg = w.cfg
    m = cfg.gated_deltanet
    assert m is not None
    x = p + w.nm.mixer
    d, k = cfg.d_model, m.conv_kernel
    w.tensor(x + "dt_bias", (m.value_heads,), "mixer")
    w.tensor(x + "A_log", (m.value_heads,), "mixer")
    w.tensor(x + "conv1d.weight", (m.conv_dim, 1, k), "mixer")
    for name, _, width in m.projections:
        w.linear(x + name, d, width, "mixer", rows, "mixer", False)
    w.norm(x + "norm", (m.value_head_dim,))
    w.linear(x + "out_proj", m.value_dim, d, "mixer", rows, "mixer", False)
    if not rows:
        return
    w.matmul(x + "conv1d", "mixer", w.batch * m.conv_dim, k, length + k - 1)
    for name, mm, kk, nn, count in scan(m, w.batch, length):  # matmuls, even over one element
        w.matmul(x + name, "mixer", mm, kk, nn, count)


def kda(w: _Walker, p: str, rows: int, length: int) -> None:
    """A KDA mixer at `p` + Naming.mixer: its linear layers (counts.mixers.kda.projections),
    conv1d, the forget gate's dt_bias and A_log, o_norm; the convolution and the chunked delta
    rule's matmuls over `length` tokens."""
    from ffn_calc.counts.mixers.kda import projections, scan

    m = w.cfg.kda
    assert m is not None
    x = p + w.nm.mixer
    # As checkpoints store them (transformers' conversion stacks the three convolutions into
    # conv1d [3 W, 1, K] and moves f_a_proj, f_b_proj, dt_bias, A_log under forget_gate).
    for part in "qkv":
        w.tensor(x + f"{part}_conv1d.weight", (m.width, 1, m.conv_kernel), "mixer")
    w.tensor(x + "dt_bias", (m.width,), "mixer")
    w.tensor(x + "A_log", (1, 1, m.heads, 1), "mixer")
    for name, _, i, o in projections(w.cfg):
        w.linear(x + name, i, o, "mixer", rows, "mixer", False)
    w.norm(x + "o_norm", (m.head_dim,))
    if not rows:
        return
    k = m.conv_kernel
    w.matmul(x + "conv1d", "mixer", w.batch * 3 * m.width, k, length + k - 1)
    for name, mm, kk, nn, count in scan(m, w.batch, length):
        w.matmul(x + name, "mixer", mm, kk, nn, count)


def mamba(w: _Walker, p: str, rows: int, length: int) -> None:
    """A Mamba-1 mixer at `p` + Naming.mixer: in_proj, conv1d, x_proj, dt_proj, A_log, D,
    out_proj and the dt/B/C norms; the convolution and the sequential scan's read-outs over
    `length` tokens."""
    cfg = w.cfg
    m = cfg.mamba
    assert m is not None
    x, d, k = p + w.nm.mixer, cfg.d_model, m.conv_kernel
    i, n, r = m.inner, m.state_size, m.dt_rank
    w.tensor(x + "A_log", (i, n), "mixer")
    w.tensor(x + "D", (i,), "mixer")
    w.tensor(x + "conv1d.weight", (i, 1, k), "mixer")
    if m.conv_bias:
        w.tensor(x + "conv1d.bias", (i,), "mixer")
    w.linear(x + "in_proj", d, 2 * i, "mixer", rows, "mixer", m.proj_bias)
    w.linear(x + "x_proj", i, r + 2 * n, "mixer", rows, "mixer", False)
    w.linear(x + "dt_proj", r, i, "mixer", rows, "mixer", True)
    w.linear(x + "out_proj", i, d, "mixer", rows, "mixer", m.proj_bias)
    if m.dt_bc_norms:
        w.norm(x + "dt_layernorm", (r,))
        w.norm(x + "b_layernorm", (n,))
        w.norm(x + "c_layernorm", (n,))
    if rows:
        w.matmul(x + "conv1d", "mixer", w.batch * i, k, length + k - 1)
        w.matmul(x + "scan read-out", "mixer", i, n, 1, rows)  # C h per token (a bmm)


def lightning(w: _Walker, p: str, rows: int, length: int) -> None:
    """Lightning attention at `p` + Naming.mixer: qkv_proj, output_gate, norm, out_proj; the
    block products over `length` tokens (blocks of block_size, the last partial)."""
    cfg = w.cfg
    m = cfg.lightning
    assert m is not None
    x, d, h, hp, q = p + w.nm.mixer, cfg.d_model, m.heads, m.head_dim, m.block_size
    width = h * hp
    w.linear(x + "qkv_proj", d, 3 * width, "mixer", rows, "mixer", False)
    w.linear(x + "output_gate", d, width, "mixer", rows, "mixer", False)
    w.norm(x + "norm", (width,))
    w.linear(x + "out_proj", width, d, "mixer", rows, "mixer", False)
    if not rows:
        return
    bh = w.batch * h
    for size, count in ((q, length // q), (length % q, 1)):
        if size and count:
            w.matmul(x + "lightning Q K^T", "mixer", size, hp, size, bh * count)
            w.matmul(x + "lightning intra-block", "mixer", size, size, hp, bh * count)
            w.matmul(x + "lightning Q state", "mixer", size, hp, hp, bh * count)
            w.matmul(x + "lightning K^T V", "mixer", hp, size, hp, bh * count)


def short_conv(w: _Walker, p: str, rows: int, length: int) -> None:
    """A short convolution at `p` + Naming.mixer: in_proj, conv, out_proj (biases with
    conv_bias); the depthwise convolution over `length` tokens padded by K - 1."""
    cfg = w.cfg
    m = cfg.short_conv
    assert m is not None
    x, d, k = p + w.nm.mixer, cfg.d_model, m.conv_kernel
    w.linear(x + "in_proj", d, 3 * d, "mixer", rows, "mixer", m.bias)
    w.tensor(x + "conv.weight", (d, 1, k), "mixer")
    if m.bias:
        w.tensor(x + "conv.bias", (d,), "mixer")
    w.linear(x + "out_proj", d, d, "mixer", rows, "mixer", m.bias)
    if rows:
        w.matmul(x + "conv", "mixer", w.batch * d, k, length + k - 1)


def _attention(w: _Walker, p: str, rows: int, length: int) -> None:
    w.attention(p, rows, rows, length, length, cross=False)


def _both(w: _Walker, p: str, rows: int, length: int) -> None:
    _attention(w, p, rows, length)
    mamba2(w, p, rows, length)


def _shared_mamba2(w: _Walker, p: str, rows: int, length: int) -> None:
    """Attention of shared weights (model_parts hold them and their projections' matmuls):
    the layer's scores; then its Mamba-2."""
    w.scores(p, length, length, "")
    mamba2(w, p, rows, length)


def _none(w: _Walker, p: str, rows: int, length: int) -> None:
    return None


# A mixer row -> its walk; a row not listed attends (the attention walk).
MIXER_WALKS: dict[Mixer, Callable[[_Walker, str, int, int], None]] = {
    MAMBA2: mamba2,
    GATED_DELTANET: gated_deltanet,
    KDA: kda,
    SHORT_CONV: short_conv,
    MAMBA: mamba,
    LIGHTNING: lightning,
    FULL_MAMBA2: _both,
    SHARED_MAMBA2: _shared_mamba2,
    MIXERS["none"]: _none,
}


def hybrid_layers(w: _Walker, p: str, rows: int, length: int) -> None:
    """Every kind of a hybrid stack, each over its own layer indices ({i})."""
    cfg, nm = w.cfg, w.nm
    free, dense = set(cfg.ffn_free_layers), set(cfg.dense_ffn_layers) if cfg.is_moe else set()
    routed = MOE if cfg.is_moe else DENSE
    groups: dict[tuple[Ffn, Mixer], list[int]] = {}
    for i, name in enumerate(cfg.layer_mixers):
        ffn = NO_FFN if i in free else DENSE if i in dense else routed
        groups.setdefault((ffn, MIXERS[name]), []).append(i)
    ranges, runs = w.ranges, w.runs
    names = nm.layer_norm_names(cfg.norms_per_layer)
    for (ffn, mixer), indices in groups.items():
        w.ranges = w.runs = (("i", index_set(indices)),)
        q = p + nm.kind_prefixes.get(mixer.name, "")  # the kind's norms and mixer
        first, *rest = names or ("",)
        if first:
            w.norm(q + first)
        MIXER_WALKS.get(mixer, _attention)(w, q, rows, length)
        for name in rest:
            w.norm(q + name)
        if ffn is not NO_FFN:
            w.ffn(p, rows, (cfg.dense_d_ff or cfg.d_ff) if ffn is DENSE and cfg.is_moe else None)
    w.ranges, w.runs = ranges, runs
