"""Short-convolution counts: transformers' Lfm2ShortConv (LFM2), as its torch fallback path
runs without the causal_conv1d kernels.

Parameters: in_proj [3 d_model, d_model], the depthwise conv [d_model, 1, K], out_proj
[d_model, d_model], each with a bias when conv_bias is set.

FLOPs over B sequences of S tokens (FlopCounterMode's count of the torch path): in_proj
2 B S d_model x 3 d_model, out_proj 2 B S d_model^2; the depthwise convolution padded by K - 1
on both sides, 2 B d_model K (S + K - 1) (with a cache, as generate()'s prefill runs, the
input is first padded to at least K: 2 B d_model K (max(S, K) + K - 1)); the gates B x x and
C x conv are elementwise (not counted). One decode step: the projections and the convolution
over the K cached inputs and the new one, 2 B d_model K x 2 outputs.

The cache per layer and sequence: the convolution's last K inputs [d_model, K].
"""

from __future__ import annotations

from ffn_calc.counts.mixers.state import StateTensor
from ffn_calc.counts.mixers.traffic import Traffic, conv
from ffn_calc.counts.terms import Term, term
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.mixers import ShortConvConfig

G = "mixer"


def sizes(cfg: ModelConfig) -> ShortConvConfig:
    m = cfg.short_conv
    assert m is not None  # a ModelConfig invariant for a model with short-convolution layers
    return m


def params(cfg: ModelConfig) -> list[Term]:
    m, d = sizes(cfg), cfg.d_model
    out = [term(G, "in_proj", "d_model x 3 d_model", d, 3 * d)]
    if m.bias:
        out.append(term(G, "in_proj bias", "3 d_model", 3 * d))
    out.append(term(G, "conv", "d_model x kernel", d, m.conv_kernel))
    if m.bias:
        out.append(term(G, "conv bias", "d_model", d))
    out.append(term(G, "out_proj", "d_model x d_model", d, d))
    if m.bias:
        out.append(term(G, "out_proj bias", "d_model", d))
    return out


def prefill(cfg: ModelConfig, b: int, s: int, cached: bool = False) -> list[Term]:
    m, d = sizes(cfg), cfg.d_model
    k = m.conv_kernel
    conv_in, sym = (max(s, k), "max(S, K)") if cached else (s, "S")
    return [
        term(G, "in_proj", "2 x B x S x d_model x 3 d_model", 2, b, s, d, 3 * d),
        term(G, "conv", f"2 x B x d_model x K x ({sym} + K - 1)", 2, b, d, k, conv_in + k - 1),
        term(G, "out_proj", "2 x B x S x d_model x d_model", 2, b, s, d, d),
    ]


def decode(cfg: ModelConfig, b: int) -> list[Term]:
    m, d = sizes(cfg), cfg.d_model
    return [
        term(G, "in_proj", "2 x B x d_model x 3 d_model", 2, b, d, 3 * d),
        term(G, "conv", "2 x B x d_model x K x 2", 2, b, d, m.conv_kernel, 2),
        term(G, "out_proj", "2 x B x d_model x d_model", 2, b, d, d),
    ]


def state(cfg: ModelConfig) -> list[StateTensor]:
    return [StateTensor("conv state", cfg.d_model * sizes(cfg).conv_kernel)]


# The roofline's view of the layer (counts.mixers.traffic): what each kernel moves.
LINEAR = ("in_proj", "out_proj")


def traffic(cfg: ModelConfig, b: int, s: int, decode: bool) -> Traffic:
    """The convolution over d_model channels (a decode step: its state read and written);
    the gates are elementwise, fused (nothing more moved)."""
    return Traffic({"conv": conv(b, s, cfg.d_model, sizes(cfg).conv_kernel, decode)})
