"""Tables as plain data: what every text format (Rich, CSV, Markdown) draws.

Building the rows here keeps Rich in render.py alone, and lets CSV and Markdown output
run without importing it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Literal

from ffn_calc.report import CROSSOVER_LABELS

if TYPE_CHECKING:  # the report types only annotate: importing them would load every command
    from ffn_calc.activations import ActivationsReport
    from ffn_calc.comparison import CompareReport
    from ffn_calc.exercises import ExerciseResult, ExercisesReport
    from ffn_calc.inference_report import (
        DecodeCrossoverReport,
        DecodeReport,
        GenerationReport,
        KvReport,
        MemoryReport,
    )
    from ffn_calc.report import (
        CrossoverReport,
        CrossoverRow,
        FlopsReport,
        ParamsReport,
    )
    from ffn_calc.sizing import SwigluReport
    from ffn_calc.training_report import TrainingReport
    from ffn_calc.verify import TensorsReport, VerifyReport

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
    """A number that people read as `text` ("28.44x", "33.33%") and CSV holds as `value`."""

    value: int | float
    text: str


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


def human(n: float, unit: str = "") -> str:
    """124.4M, 1.2T: one decimal, in exact arithmetic, so any int works (10**400 too)."""
    if isinstance(n, float) and not math.isfinite(n):
        return f"{n:g} {unit}".rstrip()
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


PARAM_LABELS = {"attention": "attention", "ffn": "FFN", "norm": "norm"}


def params_tables(r: ParamsReport, explain: bool = False) -> list[Table]:
    tables: list[Table] = []
    for layer in r.layers:
        t = Table(
            f"{r.model}: one {layer.stack} layer{f', {layer.kind}' if layer.kind else ''} (x{layer.count})",
            [Column("term", "text"), Column("group", "text"), Column("params"), Column("share of layer", "pct")],
        )  # fmt: skip
        for term in layer.terms:
            t.add(term.name, PARAM_LABELS[term.group], term.value, term.value / layer.total)
        for group in ("attention", "ffn", "norm"):
            value = getattr(layer, group)
            t.add(f"{PARAM_LABELS[group]} total", "", value, value / layer.total, style="total")
        t.add("layer total", "", layer.total, 1.0, style="total")
        if explain:
            t.notes += [_explain(x.name, x.formula, x.numbers, x.value) for x in layer.terms]
        tables.append(t)
    t = Table(
        f"{r.model}: whole model",
        [Column("component", "text"), Column("params"), Column("share", "pct")],
    )
    for key, value in r.components.items():
        t.add(key, value, r.shares[key])
    t.add("total", r.total_params, 1.0, style="total")
    if r.active_params != r.total_params:
        t.add(
            "active (per token)", r.active_params, r.active_params / r.total_params, style="total"
        )
        t.add(
            "active without the input embedding", r.active_params_without_embedding,
            r.active_params_without_embedding / r.total_params,
        )  # fmt: skip
        t.notes.append(
            "Active: the total less, in every MoE layer, (n_experts - experts_per_token) x the "
            "parameters of one routed expert; routers, shared experts, dense layers, attention, "
            "norms, embeddings and the head all count. Some vendors leave the input embedding "
            "out (the row below it)."
        )
    if r.checkpoint_elements != r.total_params:
        t.notes.append(
            f"A released checkpoint stores {r.checkpoint_elements:,} elements: the parameters "
            f"and {r.checkpoint_elements - r.total_params:,} buffer elements (a routing-score "
            "bias that transformers keeps as a buffer)."
        )
    t.notes.append(
        f"Total {human(r.total_params)} parameters; FFN : attention = {r.ffn_to_attention:.3f}; "
        f"non-embedding {r.non_embedding_params:,}."
    )
    if explain:
        t.notes += [_explain(x.name, x.formula, x.numbers, x.value) for x in r.other_terms]
        t.notes += r.active_terms
    if r.source:
        t.notes.append(f"Source: {r.source}")
    if r.note:
        t.notes.append(f"Note: {r.note}")
    t.notes.append(
        "Tied weights count once; buffers (masks, rotary inv_freq) are not parameters; "
        "LayerNorm = weight + bias, RMSNorm = weight."
    )
    tables.append(t)
    return tables


def _explain(name: str, formula: str, numbers: str, value: int) -> str:
    if numbers == f"{value:,}":
        return f"{name}: {formula} = {value:,}"
    return f"{name}: {formula} = {numbers} = {value:,}"


def flops_tables(r: FlopsReport, explain: bool = False) -> list[Table]:
    unit = "MACs" if r.unit == "macs" else "FLOPs"
    tables: list[Table] = []
    for layer in r.layers:
        t = Table(
            f"{r.model}: one {layer.stack} layer{f', {layer.kind}' if layer.kind else ''} (x{layer.count}), forward {unit}",
            [Column("term", "text"), Column("component", "text"), Column(unit), Column("share of layer", "pct")],
        )  # fmt: skip
        for term in layer.terms:
            t.add(term.name, term.group, term.value, term.value / layer.total)
        for key in ("attention_projections", "attention_scores", "ffn"):
            value = getattr(layer, key)
            t.add(f"{key} total", "", value, value / layer.total, style="total")
        t.add("layer total", "", layer.total, 1.0, style="total")
        if explain:
            t.notes += [_explain(x.name, x.formula, x.numbers, x.value) for x in layer.terms]
        t.notes.append(r.convention)
        tables.append(t)
    shape = f"B={r.batch}, S={r.seq_len}" + (
        f", T={r.target_len}" if r.target_len is not None else ""
    )
    t = Table(
        f"{r.model}: whole model, {shape}",
        [Column("component", "text"), Column(f"forward {unit}"), Column("share", "pct")],
    )
    for key, value in r.components.items():
        t.add(key, value, r.shares[key])
    t.add("forward", r.forward_flops, 1.0, style="total")
    t.add("training (3 x forward)", r.training_flops, None, style="total")
    t.notes.append(
        f"Forward {human(r.forward_flops)} {unit}, {_per_token(r.flops_per_token)} {unit} per token "
        f"({r.tokens:,} tokens); training {human(r.training_flops)} {unit}."
    )
    t.notes.append(r.convention)
    tables.append(t)
    a = Table(
        "Rules of thumb against the exact figure",
        [Column("approximation", "text"), Column(unit), Column("exact"), Column("off by", "pct")],
    )  # fmt: skip
    for x in r.approximations:
        a.add(x.name, x.value, x.exact, x.error)
        a.notes.append(f"{x.name}: {x.formula}")
    a.notes.append("N: active parameters for MoE. Negative: the approximation undercounts.")
    tables.append(a)
    return tables


def _per_token(x: float) -> str:
    return f"{x:,}" if isinstance(x, int) else f"{x:,.2f}"


SHORT = {"attention_projections": "proj", "attention_scores": "scores", "ffn": "FFN"}
SHORT_MARKS = {
    v: k.removeprefix("scores_vs_").replace("projections", "proj")
    for k, v in CROSSOVER_LABELS.items()
}


def _short(dominant: str) -> str:
    return " = ".join(SHORT[k] for k in dominant.split(" = "))


def crossover_tables(r: CrossoverReport) -> list[Table]:
    t = Table(
        f"{r.model}: where the scores overtake ({r.layer} layer)",
        [Column("crossover", "text"), Column("S", "num"), Column("exact", "text")],
    )
    for key, value in r.crossover.items():
        t.add(f"{CROSSOVER_LABELS[key]} ({key})", value, r.exact[key])
    rows = sweep_table(f"{r.model}: one {r.layer} layer over S (batch 1)", "S", r.rows)
    rows.notes.append(r.convention + " 'at': the crossover that row's S is (vs ffn, proj, dense).")
    tables = [t, rows]
    if r.grid is not None:
        g = r.grid
        grid = Table(
            "scores : FFN per layer (rows S, columns d_model; >1: the scores dominate)",
            [Column("S", "int")] + [Column(f"d={d}", "ratio") for d in g.d_models],
        )
        for s, ratios in zip(g.seq_lens, g.ratios, strict=True):
            grid.add(s, *ratios, style="grid")
        grid.notes.append(
            "scores = FFN at S = "
            + ", ".join(f"{x:,}" if isinstance(x, int) else f"{x:,.1f}" for x in g.scores_vs_ffn)
            + " (per column)."
        )
        grid.notes.append(
            "d_ff per column: "
            + ", ".join(f"{d}->{f}" for d, f in zip(g.d_models, g.d_ff, strict=True))
            + ". Same d_ff / d_model ratio and head_dim as the model."
        )
        tables.append(grid)
    return tables


def sweep_table(title: str, symbol: str, sweep: list[CrossoverRow]) -> Table:
    """One row per length: each part's FLOPs, its share, the dominant part, the crossovers."""
    rows = Table(
        title,
        [
            Column(symbol, "num"), Column("projections", "human"), Column("scores", "human"),
            Column("FFN", "human"), Column("proj share", "pct"), Column("scores share", "pct"),
            Column("FFN share", "pct"), Column("dominant", "text"), Column("at", "text"),
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
        f"{r.model}: parameter tensors",
        [
            Column("name", "text"),
            Column("shape", "text"),
            Column("count"),
            Column("params"),
            Column("total params"),
            Column("component", "text"),
        ],
    )
    for x in r.tensors:
        shape = "[" + ", ".join(str(n) for n in x.shape) + "]"
        t.add(
            x.name,
            shape,
            x.count,
            x.params,
            x.total_params,
            x.component + (f" (tied to {x.tied_to})" if x.tied_to else ""),
        )
    t.add("total", "", sum(x.count for x in r.tensors), None, r.total_params, "", style="total")
    t.notes.append(
        "{a..b} in a name: one tensor for each index from a to b (layers, experts), as a shell "
        "expands it; count: the tensors a row stands for; params: one tensor's; total = count x "
        "params, 0 for a tied tensor (it counts once)."
    )
    t.notes.append("Shapes as stored (GPT-2's Conv1D: [in, out]; nn.Linear: [out, in]).")
    tables = [t]
    if r.matmuls is not None:
        m = Table(
            f"{r.model}: matmuls of one forward pass (batch 1, S={r.seq_len})",
            [Column("name", "text"), Column("component", "text"), Column("[m, k] x [k, n]", "text"), Column("times"), Column("FLOPs")],
        )  # fmt: skip
        for mm in r.matmuls:
            m.add(mm.name, mm.component, f"[{mm.m}, {mm.k}] x [{mm.k}, {mm.n}]", mm.count, mm.flops)
        m.add("total", "", "", None, sum(mm.flops for mm in r.matmuls), style="total")
        m.notes.append("times: over every layer in the name's range, batch element and head.")
        tables.append(m)
    return tables


def verify_tables(r: VerifyReport) -> list[Table]:
    tables: list[Table] = []
    for model in dict.fromkeys(c.model for c in r.checks):
        t = Table(
            f"{model}: closed form vs instantiation (FLOPs at batch {r.batch}, S={r.seq_len})",
            [Column("kind", "text"), Column("component", "text"), Column("closed form"), Column("instantiated"), Column("", "text")],
        )  # fmt: skip
        for c in r.checks:
            if c.model == model:
                t.add(c.kind, c.component, c.closed_form, c.inventory, "ok" if c.ok else "MISMATCH",
                      style="total" if c.component == "total" else "")  # fmt: skip
        tables.append(t)
    if r.checkpoint is not None:
        k = r.checkpoint
        t = Table(f"checkpoint {k.path}", [Column("check", "text"), Column("result", "text")])
        # Counts go in as numbers: grouped for people, plain in CSV.
        t.add("tensors in the file", k.tensors)
        t.add("parameters in the file", k.checkpoint_params)
        t.add("parameters of the model", k.expected_params)
        t.add("missing tensors", k.missing_count)
        if k.missing:
            t.add("missing names", ", ".join(k.missing))
        t.add("unexpected tensors", ", ".join(k.unexpected) or "none")
        t.add(
            "shape mismatches",
            "; ".join(
                f"{m.name}: expected {m.expected}, found {m.found}" for m in k.shape_mismatches
            )
            or "none",
        )
        t.add("buffers (not counted)", ", ".join(k.buffers) or "none")
        t.add("tied copies (not counted)", ", ".join(k.tied_copies) or "none")
        for dtype, n in k.bytes_by_dtype.items():
            t.add(f"bytes of {dtype} tensors", n)
        t.add("result", "ok" if k.ok else "MISMATCH", style="total")
        if any("{" in m for m in k.missing):
            t.notes.append("{a..b} in a name: each index from a to b.")
        tables.append(t)
    tables[-1].notes.append("All checks match." if r.ok else "Mismatch found: exit code 1.")
    return tables


COMPARE_FIELDS: list[tuple[str, str, Kind]] = [
    # (label, field of ComparedModel, kind); "heads": n_heads / n_kv_heads / head_dim
    ("family", "family", "text"),
    ("d_model", "d_model", "int"),
    ("d_ff", "d_ff", "int"),
    ("d_ff / d_model", "d_ff_ratio", "ratio"),
    ("FFN kind", "ffn_kind", "text"),
    ("heads / kv heads / head_dim", "heads", "num"),
    ("layers", "layers", "int"),
    ("attention params per layer", "attention_params_per_layer", "int"),
    ("FFN params per layer", "ffn_params_per_layer", "int"),
    ("FFN share of a layer", "ffn_share_of_layer", "pct"),
    ("FFN share of the model", "ffn_share_of_model", "pct"),
    ("total params", "total_params", "int"),
    ("active params", "active_params", "int"),
    ("forward FLOPs", "forward_flops", "int"),
    ("FLOPs per token", "flops_per_token", "num"),
    ("FFN share of FLOPs", "ffn_share_of_flops", "pct"),
    ("S: scores = FFN", "scores_vs_ffn", "num"),
    ("S: scores = projections", "scores_vs_projections", "num"),
    ("S: scores = projections + FFN", "scores_vs_dense", "num"),
]


def compare_tables(r: CompareReport) -> list[Table]:
    """One row per model (CSV); people read it turned, a column per model."""
    columns = [Column("model", "text")]
    for label, key, kind in COMPARE_FIELDS:
        if key == "heads":
            columns.append(Column(label, kind, only="people"))
            columns += [Column(n, only="csv") for n in ("heads", "kv heads", "head_dim")]
        else:
            columns.append(Column(label, kind))
    t = Table(f"Compared at S = {r.seq_len:,} (batch 1)", columns, side_by_side=True)
    for m in r.models:
        cells: list[object] = [m.model]
        for _, key, _ in COMPARE_FIELDS:
            if key == "heads":
                cells += [f"{m.n_heads} / {m.n_kv_heads} / {m.head_dim}",
                          m.n_heads, m.n_kv_heads, m.head_dim]  # fmt: skip
            elif key.startswith("scores_vs_"):
                cells.append(m.crossover[key])
            else:
                cells.append(getattr(m, key))
        t.add(*cells)
    t.notes.append(
        "The largest of each figure in bold green, the smallest in blue. Per layer: the first layer kind. FLOPs: forward, default convention; encoder-decoder models at T = S."
    )
    return [t]


def activation_tables(r: ActivationsReport) -> list[Table]:
    tables = []
    for title, cols in (
        ("FFN activations", ["relu", "gelu", "gelu_tanh", "silu"]),
        ("Their derivatives", ["d_relu", "d_gelu", "d_gelu_tanh", "d_silu"]),
    ):
        t = Table(
            title, [Column("x", "num", fmt="g")] + [Column(c, "num", fmt=".7f") for c in cols]
        )
        for row in r.rows:
            t.add(row.x, *(getattr(row, c) for c in cols))
        tables.append(t)
    tables[-1].notes.append(
        "GELU(x) = x Phi(x) (exact, erf); gelu_tanh = 0.5 x (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3))); "
        "SiLU = x sigmoid(x); ReLU'(0) = 0."
    )
    return tables


def swiglu_tables(r: SwigluReport) -> list[Table]:
    t = Table(
        f"SwiGLU sizing at d_model = {r.d_model:,}",
        [
            Column("FFN", "text"),
            Column("d_ff", "num"),
            Column("exact d_ff", "text"),
            Column("params (no biases)"),
            Column("vs plain 4x", "ratio"),
        ],
    )
    t.add("plain, 4 x d_model (2 matrices)", r.plain_d_ff, "", r.plain_params, 1.0)
    t.add(
        "gated at parity, 8/3 d_model (3 matrices)",
        r.parity_d_ff,
        r.parity_d_ff_exact if "/" in r.parity_d_ff_exact else "",
        r.plain_params,
        1.0,
    )
    mult = f" x {r.ffn_dim_multiplier:g}" if r.ffn_dim_multiplier is not None else ""
    t.add(
        f"gated, Llama's rule{mult}, multiple of {r.multiple_of:,}",
        r.llama_d_ff,
        "",
        r.llama_params,
        r.llama_vs_plain,
        style="total",
    )
    t.notes.append(
        "Llama's rule: int(2 x 4 d_model / 3), times --ffn-dim-multiplier if given, rounded up to a multiple of --multiple-of."
    )
    return [t]


def exercise_tables(r: ExercisesReport) -> list[Table]:
    t = Table(
        "Exercises", [Column("id", "text"), Column("question", "text"), Column("answer", "num")]
    )
    for e in r.exercises:
        t.add(e.id, e.question, Spelled(e.answer, e.answer_text))
    t.notes.append(
        "`ffn-calc exercise check ID ANSWER` checks an answer; `ffn-calc exercise solve ID` shows the work."
    )
    return [t]


def exercise_result_tables(r: ExerciseResult) -> list[Table]:
    t = Table(f"Exercise {r.id}", [Column("field", "text"), Column("value", "text")])
    t.add("question", r.question)
    for i, step in enumerate(r.steps, start=1):
        t.add(f"step {i}", step)
    t.add("answer", Spelled(r.answer, r.answer_text))
    if r.given is not None:
        t.add("given", r.given)
        t.add("correct", "yes" if r.correct else "no")
        if r.reason:
            t.add("why", r.reason)
    return [t]


def kv_tables(r: KvReport) -> list[Table]:
    t = Table(
        f"{r.model}: KV cache, batch {r.batch}, {r.context:,} tokens cached ({r.dtype})",
        [Column("layers", "text"), Column("count"), Column("cached tokens"),
         Column("elements per layer"), Column("bytes per layer"), Column("elements")],
    )  # fmt: skip
    for k in r.layers:
        label = f"{k.stack}" + (f", {k.kind}" if k.kind else "")
        t.add(label, k.count, k.cached_tokens, k.elements, k.bytes, k.count * k.elements)
    t.add("total", None, None, None, None, r.kv_elements, style="total")
    t.notes.append(
        f"{r.kv_elements:,} elements = {r.kv_bytes:,} bytes ({human(r.kv_bytes, 'B')}) in "
        f"{r.dtype}; {r.kv_elements_per_token_exact} elements per cached token."
    )
    t.notes.append(r.convention)
    return [t]


def decode_tables(r: DecodeReport) -> list[Table]:
    tables: list[Table] = []
    for layer in r.layers:
        t = Table(
            f"{r.model}: one decode step, one {layer.stack} layer"
            f"{f', {layer.kind}' if layer.kind else ''} (x{layer.count}), {r.context:,} cached",
            [Column("term", "text"), Column("component", "text"), Column("FLOPs"), Column("share of layer", "pct")],
        )  # fmt: skip
        for term in layer.terms:
            t.add(
                term.name, term.group, term.value, term.value / layer.total if layer.total else 0.0
            )
        t.add("layer total", "", layer.total, 1.0, style="total")
        tables.append(t)
    t = Table(
        f"{r.model}: one decode step, batch {r.batch}, {r.context:,} tokens cached",
        [Column("component", "text"), Column("FLOPs"), Column("share", "pct")],
    )
    for key, value in r.components.items():
        t.add(key, value, r.shares[key])
    t.add("decode step", r.decode_flops, 1.0, style="total")
    t.notes.append(r.convention)
    tables.append(t)
    return tables


def decode_crossover_tables(r: DecodeCrossoverReport) -> list[Table]:
    t = Table(
        f"{r.model}: where attention overtakes at decode time ({r.layer} layer, batch {r.batch})",
        [Column("crossover", "text"), Column("context L", "num"), Column("exact", "text")],
    )
    for key, value in r.flops.items():
        label = CROSSOVER_LABELS[key] + " (FLOPs of one step)"
        t.add(label, value if value is not None else "never", r.flops_exact[key] or "")
    t.add(
        "cache read = FFN weights read (bytes of one step)", r.bytes_context, r.bytes_context_exact
    )
    t.notes.append(
        f"Per layer: {r.kv_elements_per_token:,} cached elements per token and sequence; "
        f"{r.ffn_weights_per_step:,} FFN weights read per step. Batch x context at the bytes "
        f"crossover: {r.batch} x {r.bytes_context_exact}."
    )
    t.notes.append(r.convention)
    rows = sweep_table(
        f"{r.model}: one decode step of one {r.layer} layer over the context L (batch 1)",
        "L", r.rows,
    )  # fmt: skip
    rows.notes.append("'at': the crossover that row's L is (vs ffn, proj, dense).")
    return [t, rows]


def generation_tables(r: GenerationReport) -> list[Table]:
    t = Table(
        f"{r.model}: generating {r.new_tokens:,} tokens after a {r.prompt:,}-token prompt "
        f"(batch {r.batch})",
        [Column("part", "text"), Column("FLOPs"), Column("share", "pct")],
    )
    total = r.generation_flops
    t.add("prefill", r.prefill_flops, r.prefill_flops / total)
    t.add(f"{r.decode_steps:,} decode steps", r.decode_flops, r.decode_flops / total)
    t.add("generation", total, 1.0, style="total")
    t.notes.append(r.convention)
    return [t]


def memory_tables(r: MemoryReport) -> list[Table]:
    t = Table(
        f"{r.model}: weights in {r.dtype}",
        [Column("component", "text"), Column("params"), Column("bytes")],
    )
    for key, value in r.components.items():
        t.add(key, value, r.component_bytes[key])
    t.add("weights", r.total_params, r.weights_bytes, style="total")
    tables = [t]
    if r.gpu_memory_bytes is not None:
        f = Table(
            f"{r.model}: what fits in {r.gpu_memory_bytes:,} bytes ({r.dtype})",
            [Column("question", "text"), Column("answer", "text")],
        )
        f.add("left for the KV cache", r.free_bytes if r.free_bytes is not None else "none")
        if r.max_context is not None:
            f.add(f"longest context at batch {r.batch}", r.max_context)
        if r.max_batch is not None:
            f.add(f"largest batch at context {r.context}", r.max_batch)
        f.notes.append(r.convention)
        tables.append(f)
    return tables


def training_tables(r: TrainingReport, explain: bool = False) -> list[Table]:
    par = f"DP {r.dp}, TP {r.tp}" + (", sequence parallel" if r.sequence_parallel else "")
    t = Table(
        f"{r.model}: training memory per GPU ({par}; recompute {r.recompute}; "
        f"s = {r.seq_len:,}, micro-batch {r.micro_batch})",
        [Column("part", "text"), Column("bytes"), Column("share", "pct")],
    )
    t.add(f"model states ({r.bytes_per_param_exact} bytes x {r.params_per_gpu:,} params)",
          r.model_states_bytes, r.model_states_bytes / r.total_bytes)  # fmt: skip
    for key, value in r.activation_components.items():
        t.add(f"activations: {key}", value, value / r.total_bytes)
    t.add("total", r.total_bytes, 1.0, style="total")
    t.notes.append(f"Recipe: {r.recipe_text}.")
    t.notes.append(
        f"One layer stores {r.activations_per_layer_bytes:,} bytes of activations ({r.layers} "
        f"layers). The scores' activations (5as^2b) overtake the FFN's at s = "
        f"{r.score_crossover_exact} (any micro-batch)."
    )
    if r.max_micro_batch is not None and r.gpu_memory_bytes is not None:
        t.notes.append(
            f"Fits in {r.gpu_memory_bytes:,} bytes: micro-batch up to {r.max_micro_batch:,} at "
            f"s = {r.seq_len:,}."
        )
    if explain:
        t.notes += [f"{x.name}: {x.formula} = {x.bytes:,} bytes ({x.component})"
                    for x in r.activation_terms]  # fmt: skip
    t.notes.append(r.convention)
    sweep = Table(
        f"{r.model}: one layer's activations over s (micro-batch 1, this GPU)",
        [Column("s"), Column("attention projections"), Column("attention scores"),
         Column("FFN"), Column("norms"), Column("scores : FFN", "ratio")],
    )  # fmt: skip
    for row in r.rows:
        ffn = row.get("ffn", 0)
        scores = row.get("attention_scores", 0)
        sweep.add(row["seq_len"], row.get("attention_projections", 0), scores, ffn,
                  row.get("norm", 0), scores / ffn if ffn else None)  # fmt: skip
    sweep.notes.append(
        f"The scores' activations reach the FFN's at s = {r.score_crossover_exact}"
        + (" (not stored: recomputed)." if r.recompute != "none" else ".")
    )
    return [t, sweep]


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
