"""Lightning-attention counts: transformers' MiniMaxLightningAttention, as its torch path runs
(blocks of block_size tokens, the last one partial; one token at a time with a cache).

Parameters: qkv_proj [3 H P, d_model], output_gate [H P, d_model], the RMSNorm [H P],
out_proj [d_model, H P], no biases (the decay tables are buffers).

FLOPs over B sequences of S tokens (FlopCounterMode's count of the torch path): qkv_proj
2 B S d_model x 3 H P, output_gate 2 B S d_model x H P, out_proj 2 B S H P x d_model; per
block of b tokens and head: Q K^T 2 b^2 P, its decayed product with V 2 b^2 P, Q times the
carried [P, P] state 2 b P^2, the block's K^T V 2 P b P. Summed over the blocks:
intra-block 4 B H P x sum of b^2 (full blocks of block_size, then S mod block_size),
inter-block 4 B H P^2 S. One decode step: the projections, K^T V and Q times the state,
4 B H P^2 (the state's decay is elementwise).

The cache per layer and sequence: the state K^T V [H, P, P], whatever the context.
"""

from __future__ import annotations

from ffn_calc.counts.mixers.state import StateTensor
from ffn_calc.counts.mixers.traffic import Moves, Traffic
from ffn_calc.counts.terms import Term, term
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.mixers import LightningConfig

G = "mixer"


def sizes(cfg: ModelConfig) -> LightningConfig:
    m = cfg.lightning
    assert m is not None  # a ModelConfig invariant for a model with lightning layers
    return m


def params(cfg: ModelConfig) -> list[Term]:
    m, d = sizes(cfg), cfg.d_model
    w = m.heads * m.head_dim
    return [
        term(G, "qkv_proj", "d_model x 3 heads x head_dim", d, 3 * w),
        term(G, "output_gate", "d_model x heads x head_dim", d, w),
        term("norm", "mixer norm", "heads x head_dim (weight)", w),
        term(G, "out_proj", "heads x head_dim x d_model", w, d),
    ]


def _projections(cfg: ModelConfig, b: int, s: int) -> list[Term]:
    m, d = sizes(cfg), cfg.d_model
    w = m.heads * m.head_dim
    return [
        term(G, "qkv_proj", "2 x B x S x d_model x 3 heads x head_dim", 2, b, s, d, 3 * w),
        term(G, "output_gate", "2 x B x S x d_model x heads x head_dim", 2, b, s, d, w),
        term(G, "out_proj", "2 x B x S x heads x head_dim x d_model", 2, b, s, w, d),
    ]


def prefill(cfg: ModelConfig, b: int, s: int, cached: bool = False) -> list[Term]:
    m = sizes(cfg)
    h, p, q = m.heads, m.head_dim, m.block_size
    squares = (s // q) * q * q + (s % q) ** 2  # sum of b^2 over the blocks
    return [
        *_projections(cfg, b, s),
        term(G, "lightning intra-block", "4 x B x heads x head_dim x Σ block_len^2",
             4, b, h, p, squares),
        term(G, "lightning inter-block", "4 x B x heads x head_dim^2 x S", 4, b, h, p, p, s),
    ]  # fmt: skip


def decode(cfg: ModelConfig, b: int) -> list[Term]:
    m = sizes(cfg)
    return [
        *_projections(cfg, b, 1),
        term(G, "lightning state", "4 x B x heads x head_dim^2", 4, b, m.heads, m.head_dim,
             m.head_dim),
    ]  # fmt: skip


def state(cfg: ModelConfig) -> list[StateTensor]:
    m = sizes(cfg)
    return [StateTensor("linear attention state", m.heads * m.head_dim * m.head_dim)]


# The roofline's view of the layer (counts.mixers.traffic): what each kernel moves.
LINEAR = ("qkv_proj", "output_gate", "out_proj")


def traffic(cfg: ModelConfig, b: int, s: int, decode: bool) -> Traffic:
    """Prefill: the intra-block kernel reads q, k, v (3 H P per token) and writes o (H P); the
    carried state stays on chip (inter-block: nothing more). Decode: the state step reads
    q, k, v, writes o, and reads and writes the state [H, P, P]."""
    m = sizes(cfg)
    w = m.heads * m.head_dim
    rows = b * s
    if decode:
        state = 2 * b * m.heads * m.head_dim * m.head_dim
        return Traffic({"lightning state": Moves(0, 4 * b * w, state)})
    return Traffic({"lightning intra-block": Moves(0, 4 * rows * w),
                    "lightning inter-block": Moves()})  # fmt: skip
