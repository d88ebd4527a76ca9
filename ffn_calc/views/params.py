"""Tables as plain data: what every text format (Rich, CSV, Markdown) draws.

Building the rows here keeps Rich in output/rich.py alone, and lets CSV and Markdown output
run without importing it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Literal

from ffn_calc.i18n.translate import N_, Text, _, language, shown
from ffn_calc.reports.params import (
    CAUSAL_PAIRS,
    CROSSOVER_CONVENTION,
    CROSSOVER_LABELS,
    FLOPS_PIECES,
    POSITIONS_NOTE,
)

if TYPE_CHECKING:  # the report types only annotate: importing them would load every command
    from ffn_calc.counts.activations import ActivationsReport
    from ffn_calc.counts.sizing import SwigluReport
    from ffn_calc.homework.exercises import ExerciseResult, ExercisesReport
    from ffn_calc.reports.compare import CompareReport
    from ffn_calc.reports.inference import (
        DecodeCrossoverReport,
        DecodeReport,
        GenerationReport,
        KvReport,
        MemoryReport,
    )
    from ffn_calc.reports.params import (
        CrossoverReport,
        CrossoverRow,
        FlopsReport,
        ParamsReport,
    )
    from ffn_calc.reports.training import ActivationTerm, TrainingLayerKind, TrainingReport
    from ffn_calc.reports.verify import TensorsReport, VerifyReport

Kind = Literal["text", "int", "pct", "ratio", "num", "human"]


@dataclass
class Column:
    """A column: `kind` says how people read its numbers ("text": the column may wrap; every
    other kind is a number column, never wrapped). `only` keeps it to CSV or to people (tables
    and Markdown), e.g. "12 / 4" for people beside plain "12" and "4" columns in CSV; `fmt`
    is a format spec for people (".7f")."""

    name: str
    kind: Kind = "int"
    only: Literal["csv", "people"] | None = None
    fmt: str = ""


@dataclass(frozen=True)
class Spelled:
    """A number that people read as `text` ("28.44x", "33.33%") and CSV holds as `value`
    (None: no number, an empty CSV cell, e.g. a crossover never reached)."""

    value: int | float | None
    text: str


def never() -> Spelled:
    """A crossover the model never reaches: "never" for people, an empty CSV cell."""
    return Spelled(None, _("never"))


@dataclass
class Table:
    title: str
    columns: list[Column]
    rows: list[list[object]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # Per-row style hints: "total" (bold), "grid" (each cell by its value), or a dominant-term
    # colour key.
    styles: list[str] = field(default_factory=list)
    # One row per model for CSV, one column per model for people, with the largest and the
    # smallest of each number marked (compare).
    side_by_side: bool = False

    def add(self, *cells: object, style: str = "") -> None:
        self.rows.append(list(cells))
        self.styles.append(style)


HUMAN_UNITS = ((10**3, "k"), (10**6, "M"), (10**9, "G"), (10**12, "T"), (10**15, "P"))


# Japanese and Chinese count in myriads: 10^4, 10^8, 10^12, 10^16.
CJK_UNITS = {
    "ja": ((10**4, "万"), (10**8, "億"), (10**12, "兆"), (10**16, "京")),
    "zh": ((10**4, "万"), (10**8, "亿"), (10**12, "万亿"), (10**16, "亿亿")),
}


def human(n: float, unit: str = "") -> str:
    """124.4M, 1.2T: one decimal, in exact arithmetic, so any int works (10**400 too).
    Japanese and Chinese: 1.24億 / 1.24亿 (three significant figures, see _human_cjk)."""
    if isinstance(n, float) and not math.isfinite(n):
        return f"{n:g} {unit}".rstrip()
    units = CJK_UNITS.get(language())
    if units is not None:
        return _human_cjk(n, unit, units)
    x = abs(Fraction(n))
    fits = [i for i, (size, _) in enumerate(HUMAN_UNITS) if x >= size]
    if not fits:
        return f"{n:g} {unit}".rstrip()
    i = fits[-1]
    tenths = math.floor(x * 10 / HUMAN_UNITS[i][0] + Fraction(1, 2))  # round half up
    if tenths >= 10_000 and i + 1 < len(HUMAN_UNITS):  # 999.96k is 1.0M, not 1000.0k
        i += 1
        tenths = math.floor(x * 10 / HUMAN_UNITS[i][0] + Fraction(1, 2))
    sign = "-" if n < 0 else ""
    return f"{sign}{tenths // 10}.{tenths % 10}{HUMAN_UNITS[i][1]}{unit}"


def _human_cjk(n: float, unit: str, units: tuple[tuple[int, str], ...]) -> str:
    """Three significant figures in myriads: 8,388,608 -> 839万, 134,217,728 -> 1.34億,
    6,738,415,616 -> 67.4億, 660,606,025,728 -> 6,610億; below 10^4 the number itself
    (9,999). Exact (Fraction), rounded half up; past the largest unit the figure grows
    (12,300京)."""
    x = abs(Fraction(n))
    sign = "-" if n < 0 else ""
    fits = [i for i, (size, _) in enumerate(units) if x >= size]
    if not fits:
        plain = f"{abs(n):,}" if isinstance(n, int) else f"{abs(n):,g}"
        return f"{sign}{plain}{unit}"
    i = fits[-1]
    while True:
        v = x / units[i][0]  # at least 1
        digits = len(str(math.floor(v)))
        places = 3 - digits  # decimals kept; negative: rounded to tens, hundreds...
        scaled = math.floor(v * Fraction(10) ** places + Fraction(1, 2))  # round half up
        if len(str(scaled)) > 3:  # 9.995 is 10.0, 99.95 is 100
            places -= 1
            scaled = math.floor(v * Fraction(10) ** places + Fraction(1, 2))
        if scaled * Fraction(10) ** -places >= 10_000 and i + 1 < len(units):
            i += 1  # 9,999.5万 is 1.00億, not 10,000万
            continue
        break
    if places > 0:
        whole, part = divmod(scaled, 10**places)
        figure = f"{whole:,}.{part:0{places}d}"
    else:
        figure = f"{scaled * 10**-places:,}"
    return f"{sign}{figure}{units[i][1]}{unit}"


# --- labels people read (the reports keep the English keys: JSON) ------------------------------

# Components of the counts: the reports' keys, shown in the current language.
COMPONENT_LABELS = {
    "embedding": N_("embedding"),
    "attention": N_("attention"),
    "attention_projections": N_("attention_projections"),
    "attention_scores": N_("attention_scores"),
    "ffn": N_("ffn"),
    "norm": N_("norm"),
    "lm_head": N_("lm_head"),
    "pooler": N_("pooler"),
    "total": N_("total"),
    "logits": N_("logits"),
    "layer inputs (full recomputation)": N_("layer inputs (full recomputation)"),
}
# Terms named in words (the others are tensor-like names: Q, W1, b_Q, q_proj, norm_attn).
TERM_LABELS = {
    name: name
    for name in (
        N_("token embedding"),
        N_("position embedding"),
        N_("token-type embedding"),
        N_("embedding norm"),
        N_("encoder position embedding"),
        N_("decoder position embedding"),
        N_("encoder embedding norm"),
        N_("decoder embedding norm"),
        N_("encoder relative attention bias"),
        N_("decoder relative attention bias"),
        N_("final encoder norm"),
        N_("final decoder norm"),
        N_("router"),
        N_("experts"),
        N_("shared expert"),
        N_("shared expert gate"),
        N_("expert biases"),
        N_("sinks"),
        N_("head dense"),
        N_("head dense bias"),
        N_("head norm"),
        N_("lm_head bias"),
        N_("lm_head (tied to the token embedding)"),
        N_("norm (shared by attention and FFN)"),
        N_("projection in"),
        N_("projection in bias"),
        N_("pooler W"),
        N_("pooler b"),
        N_("kv_b_proj over the cache"),
    )
}
STACK_LABELS = {"decoder": N_("decoder"), "encoder": N_("encoder")}
KIND_LABELS = {
    "MoE": N_("MoE"),
    "dense FFN": N_("dense FFN"),
    "full attention": N_("full attention"),
    "cross-attention": N_("cross-attention"),
}
_LOCAL = re.compile(r"(sliding-window|chunked) attention over ([\d,]+) tokens?")
_LAYER = re.compile(r"(\w+) \((.+)\)")


def _cjk() -> bool:
    return language() in CJK_UNITS


def by_count(n: int, one: str, many: str) -> str:
    """`one` (translated) when the count n is 1, else `many`: "1 token", "2 tokens". English
    inflects for number; Japanese and Chinese translate both alike."""
    return one if n == 1 else many


def _listed(items: list[str]) -> str:
    """Items in a row: "a, b" in English, "a、b" in Japanese and Chinese."""
    return ("、" if _cjk() else ", ").join(items)


def _sentences(*texts: str) -> str:
    """Sentences one after another: a space between them in English, none in CJK text."""
    return ("" if _cjk() else " ").join(t for t in texts if t)


def _translated(text: str, pieces: tuple[str, ...]) -> str:
    """A report's English text made of known sentences (`pieces`, marked N_ where they are
    defined), in the current language; English: the text itself."""
    if not _cjk():
        return text
    for piece in pieces:
        text = text.replace(piece, _(piece))
    return re.sub(r"(?<=[。）]) (?=\S)", "", text)  # noqa: RUF001 (no space between CJK sentences)


def _component(key: str) -> str:
    return _(COMPONENT_LABELS[key]) if key in COMPONENT_LABELS else key


def _term(name: str) -> str:
    return _(TERM_LABELS[name]) if name in TERM_LABELS else name


def _stack(stack: str) -> str:
    return _(STACK_LABELS[stack]) if stack in STACK_LABELS else stack


def _kind(kind: str) -> str:
    """A layer kind ("MoE", "dense FFN, sliding-window attention over 4,096 tokens")."""
    out = []
    for part in kind.split(", "):
        m = _LOCAL.fullmatch(part)
        if m is None:
            out.append(_(KIND_LABELS[part]) if part in KIND_LABELS else part)
        elif m.group(1) == "sliding-window":
            text = by_count(
                int(m[2].replace(",", "")),
                _("sliding-window attention over {tokens} token"),
                _("sliding-window attention over {tokens} tokens"),
            )
            out.append(text.format(tokens=m[2]))
        else:
            text = by_count(
                int(m[2].replace(",", "")),
                _("chunked attention over {tokens} token"),
                _("chunked attention over {tokens} tokens"),
            )
            out.append(text.format(tokens=m[2]))
    return _listed(out)


def _layer_label(label: str) -> str:
    """ "decoder", or "decoder (MoE)", in the current language."""
    m = _LAYER.fullmatch(label)
    if m is None:
        return _stack(label)
    return _("{stack} ({kind})").format(stack=_stack(m[1]), kind=_kind(m[2]))


def _one_layer(model: str, stack: str, kind: str, count: int) -> str:
    """ "gpt2-small: one decoder layer (x12)", with the kind when a stack has several."""
    if kind:
        return _("{model}: one {stack} layer, {kind} (x{count})").format(
            model=model, stack=_stack(stack), kind=_kind(kind), count=count
        )
    return _("{model}: one {stack} layer (x{count})").format(
        model=model, stack=_stack(stack), count=count
    )


PARAM_LABELS = {"attention": N_("attention"), "ffn": N_("FFN"), "norm": N_("norm")}


def params_tables(r: ParamsReport, explain: bool = False) -> list[Table]:
    tables: list[Table] = []
    for layer in r.layers:
        t = Table(
            _one_layer(r.model, layer.stack, layer.kind, layer.count),
            [Column(_("term"), "text"), Column(_("group"), "text"), Column(_("params")), Column(_("share of layer"), "pct")],
        )  # fmt: skip
        for term in layer.terms:
            t.add(
                _term(term.name), _(PARAM_LABELS[term.group]), term.value, term.value / layer.total
            )
        for group in ("attention", "ffn", "norm"):
            value = getattr(layer, group)
            label = _("{group} total").format(group=_(PARAM_LABELS[group]))
            t.add(label, "", value, value / layer.total, style="total")
        t.add(_("layer total"), "", layer.total, 1.0, style="total")
        if explain:
            t.notes += [_explain(x.name, x.formula, x.numbers, x.value) for x in layer.terms]
        tables.append(t)
    t = Table(
        _("{model}: whole model").format(model=r.model),
        [Column(_("component"), "text"), Column(_("params")), Column(_("share"), "pct")],
    )
    for key, value in r.components.items():
        t.add(_component(key), value, r.shares[key])
    t.add(_("total"), r.total_params, 1.0, style="total")
    if r.active_params != r.total_params:
        t.add(
            _("active (per token)"), r.active_params, r.active_params / r.total_params,
            style="total",
        )  # fmt: skip
        t.add(
            _("active without the input embedding"), r.active_params_without_embedding,
            r.active_params_without_embedding / r.total_params,
        )  # fmt: skip
        t.notes.append(
            _(
                "Active: the total less, in every MoE layer, (n_experts - experts_per_token) x "
                "the parameters of one routed expert; routers, shared experts, dense layers, "
                "attention, norms, embeddings and the head all count. Some vendors leave the "
                "input embedding out (the row below it)."
            )
        )
    if r.checkpoint_elements != r.total_params:
        t.notes.append(
            _(
                "A released checkpoint stores {elements} elements: the parameters and "
                "{buffers} buffer elements (a routing-score bias that transformers keeps as a "
                "buffer)."
            ).format(
                elements=f"{r.checkpoint_elements:,}",
                buffers=f"{r.checkpoint_elements - r.total_params:,}",
            )
        )
    t.notes.append(
        _(
            "Total {total} parameters; FFN : attention = {ratio}; non-embedding {non_embedding}."
        ).format(
            total=human(r.total_params),
            ratio=f"{r.ffn_to_attention:.3f}",
            non_embedding=f"{r.non_embedding_params:,}",
        )
    )
    if explain:
        t.notes += [_explain(x.name, x.formula, x.numbers, x.value) for x in r.other_terms]
        t.notes += [shown(x, stack=_stack, kind=_kind) for x in r.active_lines()]
    if r.source:
        t.notes.append(_("Source: {source}").format(source=r.source))
    if r.note:
        t.notes.append(_("Note: {note}").format(note=r.note))
    t.notes.append(
        _(
            "Tied weights count once; buffers (masks, rotary inv_freq) are not parameters; "
            "LayerNorm = weight + bias, RMSNorm = weight."
        )
    )
    tables.append(t)
    return tables


# Words inside counts.params' term formulas, translated where the formula is shown; its
# symbols and numbers read the same in every language. (Training's formulas are messages.)
FORMULA_PIECES = (N_("biases of one expert"),)


def _formula(text: str) -> str:
    """A formula in the current language: FORMULA_PIECES translated."""
    if not _cjk():
        return text
    for piece in FORMULA_PIECES:
        text = text.replace(piece, _(piece))
    return text


def _activation_term(name: str | Text) -> str:
    """A stored activation's name (training.layer_terms): a message, or a plain msgid."""
    return name.shown() if isinstance(name, Text) else _(name)


def _explain(name: str, formula: str, numbers: str, value: int) -> str:
    name, formula = _term(name), _formula(formula)
    if numbers == f"{value:,}":
        return f"{name}: {formula} = {value:,}"
    return f"{name}: {formula} = {numbers} = {value:,}"


def flops_tables(r: FlopsReport, explain: bool = False) -> list[Table]:
    unit = "MACs" if r.unit == "macs" else "FLOPs"
    tables: list[Table] = []
    convention = _translated(r.convention, FLOPS_PIECES)
    for layer in r.layers:
        title = _("{heading}, forward {unit}").format(
            heading=_one_layer(r.model, layer.stack, layer.kind, layer.count), unit=unit
        )
        t = Table(
            title,
            [Column(_("term"), "text"), Column(_("component"), "text"), Column(unit), Column(_("share of layer"), "pct")],
        )  # fmt: skip
        for term in layer.terms:
            t.add(_term(term.name), _component(term.group), term.value, term.value / layer.total)
        for key in ("attention_projections", "attention_scores", "ffn"):
            value = getattr(layer, key)
            label = _("{component} total").format(component=_component(key))
            t.add(label, "", value, value / layer.total, style="total")
        t.add(_("layer total"), "", layer.total, 1.0, style="total")
        if explain:
            t.notes += [_explain(x.name, x.formula, x.numbers, x.value) for x in layer.terms]
        t.notes.append(convention)
        tables.append(t)
    shape = f"B={r.batch}, S={r.seq_len}" + (
        f", T={r.target_len}" if r.target_len is not None else ""
    )
    t = Table(
        _("{model}: whole model, {shape}").format(model=r.model, shape=shape),
        [Column(_("component"), "text"), Column(_("forward {unit}").format(unit=unit)), Column(_("share"), "pct")],
    )  # fmt: skip
    for key, value in r.components.items():
        t.add(_component(key), value, r.shares[key])
    t.add(_("forward"), r.forward_flops, 1.0, style="total")
    t.add(_("training (3 x forward)"), r.training_flops, None, style="total")
    t.notes.append(
        by_count(
            r.tokens,
            _(
                "Forward {forward} {unit}, {per_token} {unit} per token ({tokens} token); "
                "training {training} {unit}."
            ),
            _(
                "Forward {forward} {unit}, {per_token} {unit} per token ({tokens} tokens); "
                "training {training} {unit}."
            ),
        ).format(
            forward=human(r.forward_flops),
            unit=unit,
            per_token=_per_token(r.flops_per_token),
            tokens=f"{r.tokens:,}",
            training=human(r.training_flops),
        )
    )
    t.notes.append(convention)
    tables.append(t)
    a = Table(
        _("Rules of thumb against the exact figure"),
        [
            Column(_("approximation"), "text"),
            Column(unit),
            Column(_("exact")),
            Column(_("off by"), "pct"),
        ],
    )
    for x in r.approximations:
        a.add(_(x.name), x.value, x.exact, x.error)
        a.notes.append(f"{_(x.name)}: {_(x.formula)}")
    a.notes.append(_("N: active parameters for MoE. Negative: the approximation undercounts."))
    tables.append(a)
    return tables


def _per_token(x: float) -> str:
    return f"{x:,}" if isinstance(x, int) else f"{x:,.2f}"


SHORT = {"attention_projections": N_("proj"), "attention_scores": N_("scores"), "ffn": N_("FFN")}
SHORT_MARKS = {
    v: k.removeprefix("scores_vs_").replace("projections", "proj")
    for k, v in CROSSOVER_LABELS.items()
}


def _short(dominant: str) -> str:
    return " = ".join(_(SHORT[k]) for k in dominant.split(" = "))


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
        which = _listed([_never_label(k) for k in keys])
        if why == "window" and stops_at is not None:
            out.append(
                _(
                    "Never reached ({which}): the layer keeps at most {kept} cached tokens (its "
                    "window less one), so one step's scores and cache read stop growing at "
                    "L = {kept}, below the other side."
                ).format(which=which, kept=f"{stops_at:,}")
            )
        elif why == "positions" and positions is not None:
            values = _listed([f"{symbol} = {_at(unbounded[k])}" for k in keys if k in unbounded])
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


def crossover_tables(r: CrossoverReport) -> list[Table]:
    t = Table(
        _("{model}: where the scores overtake ({layer} layer)").format(
            model=r.model, layer=_layer_label(r.layer)
        ),
        [Column(_("crossover"), "text"), Column("S", "num"), Column(_("exact"), "text")],
    )
    for key, value in r.crossover.items():
        t.add(
            _("{label} ({key})").format(label=_(CROSSOVER_LABELS[key]), key=key),
            value if value is not None else never(), r.exact[key] or "",
        )  # fmt: skip
    t.notes += never_notes(r.never, dict(r.unbounded), "S", r.max_seq_len, None)
    rows = sweep_table(
        _("{model}: one {layer} layer over S (batch 1)").format(
            model=r.model, layer=_layer_label(r.layer)
        ),
        "S", r.rows,
    )  # fmt: skip
    rows.notes.append(
        _sentences(
            _translated(r.convention, (CROSSOVER_CONVENTION, CAUSAL_PAIRS, POSITIONS_NOTE)),
            _("'at': the crossover that row's S is (vs ffn, proj, dense)."),
        )
    )
    tables = [t, rows]
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
        sh = row.shares
        rows.add(
            row.seq_len, row.attention_projections, row.attention_scores, row.ffn,
            sh["attention_projections"], sh["attention_scores"], sh["ffn"],
            _short(row.dominant), ", ".join(SHORT_MARKS[m] for m in row.marks), style=row.dominant,
        )  # fmt: skip
    return rows


def tensors_tables(r: TensorsReport) -> list[Table]:
    t = Table(
        _("{model}: parameter tensors").format(model=r.model),
        [
            Column(_("name"), "text"),
            Column(_("shape"), "text"),
            Column(_("count")),
            Column(_("params")),
            Column(_("total params")),
            Column(_("component"), "text"),
        ],
    )
    for x in r.tensors:
        shape = "[" + ", ".join(str(n) for n in x.shape) + "]"
        component = _component(x.component)
        if x.tied_to:
            component = _("{component} (tied to {tensor})").format(
                component=component, tensor=x.tied_to
            )
        t.add(x.name, shape, x.count, x.params, x.total_params, component)
    t.add(_("total"), "", sum(x.count for x in r.tensors), None, r.total_params, "", style="total")
    t.notes.append(
        _(
            "{a..b} in a name: one tensor for each index from a to b (layers, experts), as a "
            "shell expands it; count: the tensors a row stands for; params: one tensor's; total "
            "= count x params, 0 for a tied tensor (it counts once)."
        )
    )
    t.notes.append(_("Shapes as stored (GPT-2's Conv1D: [in, out]; nn.Linear: [out, in])."))
    tables = [t]
    if r.matmuls is not None:
        m = Table(
            _("{model}: matmuls of one forward pass (batch 1, S={seq_len})").format(
                model=r.model, seq_len=r.seq_len
            ),
            [Column(_("name"), "text"), Column(_("component"), "text"), Column("[m, k] x [k, n]", "text"), Column(_("times")), Column("FLOPs")],
        )  # fmt: skip
        for mm in r.matmuls:
            m.add(mm.name, _component(mm.component), f"[{mm.m}, {mm.k}] x [{mm.k}, {mm.n}]",
                  mm.count, mm.flops)  # fmt: skip
        m.add(_("total"), "", "", None, sum(mm.flops for mm in r.matmuls), style="total")
        m.notes.append(_("times: over every layer in the name's range, batch element and head."))
        tables.append(m)
    return tables


CHECK_KINDS = {"params": N_("params"), "flops": N_("flops")}


def _verdict(ok: bool) -> str:
    return _("ok") if ok else _("MISMATCH")


def verify_tables(r: VerifyReport) -> list[Table]:
    tables: list[Table] = []
    for model in dict.fromkeys(c.model for c in r.checks):
        t = Table(
            _("{model}: closed form vs instantiation (FLOPs at batch {batch}, S={seq_len})").format(
                model=model, batch=r.batch, seq_len=r.seq_len
            ),
            [Column(_("kind"), "text"), Column(_("component"), "text"), Column(_("closed form")), Column(_("instantiated")), Column("", "text")],
        )  # fmt: skip
        for c in r.checks:
            if c.model == model:
                t.add(_(CHECK_KINDS[c.kind]) if c.kind in CHECK_KINDS else c.kind,
                      _component(c.component), c.closed_form, c.inventory, _verdict(c.ok),
                      style="total" if c.component == "total" else "")  # fmt: skip
        tables.append(t)
    if r.checkpoint is not None:
        k = r.checkpoint
        none = _("none")
        t = Table(
            _("checkpoint {path}").format(path=k.path),
            [Column(_("check"), "text"), Column(_("result"), "text")],
        )
        # Counts go in as numbers: grouped for people, plain in CSV.
        t.add(_("tensors in the file"), k.tensors)
        t.add(_("parameters in the file"), k.checkpoint_params)
        t.add(_("parameters of the model"), k.expected_params)
        t.add(_("missing tensors"), k.missing_count)
        if k.missing:
            t.add(_("missing names"), ", ".join(k.missing))
        t.add(_("unexpected tensors"), ", ".join(k.unexpected) or none)
        mismatches = [
            _("{name}: expected {expected}, found {found}").format(
                name=m.name, expected=m.expected, found=m.found
            )
            for m in k.shape_mismatches
        ]
        t.add(_("shape mismatches"), "; ".join(mismatches) or none)
        t.add(_("buffers (not counted)"), ", ".join(k.buffers) or none)
        t.add(_("tied copies (not counted)"), ", ".join(k.tied_copies) or none)
        for dtype, n in k.bytes_by_dtype.items():
            t.add(_("bytes of {dtype} tensors").format(dtype=dtype), n)
        t.add(_("result"), _verdict(k.ok), style="total")
        if any("{" in m for m in k.missing):
            t.notes.append(_("{a..b} in a name: each index from a to b."))
        tables.append(t)
    tables[-1].notes.append(_("All checks match.") if r.ok else _("Mismatch found: exit code 1."))
    return tables


COMPARE_FIELDS: list[tuple[str, str, Kind]] = [
    # (label, field of ComparedModel, kind); "heads": n_heads / n_kv_heads / head_dim
    # (labels: N_, translated where the table is built)
    (N_("family"), "family", "text"),
    ("d_model", "d_model", "int"),
    ("d_ff", "d_ff", "int"),
    ("d_ff / d_model", "d_ff_ratio", "ratio"),
    (N_("FFN kind"), "ffn_kind", "text"),
    (N_("heads / kv heads / head_dim"), "heads", "num"),
    (N_("layers"), "layers", "int"),
    (N_("attention params per layer"), "attention_params_per_layer", "int"),
    (N_("FFN params per layer"), "ffn_params_per_layer", "int"),
    (N_("FFN share of a layer"), "ffn_share_of_layer", "pct"),
    (N_("FFN share of the model"), "ffn_share_of_model", "pct"),
    (N_("total params"), "total_params", "int"),
    (N_("active params"), "active_params", "int"),
    (N_("forward FLOPs"), "forward_flops", "int"),
    (N_("FLOPs per token"), "flops_per_token", "num"),
    (N_("FFN share of FLOPs"), "ffn_share_of_flops", "pct"),
    (N_("S: scores = FFN"), "scores_vs_ffn", "num"),
    (N_("S: scores = projections"), "scores_vs_projections", "num"),
    (N_("S: scores = projections + FFN"), "scores_vs_dense", "num"),
]


def compare_tables(r: CompareReport) -> list[Table]:
    """One row per model (CSV); people read it turned, a column per model."""
    columns = [Column(_("model"), "text")]
    for label, key, kind in COMPARE_FIELDS:
        if key == "heads":
            columns.append(Column(_(label), kind, only="people"))
            columns += [Column(n, only="csv") for n in ("heads", "kv heads", "head_dim")]
        else:
            columns.append(Column(_(label), kind))
    t = Table(
        _("Compared at S = {seq_len} (batch 1)").format(seq_len=f"{r.seq_len:,}"), columns,
        side_by_side=True,
    )  # fmt: skip
    for m in r.models:
        cells: list[object] = [m.model]
        for _label, key, _kind_of in COMPARE_FIELDS:
            if key == "heads":
                cells += [f"{m.n_heads} / {m.n_kv_heads} / {m.head_dim}",
                          m.n_heads, m.n_kv_heads, m.head_dim]  # fmt: skip
            elif key.startswith("scores_vs_"):
                value = m.crossover[key]
                cells.append(value if value is not None else never())
            else:
                cells.append(getattr(m, key))
        t.add(*cells)
    t.notes.append(
        _(
            "The largest of each figure in bold green, the smallest in blue. Per layer: the "
            "first layer kind. FLOPs: forward, default convention; encoder-decoder models at "
            "T = S."
        )
    )
    if any(v is None for m in r.models for v in m.crossover.values()):
        t.notes.append(
            _(
                "never: the crossover lies past the model's learned position table (S at most "
                "its positions); `crossover` gives the formula's value."
            )
        )
    if r.seq_len_lowered_for is not None:
        t.notes.append(
            _(
                "S = {seq_len}, not the default 1,024: {model} takes at most {seq_len} tokens "
                "(its learned position table)."
            ).format(seq_len=f"{r.seq_len:,}", model=r.seq_len_lowered_for)
        )
    return [t]


def activation_tables(r: ActivationsReport) -> list[Table]:
    tables = []
    for title, cols in (
        (N_("FFN activations"), ["relu", "gelu", "gelu_tanh", "silu"]),
        (N_("Their derivatives"), ["d_relu", "d_gelu", "d_gelu_tanh", "d_silu"]),
    ):
        t = Table(
            _(title), [Column("x", "num", fmt="g")] + [Column(c, "num", fmt=".7f") for c in cols]
        )
        for row in r.rows:
            t.add(row.x, *(getattr(row, c) for c in cols))
        tables.append(t)
    tables[-1].notes.append(
        _(
            "GELU(x) = x Phi(x) (exact, erf); gelu_tanh = 0.5 x (1 + tanh(sqrt(2/pi)(x + "
            "0.044715 x^3))); SiLU = x sigmoid(x); ReLU'(0) = 0."
        )
    )
    return tables


def swiglu_tables(r: SwigluReport) -> list[Table]:
    t = Table(
        _("SwiGLU sizing at d_model = {d_model}").format(d_model=f"{r.d_model:,}"),
        [
            Column("FFN", "text"),
            Column("d_ff", "num"),
            Column(_("exact d_ff"), "text"),
            Column(_("params (no biases)")),
            Column(_("vs plain 4x"), "ratio"),
        ],
    )
    t.add(_("plain, 4 x d_model (2 matrices)"), r.plain_d_ff, "", r.plain_params, 1.0)
    t.add(
        _("gated at parity, 8/3 d_model (3 matrices)"),
        r.parity_d_ff,
        r.parity_d_ff_exact if "/" in r.parity_d_ff_exact else "",
        r.plain_params,
        1.0,
    )
    mult = f" x {r.ffn_dim_multiplier:g}" if r.ffn_dim_multiplier is not None else ""
    t.add(
        _("gated, Llama's rule{multiplier}, multiple of {multiple}").format(
            multiplier=mult, multiple=f"{r.multiple_of:,}"
        ),
        r.llama_d_ff,
        "",
        r.llama_params,
        r.llama_vs_plain,
        style="total",
    )
    t.notes.append(
        _(
            "Llama's rule: int(2 x 4 d_model / 3), times --ffn-dim-multiplier if given, "
            "rounded up to a multiple of --multiple-of."
        )
    )
    return [t]


def exercise_tables(r: ExercisesReport) -> list[Table]:
    t = Table(
        _("Exercises"),
        [Column("id", "text"), Column(_("question"), "text"), Column(_("answer"), "num")],
    )
    for e in r.exercises:
        t.add(e.id, e.shown_question(), Spelled(e.answer, e.answer_text))
    t.notes.append(
        _(
            "`ffn-calc exercise check ID ANSWER` checks an answer; `ffn-calc exercise solve ID` "
            "shows the work."
        )
    )
    return [t]


def exercise_result_tables(r: ExerciseResult) -> list[Table]:
    t = Table(
        _("Exercise {id}").format(id=r.id),
        [Column(_("field"), "text"), Column(_("value"), "text")],
    )
    t.add(_("question"), r.shown_question())
    for i, step in enumerate(r.shown_steps(), start=1):
        t.add(_("step {number}").format(number=i), step)
    t.add(_("answer"), Spelled(r.answer, r.answer_text))
    if r.given is not None:
        t.add(_("given"), r.given)
        t.add(_("correct"), _("yes") if r.correct else _("no"))
        reason = r.shown_reason()
        if reason:
            t.add(_("why"), reason)
    return [t]


def kv_tables(r: KvReport) -> list[Table]:
    t = Table(
        by_count(
            r.context,
            _("{model}: KV cache, batch {batch}, {context} token cached ({dtype})"),
            _("{model}: KV cache, batch {batch}, {context} tokens cached ({dtype})"),
        ).format(model=r.model, batch=r.batch, context=f"{r.context:,}", dtype=r.dtype),
        [Column(_("layers"), "text"), Column(_("count")), Column(_("cached tokens")),
         Column(_("elements per layer")), Column(_("bytes per layer")), Column(_("elements"))],
    )  # fmt: skip
    for k in r.layers:
        label = _listed([_stack(k.stack), *([_kind(k.kind)] if k.kind else [])])
        t.add(label, k.count, k.cached_tokens, k.elements, k.bytes, k.count * k.elements)
    t.add(_("total"), None, None, None, None, r.kv_elements, style="total")
    t.notes.append(
        by_count(
            r.kv_bytes,
            _(
                "{elements} elements = {bytes} byte ({human}) in {dtype}; {per_token} elements "
                "per cached token."
            ),
            _(
                "{elements} elements = {bytes} bytes ({human}) in {dtype}; {per_token} elements "
                "per cached token."
            ),
        ).format(
            elements=f"{r.kv_elements:,}",
            bytes=f"{r.kv_bytes:,}",
            human=human(r.kv_bytes, "B"),
            dtype=r.dtype,
            per_token=r.kv_elements_per_token_exact,
        )
    )
    if r.dtype == "int4":
        t.notes.append(
            _("int4: each cached tensor (a layer's keys or values) packs two elements to a "
              "byte, rounded up on its own; the total is the sum of the layers' bytes.")
        )  # fmt: skip
    t.notes.append(_(r.convention))  # KV_CONVENTION, marked where it is defined
    return [t]


def decode_tables(r: DecodeReport, explain: bool = False) -> list[Table]:
    from ffn_calc.reports.inference import DECODE_CONVENTION

    unit = "MACs" if r.unit == "macs" else "FLOPs"
    convention = _translated(r.convention, (DECODE_CONVENTION, *FLOPS_PIECES))
    tables: list[Table] = []
    for layer in r.layers:
        if layer.kind:
            title = _(
                "{model}: one decode step, one {stack} layer, {kind} (x{count}), {context} cached"
            ).format(
                model=r.model, stack=_stack(layer.stack), kind=_kind(layer.kind),
                count=layer.count, context=f"{r.context:,}",
            )  # fmt: skip
        else:
            title = _(
                "{model}: one decode step, one {stack} layer (x{count}), {context} cached"
            ).format(
                model=r.model, stack=_stack(layer.stack), count=layer.count,
                context=f"{r.context:,}",
            )  # fmt: skip
        t = Table(
            title,
            [Column(_("term"), "text"), Column(_("component"), "text"), Column(unit), Column(_("share of layer"), "pct")],
        )  # fmt: skip
        for term in layer.terms:
            share = term.value / layer.total if layer.total else 0.0
            t.add(_term(term.name), _component(term.group), term.value, share)
        t.add(_("layer total"), "", layer.total, 1.0, style="total")
        if explain:
            t.notes += [_explain(x.name, x.formula, x.numbers, x.value) for x in layer.terms]
        tables.append(t)
    t = Table(
        by_count(
            r.context,
            _("{model}: one decode step, batch {batch}, {context} token cached"),
            _("{model}: one decode step, batch {batch}, {context} tokens cached"),
        ).format(model=r.model, batch=r.batch, context=f"{r.context:,}"),
        [Column(_("component"), "text"), Column(unit), Column(_("share"), "pct")],
    )
    for key, value in r.components.items():
        t.add(_component(key), value, r.shares[key])
    t.add(_("decode step"), r.decode_flops, 1.0, style="total")
    t.notes.append(convention)
    tables.append(t)
    return tables


def decode_crossover_tables(r: DecodeCrossoverReport) -> list[Table]:
    t = Table(
        _(
            "{model}: where attention overtakes at decode time ({layer} layer, batch {batch})"
        ).format(model=r.model, layer=_layer_label(r.layer), batch=r.batch),
        [Column(_("crossover"), "text"), Column(_("context L"), "num"), Column(_("exact"), "text")],
    )  # fmt: skip
    for key, value in r.flops.items():
        label = _("{label} (FLOPs of one step)").format(label=_(CROSSOVER_LABELS[key]))
        t.add(label, value if value is not None else never(), r.flops_exact[key] or "")
    t.add(
        _("cache read = FFN weights read (bytes of one step)"),
        r.bytes_context if r.bytes_context is not None else never(),
        r.bytes_context_exact or "",
    )  # fmt: skip
    positions = None if r.max_context is None else r.max_context + 1
    t.notes += never_notes(r.never, dict(r.unbounded), "L", positions, r.stops_at)
    if r.bytes_context_exact is not None:
        t.notes.append(
            _(
                "Per layer: {per_token} cached elements per token and sequence; {weights} FFN "
                "weights read per step. Batch x context at the bytes crossover: {batch} x "
                "{context}."
            ).format(
                per_token=f"{r.kv_elements_per_token:,}",
                weights=f"{r.ffn_weights_per_step:,}",
                batch=r.batch,
                context=r.bytes_context_exact,
            )
        )
    else:
        t.notes.append(
            _(
                "Per layer: {per_token} cached elements per token and sequence; {weights} FFN "
                "weights read per step."
            ).format(
                per_token=f"{r.kv_elements_per_token:,}", weights=f"{r.ffn_weights_per_step:,}"
            )
        )
    t.notes.append(_(r.convention))  # DECODE_CROSSOVER_CONVENTION, marked where it is defined
    rows = sweep_table(
        _("{model}: one decode step of one {layer} layer over the context L (batch {batch})").format(
            model=r.model, layer=_layer_label(r.layer), batch=f"{r.batch:,}"
        ),
        "L", r.rows,
    )  # fmt: skip
    rows.notes.append(_("'at': the crossover that row's L is (vs ffn, proj, dense)."))
    if r.stops_at is not None:
        rows.notes.append(
            _("From L = {kept} on, the layer's window is full: the scores stop growing.").format(
                kept=f"{r.stops_at:,}"
            )
        )
    return [t, rows]


def generation_tables(r: GenerationReport) -> list[Table]:
    from ffn_calc.reports.inference import DECODE_CONVENTION, GENERATION_NOTE

    t = Table(
        by_count(
            r.new_tokens,
            _("{model}: generating {new} token after a {prompt}-token prompt (batch {batch})"),
            _("{model}: generating {new} tokens after a {prompt}-token prompt (batch {batch})"),
        ).format(model=r.model, new=f"{r.new_tokens:,}", prompt=f"{r.prompt:,}", batch=r.batch),
        [Column(_("part"), "text"), Column("MACs" if r.unit == "macs" else "FLOPs"), Column(_("share"), "pct")],
    )  # fmt: skip
    total = r.generation_flops
    t.add(_("prefill"), r.prefill_flops, r.prefill_flops / total)
    steps = by_count(r.decode_steps, _("{steps} decode step"), _("{steps} decode steps"))
    t.add(steps.format(steps=f"{r.decode_steps:,}"), r.decode_flops, r.decode_flops / total)
    t.add(_("generation"), total, 1.0, style="total")
    t.notes.append(_translated(r.convention, (GENERATION_NOTE, DECODE_CONVENTION, *FLOPS_PIECES)))
    return [t]


def memory_tables(r: MemoryReport) -> list[Table]:
    t = Table(
        _("{model}: weights in {dtype}").format(model=r.model, dtype=r.dtype),
        [Column(_("component"), "text"), Column(_("params")), Column(_("bytes"))],
    )
    for key, value in r.components.items():
        t.add(_component(key), value, r.component_bytes[key])
    t.add(_("weights"), r.total_params, r.weights_bytes, style="total")
    if r.dtype == "int4":
        t.notes.append(
            _("int4: each parameter tensor packs two weights to a byte, rounded up on its own "
              "(a tied tensor once); the rows sum to the total.")
        )  # fmt: skip
    if r.position_limit is not None and r.gpu_memory_bytes is None:
        t.notes.append(
            _("{model} takes at most {limit} tokens (its learned position table).").format(
                model=r.model, limit=f"{r.position_limit:,}"
            )
        )
    tables = [t]
    if r.gpu_memory_bytes is not None:
        f = Table(
            by_count(
                r.gpu_memory_bytes,
                _("{model}: what fits in {bytes} byte ({dtype})"),
                _("{model}: what fits in {bytes} bytes ({dtype})"),
            ).format(model=r.model, bytes=f"{r.gpu_memory_bytes:,}", dtype=r.dtype),
            [Column(_("question"), "text"), Column(_("answer"), "text")],
        )
        free = r.free_bytes if r.free_bytes is not None else _("none")
        f.add(_("left for the KV cache"), free)
        longest = _("longest context at batch {batch}").format(batch=r.batch)
        if r.max_context_bound == "none" and r.cache_stops_growing_at is not None:
            f.add(longest, _("any: the cache stops growing at {tokens} tokens").format(
                tokens=f"{r.cache_stops_growing_at:,}"))  # fmt: skip
        elif r.max_context is not None and r.max_context_bound == "position table":
            f.add(longest, _("{tokens} (the learned position table)").format(
                tokens=f"{r.max_context:,}"))  # fmt: skip
        elif r.max_context is not None:
            f.add(longest, r.max_context)
        if r.context is not None and (r.max_batch is not None or r.weights_fit is False):
            f.add(
                _("largest batch at context {context}").format(context=r.context),
                r.max_batch if r.max_batch is not None else 0,
            )
        if r.weights_fit is False:
            f.notes.append(
                by_count(
                    r.gpu_memory_bytes or 0,
                    _(
                        "The weights alone do not fit: {weights} bytes in {dtype} > {gpu} "
                        "byte; nothing is left for the KV cache."
                    ),
                    _(
                        "The weights alone do not fit: {weights} bytes in {dtype} > {gpu} "
                        "bytes; nothing is left for the KV cache."
                    ),
                ).format(
                    weights=f"{r.weights_bytes:,}", dtype=r.dtype, gpu=f"{r.gpu_memory_bytes:,}"
                )
            )
        if r.max_context_bound == "position table" and r.position_limit is not None:
            if r.max_context_memory is None:
                held = _("the memory alone would hold any context (the cache stops growing)")
            else:
                held = _("the memory alone would hold {tokens} tokens").format(
                    tokens=f"{r.max_context_memory:,}"
                )
            f.notes.append(
                _(
                    "Capped at the learned position table: {model} takes at most {limit} "
                    "tokens; {held}."
                ).format(model=r.model, limit=f"{r.position_limit:,}", held=held)
            )
        elif r.cache_stops_growing_at is not None and r.weights_fit:
            f.notes.append(
                _(
                    "Every layer keeps at most its window: the cache stops growing at {tokens} "
                    "tokens."
                ).format(tokens=f"{r.cache_stops_growing_at:,}")
            )
        f.notes.append(_(r.convention))  # MEMORY_CONVENTION, marked where it is defined
        tables.append(f)
    return tables


def _explain_act(x: ActivationTerm) -> str:
    return by_count(
        x.bytes,
        _("{name}: {formula} = {bytes} byte ({component})"),
        _("{name}: {formula} = {bytes} bytes ({component})"),
    ).format(
        name=_activation_term(x.shown_name()),
        formula=shown(x.shown_formula()),
        bytes=f"{x.bytes:,}",
        component=_component(x.component),
    )


def _training_kind(k: TrainingLayerKind) -> str:
    """ "decoder, MoE", "decoder, cross-attention", in the current language."""
    cross = [_kind("cross-attention")] if k.cross_attention else []
    return _listed([_stack(k.stack), *([_kind(k.kind)] if k.kind else []), *cross])


def _main_label(r: TrainingReport) -> str:
    """The main layer kind as decode_crossover's layer labels read: "decoder (MoE)"."""
    main = max(
        (k for k in r.layer_kinds if k.stack == r.layer_kinds[0].stack), key=lambda k: k.count
    )
    return f"{main.stack} ({main.kind})" if main.kind else main.stack


def training_tables(r: TrainingReport, explain: bool = False) -> list[Table]:
    par = _listed(
        [f"DP {r.dp}", f"TP {r.tp}", *([_("sequence parallel")] if r.sequence_parallel else [])]
    )
    t = Table(
        _(
            "{model}: training memory per GPU ({parallel}; recompute {recompute}; s = {seq_len}, "
            "micro-batch {micro_batch})"
        ).format(
            model=r.model,
            parallel=par,
            recompute=r.recompute,
            seq_len=f"{r.seq_len:,}",
            micro_batch=r.micro_batch,
        ),
        [Column(_("part"), "text"), Column(_("bytes")), Column(_("share"), "pct")],
    )
    states = _("model states ({bytes} bytes x {params} params)").format(
        bytes=r.bytes_per_param_exact, params=f"{r.params_per_gpu:,}"
    )
    t.add(states, r.model_states_bytes, r.model_states_bytes / r.total_bytes)
    for key, value in r.activation_components.items():
        label = _("activations: {component}").format(component=_component(key))
        t.add(label, value, value / r.total_bytes)
    t.add(_("total"), r.total_bytes, 1.0, style="total")
    t.notes.append(_("Recipe: {recipe}.").format(recipe=_(r.recipe_text)))
    if r.seq_len_lowered and r.position_limit is not None:
        t.notes.append(
            _(
                "s = {seq_len}, not the default 2,048: {model} takes at most {seq_len} tokens "
                "(its learned position table)."
            ).format(seq_len=f"{r.position_limit:,}", model=r.model)
        )
    if len(r.layer_kinds) > 1:
        for k in r.layer_kinds:
            t.notes.append(
                by_count(
                    k.count,
                    _("{kind} layer (x{count}): {bytes} bytes of activations."),
                    _("{kind} layers (x{count}): {bytes} bytes of activations each."),
                ).format(count=k.count, kind=_training_kind(k), bytes=f"{k.bytes:,}")
            )
        if r.score_crossover_exact is None:
            t.notes.append(_score_never(r))
        else:
            t.notes.append(
                _(
                    "The scores' activations (5as^2b) overtake the FFN's at s = {length} in one "
                    "{kind} layer (any micro-batch)."
                ).format(length=r.score_crossover_exact, kind=_layer_label(_main_label(r)))
            )
    elif r.score_crossover_exact is None:
        t.notes.append(
            by_count(
                r.layers,
                _("One layer stores {bytes} bytes of activations ({layers} layer)."),
                _("One layer stores {bytes} bytes of activations ({layers} layers)."),
            ).format(bytes=f"{r.activations_per_layer_bytes:,}", layers=r.layers)
            + " "
            + _score_never(r)
        )
    else:
        t.notes.append(
            by_count(
                r.layers,
                _(
                    "One layer stores {bytes} bytes of activations ({layers} layer). The "
                    "scores' activations (5as^2b) overtake the FFN's at s = {length} (any "
                    "micro-batch)."
                ),
                _(
                    "One layer stores {bytes} bytes of activations ({layers} layers). The "
                    "scores' activations (5as^2b) overtake the FFN's at s = {length} (any "
                    "micro-batch)."
                ),
            ).format(
                bytes=f"{r.activations_per_layer_bytes:,}",
                layers=r.layers,
                length=r.score_crossover_exact,
            )
        )
    if r.max_micro_batch is not None and r.gpu_memory_bytes is not None:
        t.notes.append(
            by_count(
                r.gpu_memory_bytes,
                _("Fits in {bytes} byte: micro-batch up to {micro_batch} at s = {seq_len}."),
                _("Fits in {bytes} bytes: micro-batch up to {micro_batch} at s = {seq_len}."),
            ).format(
                bytes=f"{r.gpu_memory_bytes:,}",
                micro_batch=f"{r.max_micro_batch:,}",
                seq_len=f"{r.seq_len:,}",
            )
        )
    if explain:
        if len(r.layer_kinds) > 1:
            for k in r.layer_kinds:
                t.notes.append(_("One layer, {kind}:").format(kind=_training_kind(k)))
                t.notes += [_explain_act(x) for x in k.terms]
        else:
            t.notes += [_explain_act(x) for x in r.activation_terms]
        t.notes.append(_("Outside the layers:"))
        t.notes += [_explain_act(x) for x in r.model_terms]
    t.notes.append(_(r.convention))  # training_report.CONVENTION, marked where it is defined
    sweep = Table(
        _("{model}: one layer's activations over s (micro-batch 1, this GPU)").format(
            model=r.model
        ),
        [Column("s"), Column(_("attention projections")), Column(_("attention scores")),
         Column("FFN"), Column(_("norms")), Column(_("scores : FFN"), "ratio")],
    )  # fmt: skip
    for row in r.rows:
        ffn = row.get("ffn", 0)
        scores = row.get("attention_scores", 0)
        sweep.add(row["seq_len"], row.get("attention_projections", 0), scores, ffn,
                  row.get("norm", 0), scores / ffn if ffn else None)  # fmt: skip
    if r.score_crossover_exact is None:
        sweep.notes.append(_score_never(r))
    else:
        if r.recompute != "none":
            reach = _("The scores' activations reach the FFN's at s = {length} (not stored: "
                      "recomputed).")  # fmt: skip
        else:
            reach = _("The scores' activations reach the FFN's at s = {length}.")
        sweep.notes.append(reach.format(length=r.score_crossover_exact))
    return [t, sweep]


def _score_never(r: TrainingReport) -> str:
    """The training crossover a learned position table keeps the model from reaching."""
    return _(
        "The scores' activations (5as^2b) would overtake the FFN's at s = {length}, past the "
        "learned position table ({limit} positions): never reached."
    ).format(length=r.score_crossover_unbounded_exact, limit=f"{r.position_limit or 0:,}")


def tables_for(report: object) -> list[Table] | None:
    """The tables a command draws for `report`, looked up by its type (what a notebook shows)."""
    name = type(report).__name__
    one = {
        "ParamsReport": "params_tables", "FlopsReport": "flops_tables",
        "CrossoverReport": "crossover_tables", "TensorsReport": "tensors_tables",
        "VerifyReport": "verify_tables", "CompareReport": "compare_tables",
        "ActivationsReport": "activation_tables", "SwigluReport": "swiglu_tables",
        "ExercisesReport": "exercise_tables", "ExerciseResult": "exercise_result_tables",
        "KvReport": "kv_tables", "DecodeReport": "decode_tables",
        "DecodeCrossoverReport": "decode_crossover_tables",
        "GenerationReport": "generation_tables", "MemoryReport": "memory_tables",
        "TrainingReport": "training_tables",
    }.get(name)  # fmt: skip
    if one is None:
        return None
    build: Callable[[object], list[Table]] = globals()[one]
    return build(report)
