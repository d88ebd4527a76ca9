"""The answer to `ffn-calc swiglu-size`: the d_ff of a SwiGLU FFN at parameter parity with a plain 4x
FFN, and Llama's rounding rule."""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

from ffn_calc.counts.sizing import llama_d_ff, parity_d_ff
from ffn_calc.reports.base import Result


class SwigluReport(Result):
    view: ClassVar[str] = "ffn_calc.views.sizing:swiglu_tables"

    d_model: int
    multiple_of: int
    ffn_dim_multiplier: float | None
    plain_d_ff: int
    plain_params: int
    parity_d_ff: float
    parity_d_ff_exact: str
    llama_d_ff: int
    llama_params: int
    llama_vs_plain: float


def swiglu_report(d_model: int, multiple_of: int, multiplier: float | None) -> SwigluReport:
    """Both FFNs side by side, weights only (no biases)."""
    parity = parity_d_ff(d_model)
    f = llama_d_ff(d_model, multiple_of, multiplier)
    plain = 2 * d_model * 4 * d_model  # W1 [d, 4d] + W2 [4d, d]
    gated = 3 * d_model * f  # gate, up [d, f] + down [f, d]
    return SwigluReport(
        d_model=d_model, multiple_of=multiple_of, ffn_dim_multiplier=multiplier,
        plain_d_ff=4 * d_model, plain_params=plain, parity_d_ff=float(parity),
        parity_d_ff_exact=str(parity), llama_d_ff=f, llama_params=gated,
        llama_vs_plain=float(Fraction(gated, plain)),
    )  # fmt: skip
