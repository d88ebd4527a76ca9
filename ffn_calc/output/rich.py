"""Rich output: the only module that imports Rich (imported only when a table is drawn), and
only drawing: the tables, the share bars and the charts.

Layout: a number column is never wrapped and is as wide as its widest cell; a text column
may wrap, down to TEXT_MIN cells (or its widest cell, if narrower) but not below its longest
number or its longest piece of a word (see _least). When the columns at those
widths and the gaps between them fit in the console, the table is drawn, the spare width going
first to the number columns' headers, then to the text columns that need it most. When they do
not fit, the table is drawn as one block per row ("column: value" lines), so nothing is cut.
Every line (cells, titles, notes) is wrapped by output/wrap.py (at spaces, between CJK
characters, never inside a number), in terminal cells as Rich measures them
(rich.cells.cell_len): a Chinese or Japanese character takes two.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich import box
from rich.cells import cell_len
from rich.console import Console, RenderableType
from rich.table import Table as RichTable
from rich.text import Text

from ffn_calc.i18n.translate import N_, _
from ffn_calc.output import wrap as wrapping
from ffn_calc.output.cells import cell_text, for_audience
from ffn_calc.views.numbers import human
from ffn_calc.views.table import Table

if TYPE_CHECKING:  # types only: the inference reports are not loaded for every table
    from ffn_calc.reports.crossover import CrossoverReport
    from ffn_calc.reports.decode_crossover import DecodeCrossoverReport

BAR_CHARS = {"attention_projections": "█", "attention_scores": "▒", "ffn": "░"}
DOMINANT_STYLE = {
    "attention_projections": "cyan",
    "attention_scores": "magenta",
    "ffn": "green",
}
TEXT_MIN = 10  # a text column narrower than this wraps too much to read
GAP = 2  # cells between two columns


def _grid_style(value: object) -> str:
    if not isinstance(value, float):
        return ""
    if value > 1.05:
        return "magenta"
    if value < 0.95:
        return "green"
    return "yellow"


# --- wrapping: output.wrap, measured in Rich's cells -------------------------------------------


def wrap(text: str, width: int) -> list[str]:
    """Lines of at most `width` cells as Rich measures them (output.wrap)."""
    return wrapping.wrap(text, width, cell_len)


def _natural(text: str) -> int:
    return wrapping.natural(text, cell_len)


def _longest_number(text: str) -> int:
    return wrapping.longest_number(text, cell_len)


def _longest_segment(text: str) -> int:
    return wrapping.longest_segment(text, cell_len)


def _least(text: str) -> int:
    """The narrowest a text column holding `text` gets: TEXT_MIN (or less if the text is
    shorter), its longest number, and its longest piece between punctuation (up to
    wrap.SEGMENT_MAX; longer ones may be cut anywhere)."""
    return max(_longest_number(text), min(_natural(text), TEXT_MIN), _longest_segment(text))


# --- layout ----------------------------------------------------------------------------------


@dataclass
class _Grid:
    """A table as people read it: text cells, one style per cell."""

    title: str
    headers: list[str]
    numeric: list[bool]
    rows: list[list[str]]
    styles: list[list[str]]
    notes: list[str]


def extremes(t: Table) -> dict[int, tuple[int, int]]:
    """For each number column holding more than one value: (row of the largest, of the smallest)."""
    out: dict[int, tuple[int, int]] = {}
    for j, col in enumerate(t.columns):
        if col.kind == "text":
            continue
        values = [
            (v, i)
            for i, row in enumerate(t.rows)
            if isinstance(v := row[j], int | float) and not isinstance(v, bool)
        ]
        if len({v for v, _ in values}) > 1:
            hi = max(values, key=lambda x: x[0])[1]  # the first of equals, as max() keeps
            lo = min(values, key=lambda x: x[0])[1]
            out[j] = (hi, lo)
    return out


def _grid(t: Table) -> _Grid:
    t = for_audience(t, "people")
    marks = extremes(t) if t.side_by_side else {}
    rows, styles = [], []
    for i, (row, style) in enumerate(zip(t.rows, t.styles, strict=True)):
        rows.append([cell_text(v, c) for v, c in zip(row, t.columns, strict=True)])
        if style == "grid":
            cell_styles = [_grid_style(v) for v in row]
        else:
            base = "bold" if style == "total" else DOMINANT_STYLE.get(style, "")
            cell_styles = [base] * len(row)
        for j, (hi, lo) in marks.items():
            if i in (hi, lo):
                cell_styles[j] = "bold green" if i == hi else "blue"
        styles.append(cell_styles)
    numeric = [c.kind != "text" for c in t.columns]
    return _Grid(t.title, [c.name for c in t.columns], numeric, rows, styles, t.notes)


def _turn(g: _Grid) -> _Grid:
    """A field per row, a record per column, headed by the record's first cell."""
    fields = range(1, len(g.headers))
    return _Grid(
        g.title, [""] + [row[0] for row in g.rows], [False] + [True] * len(g.rows),
        [[g.headers[j]] + [row[j] for row in g.rows] for j in fields],
        [[""] + [s[j] for s in g.styles] for j in fields], g.notes,
    )  # fmt: skip


def _widths(g: _Grid, width: int) -> list[int] | None:
    """Column widths that fit `width`, or None when even the narrowest do not."""
    least, natural = [], []
    for j, header in enumerate(g.headers):
        cells = [row[j] for row in g.rows]
        widest = max((_natural(c) for c in cells), default=0)
        if g.numeric[j]:  # only the header may wrap
            lo = max(widest, _longest_number(header), _longest_segment(header))
        else:
            lo = max(_least(c) for c in [header, *cells])
        least.append(lo)
        natural.append(max(lo, widest, _natural(header)))
    spare = width - GAP * (len(least) - 1) - sum(least)
    if spare < 0:
        return None
    widths = list(least)
    # Each step widens the one column that saves the most lines per cell of width spent (an
    # estimate: a cell n wide takes ceil(n / w) lines at width w; in a number column only the
    # header wraps). What is left when no step saves a line goes to the columns furthest from
    # their widest cell.
    every = range(len(widths))
    sizes = [
        [_natural(c) for c in [header, *(row[j] for row in g.rows)]]
        for j, header in enumerate(g.headers)
    ]
    heights = [[_height(n, w) for n in col] for col, w in zip(sizes, widths, strict=True)]
    while spare > 0:
        best: tuple[float, int, int] | None = None
        for j in every:
            rest = [
                max((h[i] for k, h in enumerate(heights) if k != j), default=1)
                for i in range(len(sizes[j]))
            ]
            now = sum(max(r, h) for r, h in zip(rest, heights[j], strict=True))
            for w in _steps(sizes[j], widths[j], widths[j] + spare):
                after = sum(max(r, _height(n, w)) for r, n in zip(rest, sizes[j], strict=True))
                gain = (now - after) / (w - widths[j])
                if gain > 0 and (best is None or gain > best[0]):
                    best = (gain, j, w)
        if best is None:
            break
        _, j, w = best
        spare -= w - widths[j]
        widths[j] = w
        heights[j] = [_height(n, w) for n in sizes[j]]
    while spare > 0:
        need, j = max((natural[j] - widths[j], -j) for j in every)
        if need <= 0:
            break
        widths[-j] += 1
        spare -= 1
    return widths


def _height(n: int, w: int) -> int:
    return max(1, -(-n // w))


def _steps(sizes: list[int], lo: int, hi: int) -> set[int]:
    """The widths in (lo, hi] at which a cell of one of these sizes takes one line fewer."""
    return {w for n in sizes for k in range(1, _height(n, lo)) if lo < (w := -(-n // k)) <= hi}


def _table(g: _Grid, widths: list[int]) -> RichTable:
    out = RichTable(
        box=box.SIMPLE_HEAVY, show_edge=False, pad_edge=False, padding=(0, GAP - 1, 0, 0)
    )
    for header, num, w in zip(g.headers, g.numeric, widths, strict=True):
        out.add_column(
            Text("\n".join(wrap(header, w))), justify="right" if num else "left",
            width=w, no_wrap=True, overflow="crop",  # wrap() made every line fit
        )  # fmt: skip
    for row, styles in zip(g.rows, g.styles, strict=True):
        out.add_row(
            *(
                Text("\n".join(wrap(c, w)), style=s)
                for c, s, w in zip(row, styles, widths, strict=True)
            )
        )
    return out


def _field(name: str, value: str, style: str, width: int) -> list[Text]:
    """`  name: value` on one line if it fits, else the name, then the value indented."""
    line = f"  {name}: {value}" if name else f"  {value}"
    if "\n" not in value and cell_len(line) <= width:
        return [Text(line, style=style)]
    head = [f"  {x}" for x in wrap(f"{name}:", width - 2)] if name else []
    return [Text(x, style=style) for x in head + [f"    {x}" for x in wrap(value, width - 4)]]


def _blocks(g: _Grid, width: int) -> list[Text]:
    """One block per row: its first cell as a heading, then a line per non-empty cell."""
    out: list[Text] = []
    for row, styles in zip(g.rows, g.styles, strict=True):
        head = f"{g.headers[0]}: {row[0]}" if g.numeric[0] else row[0]
        out += [Text(x, style=f"bold {styles[0]}".strip()) for x in wrap(head, width)]
        for name, value, style in zip(g.headers[1:], row[1:], styles[1:], strict=True):
            if value:
                out += _field(name, value, style, width)
        out.append(Text())
    return out[:-1]


def _lines(text: str, width: int, style: str = "") -> list[Text]:
    return [Text(x, style=style) for x in wrap(text, width)]


def _print(con: Console, t: Table) -> None:
    """Title, table (or blocks), notes: the lines are joined and printed at once (a print
    per line costs Rich a measure of the console each time)."""
    width = con.width
    g = _grid(t)
    if t.side_by_side:
        turned = _turn(g)
        widths = _widths(turned, width)
        if widths is not None:
            g = turned
    else:
        widths = _widths(g, width)
    lines = [*_lines(g.title, width, "italic"), Text()]
    if widths is None:
        lines += [*_blocks(g, width), Text()]
    else:
        _say(con, lines)
        con.print(_table(g, widths))
        lines = [Text()]
    for note in g.notes:
        lines += _lines(note, width, "dim")
    if g.notes:
        lines.append(Text())
    _say(con, lines)


def _say(con: Console, lines: list[Text]) -> None:
    """Print whole lines as they are: no wrapping, no cropping."""
    if lines:
        con.print(Text("\n").join(lines), no_wrap=True, crop=False, overflow="ignore")


# Trailing spaces and tabs among the colour codes at the end of a line.
_TAIL = re.compile(r"(?:[ \t]|\x1b\[[0-9;]*m)+$")


def _rstrip(line: str) -> str:
    m = _TAIL.search(line)
    return line if m is None else line[: m.start()] + re.sub(r"[ \t]", "", m.group())


def draw(
    tables: list[Table], extra: list[RenderableType] | None = None, con: Console | None = None
) -> str:
    """The tables (then `extra`) as the console shows them, without trailing spaces: a string,
    which the command line checks against stdout's encoding before writing any of it."""
    con = con or console()
    with con.capture() as cap:
        for t in tables:
            _print(con, t)
        for e in extra or []:
            con.print(e, no_wrap=True, crop=False)
    return "".join(_rstrip(line) + "\n" for line in cap.get().splitlines())


def console(width: int | None = None) -> Console:
    """A console as wide as the terminal (COLUMNS; 80 when stdout is not a terminal)."""
    return Console(width=width, highlight=False, emoji=False)


# --- pictures --------------------------------------------------------------------------------


# share_bars' title by what the bars are drawn over: S, or (crossover --decode) the context L.
SHARE_TITLES = {
    "S": N_("Share of one layer's FLOPs as S grows: {legend}"),
    "the context L": N_("Share of one layer's FLOPs as the context L grows: {legend}"),
}
# A hybrid's crossovers are the whole model's (the report lists its layer kinds).
WHOLE_SHARE_TITLES = {
    "S": N_("Share of the whole model's FLOPs as S grows: {legend}"),
    "the context L": N_("Share of the whole model's FLOPs as the context L grows: {legend}"),
}


def _pad(text: str, width: int) -> str:
    """`text` right-aligned in `width` cells (str.rjust counts characters, not cells)."""
    return " " * max(0, width - cell_len(text)) + text


def share_bars(
    r: CrossoverReport | DecodeCrossoverReport, width: int | None = None, what: str = "S"
) -> Text:
    """Each term's share of the layer as S (or the context L) grows, one bar per length."""
    width = width or console().width
    legend = {f"{BAR_CHARS[k]} {name}": DOMINANT_STYLE[k] for k, name in
              (("attention_projections", _("projections")), ("attention_scores", _("scores")),
               ("ffn", "FFN"))}  # fmt: skip
    titles = WHOLE_SHARE_TITLES if getattr(r, "kinds", None) is not None else SHARE_TITLES
    if what in titles:
        title = _(titles[what]).format(legend=" ".join(legend))
    else:
        title = _("Share of one layer's FLOPs as {what} grows: {legend}").format(
            what=what, legend=" ".join(legend)
        )
    out = Text()
    for line in wrap(title, width):
        text = Text(line + "\n")
        for words, style in legend.items():
            text.highlight_words([words], style=style)
        out.append_text(text)
    labels = [
        f"{x.seq_len:,}" if isinstance(x.seq_len, int) else f"{x.seq_len:,.2f}" for x in r.rows
    ]
    label_width = max((cell_len(x) for x in labels), default=0)
    bar_width = max(1, min(50, width - label_width - GAP))
    keys = list(DOMINANT_STYLE)
    for label, row in zip(labels, r.rows, strict=True):
        out.append(f"{_pad(label, label_width)}{' ' * GAP}")
        used = 0
        for i, key in enumerate(keys):
            n = bar_width - used if i == len(keys) - 1 else round(row.shares[key] * bar_width)
            out.append(BAR_CHARS[key] * n, style=DOMINANT_STYLE[key])
            used += n
        out.append("\n")
    out.rstrip()
    return out


def activation_plot(
    width: int | None = None,
    height: int = 17,
    functions: tuple[str, ...] | None = None,
    span: tuple[float, float] | None = None,
) -> Text:
    """The activations asked for (default ReLU, GELU and SiLU; GELU-tanh overlaps GELU) over
    [lo, hi] (default [-3, 3]), one character per point."""
    from ffn_calc.counts import activations as act

    room = console().width
    width = width or min(61, room - 1 + room % 2)  # odd, so x = 0 falls on a column
    chosen = functions or act.NAMES
    lo, hi = span or act.DEFAULT_RANGE
    marks = {"relu": ("r", "cyan"), "gelu": ("g", "green"), "gelu_tanh": ("t", "yellow"),
             "silu": ("s", "magenta")}  # fmt: skip
    overlaps = "gelu" in chosen and "gelu_tanh" in chosen  # drawn once, as GELU
    curves = [
        (n, act.FUNCTIONS[n], *marks[n]) for n in chosen if not (overlaps and n == "gelu_tanh")
    ]
    xs = [lo + (hi - lo) * c / (width - 1) for c in range(width)]
    ys = [f(x) for _name, f, _ch, _style in curves for x in xs]
    lo_y, hi_y = min([*ys, -0.5]), max([*ys, 0.5])  # [-0.5, 3] on [-3, 3]
    grid = [[" "] * width for _row in range(height)]
    styles: dict[tuple[int, int], str] = {}
    zero = round((hi_y - 0.0) / (hi_y - lo_y) * (height - 1))
    for c in range(width):
        grid[zero][c] = "-"
    if lo <= 0 <= hi:
        axis = round((0 - lo) / (hi - lo) * (width - 1))
        for r in range(height):
            grid[r][axis] = "|"
    for _name, f, ch, style in curves:
        for c, x in enumerate(xs):
            y = f(x)
            r = round((hi_y - y) / (hi_y - lo_y) * (height - 1))
            if 0 <= r < height:
                grid[r][c] = ch
                styles[(r, c)] = style
    if functions is None and span is None:
        title = _("Curves on [-3, 3] (r ReLU, g GELU, s SiLU; GELU-tanh overlaps GELU)")
    else:
        legend = ", ".join(f"{ch} {act.LABELS[n]}" for n, _f, ch, _style in curves)
        message = (
            _("Curves on [{lo}, {hi}] ({legend}; GELU-tanh overlaps GELU)")
            if overlaps
            else _("Curves on [{lo}, {hi}] ({legend})")
        )
        title = message.format(lo=f"{lo:g}", hi=f"{hi:g}", legend=legend)
    out = Text("\n".join(wrap(title, room)) + "\n")
    for r, row in enumerate(grid):
        for c, ch in enumerate(row):
            out.append(ch, style=styles.get((r, c), "dim"))
        out.append("\n")
    return out


def sweep_chart(field: str, metric: str, rows: list[dict[str, object]]) -> Text:
    """One bar per value of the varied field, as long as the metric (from zero)."""
    width = console().width
    labels = [str(r[field]) for r in rows]
    values = [r[metric] for r in rows]
    nums = [
        float(v) if isinstance(v, int | float) and not isinstance(v, bool) else 0.0 for v in values
    ]
    texts = [human(v) if isinstance(v, int) and abs(v) >= 1000 else f"{v:,.4g}" if isinstance(v, float) else _("none") if v is None else str(v) for v in values]  # fmt: skip
    label_width = max(cell_len(x) for x in labels)
    text_width = max(cell_len(x) for x in texts)
    bar_width = max(1, min(50, width - label_width - text_width - 2 * GAP))
    top = max((abs(x) for x in nums), default=0.0) or 1.0
    out = Text()
    for line in wrap(_("{metric} as {field} varies").format(metric=metric, field=field), width):
        out.append(line + "\n", style="italic")
    for label, x, text in zip(labels, nums, texts, strict=True):
        n = round(abs(x) / top * bar_width)
        out.append(f"{_pad(label, label_width)}{' ' * GAP}")
        out.append("█" * n, style="green")
        out.append(" " * (bar_width - n + GAP) + f"{_pad(text, text_width)}\n")
    out.rstrip()
    return out
