"""The answer to `ffn-calc activations`: each activation and its derivative at the points asked for."""

from __future__ import annotations

import math
from typing import ClassVar

from ffn_calc.counts.activations import (
    table,
)
from ffn_calc.errors import UsageError
from ffn_calc.i18n.translate import _
from ffn_calc.reports.base import Result


class ActivationRow(Result):
    x: float
    relu: float
    gelu: float
    gelu_tanh: float
    silu: float
    d_relu: float
    d_gelu: float
    d_gelu_tanh: float
    d_silu: float


class ActivationsReport(Result):
    view: ClassVar[str] = "ffn_calc.views.activations:activation_tables"

    rows: list[ActivationRow]


def activations_report(xs: list[float]) -> ActivationsReport:
    """Every x must be finite: inf and nan have no row to show (exit 2 in the CLI)."""
    for x in xs:
        if not math.isfinite(x):
            raise UsageError(
                _("--x {value}: give finite numbers; inf and nan are not evaluated.").format(
                    value=x
                )
            )
    return ActivationsReport(rows=[ActivationRow(**row) for row in table(xs)])
