"""The tables of `ffn-calc crossover`: where the scores overtake the FFN and the projections, the
sweep over S around it, and why a crossover is never reached."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_calc.i18n.translate import N_, _
from ffn_calc.reports.marks import CAUSAL_PAIRS, CROSSOVER_LABELS

if TYPE_CHECKING:  # the report types only annotate: importing them would load every command
    from ffn_calc.reports.crossover import CrossoverReport, CrossoverRow, KindCrossover
from ffn_calc.views.labels import (
    kind_label,
    layer_label,
    listed,
    model_name,
    sentences,
    stack_label,
)
from ffn_calc.views.table import Column, Table, never


def per_token(x: float) -> str:
    return f"{x:,}" if isinstance(x, int) else f"{x:,.2f}"


SHORT = {"attention_projections": N_("proj"), "attention_scores": N_("scores"), "ffn": N_("FFN")}


# A row's crossovers in the 'at' column: what the scores meet, short (translated at the view).
SHORT_MARKS = {
    "scores_vs_ffn": N_("ffn"), "scores_vs_projections": N_("proj"), "scores_vs_dense": N_("dense"),
}  # fmt: skip


def _at(value: object) -> str:
    """A crossover as the tables write it: 3,072 or 3,074.5."""
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".") if isinstance(value, float) else str(value)


BYTES_LABEL = N_("cache read = FFN weights read")


def _never_label(key: str) -> str:
    return _(CROSSOVER_LABELS[key]) if key in CROSSOVER_LABELS else _(BYTES_LABEL)


def never_notes(
    never: dict[str, str], unbounded: dict[str, object], symbol: str,
    positions: int | None, stops_at: int | None,
) -> list[str]:  # fmt: skip
    """Why each crossover that is never reached is not, one sentence per reason."""
    out = []
    by_reason: dict[str, list[str]] = {}
    for key, why in never.items():
        by_reason.setdefault(why, []).append(key)
    for why, keys in by_reason.items():
        which = listed([_never_label(k) for k in keys])
        if why == "window" and stops_at is not None:
            out.append(
                _(
                    "Never reached ({which}): the layer keeps at most {kept} cached tokens (its "
                    "window less one), so one step's scores and cache read stop growing at "
                    "L = {kept}, below the other side."
                ).format(which=which, kept=f"{stops_at:,}")
            )
        elif why == "positions" and positions is not None:
            values = listed([f"{symbol} = {_at(unbounded[k])}" for k in keys if k in unbounded])
            out.append(
                _(
                    "Never reached ({which}): past the model's {positions}-position table "
                    "({symbol} at most {limit}); without the table: {values}."
                ).format(
                    which=which,
                    positions=f"{positions:,}",
                    symbol=symbol,
                    limit=f"{positions - (1 if symbol == 'L' else 0):,}",
                    values=values,
                )
            )
        else:
            out.append(
                _(
                    "Never reached ({which}): the other side grows with {symbol} at least as "
                    "fast as the scores."
                ).format(which=which, symbol=symbol)
            )
    return out


# Why a layer kind never reaches a crossover, in its row's last cell, and explained below.
KIND_NEVER = {
    "mixer": N_("constant per token"),
    "no ffn": N_("no FFN"),
    "positions": N_("positions"),
}
KIND_NEVER_NOTES = {
    "mixer": N_(
        "constant per token: the layer's token mixer (recurrent, linear attention or "
        "convolution, or none) costs the same per token at any length: no score FLOPs grow "
        "with {symbol}, so it has no crossover."
    ),
    "no ffn": N_(
        "no FFN: the layer has attention but no FFN, so there is no scores = FFN; its scores "
        "are compared with its projections."
    ),
    "positions": N_("positions: past the model's learned position table."),
}


def kind_cell(key: str, value: object) -> object:
    """A layer kind's crossover in a cell: the value, or never."""
    return value if value is not None else never()


def kinds_table(
    title: str, symbol: str, kinds: list[KindCrossover], extra: tuple[str, ...] = ()
) -> Table:
    """A hybrid's crossovers per layer kind: each kind's own, or why it has none (the keys
    `extra` after the crossovers: a column each, named by the key)."""
    keys = list(CROSSOVER_LABELS)
    t = Table(
        title,
        [Column(_("layers"), "text"), Column(_("count"), "int")]
        + [Column(SHORT_MARKS[k], "num") for k in keys]
        + [Column(k, "num") for k in extra]
        + [Column(_("never: why"), "text")],
    )
    t.notes.append(
        _(
            "Columns: the {symbol} where one layer's scores reach its FFN (ffn), its "
            "projections (proj) and both (dense)."
        ).format(symbol=symbol)
    )
    reasons: list[str] = []
    for k in kinds:
        why = []
        for reason in k.never.values():
            if reason not in why:
                why.append(reason)
            if reason not in reasons:
                reasons.append(reason)
        t.add(kind_label(k.layer_kind()) or stack_label(k.stack), k.count,
              *(kind_cell(key, k.crossover.get(key)) for key in (*keys, *extra)),
              ", ".join(_(KIND_NEVER[w]) if w in KIND_NEVER else w for w in why))  # fmt: skip
    t.notes += [
        _(KIND_NEVER_NOTES[w]).format(symbol=symbol) for w in reasons if w in KIND_NEVER_NOTES
    ]
    return t


def crossover_tables(r: CrossoverReport) -> list[Table]:
    title = (
        _("{model}: where the scores overtake (the whole model)") if r.kinds is not None
        else _("{model}: where the scores overtake ({layer} layer)")
    )  # fmt: skip
    t = Table(
        title.format(model=model_name(r.model), layer=layer_label(r.layer_of())),
        [Column(_("crossover"), "text"), Column("S", "num"), Column(_("exact"), "text")],
    )
    for key, value in r.crossover.items():
        t.add(
            _("{label} ({key})").format(label=_(CROSSOVER_LABELS[key]), key=key),
            value if value is not None else never(), r.exact[key] or "",
        )  # fmt: skip
    t.notes += never_notes(r.never, dict(r.unbounded), "S", r.max_seq_len, None)
    title = (
        _("{model}: the whole model over S (batch 1)").format(model=model_name(r.model))
        if r.kinds is not None
        else _("{model}: one {layer} layer over S (batch 1)").format(
            model=model_name(r.model), layer=layer_label(r.layer_of())
        )
    )
    rows = sweep_table(title, "S", r.rows)
    rows.notes.append(
        sentences(*r.sentences(), _("'at': the crossover that row's S is (vs ffn, proj, dense)."))
    )
    tables = [t, rows]
    if r.kinds is not None:
        tables.append(
            kinds_table(_("{model}: each layer kind's own crossovers (one layer, batch 1)")
                        .format(model=model_name(r.model)), "S", r.kinds)
        )  # fmt: skip
    if r.grid is not None:
        g = r.grid
        grid = Table(
            _("scores : FFN per layer (rows S, columns d_model; >1: the scores dominate)"),
            [Column("S", "int")] + [Column(f"d={d}", "ratio") for d in g.d_models],
        )
        for s, ratios in zip(g.seq_lens, g.ratios, strict=True):
            grid.add(s, *ratios, style="grid")
        at = ", ".join(f"{x:,}" if isinstance(x, int) else f"{x:,.1f}" for x in g.scores_vs_ffn)
        grid.notes.append(_("scores = FFN at S = {lengths} (per column).").format(lengths=at))
        if g.causal:
            grid.notes.append(_(CAUSAL_PAIRS))
        if r.kinds is not None:
            grid.notes.append(
                _(
                    "A hybrid: each cell is the whole model's scores against its FFNs, every "
                    "layer kind at its count; the token mixers' own sizes are kept as they are."
                )
            )
        widths = ", ".join(f"{d}->{f}" for d, f in zip(g.d_models, g.d_ff, strict=True))
        grid.notes.append(
            _(
                "d_ff per column: {widths}. Same d_ff / d_model ratio and head_dim as the model."
            ).format(widths=widths)
        )
        if r.max_seq_len is not None:
            grid.notes.append(
                _(
                    "The grid compares designs at any S: it leaves out the model's "
                    "{positions}-position table."
                ).format(positions=f"{r.max_seq_len:,}")
            )
        tables.append(grid)
    return tables


def sweep_table(title: str, symbol: str, sweep: list[CrossoverRow]) -> Table:
    """One row per length: each part's FLOPs, its share, the dominant part, the crossovers."""
    rows = Table(
        title,
        [
            Column(symbol, "num"), Column(_("projections"), "human"),
            Column(_("scores"), "human"), Column("FFN", "human"),
            Column(_("proj share"), "pct"), Column(_("scores share"), "pct"),
            Column(_("FFN share"), "pct"), Column(_("dominant"), "text"), Column(_("at"), "text"),
        ],
    )  # fmt: skip
    for row in sweep:
        sh, dominant = row.shares, row.dominant_parts()
        rows.add(
            row.seq_len, row.attention_projections, row.attention_scores, row.ffn,
            sh["attention_projections"], sh["attention_scores"], sh["ffn"],
            " = ".join(_(SHORT[k]) for k in dominant),
            ", ".join(_(SHORT_MARKS[k]) for k in row.crossovers()),
            style=dominant[0],  # the colour of the (first) dominant part
        )  # fmt: skip
    return rows
