"""Figures for slides: `--plot FILE` writes a PNG or SVG drawn with matplotlib (the `plot` extra).

Matplotlib is imported here only, and only when a figure is asked for, so start-up does not
change; the Agg backend draws with no display, and pyplot is not used (no global figures).
The figure is drawn in memory and written at once, after the suffix (.png or .svg) and
matplotlib were checked, so an error leaves no half-written file. Labels follow the language;
in Japanese or Chinese without a font that has the glyphs, they are drawn in English (with a
note on stderr) rather than as empty boxes. Output is deterministic: a fixed SVG hash salt,
no date in the SVG, no software tag in the PNG.
"""

from __future__ import annotations

import errno
import io
import math
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ffn_calc.errors import FileError, UsageError
from ffn_calc.i18n import translate as i18n
from ffn_calc.i18n.translate import N_, _
from ffn_calc.output.fonts import more_fonts as _more_fonts
from ffn_calc.views.labels import layer_label, model_name

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ffn_calc.model.config import ModelConfig
    from ffn_calc.reports.crossover import CrossoverReport
    from ffn_calc.reports.decode_crossover import DecodeCrossoverReport
    from ffn_calc.sweeps.run import Sweep

FORMATS = {".png": "png", ".svg": "svg"}
INSTALL = "pip install 'ffn-calc[plot]'"
MAX_SWEEP_ROWS = 100_000  # a sweep draws at most this many combinations
DPI = 150

# Fonts with Japanese / Chinese glyphs, in order of preference (lower-case name fragments);
# each is used only when its character map has the probe characters.
CJK_FONTS = {
    "ja": ("noto sans cjk jp", "noto sans jp", "source han sans jp", "source han sans",
           "ipaexgothic", "ipagothic", "ipapgothic", "takao", "vl gothic", "hiragino",
           "yu gothic", "meiryo", "ms gothic", "noto sans cjk", "noto serif cjk",
           "droid sans fallback"),
    "zh": ("noto sans cjk sc", "noto sans sc", "source han sans sc", "source han sans cn",
           "source han sans", "wenquanyi", "microsoft yahei", "simhei", "pingfang",
           "heiti", "noto sans cjk", "noto serif cjk", "droid sans fallback", "ar pl"),
}  # fmt: skip
PROBE = {"ja": "層パ", "zh": "层参"}

PART_COLORS = {"attention_projections": "#1f77b4", "attention_scores": "#d62728", "ffn": "#2ca02c"}
COMPONENT_COLORS = {
    "embedding": "#9467bd", "attention": "#1f77b4", "ffn": "#2ca02c", "norm": "#7f7f7f",
    "lm_head": "#ff7f0e", "pooler": "#8c564b",
}  # fmt: skip
COMPONENT_LABELS = {
    "embedding": N_("embedding"), "attention": N_("attention"), "ffn": "FFN",
    "norm": N_("norm"), "lm_head": "lm_head", "pooler": "pooler",
}  # fmt: skip
NO_CJK_FONT = N_(
    "Note: no font with Japanese or Chinese glyphs was found (e.g. Noto Sans CJK, IPAexGothic, "
    "WenQuanYi); the figure's labels are drawn in English."
)
NO_CJK_FONT_HOW = N_(
    "To draw them in Japanese or Chinese: pip install 'ffn-calc[plot-cjk]' (a font in the "
    "package), or install a system font (Debian and Ubuntu: apt install fonts-noto-cjk); a "
    "font installed later is found on the next run."
)


# --- checks and writing ---------------------------------------------------------------------


def check(path: Path) -> str:
    """The format the suffix asks for; the path a regular file or a new name (never a named
    pipe, a device or a directory); matplotlib installed. Else exit 2, before anything is
    drawn or opened."""
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        if not path.suffix:
            raise UsageError(
                _("--plot {path}: give a file name ending in .png or .svg.").format(path=path)
            )
        raise UsageError(
            _("--plot {path}: unknown suffix {suffix}; use .png or .svg.").format(
                path=path, suffix=path.suffix
            )
        )
    _target(path)
    try:
        import matplotlib
    except ImportError:
        raise UsageError(
            _("--plot needs matplotlib, which is not installed: {command}").format(command=INSTALL)
        ) from None
    matplotlib.use("Agg")
    return fmt


def _target(path: Path) -> Path:
    """Where the figure goes: `path`, or the file a symbolic link names (the link stays a
    link). Only a regular file is replaced, or a new one made: a named pipe would block the
    write forever, a device or a directory is not a figure."""
    import stat

    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None  # a new file (or a dangling link: the file it names is made)
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise FileError(
            _("--plot {path}: cannot write the figure: {reason}.").format(path=path, reason=reason)
        ) from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        reason = (
            _("it is a directory")
            if stat.S_ISDIR(st.st_mode)
            else _("it is not a regular file but a named pipe, a device or a socket")
        )
        raise FileError(
            _("--plot {path}: cannot write the figure: {reason}.").format(path=path, reason=reason)
        )
    return Path(os.path.realpath(path))


def cjk_font(lang: str) -> str | None:
    """The name of an installed font with the glyphs `lang` needs, or None. Matplotlib lists
    the fonts it found when it first ran (its cache): when none of those has the glyphs, the
    font folders are scanned again (a font installed since) and the fonts of a font package
    (the `plot-cjk` extra) are added, then the search is made once more."""
    if lang not in PROBE:
        return None
    return _cjk_font(lang) or (_cjk_font(lang) if _more_fonts() else None)


def _cjk_font(lang: str) -> str | None:
    from matplotlib import font_manager, ft2font

    probe = PROBE[lang]
    entries = font_manager.fontManager.ttflist
    prefs = CJK_FONTS[lang]

    def rank(name: str) -> int:
        low = name.lower()
        return next((i for i, p in enumerate(prefs) if p in low), len(prefs))

    known = sorted((e for e in entries if rank(e.name) < len(prefs)), key=lambda e: rank(e.name))
    # Any other font whose map has the glyphs, but not matplotlib's Last Resort font: it maps
    # every character to a placeholder box.
    rest = [
        e for e in entries if rank(e.name) == len(prefs) and "last resort" not in e.name.lower()
    ]
    tried: set[str] = set()
    for entry in [*known, *rest]:
        if entry.fname in tried:
            continue
        tried.add(entry.fname)
        try:
            charmap = ft2font.FT2Font(entry.fname).get_charmap()
        except (OSError, RuntimeError, ValueError):
            continue
        if all(ord(c) in charmap for c in probe):
            return str(entry.name)
    return None


@contextmanager
def _labels() -> Iterator[None]:
    """The figure's font and language (inside an rc_context): Japanese or Chinese with a font
    that has the glyphs (named explicitly), else English labels and a note on stderr."""
    import matplotlib

    lang = i18n.language()
    english = False
    if lang in PROBE:
        font = cjk_font(lang)
        if font is None:
            sys.stderr.write(_(NO_CJK_FONT) + "\n" + _(NO_CJK_FONT_HOW) + "\n")
            english = True
        else:
            matplotlib.rcParams["font.family"] = [font, "DejaVu Sans"]
    with i18n.use("en") if english else nullcontext():
        yield


def _save(path: Path, fmt: str, build: Callable[[], Figure]) -> None:
    """Draw the figure in memory, then write it in one go; announce it on stderr."""
    import matplotlib

    with matplotlib.rc_context({"svg.hashsalt": "ffn-calc", "svg.fonttype": "path"}), _labels():
        fig = build()
        buf = io.BytesIO()
        meta: dict[str, Any] = {"Date": None} if fmt == "svg" else {"Software": None}
        fig.savefig(buf, format=fmt, dpi=DPI, metadata=meta)
    data = buf.getvalue()
    _write(path, data)
    sys.stderr.write(_("Figure written to {path}.").format(path=path) + "\n")


def _write(path: Path, data: bytes) -> None:
    """Write the figure to a new file beside the target, then rename it over the target: a
    failed write removes only that new file, never the target or a link to it, and a named
    pipe put in the target's place meanwhile is replaced, not opened."""
    import tempfile

    target = _target(path)
    fd, temporary = -1, ""
    try:
        fd, temporary = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name[:100]}.", suffix=".partial"
        )
        with os.fdopen(fd, "wb") as fh:
            fd = -1  # the file object owns it now
            fh.write(data)
        if os.access(target, os.F_OK):  # a figure replaced keeps its permissions
            if not os.access(target, os.W_OK):  # and a read-only one is not replaced
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
            mode = os.stat(target).st_mode & 0o7777
        else:  # a new file gets what open() would give it
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(temporary, mode)
        os.replace(temporary, target)
        temporary = ""
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise FileError(
            _("--plot {path}: cannot write the figure: {reason}.").format(path=path, reason=reason)
        ) from None
    finally:
        if fd >= 0:
            os.close(fd)
        if temporary:  # only the file this run made
            with suppress(OSError):
                os.unlink(temporary)


def _figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _count(v: float) -> str:
    """3,072 or 3,074.5: an exact crossover as the tables write it."""
    if isinstance(v, int) or float(v).is_integer():
        return f"{int(v):,}"
    return f"{v:,.1f}"


def tick_text(v: float) -> str:
    """A count on an axis, exact to 4 decimals of its unit, trailing zeros dropped: 1M, 1.25G,
    1億 (never 10億), 2万, 1,000億; below the first unit the number itself (0.5, 5,000)."""
    from fractions import Fraction

    from ffn_calc.views.numbers import CJK_UNITS, HUMAN_UNITS

    units = CJK_UNITS.get(i18n.language(), HUMAN_UNITS)
    x = Fraction(round(v)) if abs(v) >= 1 else Fraction(v)
    fits = [(size, unit) for size, unit in units if abs(x) >= size]
    if not fits:
        return f"{round(v):,}" if abs(v) >= 1 else f"{v:g}"
    size, unit = fits[-1]
    figure = f"{float(x / size):,.4f}".rstrip("0").rstrip(".")
    return f"{figure}{unit}"


def _human_ticks(ax: Axes) -> None:
    """124.4M, 7B: the y axis in the tables' short units."""
    from matplotlib.ticker import FuncFormatter

    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: tick_text(v)))


def _count_ticks(ax: Axes) -> None:
    """4,096: the x axis written out (lengths and field values)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: _count(v)))
    ax.xaxis.set_minor_formatter(NullFormatter())


def _share_ticks(ax: Axes) -> None:
    from matplotlib.ticker import PercentFormatter

    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))


def _geometric(lo: float, hi: float, n: int = 241) -> list[float]:
    lo, hi = max(lo, 1e-9), max(hi, lo * 2)
    step = math.log(hi / lo) / (n - 1)
    return [lo * math.exp(i * step) for i in range(n)]


# --- crossover ------------------------------------------------------------------------------


def _part_labels() -> dict[str, str]:
    return {
        "attention_projections": _("attention projections"),
        "attention_scores": _("attention scores (QK^T + AV)"),
        "ffn": "FFN",
    }


def _crossover_labels() -> dict[str, str]:
    from ffn_calc.reports.marks import CROSSOVER_LABELS

    return {key: _(label) for key, label in CROSSOVER_LABELS.items()}


def _shares_axes(
    ax: Axes,
    xs: Sequence[float],
    parts: Callable[[float], dict[str, float]],
    marks: list[tuple[float, str, str]],
    symbol: str,
) -> None:
    """Each part's share of the layer over xs (log x), a labelled vertical line per mark."""
    series: dict[str, list[float]] = {k: [] for k in PART_COLORS}
    for x in xs:
        p = parts(x)
        total = sum(p.values()) or 1.0
        for k in series:
            series[k].append(p[k] / total)
    for key, label in _part_labels().items():
        ax.plot(xs, series[key], color=PART_COLORS[key], label=label, linewidth=2)
    ax.set_xscale("log", base=2)
    ax.set_xlim(xs[0], xs[-1])
    ax.set_ylim(0, 1)
    _share_ticks(ax)
    _count_ticks(ax)
    ax.grid(True, which="major", alpha=0.3)
    shown = sorted((m for m in marks if xs[0] <= m[0] <= xs[-1]), key=lambda m: m[0])
    span = math.log(xs[-1] / xs[0]) or 1.0
    where, place = -1.0, 0  # lines closer than 5% of the axis: labels either side, then lower
    for at, label, style in shown:
        here = math.log(at / xs[0]) / span
        place = place + 1 if here - where < 0.05 else 0
        where = here
        ax.axvline(at, color="0.25", linestyle=style, linewidth=1)
        ax.text(
            at, 0.98 if place % 4 < 2 else 0.02, f"{label}\n{symbol} = {_count(at)}",
            rotation=90, va="top" if place % 4 < 2 else "bottom",
            ha="right" if place % 2 == 0 else "left",
            fontsize=8, color="0.15", transform=ax.get_xaxis_transform(),
        )  # fmt: skip
    ax.legend(loc="center left", fontsize=9)


def crossover(report: CrossoverReport, model: ModelConfig, path: Path) -> None:
    """One layer's FLOPs split into projections, scores and FFN over S, the crossovers marked."""
    fmt = check(path)
    from ffn_calc.counts import flops as fl

    pt = fl.per_token(model)
    causal = report.causal
    a0, a1 = pt.score_lines[causal]

    def parts(s: float) -> dict[str, float]:
        scores = float(a0) + float(a1) * s
        return {"attention_projections": float(pt.projections), "attention_scores": scores,
                "ffn": float(pt.ffn)}  # fmt: skip

    lo = float(report.rows[0].seq_len) if report.rows else 1.0
    hi = float(report.rows[-1].seq_len) if report.rows else 2.0

    def build() -> Figure:
        fig = _figure(9, 5)
        ax = fig.subplots()
        labels = _crossover_labels()
        marks = [
            (float(v), labels[k], "--") for k, v in report.crossover.items() if v and v > 0
        ]  # only the crossovers the model reaches
        _shares_axes(ax, _geometric(lo, hi), parts, marks, "S")
        ax.set_xlabel(_("sequence length S (tokens, log scale)"))
        ax.set_ylabel(_("share of the layer's FLOPs"))
        title = _("{model}: share of one {layer} layer's FLOPs over the sequence length S").format(
            model=model_name(report.model), layer=layer_label(report.layer_of())
        )
        if causal:
            title += "\n" + _("causal: the scores over S(S+1)/2 pairs")
        ax.set_title(title, wrap=True)
        return fig

    _save(path, fmt, build)


def decode_crossover(report: DecodeCrossoverReport, model: ModelConfig, path: Path) -> None:
    """One decode step of one layer over the context L, the crossovers marked (FLOPs, and the
    context where the cache read reaches the FFN weights read)."""
    fmt = check(path)
    from ffn_calc.counts import reach as rc

    steps = rc.decode_steps(model, report.batch)

    def parts(x: float) -> dict[str, float]:  # the real step: bent where a window fills
        piece = next(p for p in steps.pieces if p.hi is None or x <= p.hi)
        return {k: float(a0) + float(a1) * x for k, (a0, a1) in piece.lines.items()}

    lo = float(report.rows[0].seq_len) if report.rows else 1.0
    hi = float(report.rows[-1].seq_len) if report.rows else 2.0

    def build() -> Figure:
        fig = _figure(9, 5)
        ax = fig.subplots()
        labels = _crossover_labels()
        marks = [(float(v), labels[k], "--") for k, v in report.flops.items() if v and v > 0]
        if report.stops_at is not None:
            marks.append((float(report.stops_at), _("the window is full"), "-."))
        if report.bytes_context is not None and report.bytes_context > 0:
            bytes_label = _("cache read = FFN weights read (bytes, batch {batch})").format(
                batch=f"{report.batch:,}"
            )
            marks.append((float(report.bytes_context), bytes_label, ":"))
        _shares_axes(ax, _geometric(lo, hi), parts, marks, "L")
        ax.set_xlabel(_("context L (cached tokens, log scale)"))
        ax.set_ylabel(_("share of the decode step's FLOPs"))
        ax.set_title(
            _(
                "{model}: share of one decode step's FLOPs, one {layer} layer, over the context L"
            ).format(model=model_name(report.model), layer=layer_label(report.layer_of())),
            wrap=True,  # a long layer kind ("sliding-window attention over 4,096 tokens")
        )
        return fig

    _save(path, fmt, build)


# --- compare --------------------------------------------------------------------------------


def compare(models: Sequence[ModelConfig], path: Path) -> None:
    """Parameters per component, one stacked bar per model."""
    fmt = check(path)
    from ffn_calc.counts import params as pm
    from ffn_calc.views.numbers import human

    comps = [pm.components(m) for m in models]
    keys = [k for k in COMPONENT_LABELS if any(c.get(k) for c in comps)]
    names = [m.name for m in models]

    def build() -> Figure:
        fig = _figure(max(6.0, 1.1 * len(models) + 3), 5)
        ax = fig.subplots()
        xs = list(range(len(models)))
        bottom = [0.0] * len(models)
        for key in keys:
            heights = [float(c.get(key, 0)) for c in comps]
            label = _(COMPONENT_LABELS[key])
            ax.bar(xs, heights, bottom=bottom, color=COMPONENT_COLORS[key], label=label, width=0.6)
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
        for x, c in zip(xs, comps, strict=True):
            ax.annotate(
                human(sum(c.values())), (x, sum(c.values())), xytext=(0, 3),
                textcoords="offset points", ha="center", va="bottom", fontsize=9,
            )  # fmt: skip
        ax.set_xticks(xs, names, rotation=30 if len(models) > 4 else 0,
                      ha="right" if len(models) > 4 else "center")  # fmt: skip
        ax.set_ylabel(_("parameters"))
        _human_ticks(ax)
        ax.set_ylim(0, 1.1 * max((sum(c.values()) for c in comps), default=1))
        ax.grid(True, axis="y", alpha=0.3)
        ax.set_axisbelow(True)
        ax.set_title(_("Parameters per component"))
        handles, texts = ax.get_legend_handles_labels()
        ax.legend(
            handles[::-1], texts[::-1], loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=9
        )
        return fig

    _save(path, fmt, build)


# --- sweep ----------------------------------------------------------------------------------


def _value_text(v: object) -> str:
    from ffn_calc.sweeps.run import text

    return f"{v:,}" if type(v) is int else text(v)  # type: ignore[arg-type]


def _something_to_draw(s: Sweep, rows: list[dict[str, Any]], path: Path) -> None:
    """A figure over a field needs two of its values among the rows kept; else nothing is
    written (exit 2), rather than an empty or one-point figure."""
    field = s.axes[0].field
    xs = {repr(r[field]) for r in rows}
    if not rows:
        raise UsageError(
            _(
                "--plot {path}: nothing to draw: no combination was kept ({filtered} filtered out "
                "by --where, {skipped} not valid models); no figure was written."
            ).format(
                path=path, filtered=f"{s.filtered_out:,}", skipped=f"{sum(s.skipped.values()):,}"
            )
        )
    if len(xs) < 2:
        from ffn_calc.sweeps.run import text

        raise UsageError(
            _(
                "--plot {path}: every combination kept has {field} = {value}; a figure over "
                "{field} needs two of its values or more; no figure was written."
            ).format(path=path, field=field, value=text(rows[0][field]))
        )


def sweep(s: Sweep, path: Path) -> None:
    """Each metric over the varied field (one panel per metric); with a second field, one line
    per value of it."""
    if len(s.axes) > 2:
        raise UsageError(_("--plot draws one or two varied fields; this sweep varies {n}.").format(
            n=len(s.axes)))  # fmt: skip
    if s.combinations > MAX_SWEEP_ROWS:
        raise UsageError(
            _("--plot draws at most {limit} combinations; this sweep has {n}.").format(
                limit=f"{MAX_SWEEP_ROWS:,}", n=f"{s.combinations:,}"
            )
        )
    fmt = check(path)
    rows = list(s)
    first = s.axes[0]
    second = s.axes[1] if len(s.axes) > 1 else None
    _something_to_draw(s, rows, path)
    xvalues = list(first.values)
    ints = [v for v in xvalues if isinstance(v, int) and not isinstance(v, bool)]
    numeric = len(ints) == len(xvalues)
    positions = {v: i for i, v in enumerate(xvalues)} if not numeric else {}
    groups: list[object] = list(second.values) if second is not None else [None]
    metrics = [m.name for m in s.metrics]
    by_name = {m.name: m for m in s.metrics}

    def build() -> Figure:
        fig = _figure(8.5 if second is None else 9.5, 1.0 + 2.8 * len(metrics))
        axes = fig.subplots(len(metrics), 1, sharex=True, squeeze=False)[:, 0]
        for ax, metric in zip(axes, metrics, strict=True):
            for g in groups:
                pts = [
                    (float(r[first.field]) if numeric else float(positions[r[first.field]]), float(y))
                    for r in rows
                    if (second is None or r[second.field] == g)
                    and isinstance(y := r[metric], int | float)
                ]  # fmt: skip
                if not pts:
                    continue
                label = None if second is None else _value_text(g)
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3,
                        linewidth=1.6, label=label)  # fmt: skip
            ax.set_ylabel(metric)
            if by_name[metric].kind.unit == "share":
                _share_ticks(ax)
            else:
                _human_ticks(ax)
            ax.grid(True, alpha=0.3)
            if second is not None and ax is axes[0] and ax.get_legend_handles_labels()[0]:
                ax.legend(title=second.field, fontsize=8, loc="best",
                          ncol=max(1, math.ceil(len(groups) / 12)))  # fmt: skip
        bottom = axes[-1]
        if numeric:
            if "*" in first.spec and min(ints) > 0:
                bottom.set_xscale("log", base=2)
            _count_ticks(bottom)
        else:
            bottom.set_xticks(range(len(xvalues)), [_value_text(v) for v in xvalues])
        bottom.set_xlabel(first.field)
        fields = " x ".join(f"{a.field} = {a.spec}" for a in s.axes)
        fig.suptitle(
            _("Sweep of {model}: {fields}").format(model=model_name(s.base.name), fields=fields)
        )
        return fig

    _save(path, fmt, build)
