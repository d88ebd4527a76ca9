"""`roofline --plot FILE`: a decode step's time per group over the context L (the figures'
machinery is ffn_calc.output.plot's; matplotlib is imported only when a figure is asked for)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ffn_calc.i18n.translate import _
from ffn_calc.output import plot as base
from ffn_calc.views.labels import model_name

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ffn_calc.counts.roofline import Device, Dtypes
    from ffn_calc.model.config import ModelConfig
    from ffn_calc.reports.roofline import RooflineReport

GROUP_COLORS = {**base.PART_COLORS, "lm_head": "#ff7f0e"}


def decode_times(
    report: RooflineReport, model: ModelConfig, dtypes: Dtypes, device: Device, path: Path
) -> None:
    """Time per group (attention projections, scores, FFN, LM head) of one decode step at the
    report's batch, over the context L (log scale), the crossover and --context marked."""
    fmt = base.check(path)
    from ffn_calc.counts import roofline as rl

    context = next((p.length() for p in report.phases if p.phase == "decode"), None)
    if context is None:
        from ffn_calc.errors import UsageError

        raise UsageError(_("--plot draws the decode step over the context: give --context L."))
    cross = report.crossovers.context_at_batch if report.crossovers else None
    limit = (model.position_limit or 2**24) - 1
    hi = max(4 * context, 2 * (cross or 0), 1024)
    xs = sorted({max(1, min(limit, round(x))) for x in base._geometric(1, min(hi, limit), 97)})
    series: dict[str, list[float]] = {k: [] for k in GROUP_COLORS}
    for x in xs:
        p = rl.decode(model, report.batch, x, dtypes)
        for k in series:
            series[k].append(1e3 * p.group_time(device, (k,), report.tp))
    labels = {**base._part_labels(), "lm_head": "lm_head"}

    def build() -> Figure:
        fig = base._figure(9, 5)
        ax = fig.subplots()
        for key, values in series.items():
            ax.plot(xs, values, color=GROUP_COLORS[key], label=labels[key], linewidth=2)
        both = [
            a + s
            for a, s in zip(
                series["attention_projections"], series["attention_scores"], strict=True
            )
        ]
        ax.plot(xs, both, color="0.2", linestyle="--", linewidth=1.5,
                label=_("attention (projections + scores)"))  # fmt: skip
        ax.set_xscale("log", base=2)
        ax.set_xlim(xs[0], xs[-1])
        ax.set_ylim(bottom=0)
        ax.grid(True, which="major", alpha=0.3)
        marks = [(float(context), "--context", ":")]
        if cross is not None:
            marks.append((float(cross), _("attention = FFN in time"), "--"))
        for at, label, style in marks:
            if xs[0] <= at <= xs[-1]:
                ax.axvline(at, color="0.25", linestyle=style, linewidth=1)
                ax.text(at, 0.98, f"{label}\nL = {at:,.0f}", rotation=90, va="top", ha="right",
                        fontsize=8, color="0.15", transform=ax.get_xaxis_transform())  # fmt: skip
        ax.set_xlabel(_("context L (cached tokens, log scale)"))
        ax.set_ylabel(_("time bound (ms)"))
        ax.set_title(
            _("{model} on {accelerator}: one decode step's time per part, batch {batch}").format(
                model=model_name(report.model),
                accelerator=model_name(report.accelerator),
                batch=f"{report.batch:,}",
            ),
            wrap=True,
        )
        ax.legend(loc="upper left", fontsize=9)
        return fig

    base._save(path, fmt, build)


TRAINING_COLORS = {**GROUP_COLORS, "optimizer": "#8c564b", "communication": "#7f7f7f"}


def training_times(
    report: RooflineReport,
    model: ModelConfig,
    dtypes: Dtypes,
    device: Device,
    path: Path,
    recompute: str,
    link: float | None,
) -> None:
    """Time per group of one training step (--training) at the report's batch and --dp, over
    the sequence length S (log scale), --seq-len marked."""
    fmt = base.check(path)
    from ffn_calc.counts import roofline as rl
    from ffn_calc.counts.params import total_params

    step = next(p for p in report.phases if p.phase == "training")
    seq_len, dp = step.length(), getattr(step, "dp", 1)
    limit = model.position_limit or 2**24
    hi = min(max(4 * seq_len, 1024), limit)
    xs = sorted({max(1, min(limit, round(x))) for x in base._geometric(1, hi, 97)})
    params = total_params(model)
    series: dict[str, list[float]] = {k: [] for k in TRAINING_COLORS}
    for x in xs:
        p = rl.training(model, report.batch, x, dtypes, params, dp, recompute, link)
        for k in series:
            series[k].append(1e3 * p.group_time(device, (k,), report.tp))
    series = {k: v for k, v in series.items() if any(v)}
    labels = {**base._part_labels(), "lm_head": "lm_head", "optimizer": _("optimizer step"),
              "communication": _("gradient all-reduce")}  # fmt: skip

    def build() -> Figure:
        fig = base._figure(9, 5)
        ax = fig.subplots()
        for key, values in series.items():
            ax.plot(xs, values, color=TRAINING_COLORS[key], label=labels[key], linewidth=2)
        ax.set_xscale("log", base=2)
        ax.set_xlim(xs[0], xs[-1])
        ax.set_ylim(bottom=0)
        ax.grid(True, which="major", alpha=0.3)
        if xs[0] <= seq_len <= xs[-1]:
            ax.axvline(seq_len, color="0.25", linestyle=":", linewidth=1)
            ax.text(seq_len, 0.98, f"--seq-len\nS = {seq_len:,}", rotation=90, va="top",
                    ha="right", fontsize=8, color="0.15", transform=ax.get_xaxis_transform())  # fmt: skip
        ax.set_xlabel(_("sequence length S (tokens, log scale)"))
        ax.set_ylabel(_("time bound (ms)"))
        ax.set_title(
            _("{model} on {accelerator}: one training step's time per part, batch {batch}").format(
                model=report.model, accelerator=report.accelerator, batch=f"{report.batch:,}"
            ),
            wrap=True,
        )
        ax.legend(loc="upper left", fontsize=9)
        return fig

    base._save(path, fmt, build)
