"""`activations --plot FILE`: the activations and their derivatives, two panels (the figures'
machinery is ffn_calc.output.plot's; matplotlib is imported only when a figure is asked for)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ffn_calc.i18n.translate import _
from ffn_calc.output import plot as base

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

# One colour per activation, the same in both panels whichever are drawn.
ACTIVATION_COLORS = {
    "relu": "#1f77b4",
    "gelu": "#ff7f0e",
    "gelu_tanh": "#2ca02c",
    "silu": "#d62728",
}


def activations(
    path: Path,
    functions: Sequence[str] | None = None,
    span: tuple[float, float] | None = None,
    points: Sequence[float] = (),
) -> None:
    """The activations asked for (default ReLU, GELU, GELU-tanh and SiLU) over [lo, hi] and
    their derivatives, two panels. A derivative that jumps (ReLU' at 0) is drawn as its two
    pieces, with a filled dot at its value there and an open one at the limit it does not take,
    never as a vertical line; each --x point is marked on every curve."""
    fmt = base.check(path)
    from ffn_calc.counts import activations as act

    names = list(functions or act.NAMES)
    lo, hi = span or act.DEFAULT_RANGE
    styles = {"gelu_tanh": "--"}
    xs = [lo + (hi - lo) * i / 600 for i in range(601)]
    marks = [p for p in points if lo <= p <= hi]

    def pieces(key: str) -> tuple[list[float], list[float]]:
        """The curve's points, broken (a NaN) at each jump."""
        f = act.FUNCTIONS[key]
        every = sorted(j for j in act.JUMPS.get(key, ()) if lo < j < hi)
        jumps = list(every)
        px: list[float] = []
        py: list[float] = []
        for x in xs:
            while jumps and x >= jumps[0]:
                j = jumps.pop(0)
                left, right = act.one_sided(key, j)
                px += [j, j, j]
                py += [left, math.nan, right]
            if x not in every:  # the value at a jump is its dot, not a point of either piece
                px.append(x)
                py.append(f(x))
        return px, py

    def draw(ax: Axes, key: str, label: str, style: str, color: str) -> None:
        px, py = pieces(key)
        ax.plot(px, py, style, label=label, linewidth=1.8, color=color)
        for j in act.JUMPS.get(key, ()):
            if not lo < j < hi:
                continue
            value = act.FUNCTIONS[key](j)
            for limit in act.one_sided(key, j):
                if limit != value:  # the limit the function does not take: an open dot
                    ax.plot([j], [limit], "o", markersize=6, markerfacecolor="white",
                            markeredgecolor=color, zorder=3)  # fmt: skip
            ax.plot([j], [value], "o", markersize=6, color=color, zorder=4)
        if marks:
            f = act.FUNCTIONS[key]
            ax.plot(marks, [f(x) for x in marks], "o", markersize=4, color=color, zorder=5)

    def build() -> Figure:
        fig = base._figure(10, 4.2)
        left, right = fig.subplots(1, 2)
        for name in names:
            style, color = styles.get(name, "-"), ACTIVATION_COLORS[name]
            draw(left, name, act.LABELS[name], style, color)
            draw(right, f"d_{name}", act.LABELS[name], style, color)
        left.set_title(_("Activation f(x)"))
        right.set_title(_("Derivative f'(x)"))
        for ax in (left, right):
            ax.axhline(0, color="0.6", linewidth=0.8)
            if lo <= 0 <= hi:
                ax.axvline(0, color="0.6", linewidth=0.8)
            ax.set_xlim(lo, hi)
            ax.set_xlabel("x")
            ax.grid(True, alpha=0.3)
        left.legend(loc="upper left")
        if (lo, hi) == act.DEFAULT_RANGE:
            fig.suptitle(_("FFN activations and their derivatives on [-3, 3]"))
        else:
            fig.suptitle(
                _("FFN activations and their derivatives on [{lo}, {hi}]").format(
                    lo=f"{lo:g}", hi=f"{hi:g}"
                )
            )
        return fig

    base._save(path, fmt, build)
