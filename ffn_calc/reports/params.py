"""Result models: what `--format json` dumps, and what the renderers draw.

Builders here turn a ModelConfig into reports by calling the pure counting functions;
nothing is printed. Integers stay exact; shares are floats in [0, 1].
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from pydantic import Field, PrivateAttr, SerializerFunctionWrapHandler, model_serializer

from ffn_calc.counts import flops as fl
from ffn_calc.counts import params as pm
from ffn_calc.counts.terms import Term
from ffn_calc.counts.totals import param_components
from ffn_calc.errors import UsageError
from ffn_calc.i18n.translate import N_, Text, _
from ffn_calc.model.config import ModelConfig
from ffn_calc.reports.base import Result

Number = int | float


def num(x: Fraction | int) -> Number:
    """An exact integer when the value is one, else the nearest float."""
    x = Fraction(x)
    return int(x) if x.denominator == 1 else float(x)


def exact(x: Fraction | int) -> str:
    """The exact value as text: "284812800", or a fraction in lowest terms, "32768/3"."""
    return str(Fraction(x))


def share(part: int | Fraction, whole: int | Fraction) -> float:
    return float(Fraction(part) / Fraction(whole)) if whole else 0.0


class TermReport(Result):
    name: str
    group: str
    formula: str
    numbers: str
    value: int

    @classmethod
    def of(cls, t: Term, macs: bool = False) -> TermReport:
        """The term as counted; in multiply-adds, the FLOP term halved (every one is even)."""
        if not macs:
            return cls(
                name=t.name, group=t.group, formula=t.formula, numbers=t.numbers, value=t.value
            )
        if t.factors[0] == 2 and t.formula.startswith("2 x "):  # drop the 2 FLOPs per MAC
            half = Term(t.name, t.formula.removeprefix("2 x "), t.factors[1:], t.group)
            return cls.of(half)
        return cls(name=t.name, group=t.group, formula=f"({t.formula}) / 2",
                   numbers=f"({t.numbers}) / 2", value=t.value // 2)  # fmt: skip


class ParamLayer(Result):
    stack: str
    kind: str = Field("", description="'' for a stack of one kind; 'dense FFN' / 'MoE'")
    count: int
    attention: int
    ffn: int
    norm: int
    total: int
    terms: list[TermReport]


class ParamsReport(Result):
    """The counts of `ffn-calc params`. From params_report, the totals come from the closed
    form (ffn_calc/counts/totals.py) and the term lists (`layers`, `other_terms`, `active_terms`) are
    built from the model when first read or dumped: a loop that reads `total_params` pays for
    the sums only. The JSON is the same either way."""

    model: str
    source: str | None
    note: str | None = Field(None, description="a convention stated with the counts")
    total_params: int
    active_params: int
    active_params_without_embedding: int = Field(
        description="active_params less the input embedding (how some vendors quote it)"
    )
    checkpoint_elements: int = Field(
        description="elements a complete checkpoint stores: the parameters plus stored buffers"
    )
    non_embedding_params: int
    components: dict[str, int]
    shares: dict[str, float]
    ffn_to_attention: float = Field(description="FFN parameters / attention parameters")
    layers: list[ParamLayer]
    other_terms: list[TermReport]
    active_terms: list[str] = Field(description="how active_params adds up (MoE)")
    # The same as messages (not in JSON), for a view to show in the reader's language. An
    # immutable default: a default_factory makes Pydantic inspect the factory's signature,
    # which for a builtin such as `list` costs milliseconds at start-up.
    _active_lines: tuple[Text, ...] = PrivateAttr(())
    # The model whose term lists are still to build (None once built, or for a report
    # validated from JSON).
    _terms_of: ModelConfig | None = PrivateAttr(None)

    def active_lines(self) -> list[str | Text]:
        """active_terms as messages (English strings for a report read back from JSON)."""
        self._build_terms()
        return list(self._active_lines) if self._active_lines else list(self.active_terms)

    def _build_terms(self) -> None:
        """Build the term lists still missing, in their places in the field order (a dump
        follows the order of the instance's __dict__)."""
        private = self.__pydantic_private__
        cfg = None if private is None else private.get("_terms_of")
        if cfg is None or private is None:
            return
        built = _param_terms(cfg)
        values = self.__dict__
        ordered = {k: values[k] if k in values else built[k] for k in type(self).model_fields}
        values.clear()
        values.update(ordered)
        private["_active_lines"] = built["_active_lines"]
        private["_terms_of"] = None

    if not TYPE_CHECKING:  # mypy keeps checking attribute names

        def __getattr__(self, name: str) -> Any:
            if name in _TERM_FIELDS:
                self._build_terms()
                if name in self.__dict__:
                    return self.__dict__[name]
            return super().__getattr__(name)

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> Any:
        self._build_terms()
        return handler(self)

    def __eq__(self, other: object) -> bool:
        self._build_terms()
        if isinstance(other, ParamsReport):
            other._build_terms()
        return super().__eq__(other)

    def __iter__(self) -> Any:
        self._build_terms()
        return super().__iter__()

    def __repr_args__(self) -> Any:
        self._build_terms()
        return super().__repr_args__()


_TERM_FIELDS = frozenset({"layers", "other_terms", "active_terms"})


def _param_terms(cfg: ModelConfig) -> dict[str, Any]:
    """A ParamsReport's term lists (and its active lines as messages): what --explain and the
    tables read."""
    layers = [
        ParamLayer(
            stack=layer.stack, kind=layer.kind, count=layer.count,
            attention=layer.group("attention"),
            ffn=layer.group("ffn"), norm=layer.group("norm"), total=layer.total,
            terms=[TermReport.of(t) for t in layer.terms],
        )
        for layer in pm.layer_counts(cfg)
    ]  # fmt: skip
    active = pm.active_lines(cfg)
    return {
        "layers": layers,
        "other_terms": [TermReport.of(t) for t in pm.model_terms(cfg)],
        "active_terms": [str(line) for line in active],
        "_active_lines": tuple(active),
    }


def _ratio(part: int, whole: int) -> float:
    """share() for integers: int / int is the correctly rounded quotient, as Fraction's float."""
    return part / whole if whole else 0.0


def params_report(cfg: ModelConfig) -> ParamsReport:
    comps = param_components(cfg)  # == pm.components(cfg), without building the terms
    tot = sum(comps.values())
    idle = pm.idle_params(cfg)
    fields: dict[str, Any] = dict(
        model=cfg.name,
        source=cfg.source,
        note=cfg.note,
        total_params=tot,
        active_params=tot - idle,
        active_params_without_embedding=tot - idle - comps["embedding"],
        checkpoint_elements=tot + pm.stored_buffers(cfg),
        non_embedding_params=tot - comps["embedding"] - comps["lm_head"],
        components=comps,
        shares={k: _ratio(v, tot) for k, v in comps.items()},
        ffn_to_attention=_ratio(comps["ffn"], comps["attention"]),
    )
    # Every field counts as set (the term lists too, built when read or dumped).
    report = ParamsReport.model_construct(_fields_set=set(_PARAMS_FIELDS), **fields)
    report._terms_of = cfg
    return report


_PARAMS_FIELDS = tuple(ParamsReport.model_fields)


class FlopLayer(Result):
    stack: str
    kind: str = ""
    count: int
    attention_projections: int
    attention_scores: int
    ffn: int
    total: int
    terms: list[TermReport]


class Approximation(Result):
    name: str
    formula: str
    value: int
    exact: int
    error: float = Field(description="(approximation - exact) / exact")


class FlopsReport(Result):
    model: str
    batch: int
    seq_len: int
    target_len: int | None
    unit: str
    causal: bool
    lm_head_counted: bool
    tokens: int
    forward_flops: int
    training_flops: int
    flops_per_token: Number = Field(description="forward / tokens: an int when exact")
    flops_per_token_exact: str = Field(description="forward / tokens as an exact fraction")
    components: dict[str, int]
    shares: dict[str, float]
    layers: list[FlopLayer]
    approximations: list[Approximation]
    convention: str


# The sentences a FlopsReport's convention is made of (JSON: English; the tables translate
# each, see views._translated).
MACS_NOTE = N_("Unit: multiply-adds (MACs) = FLOPs / 2.")
CAUSAL_NOTE = N_("--causal: decoder self-attention scores over the S(S+1)/2 visible pairs.")
NO_LM_HEAD_NOTE = N_("--no-lm-head: the output projection is left out.")
FLOPS_PIECES = (fl.CONVENTION, MACS_NOTE, CAUSAL_NOTE, NO_LM_HEAD_NOTE)


def check_workload(cfg: ModelConfig, w: fl.Workload) -> None:
    """Refuse the workload options that would change nothing for this model."""
    if w.target_len is not None and cfg.architecture != "encoder-decoder":
        raise UsageError(
            _("--target-len applies to encoder-decoder models; {model} is {architecture}.").format(
                model=cfg.name, architecture=cfg.architecture
            )
        )
    if w.causal and not cfg.has_decoder:
        raise UsageError(
            _(
                "--causal applies to decoder self-attention; {model} is encoder-only: its "
                "attention sees every token."
            ).format(model=cfg.name)
        )
    if not w.lm_head and not cfg.has_lm_head:
        raise UsageError(
            _("--no-lm-head: {model} has no LM head to leave out.").format(model=cfg.name)
        )


def flops_report(cfg: ModelConfig, w: fl.Workload, unit: str = "flops") -> FlopsReport:
    check_workload(cfg, w)
    fl.check_lengths(cfg, w)
    div = 2 if unit == "macs" else 1  # every term carries the factor 2: exact
    comps = {k: v // div for k, v in fl.flop_components(cfg, w).items()}
    fwd = sum(comps.values())
    layers = [
        FlopLayer(
            stack=layer.stack, kind=layer.kind, count=layer.count,
            attention_projections=layer.group("attention_projections") // div,
            attention_scores=layer.group("attention_scores") // div,
            ffn=layer.group("ffn") // div, total=layer.total // div,
            terms=[TermReport.of(t, macs=div == 2) for t in layer.terms],
        )
        for layer in fl.layer_flops(cfg, w)
    ]  # fmt: skip
    t = w.target_len if w.target_len is not None else w.seq_len
    tokens = w.batch * (w.seq_len + t if cfg.architecture == "encoder-decoder" else w.seq_len)
    convention = fl.CONVENTION
    if unit == "macs":
        convention = MACS_NOTE + " " + convention
    if w.causal:
        convention += " " + CAUSAL_NOTE
    if not w.lm_head:
        convention += " " + NO_LM_HEAD_NOTE
    return FlopsReport(
        model=cfg.name, batch=w.batch, seq_len=w.seq_len,
        target_len=w.target_len if cfg.architecture == "encoder-decoder" else None,
        unit=unit, causal=w.causal, lm_head_counted="lm_head" in comps and w.lm_head and cfg.has_lm_head,
        tokens=tokens, forward_flops=fwd, training_flops=3 * fwd,
        flops_per_token=num(Fraction(fwd, tokens)), flops_per_token_exact=exact(Fraction(fwd, tokens)),
        components=comps,
        shares={k: share(v, fwd) for k, v in comps.items()},
        layers=layers, approximations=_approximations(cfg, w, fwd * div, div, tokens),
        convention=convention,
    )  # fmt: skip


def _approximations(
    cfg: ModelConfig, w: fl.Workload, exact_flops: int, div: int, tokens: int
) -> list[Approximation]:
    """Rules of thumb next to the exact figure (N: active parameters for MoE)."""
    idle = pm.idle_params(cfg)
    n, n_ne = pm.total_params(cfg) - idle, pm.non_embedding_params(cfg) - idle
    layers = cfg.encoder_layers + cfg.decoder_layers
    d, s = cfg.d_model, w.seq_len
    h, q = cfg.n_heads, cfg.head_size
    rows = [
        (
            N_("2N x tokens (forward)"),
            N_("2 x N x tokens, N = all parameters"),
            2 * n * tokens,
            exact_flops,
        ),
        (N_("6N x tokens (training)"), N_("6 x N x tokens"), 6 * n * tokens, 3 * exact_flops),
        (
            N_("Kaplan et al. 2020 (forward)"),
            N_("(2 N_ne + 2 n_layer n_ctx d_model) x tokens, N_ne = non-embedding parameters"),
            (2 * n_ne + 2 * layers * s * d) * tokens,
            exact_flops,
        ),
        (
            N_("PaLM, Chowdhery et al. 2022 (training)"),
            N_("(6 N_ne + 12 L H Q T) x tokens, H heads, Q head_dim, T = S"),
            (6 * n_ne + 12 * layers * h * q * s) * tokens,
            3 * exact_flops,
        ),
    ]
    return [
        Approximation(
            name=name, formula=formula, value=value // div, exact=ref // div,
            error=share(value - ref, ref),
        )
        for name, formula, value, ref in rows
    ]  # fmt: skip


class CrossoverRow(Result):
    seq_len: Number
    attention_projections: Number
    attention_scores: Number
    ffn: Number
    shares: dict[str, float]
    dominant: str
    marks: list[str]
    exact: dict[str, str] = Field(description="seq_len and each term as an exact fraction")


class GridReport(Result):
    causal: bool = False
    d_models: list[int]
    d_ff: list[int]
    seq_lens: list[int]
    ratios: list[list[float]] = Field(description="scores : FFN per [seq_len][d_model]")
    scores_vs_ffn: list[Number]
    scores_vs_ffn_exact: list[str]


class CrossoverReport(Result):
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
    convention: str


# Also the marks of CrossoverRow (JSON: English); the tables translate them.
CROSSOVER_LABELS = {
    "scores_vs_ffn": N_("scores = FFN"),
    "scores_vs_projections": N_("scores = projections"),
    "scores_vs_dense": N_("scores = projections + FFN"),
}
CROSSOVER_CONVENTION = N_(
    "One layer, batch 1, FLOPs of the whole sequence. Projections and FFN grow with S, the "
    "scores (QK^T + AV) with S^2."
)
CAUSAL_PAIRS = N_("Causal: scores over S(S+1)/2 pairs.")
POSITIONS_NOTE = N_(
    "A crossover past the model's learned position table (S at most its positions) is never "
    "reached: null, with the formula's value under `unbounded`."
)


def _row(pt: fl.PerToken, s: Fraction, causal: bool, marks: list[str]) -> CrossoverRow:
    proj, ffn = pt.projections * s, pt.ffn * s
    scores = pt.scores(s, causal) * s
    layer = proj + ffn + scores
    parts = {"attention_projections": proj, "attention_scores": scores, "ffn": ffn}
    return CrossoverRow(
        seq_len=num(s), attention_projections=num(proj), attention_scores=num(scores),
        ffn=num(ffn), shares={k: share(v, layer) for k, v in parts.items()},
        dominant=" = ".join(k for k, v in parts.items() if v == max(parts.values())),
        marks=marks, exact={"seq_len": exact(s), **{k: exact(v) for k, v in parts.items()}},
    )  # fmt: skip


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
    limit = cfg.position_limit
    found = [v for v in points.values() if v is not None and v > 0]
    lengths: dict[Fraction, list[str]] = {
        Fraction(s): [] for s in fl.sweep_lengths(found or [Fraction(limit or 1)])
    }
    for key, s in points.items():
        if s is not None and s > 0:
            lengths.setdefault(s, []).append(CROSSOVER_LABELS[key])
    if limit is not None and any(s > limit for s in lengths):  # no row the model cannot run
        lengths = {s: m for s, m in lengths.items() if s <= limit}
        lengths.setdefault(Fraction(limit), [])
    rows = [_row(pt, s, causal, lengths[s]) for s in sorted(lengths)]
    convention = CROSSOVER_CONVENTION + (" " + CAUSAL_PAIRS if causal else "")
    if limit is not None:
        convention += " " + POSITIONS_NOTE
    return CrossoverReport(
        model=cfg.name,
        layer=_layer_label(fl.crossover_layer(cfg)),
        causal=causal,
        crossover={k: None if v is None else num(v) for k, v in points.items()},
        exact={k: None if v is None else exact(v) for k, v in points.items()},
        never=dict.fromkeys(past, "positions"),
        unbounded={k: num(v) for k, v in past.items()},
        unbounded_exact={k: exact(v) for k, v in past.items()},
        max_seq_len=limit,
        rows=rows,
        grid=grid,
        convention=convention,
    )


def _layer_label(layer: fl.LayerFlops) -> str:
    """ "decoder", or "decoder (MoE)" where a stack has several kinds."""
    return f"{layer.stack} ({layer.kind})" if layer.kind else layer.stack


# The grid `crossover --grid` draws: d_model from 256 to 16,384, S from 64 to 131,072.
GRID_D_MODELS = [256, 512, 1024, 2048, 4096, 8192, 16384]
GRID_SEQ_LENS = [2**k for k in range(6, 18)]


def grid_report(
    cfg: ModelConfig, d_models: list[int], seq_lens: list[int], causal: bool = False
) -> GridReport:
    """scores : FFN of one layer at each (S, d_model), the model's d_ff ratio and head layout;
    causal: the scores over the S(S+1)/2 visible pairs, as the crossover with --causal."""
    scaled = [fl.scaled(cfg, d) for d in d_models]
    pts = [fl.per_token(c) for c in scaled]
    ratios = [[share(p.scores(s, causal), p.ffn) for p in pts] for s in seq_lens]
    return GridReport(
        causal=causal, d_models=d_models, d_ff=[c.d_ff for c in scaled], seq_lens=seq_lens,
        ratios=ratios, scores_vs_ffn=[num(fl.solve(p, p.ffn, causal)) for p in pts],
        scores_vs_ffn_exact=[exact(fl.solve(p, p.ffn, causal)) for p in pts],
    )  # fmt: skip
