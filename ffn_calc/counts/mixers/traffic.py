"""What one token mixer's kernels move, in elements, for the roofline (counts.roofline): per
FLOP term of the mixer (the same names as its prefill/decode terms), the weights it reads,
the activations it reads and writes, and the cache state it reads and writes; and the
kernels that run no matmul (an elementwise recurrent update, 0 FLOPs) with what they move.

The rules, one layer, B sequences of S tokens (a decode step: S = 1):
- a linear layer (the mixer's LINEAR names): its weight, its input and output rows (the
  roofline's linear rule, rows B x S);
- a depthwise convolution over C channels with kernel K: its weight C K, the rows in and out
  2 B S C; a decode step also reads and writes the conv state whole, 2 B C K;
- a scan as one fused kernel per layer (the chunks stay on chip, as flash-attention's score
  matrix does): its inputs read once and its output written once, each charged to the term
  that first uses it (the rest of the scan's terms move nothing more); a decode step reads
  and writes the recurrent state whole, in the term (or the 0-FLOP step) that updates it.
The states are counted in the dtype their row of the cache holds them in (counts.mixers.state:
the cache dtype, --kv-dtype, or float32 for a recurrent state transformers keeps in float32),
the weights in the weights' dtype, the rest in the activations' dtype.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ffn_calc.counts.mixers.state import MODEL


@dataclass(frozen=True)
class Moves:
    """Elements one kernel moves: weights read, activations read + written, state read +
    written (in `state_dtype`: MODEL, the cache's dtype, or FP32, counts.mixers.state)."""

    weights: int = 0
    activations: int = 0
    state: int = 0
    state_dtype: str = MODEL


@dataclass(frozen=True)
class Traffic:
    """A mixer layer's kernels: per FLOP term name, and the 0-FLOP steps by name."""

    terms: dict[str, Moves]
    steps: dict[str, Moves] = field(default_factory=dict)


def conv(b: int, s: int, channels: int, kernel: int, decode: bool) -> Moves:
    """A depthwise convolution over `channels`: weight, rows in and out; decode: the state."""
    return Moves(
        channels * kernel, 2 * b * s * channels, 2 * b * channels * kernel if decode else 0
    )
