"""Sizing a gated (SwiGLU) FFN against a plain 4 x d_model one."""

from __future__ import annotations

import math
from fractions import Fraction

from ffn_calc.errors import UsageError
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import MAX_SIZE


def parity_d_ff(d_model: int) -> Fraction:
    """d_ff giving 3 matrices the parameters of a plain 4x FFN: 3 d f = 8 d^2 -> f = 8d/3."""
    return Fraction(8 * d_model, 3)


def llama_d_ff(
    d_model: int, multiple_of: int = 256, ffn_dim_multiplier: float | None = None
) -> int:
    """Meta's Llama rule (llama/model.py FeedForward): int(2 * 4d / 3), times the multiplier
    if given, rounded up to a multiple of multiple_of."""
    hidden = int(2 * (4 * d_model) / 3)
    if ffn_dim_multiplier is not None:
        scaled = ffn_dim_multiplier * hidden  # a float product, as in Meta's code
        if not (math.isfinite(ffn_dim_multiplier) and ffn_dim_multiplier > 0):
            raise UsageError(
                _("--ffn-dim-multiplier must be a positive finite number, not {value}.").format(
                    value=ffn_dim_multiplier
                )
            )
        if not scaled <= MAX_SIZE:
            raise UsageError(
                _(
                    "--ffn-dim-multiplier {value} x {hidden} is beyond ffn-calc's bound on "
                    "sizes, 2^40 = {bound}."
                ).format(
                    value=f"{ffn_dim_multiplier:g}", hidden=f"{hidden:,}", bound=f"{MAX_SIZE:,}"
                )
            )
        hidden = int(scaled)
    return multiple_of * -(-hidden // multiple_of)  # ceil, in integers
