"""The answer to `ffn-calc activations`: each activation and its derivative at the points asked for."""

from __future__ import annotations

import math
from typing import ClassVar

from pydantic import PrivateAttr, field_serializer

from ffn_calc.counts.activations import DEFAULT_RANGE, NAMES, table
from ffn_calc.errors import UsageError
from ffn_calc.i18n.translate import _
from ffn_calc.reports.base import Result

# The widest range the curves are drawn over (a figure of [-1e9, 1e9] shows nothing).
MAX_RANGE = 1_000.0


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
    """Each point's row: the functions asked for (`--functions`; default all four) and their
    derivatives, in JSON as in the tables."""

    view: ClassVar[str] = "ffn_calc.views.activations:activation_tables"

    rows: list[ActivationRow]

    _functions: tuple[str, ...] = PrivateAttr(NAMES)

    def functions(self) -> tuple[str, ...]:
        return self._functions

    @field_serializer("rows")
    def _chosen(self, rows: list[ActivationRow]) -> list[dict[str, float]]:
        keys = ["x", *self._functions, *(f"d_{n}" for n in self._functions)]
        order = [k for k in ActivationRow.model_fields if k in keys]
        return [{k: getattr(row, k) for k in order} for row in rows]


def parse_functions(values: list[str] | None) -> tuple[str, ...]:
    """`relu,gelu` (repeatable, any case): the functions in the order given, each once."""
    if not values:
        return NAMES
    out: list[str] = []
    for value in values:
        for part in value.split(","):
            name = part.strip().lower().replace("-", "_")
            if name not in NAMES:
                raise UsageError(
                    _("--functions {value}: unknown function; choose from {choices}.").format(
                        value=part.strip() or value, choices=", ".join(NAMES)
                    )
                )
            if name not in out:
                out.append(name)
    return tuple(out)


def parse_range(text: str | None, xs: list[float]) -> tuple[float, float]:
    """`LO:HI` for the curves (default [-3, 3], widened to take in every --x point)."""
    if text is None:
        lo, hi = DEFAULT_RANGE
        return min([lo, *xs]), max([hi, *xs])
    lo_text, colon, hi_text = text.partition(":")
    try:
        if not colon:
            raise ValueError
        lo, hi = float(lo_text), float(hi_text)
    except ValueError:
        raise UsageError(
            _("--range {value}: write LO:HI, two numbers (e.g. -5:5).").format(value=text)
        ) from None
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo >= hi:
        raise UsageError(_("--range {value}: LO must be below HI, both finite.").format(value=text))
    if hi - lo > 2 * MAX_RANGE or max(abs(lo), abs(hi)) > MAX_RANGE:
        raise UsageError(
            _("--range {value}: the curves are drawn within [-{max}, {max}].").format(
                value=text, max=f"{MAX_RANGE:,.0f}"
            )
        )
    return lo, hi


def activations_report(xs: list[float], functions: tuple[str, ...] = NAMES) -> ActivationsReport:
    """Every x must be finite: inf and nan have no row to show (exit 2 in the CLI)."""
    for x in xs:
        if not math.isfinite(x):
            raise UsageError(
                _("--x {value}: give finite numbers; inf and nan are not evaluated.").format(
                    value=x
                )
            )
    report = ActivationsReport(rows=[ActivationRow(**row) for row in table(xs)])
    report._functions = functions
    return report
