"""Homework exercises: questions as data, answers computed by ffn-calc's own formulas.

A catalog is TOML: `[[exercise]]` tables with an `id`, a `question`, the `quantity` that answers
it and that quantity's parameters. The expected answer is never typed in: `answer()` computes
it, with the worked solution, from the same functions every other command uses. Catalogs are
read by `exercise_catalog`; answers as people write them are read and judged by `answers`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from ffn_calc.counts import activations as act
from ffn_calc.counts import flops as fl
from ffn_calc.counts import params as pm
from ffn_calc.counts import sizing
from ffn_calc.errors import FfnCalcError
from ffn_calc.families.resolve import resolve_model
from ffn_calc.homework.answers import (
    MIN_SIG_FIGS,
    Answer,
    Step,
    Text,
    check,
    english,
    say,
    shown_text,
)
from ffn_calc.i18n.translate import N_, _
from ffn_calc.model.config import ModelConfig
from ffn_calc.reports.base import Number, Result

Quantity = Literal[
    "total_params", "layer_ffn_params", "layer_attention_params", "ffn_ratio", "layer_share",
    "model_ffn_share", "ffn_to_attention", "ffn_share_of_matrices", "swiglu_parity_d_ff", "llama_d_ff", "layer_macs",
    "crossover", "gelu", "ffn_shape", "model_ffn_params",
]  # fmt: skip


class Slip(BaseModel):
    """A known wrong answer (a textbook's mis-rounded value) and the note that explains it."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    answer: str = Field(min_length=1)
    note: str = Field(min_length=1)


class Exercise(BaseModel):
    """One catalog entry: the question and what answers it (never the answer itself).

    Strict, like a config file: no unknown keys, no booleans or floats for integers, no
    strings for numbers, no inf or nan. `model` and `other` are checked by the catalog loader
    (`exercise_catalog.MODEL_TABLE`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    quantity: Quantity
    model: dict[str, Any] | None = Field(None, description="preset = NAME and/or size flags")
    other: dict[str, Any] | None = Field(None, description="the second model of a ratio")
    part: Literal["attention", "ffn", "norm", "attention_projections"] | None = None
    which: Literal["scores_vs_ffn", "scores_vs_projections", "scores_vs_dense"] | None = None
    d_model: int | None = Field(None, gt=0)
    multiple_of: int = Field(256, gt=0)
    ffn_dim_multiplier: float | None = Field(None, gt=0, allow_inf_nan=False)
    batch: int = Field(1, gt=0)
    seq_len: int | None = Field(None, gt=0)
    x: float | None = Field(None, allow_inf_nan=False)
    sig_figs: int = Field(
        MIN_SIG_FIGS, ge=1, le=15, description="significant figures an answer needs"
    )
    decimals: int | None = Field(
        None, ge=0, le=15, description="decimals an answer needs (a value 'to 3 decimals')"
    )
    stage: Literal["input", "hidden", "output"] | None = None
    note: str | None = Field(None, min_length=1)  # shown with the solution, translated
    slips: list[Slip] = []


def _model(spec: dict[str, Any] | None, what: str = "model") -> ModelConfig:
    if not spec:
        raise FfnCalcError(
            _("this quantity needs a `{table}` table (preset = NAME and/or size flags)").format(
                table=what
            )
        )
    flags = {k: v for k, v in spec.items() if k != "preset"}
    return resolve_model(preset=spec.get("preset"), flags=flags)


def _need(value: Any, name: str) -> Any:
    if value is None:
        raise FfnCalcError(_("this quantity needs `{name}`").format(name=name))
    return value


def _layer(cfg: ModelConfig) -> pm.LayerCount:
    return pm.layer_counts(cfg)[0]


# The groups the worked solutions name, as the tables name them (the keys stay English).
_GROUPS = {
    "embedding": N_("embedding"), "attention": N_("attention"), "ffn": N_("ffn"),
    "norm": N_("norm"), "lm_head": N_("lm_head"), "pooler": N_("pooler"),
    "projections": N_("projections"), "dense": N_("dense"),
}  # fmt: skip


def _group(key: str) -> str | Text:
    return say(_GROUPS[key]) if key in _GROUPS else key


def _explained(layer: pm.LayerCount | fl.LayerFlops, group: str) -> list[Step]:
    return [t for t in layer.terms if t.group == group]  # worded by the view, as --explain


def _total_params(e: Exercise) -> Answer:
    cfg = _model(e.model)
    comps = pm.components(cfg)
    steps: list[Step] = [
        say(N_("{name}: {value}"), name=_group(k), value=f"{v:,}") for k, v in comps.items()
    ]
    terms = " + ".join(f"{v:,}" for v in comps.values())
    steps.append(
        say(N_("total = {terms} = {total}"), terms=terms, total=f"{sum(comps.values()):,}")
    )
    return Answer(Fraction(sum(comps.values())), "int", steps)


def _layer_group(group: str) -> Callable[[Exercise], Answer]:
    def solve(e: Exercise) -> Answer:
        layer = _layer(_model(e.model))
        value = layer.group(group)
        per_layer = say(N_("{group} per layer = {value}"), group=_group(group), value=f"{value:,}")
        steps = [*_explained(layer, group), per_layer]
        return Answer(Fraction(value), "int", steps)

    return solve


def _ffn_ratio(e: Exercise) -> Answer:
    a, b = _layer(_model(e.model)), _layer(_model(e.other, "other"))
    fa, fb = a.group("ffn"), b.group("ffn")
    steps: list[Step] = [say(N_("first model:")), *_explained(a, "ffn")]
    steps += [say(N_("second model:")), *_explained(b, "ffn")]
    steps.append(
        say(N_("ratio = {a} / {b} = {ratio}"), a=f"{fa:,}", b=f"{fb:,}", ratio=f"{fa / fb:.4f}")
    )
    return Answer(Fraction(fa, fb), "ratio", steps)


def _layer_share(e: Exercise) -> Answer:
    layer = _layer(_model(e.model))
    part = _need(e.part, "part")
    groups = {g: layer.group(g) for g in ("attention", "ffn", "norm")}
    steps: list[Step] = [
        say(N_("{name} = {value}"), name=_group(g), value=f"{v:,}") for g, v in groups.items()
    ]
    terms = " + ".join(f"{v:,}" for v in groups.values())
    steps.append(say(N_("layer = {terms} = {total}"), terms=terms, total=f"{layer.total:,}"))
    steps.append(
        say(
            N_("{part} share = {a} / {b} = {percent}%"), part=_group(part), a=f"{groups[part]:,}",
            b=f"{layer.total:,}", percent=f"{100 * groups[part] / layer.total:.2f}",
        )
    )  # fmt: skip
    return Answer(Fraction(groups[part], layer.total), "percent", steps)


def _model_ffn_share(e: Exercise) -> Answer:
    cfg = _model(e.model)
    comps = pm.components(cfg)
    total = sum(comps.values())
    layers = pm.layer_counts(cfg)
    per_stack = " + ".join(f"{x.count} x {x.group('ffn'):,}" for x in layers)
    steps: list[Step] = [f"FFN = {per_stack} = {comps['ffn']:,}"]
    steps.append(say(N_("total = {total}"), total=f"{total:,}"))
    steps.append(
        say(
            N_("share = {a} / {b} = {percent}%"), a=f"{comps['ffn']:,}", b=f"{total:,}",
            percent=f"{100 * comps['ffn'] / total:.2f}",
        )
    )  # fmt: skip
    return Answer(Fraction(comps["ffn"], total), "percent", steps)


def _model_ffn_params(e: Exercise) -> Answer:
    cfg = _model(e.model)
    comps = pm.components(cfg)
    per_stack = " + ".join(f"{x.count} x {x.group('ffn'):,}" for x in pm.layer_counts(cfg))
    steps: list[Step] = [f"FFN = {per_stack} = {comps['ffn']:,}"]
    return Answer(Fraction(comps["ffn"]), "int", steps)


def _ffn_to_attention(e: Exercise) -> Answer:
    layer = _layer(_model(e.model))
    f, a = layer.group("ffn"), layer.group("attention")
    steps = _explained(layer, "attention") + _explained(layer, "ffn")
    steps.append(
        say(
            N_("FFN / attention = {a} / {b} = {ratio}"),
            a=f"{f:,}",
            b=f"{a:,}",
            ratio=f"{f / a:.4f}",
        )
    )
    return Answer(Fraction(f, a), "ratio", steps)


def _ffn_share_of_matrices(e: Exercise) -> Answer:
    layer = _layer(_model(e.model))
    f, a = layer.group("ffn"), layer.group("attention")
    steps = _explained(layer, "attention") + _explained(layer, "ffn")
    steps.append(
        say(
            N_("FFN / (attention + FFN) = {a} / {b} = {share}"), a=f"{f:,}", b=f"{f + a:,}",
            share=f"{f / (f + a):.4f}",
        )
    )  # fmt: skip
    steps.append(
        say(N_("at d_ff = 4 d_model without biases: 8 d^2 / (4 d^2 + 8 d^2) = 2/3, whatever d is"))
    )
    return Answer(Fraction(f, f + a), "percent", steps)


def _swiglu_parity(e: Exercise) -> Answer:
    d = _need(e.d_model, "d_model")
    f = sizing.parity_d_ff(d)
    steps: list[Step] = [
        say(
            N_("plain 4x FFN: 2 x d_model x 4 d_model = 8 x {d}^2 = {params}"), d=f"{d:,}",
            params=f"{8 * d * d:,}",
        ),
        say(N_("gated FFN: 3 x d_model x d_ff; equal when d_ff = 8 d_model / 3")),
        f"d_ff = 8 x {d:,} / 3 = {float(f):,.4f}",
    ]  # fmt: skip
    whole = tuple(sorted({math.floor(f), math.ceil(f)}))  # a layer has whole units
    return Answer(f, "number", steps, whole=whole)


def _llama_d_ff(e: Exercise) -> Answer:
    d = _need(e.d_model, "d_model")
    f = sizing.llama_d_ff(d, e.multiple_of, e.ffn_dim_multiplier)  # first: it checks the sizes
    hidden = int(2 * (4 * d) / 3)
    steps: list[Step] = [f"int(2 x 4 x {d:,} / 3) = {hidden:,}"]
    if e.ffn_dim_multiplier is not None:
        steps.append(
            f"int({e.ffn_dim_multiplier} x {hidden:,}) = {int(e.ffn_dim_multiplier * hidden):,}"
        )
    steps.append(
        say(N_("rounded up to a multiple of {multiple}: {d_ff}"), multiple=f"{e.multiple_of:,}",
            d_ff=f"{f:,}")
    )  # fmt: skip
    return Answer(Fraction(f), "int", steps)


def _layer_macs(e: Exercise) -> Answer:
    cfg = _model(e.model)
    part = _need(e.part, "part")
    w = fl.Workload(batch=e.batch, seq_len=_need(e.seq_len, "seq_len"))
    layer = fl.layer_flops(cfg, w)[0]
    group = "attention_projections" if part in ("attention", "attention_projections") else part
    steps = _explained(layer, group)
    value = layer.group(group) // 2
    steps.append(
        say(N_("FLOPs {flops} / 2 = {macs} multiply-adds"), flops=f"{layer.group(group):,}",
            macs=f"{value:,}")
    )  # fmt: skip
    return Answer(Fraction(value), "int", steps)


def _crossover(e: Exercise) -> Answer:
    cfg = _model(e.model)
    which = _need(e.which, "which")
    pt = fl.per_token(cfg)
    target = {"scores_vs_ffn": pt.ffn, "scores_vs_projections": pt.projections,
              "scores_vs_dense": pt.ffn + pt.projections}[which]  # fmt: skip
    s = fl.solve(pt, target)
    steps: list[Step] = [
        say(
            N_("scores per token and layer: 4 x n_heads x head_dim x S = {slope} x S"),
            slope=f"{pt.scores_slope:,}",
        ),
        say(
            N_("{part} per token and layer: {flops} FLOPs"),
            part=_group(which.removeprefix("scores_vs_")), flops=f"{target:,}",
        ),
        f"S = {target:,} / {pt.scores_slope:,} = {float(s):,.4g}",
    ]  # fmt: skip
    limit = cfg.position_limit
    if limit is not None and s > limit:  # the formula's S, which the model itself never runs
        steps.append(
            say(
                N_("past the model's {positions}-position table: the formula's S, which `crossover` reports as never reached"),
                positions=f"{limit:,}",
            )
        )  # fmt: skip
    return Answer(s, "number", steps)


def _ffn_shape(e: Exercise) -> Answer:
    cfg = _model(e.model)
    b, s = e.batch, _need(e.seq_len, "seq_len")
    stage = _need(e.stage, "stage")
    d, f = cfg.d_model, cfg.d_ff
    steps: list[Step] = [
        say(N_("input [B, S, d_model] = [{b}, {s}, {d}]"), b=str(b), s=str(s), d=str(d)),
        say(N_("after W1 (d_model x d_ff): [B, S, d_ff] = [{b}, {s}, {f}]"), b=str(b), s=str(s),
            f=str(f)),
        say(N_("after W2 (d_ff x d_model): [B, S, d_model] = [{b}, {s}, {d}]; every position on its own"),
            b=str(b), s=str(s), d=str(d)),
    ]  # fmt: skip
    shape = (b, s, f if stage == "hidden" else d)
    return Answer(Fraction(0), "number", steps, shape=shape)


def _gelu(e: Exercise) -> Answer:
    x = _need(e.x, "x")
    value = act.gelu(x)
    steps: list[Step] = ["GELU(x) = x Phi(x), Phi(x) = (1 + erf(x / sqrt 2)) / 2",
             f"Phi({x:g}) = {act.cdf(x):.7f}", f"GELU({x:g}) = {x:g} x {act.cdf(x):.7f} = {value:.7f}"]  # fmt: skip
    return Answer(Fraction(value), "number", steps)


QUANTITIES: dict[str, Callable[[Exercise], Answer]] = {
    "total_params": _total_params,
    "layer_ffn_params": _layer_group("ffn"),
    "layer_attention_params": _layer_group("attention"),
    "ffn_ratio": _ffn_ratio,
    "layer_share": _layer_share,
    "model_ffn_share": _model_ffn_share,
    "ffn_to_attention": _ffn_to_attention,
    "model_ffn_params": _model_ffn_params,
    "ffn_share_of_matrices": _ffn_share_of_matrices,
    "swiglu_parity_d_ff": _swiglu_parity,
    "llama_d_ff": _llama_d_ff,
    "layer_macs": _layer_macs,
    "crossover": _crossover,
    "gelu": _gelu,
    "ffn_shape": _ffn_shape,
}


def answer(e: Exercise) -> Answer:
    return QUANTITIES[e.quantity](e)


# What each quantity asks for, in the words of a verdict on an answer with the wrong unit
# (English in results, translated where the verdict is shown).
ASKS: dict[str, str] = {
    "total_params": N_("a parameter count"),
    "layer_ffn_params": N_("a parameter count"),
    "layer_attention_params": N_("a parameter count"),
    "ffn_ratio": N_("a ratio"),
    "layer_share": N_("a share"),
    "model_ffn_share": N_("a share"),
    "ffn_to_attention": N_("a ratio"),
    "model_ffn_params": N_("a parameter count"),
    "ffn_share_of_matrices": N_("a share"),
    "swiglu_parity_d_ff": N_("a hidden width (d_ff)"),
    "llama_d_ff": N_("a hidden width (d_ff)"),
    "layer_macs": N_("a count of multiply-adds"),
    "crossover": N_("a sequence length"),
    "gelu": N_("a value of GELU"),
    "ffn_shape": N_("a tensor shape"),
}


# --- results -------------------------------------------------------------------------------------


class ExerciseRow(Result):
    id: str
    question: str  # English, as the catalog writes it; shown_question() for people
    quantity: str
    answer: Number | list[int]
    answer_text: str
    _template: str = PrivateAttr("")
    _values: dict[str, str] = PrivateAttr(default_factory=dict)

    def shown_question(self) -> str:
        return question_text(self._template or self.question, self._values, translate=True)

    def shown_answer(self) -> str:
        return shown_text(self.answer_text)


class ExercisesReport(Result):
    view: ClassVar[str] = "ffn_calc.views.homework:exercise_tables"

    exercises: list[ExerciseRow]


def exercises_report(catalog: list[Exercise], variant: int | None = None) -> ExercisesReport:
    from ffn_calc.homework.variants import values, vary

    rows = []
    for e in catalog:
        if variant is not None:
            e = vary(e, variant)
        a = answer(e)
        filled = values(e)
        row = ExerciseRow(
            id=e.id,
            question=question_text(e.question, filled),
            quantity=e.quantity,
            answer=a.plain(),
            answer_text=a.text(),
        )
        row._template, row._values = e.question, filled
        rows.append(row)
    return ExercisesReport(exercises=rows)


class ExerciseResult(Result):
    """One exercise with its computed answer; `given` and `correct` after a check."""

    view: ClassVar[str] = "ffn_calc.views.homework:exercise_result_tables"

    id: str
    question: str
    quantity: str
    answer: Number | list[int] | None  # None: not revealed (`check --no-reveal`)
    answer_text: str
    steps: list[str]
    note: str | None = None  # a remark on the course's own figures, English
    variant: int | None = None
    given: str | None = None
    correct: bool | None = None
    reason: str | None = None
    # The same in the current language (not in JSON): steps and reason as messages.
    _lines: tuple[Step, ...] = PrivateAttr(())  # not default_factory: see ParamsReport
    _why: Text | None = PrivateAttr(None)
    _template: str = PrivateAttr("")
    _values: dict[str, str] = PrivateAttr(default_factory=dict)

    def shown_question(self) -> str:
        return question_text(self._template or self.question, self._values, translate=True)

    def shown_answer(self) -> str:
        return shown_text(self.answer_text)

    def shown_note(self) -> str | None:
        return None if self.note is None else _(self.note)

    def hidden(self) -> ExerciseResult:
        """The verdict without the answer, its solution or notes (for practice)."""
        r = self.model_copy(update={"answer": None, "answer_text": "", "steps": [], "note": None})
        r._lines, r._why = (), self._why
        r._template, r._values = self._template, self._values
        return r

    def solution(self) -> tuple[Step, ...]:
        """The worked solution as values, for a view to word (a result read from JSON: its
        English steps)."""
        return self._lines or tuple(self.steps)

    def shown_reason(self) -> str | None:
        return self._why.shown() if self._why is not None else self.reason


def _slip(e: Exercise, given: str) -> Text | None:
    """The note on a known textbook slip when `given` is that value (0.345 for 0.346)."""
    from ffn_calc.homework.answers import parse_answer

    try:
        written = parse_answer(given)
    except FfnCalcError:
        return None
    for slip in e.slips:
        known = parse_answer(slip.answer)
        if (known.value, known.unit) == (written.value, written.unit):
            return say(slip.note)
    return None


def judge(e: Exercise, a: Answer, given: str, reveal: bool = True) -> tuple[bool, Text | None]:
    """Right or wrong and why, with the exercise's precision and its known textbook slips
    (not told when the answer is not to be revealed: the note gives it)."""
    sig_figs = 1 if e.decimals is not None else e.sig_figs  # "to 3 decimals" says it all
    v = check(
        a, given, sig_figs=sig_figs, asks=ASKS[e.quantity], decimals=e.decimals, reveal=reveal
    )
    if not v.correct and reveal and (slip := _slip(e, given)) is not None:
        return False, slip
    return v.correct, v.why


def exercise_result(
    e: Exercise, given: str | None = None, variant: int | None = None, reveal: bool = True
) -> ExerciseResult:
    from ffn_calc.homework.variants import values, vary

    if variant is not None:
        e = vary(e, variant)
    a = answer(e)
    correct: bool | None = None
    why: Text | None = None
    if given is not None:
        correct, why = judge(e, a, given, reveal)
    filled = values(e)
    r = ExerciseResult(
        id=e.id, question=question_text(e.question, filled), quantity=e.quantity,
        answer=a.plain(), answer_text=a.text(), steps=[english(step) for step in a.steps],
        note=e.note, variant=variant, given=given, correct=correct,
        reason=None if why is None else str(why),
    )  # fmt: skip
    r._lines, r._why = tuple(a.steps), why
    r._template, r._values = e.question, filled
    return r


def question_text(template: str, filled: dict[str, str], *, translate: bool = False) -> str:
    """A question with its sizes put in ({d_model}, {d_ff}, {seq_len} ...), translated or not."""
    text = _(template) if translate else template
    if "{" not in text:
        return text
    try:
        return text.format_map(filled)
    except (KeyError, ValueError, IndexError):
        return text
