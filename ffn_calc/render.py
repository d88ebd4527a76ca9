"""Rich output: the only module that imports Rich (imported only when a table is drawn)."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from ffn_calc.formats import cell_text
from ffn_calc.report import CrossoverReport
from ffn_calc.views import Table

BAR_CHARS = {"attention_projections": "█", "attention_scores": "▒", "ffn": "░"}
DOMINANT_STYLE = {
    "attention_projections": "cyan",
    "attention_scores": "magenta",
    "ffn": "green",
}


def _grid_style(value: object) -> str:
    if not isinstance(value, float):
        return ""
    if value > 1.05:
        return "magenta"
    if value < 0.95:
        return "green"
    return "yellow"


def rich_table(t: Table) -> RichTable:
    out = RichTable(title=t.title, box=box.SIMPLE_HEAVY, title_justify="left")
    for c in t.columns:
        out.add_column(c.name, justify="left" if c.kind == "text" else "right", overflow="fold")
    for row, style in zip(t.rows, t.styles, strict=True):
        cells = [cell_text(v, c) for v, c in zip(row, t.columns, strict=True)]
        if style.startswith("minmax:"):
            hi, lo = (int(i) + 1 for i in style.split(":")[1:])
            marks = {hi: "bold green", lo: "blue"}
            out.add_row(*(Text(x, style=marks.get(i, "")) for i, x in enumerate(cells)))
        elif style == "grid":
            out.add_row(*(Text(x, style=_grid_style(v)) for x, v in zip(cells, row, strict=True)))
        else:
            row_style = (
                "bold" if style == "total" else DOMINANT_STYLE.get(style.split(" = ")[0], "")
            )
            out.add_row(*cells, style=row_style)
    return out


def share_bars(r: CrossoverReport, width: int = 50) -> RichTable:
    """Each term's share of the layer as S grows, one stacked bar per length."""
    out = RichTable(
        title="Share of one layer's FLOPs as S grows: [cyan]█ projections[/] "
        "[magenta]▒ scores[/] [green]░ FFN[/]",
        box=None, title_justify="left", show_header=False,
    )  # fmt: skip
    out.add_column("S", justify="right")
    out.add_column("bar")
    for row in r.rows:
        bar = Text()
        used = 0
        keys = list(DOMINANT_STYLE)
        for i, key in enumerate(keys):
            n = width - used if i == len(keys) - 1 else round(row.shares[key] * width)
            bar.append(BAR_CHARS[key] * n, style=DOMINANT_STYLE[key])
            used += n
        label = f"{row.seq_len:,}" if isinstance(row.seq_len, int) else f"{row.seq_len:,.2f}"
        out.add_row(label, bar)
    return out


class _Console(Console):
    def on_broken_pipe(self) -> None:
        raise BrokenPipeError  # let the CLI end the way it ends every broken pipe


def console(width: int | None = None) -> Console:
    return _Console(width=width, highlight=False, emoji=False)


def print_tables(tables: list[Table], extra: list[RichTable] | None = None) -> None:
    con = console()
    for t in tables:
        con.print(rich_table(t))
        for note in t.notes:
            con.print(Text(note, style="dim"))
        con.print()
    for e in extra or []:
        con.print(e)


def activation_plot(width: int = 61, height: int = 17) -> Text:
    """ReLU, GELU, GELU-tanh and SiLU on [-3, 3], one character per point."""
    from ffn_calc import activations as act

    curves = [("relu", act.relu, "r", "cyan"), ("gelu", act.gelu, "g", "green"),
              ("silu", act.silu, "s", "magenta")]  # fmt: skip
    lo_y, hi_y = -0.5, 3.0
    grid = [[" "] * width for _ in range(height)]
    styles: dict[tuple[int, int], str] = {}
    zero = round((hi_y - 0.0) / (hi_y - lo_y) * (height - 1))
    for c in range(width):
        grid[zero][c] = "-"
    for r in range(height):
        grid[r][width // 2] = "|"
    for _, f, ch, style in curves:
        for c in range(width):
            x = -3 + 6 * c / (width - 1)
            y = f(x)
            r = round((hi_y - y) / (hi_y - lo_y) * (height - 1))
            if 0 <= r < height:
                grid[r][c] = ch
                styles[(r, c)] = style
    out = Text("Curves on [-3, 3] (r ReLU, g GELU, s SiLU; GELU-tanh overlaps GELU)\n")
    for r, row in enumerate(grid):
        for c, ch in enumerate(row):
            out.append(ch, style=styles.get((r, c), "dim"))
        out.append("\n")
    return out
