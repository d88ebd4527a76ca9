"""The answer to `ffn-calc crossover`: the sequence length where attention's S^2 scores overtake the
FFN and the projections, and the grid over d_model and S."""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

from pydantic import Field, PrivateAttr

from ffn_calc.counts import flops as fl
from ffn_calc.counts import reach as rc
from ffn_calc.counts.grid import scaled, sweep_lengths
from ffn_calc.errors import UsageError
from ffn_calc.i18n.translate import N_, _, say
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.layer_kinds import LayerKind, with_stack
from ffn_calc.reports.base import (
    KindResult,
    LayerResult,
    Number,
    Result,
    Stated,
    english,
    exact,
    num,
    share,
)
from ffn_calc.reports.marks import CAUSAL_PAIRS as CAUSAL_PAIRS
from ffn_calc.reports.marks import CROSSOVER_LABELS as CROSSOVER_LABELS


class CrossoverRow(Result):
    seq_len: Number
    attention_projections: Number
    attention_scores: Number
    ffn: Number
    shares: dict[str, float]
    dominant: str
    marks: list[str]
    exact: dict[str, str] = Field(description="seq_len and each term as an exact fraction")
    # `dominant` and `marks` as keys (not in JSON), for a view: the parts that dominate
    # ("attention_scores", or two that tie) and the crossovers the row is ("scores_vs_ffn").
    _dominant: tuple[str, ...] = PrivateAttr(())
    _marks: tuple[str, ...] | None = PrivateAttr(None)

    @classmethod
    def of(cls, s: Fraction, parts: dict[str, Fraction], marks: list[str]) -> CrossoverRow:
        """The row at length `s` of one layer's `parts` (FLOPs per component), which is the
        crossovers `marks` (keys of CROSSOVER_LABELS)."""
        layer = sum(parts.values())
        top = max(parts.values())
        dominant = tuple(k for k, v in parts.items() if v == top)
        row = cls(
            seq_len=num(s), attention_projections=num(parts["attention_projections"]),
            attention_scores=num(parts["attention_scores"]), ffn=num(parts["ffn"]),
            shares={k: share(v, layer) for k, v in parts.items()},
            dominant=" = ".join(dominant), marks=[CROSSOVER_LABELS[m] for m in marks],
            exact={"seq_len": exact(s), **{k: exact(v) for k, v in parts.items()}},
        )  # fmt: skip
        row._dominant, row._marks = dominant, tuple(marks)
        return row

    def dominant_parts(self) -> tuple[str, ...]:
        """The components that dominate (a row read back from JSON: from its exact values)."""
        if self._dominant:
            return self._dominant
        parts = {k: Fraction(v) for k, v in self.exact.items() if k != "seq_len"}
        return tuple(k for k, v in parts.items() if v == max(parts.values()))

    def crossovers(self) -> tuple[str, ...]:
        """The crossovers this row's length is, as keys (read back from JSON: by label)."""
        if self._marks is not None:
            return self._marks
        return tuple(k for k, label in CROSSOVER_LABELS.items() if label in self.marks)


class GridReport(Result):
    causal: bool = False
    d_models: list[int]
    d_ff: list[int]
    seq_lens: list[int]
    ratios: list[list[float]] = Field(description="scores : FFN per [seq_len][d_model]")
    scores_vs_ffn: list[Number]
    scores_vs_ffn_exact: list[str]


class KindCrossover(KindResult):
    """One layer kind's own crossovers in a hybrid (one layer of the kind)."""

    stack: str
    kind: str
    count: int
    mixer: str = Field(description="the kind's token mixer (full, mamba2, gated_deltanet, ...)")
    crossover: dict[str, Number | None] = Field(
        description="the S (--decode: the context L) where one layer of this kind reaches "
        "each crossover (null: never, `never` says why)"
    )
    exact: dict[str, str | None]
    never: dict[str, str] = Field(
        {}, description="why never: 'mixer' (the kind's token mixer is linear in the length: "
        "no score FLOPs grow with it), 'no ffn' (the layer has no FFN), 'positions', 'window', "
        "'slower' (as the model's `never`)",
    )  # fmt: skip
    unbounded: dict[str, Number] = Field({})


def kind_crossover(
    stack: str, kind: LayerKind, count: int, mixer: str,
    points: dict[str, Fraction | None], never: dict[str, str], unbounded: dict[str, Fraction],
) -> KindCrossover:  # fmt: skip
    return KindCrossover(
        stack=stack, kind=str(kind), count=count, mixer=mixer,
        crossover={k: None if v is None else num(v) for k, v in points.items()},
        exact={k: None if v is None else exact(v) for k, v in points.items()},
        never=never, unbounded={k: num(v) for k, v in unbounded.items()},
    ).with_kind(kind)  # fmt: skip


HYBRID_CONVENTION = N_(
    "The whole model, batch 1, FLOPs of the whole sequence: the scores of every attention "
    "layer against the FFNs and projections of every layer. Projections and FFN grow with S, "
    "the scores (QK^T + AV) with S^2; the other token mixers' own FLOPs grow with S like the "
    "FFN's and are left out of the parts. Each layer kind's own crossovers are listed apart."
)


class CrossoverReport(Stated, LayerResult):
    view: ClassVar[str] = "ffn_calc.views.crossover:crossover_tables"

    model: str
    layer: str
    causal: bool
    crossover: dict[str, Number | None] = Field(
        description="the S where one layer's scores reach the FFN, the projections and both "
        "(null: never reached, `never` says why)"
    )
    exact: dict[str, str | None]
    never: dict[str, str] = Field(
        {}, description="why a crossover is never reached: 'positions' (past the learned "
        "position table: S > max_seq_len)",
    )  # fmt: skip
    unbounded: dict[str, Number] = Field(
        {}, description="a crossover past the position table: the S the formula gives"
    )
    unbounded_exact: dict[str, str] = Field({})
    max_seq_len: int | None = Field(
        None, description="the longest sequence a learned position table allows"
    )
    rows: list[CrossoverRow]
    grid: GridReport | None = None
    kinds: list[KindCrossover] | None = Field(
        None, exclude_if=lambda v: v is None,
        description="a hybrid (only then in JSON): each layer kind's own crossovers; the "
        "top-level ones are the whole model's",
    )  # fmt: skip
    convention: str


CROSSOVER_CONVENTION = N_(
    "One layer, batch 1, FLOPs of the whole sequence. Projections and FFN grow with S, the "
    "scores (QK^T + AV) with S^2."
)


POSITIONS_NOTE = N_(
    "A crossover past the model's learned position table (S at most its positions) is never "
    "reached: null, with the formula's value under `unbounded`."
)


def _row(pt: fl.PerToken, s: Fraction, causal: bool, marks: list[str]) -> CrossoverRow:
    parts = {
        "attention_projections": pt.projections * s,
        "attention_scores": pt.scores(s, causal) * s,
        "ffn": pt.ffn * s,
    }
    return CrossoverRow.of(s, parts, marks)


def crossover_report(
    cfg: ModelConfig, causal: bool = False, grid: GridReport | None = None
) -> CrossoverReport:
    if causal and fl.crossover_layer(cfg).stack == "encoder":
        raise UsageError(
            _(
                "--causal applies to decoder self-attention; the crossover describes {model}'s "
                "encoder layer, whose attention sees every token."
            ).format(model=cfg.name)
        )
    pt = fl.per_token(cfg)
    points, past = fl.reached_crossovers(cfg, causal)
    limit = fl.crossover_limit(cfg)
    found = [v for v in points.values() if v is not None and v > 0]
    lengths: dict[Fraction, list[str]] = {
        Fraction(s): [] for s in sweep_lengths(found or [Fraction(limit or 1)])
    }
    for key, s in points.items():
        if s is not None and s > 0:
            lengths.setdefault(s, []).append(key)
    if limit is not None and any(s > limit for s in lengths):  # no row the model cannot run
        lengths = {s: m for s, m in lengths.items() if s <= limit}
        lengths.setdefault(Fraction(limit), [])
    rows = [_row(pt, s, causal, lengths[s]) for s in sorted(lengths)]
    first = HYBRID_CONVENTION if cfg.layer_mixers else CROSSOVER_CONVENTION
    stated = [say(first)] + [say(s) for s in fl.indexer_conventions(cfg)]
    if causal:
        stated.append(say(CAUSAL_PAIRS))
    if limit is not None:
        stated.append(say(POSITIONS_NOTE))
    layer = fl.crossover_layer(cfg)
    kinds = None
    if cfg.layer_mixers:
        kinds = [
            kind_crossover(k.stack, k.kind, k.count, k.mixer, k.points, k.never, k.unbounded)
            for k in rc.kind_crossovers(cfg, causal)
        ]
    return (
        CrossoverReport(
            model=cfg.name,
            kinds=kinds,
            layer=with_stack(layer.stack, layer.kind),
            causal=causal,
            crossover={k: None if v is None else num(v) for k, v in points.items()},
            exact={k: None if v is None else exact(v) for k, v in points.items()},
            never=dict.fromkeys(past, "positions"),
            unbounded={k: num(v) for k, v in past.items()},
            unbounded_exact={k: exact(v) for k, v in past.items()},
            max_seq_len=limit,
            rows=rows,
            grid=grid,
            convention=english(stated),
        )
        .stated(stated)
        .with_layer(layer.stack, layer.kind)
    )


# The grid `crossover --grid` draws: d_model from 256 to 16,384, S from 64 to 131,072.
GRID_D_MODELS = [256, 512, 1024, 2048, 4096, 8192, 16384]


GRID_SEQ_LENS = [2**k for k in range(6, 18)]


def grid_report(
    cfg: ModelConfig, d_models: list[int], seq_lens: list[int], causal: bool = False
) -> GridReport:
    """scores : FFN of one layer at each (S, d_model), the model's d_ff ratio and head layout;
    causal: the scores over the S(S+1)/2 visible pairs, as the crossover with --causal.
    A model with no crossover is refused as itself, not as one of its widths."""
    fl.check_linear_scores(cfg)
    widths = [scaled(cfg, d) for d in d_models]
    pts = [fl.per_token(c) for c in widths]
    ratios = [[share(p.scores(s, causal), p.ffn) for p in pts] for s in seq_lens]
    return GridReport(
        causal=causal, d_models=d_models, d_ff=[c.d_ff for c in widths], seq_lens=seq_lens,
        ratios=ratios, scores_vs_ffn=[num(fl.solve(p, p.ffn, causal)) for p in pts],
        scores_vs_ffn_exact=[exact(fl.solve(p, p.ffn, causal)) for p in pts],
    )  # fmt: skip
