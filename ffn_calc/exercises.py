"""Homework exercises: questions as data, answers computed by ffn-calc's own formulas.

A catalog is TOML: `[[exercise]]` tables with an `id`, a `question`, the `quantity` that answers
it and that quantity's parameters. The expected answer is never typed in: `answer()` computes
it, with the worked solution, from the same functions every other command uses.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal, localcontext
from fractions import Fraction
from importlib.resources import files
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic_core import ErrorDetails

from ffn_calc import activations as act
from ffn_calc import flops as fl
from ffn_calc import params as pm
from ffn_calc import sizing
from ffn_calc.config import ModelConfig
from ffn_calc.errors import FfnCalcError, FileError
from ffn_calc.files import parse_toml, read_text_file
from ffn_calc.presets import FLAG_FIELDS, resolve_model
from ffn_calc.report import Number
from ffn_calc.result import Result

Kind = Literal["int", "ratio", "percent", "number"]
Quantity = Literal[
    "total_params", "layer_ffn_params", "layer_attention_params", "ffn_ratio", "layer_share",
    "model_ffn_share", "ffn_to_attention", "ffn_share_of_matrices", "swiglu_parity_d_ff", "llama_d_ff", "layer_macs",
    "crossover", "gelu",
]  # fmt: skip


# An answer must carry at least this many significant figures (an exercise may ask for more):
# half a unit of the last of two figures is at most 5% of the answer, so 1e8 is not taken for
# 134,217,728 while 1.3e8 is.
MIN_SIG_FIGS = 2


class Exercise(BaseModel):
    """One catalog entry: the question and what answers it (never the answer itself).

    Strict, like a config file: no unknown keys, no booleans or floats for integers, no
    strings for numbers, no inf or nan. `model` and `other` are checked by `MODEL_TABLE`.
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
        MIN_SIG_FIGS, ge=MIN_SIG_FIGS, le=15, description="significant figures an answer needs"
    )


def _model_table() -> type[BaseModel]:
    """`model = {...}` / `other = {...}`: a preset and/or the size flags, typed as ModelConfig
    types them (strict: `d_model = true`, `n_heads = "32"` and `d_model = 64.0` are refused)."""
    annotate: Any = Annotated  # built at run time from ModelConfig's own field types
    fields: dict[str, Any] = {"preset": (str, None), "bias": (bool, None), "tie": (bool, None)}
    for name in FLAG_FIELDS:
        info = ModelConfig.model_fields[name]
        kind = annotate[(info.annotation, *info.metadata)] if info.metadata else info.annotation
        fields[name] = (kind, None)
    config = ConfigDict(extra="forbid", strict=True)
    return create_model("ModelTable", __config__=config, **fields)


MODEL_TABLE = _model_table()
MODEL_KEYS = list(MODEL_TABLE.model_fields)


@dataclass(frozen=True)
class Answer:
    value: Fraction
    kind: Kind
    steps: list[str]

    def text(self) -> str:
        return format_value(self.value, self.kind)

    def plain(self) -> int | float:
        return int(self.value) if self.value.denominator == 1 else float(self.value)


def _figures(x: float) -> str:
    """Two decimals, and never fewer than 4 significant figures: 45.54, 1.999, 0.04334."""
    return f"{x:,.2f}" if abs(x) >= 10 else f"{x:#.4g}"


def format_value(value: Fraction, kind: Kind) -> str:
    """The exact answer for people, to more figures than any answer needs to be right."""
    if kind == "int" and value.denominator == 1:
        return f"{int(value):,}"
    if kind == "ratio":
        return f"{_figures(float(value))}x"
    if kind == "percent":
        return f"{_figures(100 * float(value))}%"
    return f"{float(value):,.7g}"


def _model(spec: dict[str, Any] | None, what: str = "model") -> ModelConfig:
    if not spec:
        raise FfnCalcError(
            f"this quantity needs a `{what}` table (preset = NAME and/or size flags)"
        )
    flags = {k: v for k, v in spec.items() if k != "preset"}
    return resolve_model(preset=spec.get("preset"), flags=flags)


def _need(value: Any, name: str) -> Any:
    if value is None:
        raise FfnCalcError(f"this quantity needs `{name}`")
    return value


def _layer(cfg: ModelConfig) -> pm.LayerCount:
    return pm.layer_counts(cfg)[0]


def _explained(layer: pm.LayerCount, group: str) -> list[str]:
    return [t.explain() for t in layer.terms if t.group == group]


def _total_params(e: Exercise) -> Answer:
    cfg = _model(e.model)
    comps = pm.components(cfg)
    steps = [f"{k}: {v:,}" for k, v in comps.items()]
    steps.append(
        f"total = {' + '.join(f'{v:,}' for v in comps.values())} = {sum(comps.values()):,}"
    )
    return Answer(Fraction(sum(comps.values())), "int", steps)


def _layer_group(group: str) -> Callable[[Exercise], Answer]:
    def solve(e: Exercise) -> Answer:
        layer = _layer(_model(e.model))
        value = layer.group(group)
        steps = [*_explained(layer, group), f"{group} per layer = {value:,}"]
        return Answer(Fraction(value), "int", steps)

    return solve


def _ffn_ratio(e: Exercise) -> Answer:
    a, b = _layer(_model(e.model)), _layer(_model(e.other, "other"))
    fa, fb = a.group("ffn"), b.group("ffn")
    steps = ["first model:", *_explained(a, "ffn"), "second model:", *_explained(b, "ffn")]
    steps.append(f"ratio = {fa:,} / {fb:,} = {fa / fb:.4f}")
    return Answer(Fraction(fa, fb), "ratio", steps)


def _layer_share(e: Exercise) -> Answer:
    layer = _layer(_model(e.model))
    part = _need(e.part, "part")
    groups = {g: layer.group(g) for g in ("attention", "ffn", "norm")}
    steps = [f"{g} = {v:,}" for g, v in groups.items()]
    steps.append(f"layer = {' + '.join(f'{v:,}' for v in groups.values())} = {layer.total:,}")
    steps.append(
        f"{part} share = {groups[part]:,} / {layer.total:,} = {100 * groups[part] / layer.total:.2f}%"
    )
    return Answer(Fraction(groups[part], layer.total), "percent", steps)


def _model_ffn_share(e: Exercise) -> Answer:
    cfg = _model(e.model)
    comps = pm.components(cfg)
    total = sum(comps.values())
    layers = pm.layer_counts(cfg)
    per_stack = " + ".join(f"{x.count} x {x.group('ffn'):,}" for x in layers)
    steps = [f"FFN = {per_stack} = {comps['ffn']:,}"]
    steps.append(f"total = {total:,}")
    steps.append(f"share = {comps['ffn']:,} / {total:,} = {100 * comps['ffn'] / total:.2f}%")
    return Answer(Fraction(comps["ffn"], total), "percent", steps)


def _ffn_to_attention(e: Exercise) -> Answer:
    layer = _layer(_model(e.model))
    f, a = layer.group("ffn"), layer.group("attention")
    steps = _explained(layer, "attention") + _explained(layer, "ffn")
    steps.append(f"FFN / attention = {f:,} / {a:,} = {f / a:.4f}")
    return Answer(Fraction(f, a), "ratio", steps)


def _ffn_share_of_matrices(e: Exercise) -> Answer:
    layer = _layer(_model(e.model))
    f, a = layer.group("ffn"), layer.group("attention")
    steps = _explained(layer, "attention") + _explained(layer, "ffn")
    steps.append(f"FFN / (attention + FFN) = {f:,} / {f + a:,} = {f / (f + a):.4f}")
    steps.append("at d_ff = 4 d_model without biases: 8 d^2 / (4 d^2 + 8 d^2) = 2/3, whatever d is")
    return Answer(Fraction(f, f + a), "percent", steps)


def _swiglu_parity(e: Exercise) -> Answer:
    d = _need(e.d_model, "d_model")
    f = sizing.parity_d_ff(d)
    steps = [
        f"plain 4x FFN: 2 x d_model x 4 d_model = 8 x {d:,}^2 = {8 * d * d:,}",
        "gated FFN: 3 x d_model x d_ff; equal when d_ff = 8 d_model / 3",
        f"d_ff = 8 x {d:,} / 3 = {float(f):,.4f}",
    ]
    return Answer(f, "number", steps)


def _llama_d_ff(e: Exercise) -> Answer:
    d = _need(e.d_model, "d_model")
    f = sizing.llama_d_ff(d, e.multiple_of, e.ffn_dim_multiplier)  # first: it checks the sizes
    hidden = int(2 * (4 * d) / 3)
    steps = [f"int(2 x 4 x {d:,} / 3) = {hidden:,}"]
    if e.ffn_dim_multiplier is not None:
        steps.append(
            f"int({e.ffn_dim_multiplier} x {hidden:,}) = {int(e.ffn_dim_multiplier * hidden):,}"
        )
    steps.append(f"rounded up to a multiple of {e.multiple_of:,}: {f:,}")
    return Answer(Fraction(f), "int", steps)


def _layer_macs(e: Exercise) -> Answer:
    cfg = _model(e.model)
    part = _need(e.part, "part")
    w = fl.Workload(batch=e.batch, seq_len=_need(e.seq_len, "seq_len"))
    layer = fl.layer_flops(cfg, w)[0]
    group = "attention_projections" if part in ("attention", "attention_projections") else part
    steps = [t.explain() for t in layer.terms if t.group == group]
    value = layer.group(group) // 2
    steps.append(f"FLOPs {layer.group(group):,} / 2 = {value:,} multiply-adds")
    return Answer(Fraction(value), "int", steps)


def _crossover(e: Exercise) -> Answer:
    cfg = _model(e.model)
    which = _need(e.which, "which")
    pt = fl.per_token(cfg)
    target = {"scores_vs_ffn": pt.ffn, "scores_vs_projections": pt.projections,
              "scores_vs_dense": pt.ffn + pt.projections}[which]  # fmt: skip
    s = fl.solve(pt, target)
    steps = [
        f"scores per token and layer: 4 x n_heads x head_dim x S = {pt.scores_slope:,} x S",
        f"{which.removeprefix('scores_vs_')} per token and layer: {target:,} FLOPs",
        f"S = {target:,} / {pt.scores_slope:,} = {float(s):,.4g}",
    ]
    return Answer(s, "number", steps)


def _gelu(e: Exercise) -> Answer:
    x = _need(e.x, "x")
    value = act.gelu(x)
    steps = ["GELU(x) = x Phi(x), Phi(x) = (1 + erf(x / sqrt 2)) / 2",
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
    "ffn_share_of_matrices": _ffn_share_of_matrices,
    "swiglu_parity_d_ff": _swiglu_parity,
    "llama_d_ff": _llama_d_ff,
    "layer_macs": _layer_macs,
    "crossover": _crossover,
    "gelu": _gelu,
}


def answer(e: Exercise) -> Answer:
    return QUANTITIES[e.quantity](e)


# What each quantity asks for, in the words of a verdict on an answer with the wrong unit.
ASKS: dict[str, str] = {
    "total_params": "a parameter count",
    "layer_ffn_params": "a parameter count",
    "layer_attention_params": "a parameter count",
    "ffn_ratio": "a ratio",
    "layer_share": "a share",
    "model_ffn_share": "a share",
    "ffn_to_attention": "a ratio",
    "ffn_share_of_matrices": "a share",
    "swiglu_parity_d_ff": "a hidden width (d_ff)",
    "llama_d_ff": "a hidden width (d_ff)",
    "layer_macs": "a count of multiply-adds",
    "crossover": "a sequence length",
    "gelu": "a value of GELU",
}


# --- catalogs ------------------------------------------------------------------------------------


def _toml(value: Any) -> str:
    """A value as it is written in TOML: true, inf, "32"."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)[:200]
    return repr(value)[:200]


def _phrase(err: ErrorDetails, keys: Sequence[str], table: str | None = None) -> str:
    """One validation error as a phrase naming the key: `model.d_modell`, `x = inf`."""
    loc = [str(p) for p in err["loc"]]
    name = ".".join([table, *loc] if table else loc)
    if err["type"] == "extra_forbidden":
        close = difflib.get_close_matches(loc[-1], keys, n=1, cutoff=0.6)
        hint = f" (did you mean '{close[0]}'?)" if close else f"; the keys are {', '.join(keys)}"
        return f"unknown key '{name}'{hint}"
    if err["type"] == "missing":
        return f"required key '{name}' is missing"
    msg = err["msg"][0].lower() + err["msg"][1:]
    return f"{name} = {_toml(err['input'])}: {msg}" if name else msg


def _problems(raw: Any) -> tuple[Exercise | None, list[str]]:
    """Validate one raw entry: the exercise, or what is wrong with it (unknown keys first)."""
    if not isinstance(raw, dict):
        return None, [f"an [[exercise]] must be a table, not {_toml(raw)}"]
    try:
        e = Exercise.model_validate(raw)
    except ValidationError as exc:
        errors = sorted(exc.errors(), key=lambda err: err["type"] != "extra_forbidden")
        return None, [_phrase(err, list(Exercise.model_fields)) for err in errors]
    problems: list[str] = []
    for table in ("model", "other"):
        spec = getattr(e, table)
        try:
            if spec is not None:
                MODEL_TABLE.model_validate(spec)
        except ValidationError as exc:
            problems += [_phrase(err, MODEL_KEYS, table) for err in exc.errors()]
    return e, problems


def _entries(data: dict[str, Any], origin: str) -> list[Any]:
    """The [[exercise]] entries; a catalog holds nothing else."""
    for key in data:
        if key != "exercise":
            close = difflib.get_close_matches(key, ["exercise"], n=1, cutoff=0.6)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise FileError(
                f"{origin}: unknown key '{key}'{hint}; a catalog holds only [[exercise]] entries."
            )
    entries = data.get("exercise")
    if not isinstance(entries, list) or not entries:
        raise FileError(f"{origin}: no [[exercise]] entries.")
    return entries


def load_catalog(path: Path | None = None) -> list[Exercise]:
    """The shipped catalog, or an instructor's; every entry checked and answerable."""
    if path is None:
        text, origin = (
            (files("ffn_calc") / "exercises.toml").read_text(encoding="utf-8"),
            "the built-in catalog",
        )
    else:
        text, origin = read_text_file(path, "exercise catalog"), f"'{path}'"
    data = parse_toml(text, origin)
    out: list[Exercise] = []
    seen: set[str] = set()
    for i, raw in enumerate(_entries(data, origin), start=1):
        label = f"{origin}, exercise {i}" + (
            f" ('{str(raw['id'])[:100]}')" if isinstance(raw, dict) and "id" in raw else ""
        )
        e, problems = _problems(raw)
        if e is None or problems:
            raise FfnCalcError("\n".join(f"{label}: {p}." for p in problems))
        if e.id in seen:
            raise FfnCalcError(f"{label}: the id '{e.id}' is used twice.")
        seen.add(e.id)
        try:
            answer(e)
        except FfnCalcError as exc:
            raise FfnCalcError(f"{label}: {exc}") from None
        out.append(e)
    return out


def find(catalog: list[Exercise], exercise_id: str) -> Exercise:
    for e in catalog:
        if e.id == exercise_id:
            return e
    close = difflib.get_close_matches(exercise_id, [e.id for e in catalog], n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise FfnCalcError(f"unknown exercise '{exercise_id}'.{hint} See `ffn-calc exercise list`.")


# --- checking answers as people write them -------------------------------------------------------

_ANSWER = re.compile(
    r"(?P<sign>[+-]?)(?P<int>\d{1,3}(?:,\d{3})+|\d+)?(?:\.(?P<frac>\d*))?"
    r"(?:[eE](?P<exp>[+-]?\d{1,9}))?\s*(?P<unit>[kKMGBT%xX\u00d7]?)"
)
_SCALE = {"k": 3, "M": 6, "G": 9, "B": 9, "T": 12}
_UNIT = {"K": "k", "X": "x", "\u00d7": "x"}
# The units each kind of answer may carry besides none: % only on a share, x only on a ratio,
# the multipliers k, M, G, B, T only on counts and other plain numbers.
_FITS: dict[Kind, str] = {"int": "kMGBT", "number": "kMGBT", "ratio": "x", "percent": "%"}
_WRITE: dict[Kind, str] = {
    "int": "write it plain or with k, M, G, B or T",
    "number": "write it plain or with k, M, G, B or T",
    "ratio": "write it plain or with x",
    "percent": "write it as a fraction or with %",
}


@dataclass(frozen=True)
class Given:
    """An answer as written: its exact value, half a unit of its last written digit, its
    significant figures (from the first non-zero digit to the last written one; 0 for zero)
    and its unit ("", "%", "x" or a multiplier k, M, G, B, T)."""

    value: Decimal
    tolerance: Decimal
    sig_figs: int
    unit: str


def _unreadable(text: str) -> FfnCalcError:
    return FfnCalcError(
        f"cannot read the answer '{text[:100]}': write a number such as 134217728, 134,217,728, "
        "134.2M, 1.342e8, 28.4x or 46%."
    )


def parse_answer(text: str) -> Given:
    """134217728, 134,217,728, 134.2M, 1.342e8, 28.4x, 46%, -0.16, 134217728. (a whole number)."""
    m = _ANSWER.fullmatch(text.strip())
    if not m or not (m["int"] or m["frac"]):
        raise _unreadable(text)
    digits = (m["int"] or "").replace(",", "") + (m["frac"] or "")
    unit = _UNIT.get(m["unit"], m["unit"])
    exp = int(m["exp"] or 0) + _SCALE.get(unit, 0) - len(m["frac"] or "")
    return Given(
        value=Decimal(f"{m['sign']}{digits}E{exp}"),  # exact: no context rounds a constructor
        tolerance=Decimal(f"5E{exp - 1}"),
        sig_figs=len(digits.lstrip("0")),
        unit=unit,
    )


@dataclass(frozen=True)
class Verdict:
    correct: bool
    answer: Answer
    reason: str | None = None  # why, when the value alone does not say it


def _expected(a: Answer, given: Given) -> Decimal:
    """The exact answer in the units the answer was written in (a share: fraction or %)."""
    expected = Decimal(a.value.numerator) / Decimal(a.value.denominator)
    if a.kind == "percent" and (given.unit == "%" or given.value > 1):
        expected *= 100  # 46% or 45.5 against a share of 0.455
    return expected


def _example(expected: Decimal, figures: int, a: Answer, given: Given) -> str:
    """The exact answer to `figures` significant figures, as an answer of that form: 1.3e8."""
    mantissa, _, exp = f"{float(expected):#.{figures}g}".partition("e")
    text = mantissa.rstrip(".") + (f"e{int(exp)}" if exp else "")
    percent = a.kind == "percent" and (given.unit == "%" or given.value > 1)
    return text + ("%" if percent else "x" if given.unit == "x" else "")


def _misfit(e: Exercise, kind: Kind, given: Given, text: str) -> str | None:
    """Why the answer's unit does not fit the question, if it does not."""
    if not given.unit or given.unit in _FITS[kind]:
        return None
    what = {"%": "is a percentage", "x": "is a ratio"}.get(
        given.unit, f"has the multiplier {given.unit}"
    )
    return f"{text} {what}, but the question asks for {ASKS[e.quantity]} ({_WRITE[kind]})"


def _judge(e: Exercise, a: Answer, given: Given, text: str) -> tuple[bool, str | None]:
    """Right or wrong, and why when the value alone does not say it."""
    if misfit := _misfit(e, a.kind, given, text):
        return False, misfit
    expected = _expected(a, given)
    if not given.value:
        if not expected:
            return True, None
        return False, f"{text} is zero, and zero never matches a non-zero answer"
    if not expected or (given.value < 0) != (expected < 0):
        return False, None
    if given.sig_figs < e.sig_figs:
        n = given.sig_figs
        return False, (
            f"{text} has {n} significant figure{'' if n == 1 else 's'}; give at least "
            f"{e.sig_figs} (e.g. {_example(expected, e.sig_figs, a, given)})"
        )
    return abs(given.value - expected) <= given.tolerance, None


def check(e: Exercise, text: str) -> Verdict:
    """Whether `text` is right: its unit fits the question, it carries at least e.sig_figs
    significant figures, and the exact answer lies within half a unit of its last digit."""
    a, given = answer(e), parse_answer(text)
    # Exact enough for any answer: the given value is exact, the expected one is rounded far
    # below the answer's last digit; exponents as large as the answer may write them.
    precision = given.sig_figs + 40
    with localcontext(Context(prec=precision, Emax=MAX_EMAX, Emin=MIN_EMIN)):
        correct, reason = _judge(e, a, given, text.strip())
    return Verdict(correct, a, reason)


class ExerciseRow(Result):
    id: str
    question: str
    quantity: str
    answer: Number
    answer_text: str


class ExercisesReport(Result):
    exercises: list[ExerciseRow]


def exercises_report(path: Path | None = None) -> ExercisesReport:
    rows = []
    for e in load_catalog(path):
        a = answer(e)
        rows.append(
            ExerciseRow(
                id=e.id,
                question=e.question,
                quantity=e.quantity,
                answer=a.plain(),
                answer_text=a.text(),
            )
        )
    return ExercisesReport(exercises=rows)


class ExerciseResult(Result):
    """One exercise with its computed answer; `given` and `correct` after a check."""

    id: str
    question: str
    quantity: str
    answer: Number
    answer_text: str
    steps: list[str]
    given: str | None = None
    correct: bool | None = None
    reason: str | None = None


def exercise_result(e: Exercise, given: str | None = None) -> ExerciseResult:
    if given is None:
        a, correct, reason = answer(e), None, None
    else:
        v = check(e, given)
        a, correct, reason = v.answer, v.correct, v.reason
    return ExerciseResult(
        id=e.id, question=e.question, quantity=e.quantity, answer=a.plain(),
        answer_text=a.text(), steps=a.steps, given=given, correct=correct, reason=reason,
    )  # fmt: skip
