"""Sweeps: one model with some fields varied over ranges or lists, each combination counted.

A sweep is the cartesian product of its axes (`d_ff=8192:16384:1024`, `n_kv_heads=1,2,4,8`)
applied to a base model. Each combination is validated as a new ModelConfig would be; one that
is not a valid model is skipped and counted with its reason. The metrics come from the closed-
form totals (ffn_calc.counts.totals), never from the per-term lists that --explain prints, and rows
are produced one at a time: memory stays flat however many combinations there are.
"""

from __future__ import annotations

import difflib
import itertools
import re
import typing
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Sized
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from pydantic import ValidationError

from ffn_calc.errors import FfnCalcError, UsageError
from ffn_calc.files import shown as brief
from ffn_calc.i18n.translate import N_, _, say
from ffn_calc.model.config import ModelConfig, PositionLimitError, fields_model
from ffn_calc.quantities import cut, quoted, read_number, read_share
from ffn_calc.sweeps.follow import follow_rule, held_fixed, is_follow_rule
from ffn_calc.sweeps.metrics import (
    METRICS,
    Cache,
    Metric,
    Number,
    either,
    parse_int,
    parse_metric,
)

# The most combinations one sweep may have: at ~10^5 models a second, a few minutes.
MAX_COMBINATIONS = 10_000_000

Value = int | float | str | bool | None

# --- axes -----------------------------------------------------------------------------------

# Fields that describe a model's shape and can be varied (names and lists of layers cannot).
_FIXED = {
    "name",
    "family",
    "source",
    "note",
    "dense_ffn_layers",
    "window_layers",
    "towers",
    "text_family",
}


def variable_fields() -> list[str]:
    return [n for n in ModelConfig.model_fields if n not in _FIXED]


@dataclass(frozen=True)
class Axis:
    """One varied field and its values, in order (a range stays a range: no list is built)."""

    field: str
    values: Sequence[Value]
    spec: str  # as written: "8192:16384:1024", "1,2,4,8", "4*d_model"
    # A field that follows another (`d_ff=4*d_model`): (the factor, the other field). Such an
    # axis adds no combinations; each row's value is the factor times the other field's.
    follows: tuple[Fraction, str] | None = None


def _field_kind(name: str) -> tuple[str, tuple[str, ...], bool]:
    """("int" | "bool" | "choice", the choices, whether None is allowed) of a field."""
    ann = ModelConfig.model_fields[name].annotation
    args = typing.get_args(ann)
    optional = type(None) in args
    base = next((a for a in args if a is not type(None)), ann) if optional else ann
    if typing.get_origin(base) is typing.Annotated:
        base = typing.get_args(base)[0]
    if base is bool:
        return "bool", (), optional
    if typing.get_origin(base) is typing.Literal:
        return "choice", tuple(str(a) for a in typing.get_args(base)), optional
    return "int", (), optional


def _check_field(name: object) -> None:
    if not isinstance(name, str):
        raise UsageError(
            _("--vary: a field is named by a string, not {value}.").format(value=brief(name))
        )
    if name in variable_fields():
        return
    if name in _FIXED:
        raise UsageError(
            _("--vary: {field} cannot be varied (a name or a list of layers).").format(field=name)
        )
    close = difflib.get_close_matches(name, variable_fields(), n=3) if len(name) <= 64 else []
    if close:
        raise UsageError(
            _("--vary: unknown field {name}. Did you mean {choices}? Fields are ModelConfig's names.")
            .format(name=quoted(name), choices=either(close))
        )  # fmt: skip
    raise UsageError(
        _("--vary: unknown field {name}. Fields are ModelConfig's names.").format(name=quoted(name))
    )


def _parse_value(name: str, text: str, where: str) -> Value:
    kind, choices, optional = _field_kind(name)
    t = text.strip()
    if optional and t.lower() in ("none", "null"):
        return None
    if kind == "bool":
        if t.lower() in ("true", "false"):
            return t.lower() == "true"
        raise UsageError(
            _("--vary {spec}: {field} is true or false, not {value}.").format(
                spec=cut(where), field=name, value=quoted(t)
            )
        )
    if kind == "choice":
        if t in choices:
            return t
        raise UsageError(
            _("--vary {spec}: {field} is one of {choices}, not {value}.").format(
                spec=cut(where), field=name, choices=", ".join(choices), value=quoted(t)
            )
        )
    return parse_int(t, f"--vary {cut(where)}")


def _range(name: str, text: str, spec: str) -> Sequence[Value]:
    """start:stop[:step], stop included; a step of *k multiplies (1:64:*2 = 1, 2, 4, ... 64)."""
    where = cut(spec)
    option = f"--vary {where}"
    parts = text.split(":")
    if len(parts) not in (2, 3) or _field_kind(name)[0] != "int":
        if _field_kind(name)[0] == "int":
            raise UsageError(
                _("--vary {spec}: a range is START:STOP or START:STOP:STEP of integers.").format(
                    spec=where
                )
            )
        raise UsageError(
            _(
                "--vary {spec}: a range is START:STOP or START:STOP:STEP of integers; {field} is "
                "not an integer field."
            ).format(spec=where, field=name)
        )
    start, stop = parse_int(parts[0], option), parse_int(parts[1], option)
    step = parts[2].strip() if len(parts) == 3 else "1"
    if start > stop:
        raise UsageError(
            _("--vary {spec}: the range starts after it stops ({start} > {stop}).").format(
                spec=where, start=start, stop=stop
            )
        )
    if step.startswith("*"):
        factor = parse_int(step[1:], option)
        if factor < 2 or start < 1:
            raise UsageError(
                _("--vary {spec}: a *k step needs k >= 2 and a start >= 1.").format(spec=where)
            )
        out, v = [], start
        while v <= stop:
            out.append(v)
            v *= factor
        return out
    n = parse_int(step, option)
    if n < 1:
        raise UsageError(
            _("--vary {spec}: the step must be at least 1, not {step}.").format(spec=where, step=n)
        )
    return range(start, stop + 1, n)


def _follows_axis(name: str, text: str, spec: str) -> Axis:
    """`d_ff=4*d_model`: d_ff is 4 times d_model in every combination (d_model varied or not)."""
    factor, other = follow_rule(text, spec)
    where = cut(spec)
    _check_field(other)
    if other == name or _field_kind(name)[0] != "int" or _field_kind(other)[0] != "int":
        raise UsageError(
            _(
                "--vary {spec}: FIELD=K*OTHER makes one integer field follow another integer "
                "field (e.g. d_ff=4*d_model)."
            ).format(spec=where)
        )
    return Axis(name, [text.strip()], text.strip(), (factor, other))


def parse_axis(spec: str) -> Axis:
    """`field=start:stop[:step]`, `field=v1,v2,...` (true/false, names, none where allowed), or
    `field=K*other` (the field follows another: d_ff=4*d_model)."""
    name, eq, text = spec.partition("=")
    name = name.strip()
    if not eq or not name or not text.strip():
        raise UsageError(
            _(
                "--vary {spec}: write FIELD=START:STOP[:STEP] or FIELD=V1,V2,... "
                "(e.g. d_ff=8192:16384:1024, n_kv_heads=1,2,4,8)."
            ).format(spec=quoted(spec))
        )
    _check_field(name)
    if ":" not in text and is_follow_rule(text):
        return _follows_axis(name, text, spec)
    if ":" in text:
        values = _range(name, text, spec)
    else:
        values = [_parse_value(name, v, spec) for v in text.split(",")]
    return make_axis(name, values, text.strip())


def make_axis(
    name: str, values: Iterable[Value], spec: str | None = None, limit: int | None = None
) -> Axis:
    """An axis from Python values, each checked against its field once (types and bounds).
    An iterator is read no further than `limit` + 1 values: one that goes on (an endless
    generator) is refused, never listed in full."""
    _check_field(name)
    if isinstance(values, str | bytes | bytearray | Mapping) or not isinstance(values, Iterable):
        raise UsageError(
            _(
                "--vary {field}: give the values as a list or a range of values, or a spec "
                "string such as '1,2,4'; not {value}."
            ).format(field=name, value=brief(values))
        )
    if isinstance(values, range):
        seq: Sequence[Value] = values
    elif isinstance(values, Sized):  # a list or a set: its size is known (the sweep checks it)
        seq = list(values)
    else:  # an iterator: read no more than the sweep could take
        limit = MAX_COMBINATIONS if limit is None else limit
        seq = list(itertools.islice(values, limit + 1))
        if len(seq) > limit:
            raise UsageError(
                _(
                    "--vary {field}: the iterator gives more than {limit} values, and the sweep "
                    "takes at most {max} combinations; it was not read further."
                ).format(field=name, limit=f"{limit:,}", max=f"{MAX_COMBINATIONS:,}")
            )
    if not seq:
        raise UsageError(_("--vary {field}: no values.").format(field=name))
    if not isinstance(seq, range) and len(set(map(repr, seq))) != len(seq):
        raise UsageError(_("--vary {field}: a value is listed twice.").format(field=name))
    # A range's values all lie between its ends, and every integer bound is an interval.
    check = [seq[0], seq[-1]] if isinstance(seq, range) else seq
    model = fields_model(frozenset({name}))
    for v in check:
        try:
            model.model_validate({name: v})
        except ValidationError as exc:
            from ffn_calc.model.sources import field_message

            raise UsageError(
                _("--vary {field}: {value} is not a valid {field}: {reason}.").format(
                    field=name, value=brief(v), reason=field_message(exc.errors()[0])
                )
            ) from None
    if spec is None:
        spec = (
            f"{seq[0]}:{seq[-1]}:{seq.step}" if isinstance(seq, range) else ",".join(map(text, seq))
        )
    return Axis(name, seq, spec)


def text(v: Value) -> str:
    return "none" if v is None else ("true" if v is True else "false" if v is False else str(v))


# --- filters --------------------------------------------------------------------------------

_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b, "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b, "<": lambda a, b: a < b, ">": lambda a, b: a > b,
}  # fmt: skip
# The metric, the operator, the bound (on stripped text): possessive repeats and a bound that
# runs to the end, so no input makes the match backtrack (a regex with `\S.*?\s*` at the end
# took minutes on a long run of spaces).
_WHERE = re.compile(r"([A-Za-z_]++(?:@[\d_]++)?)\s*+(<=|>=|==|!=|<|>|=)\s*+(.+)", re.DOTALL)
MAX_WHERE_CHARS = 200


@dataclass(frozen=True)
class Filter:
    metric: Metric
    op: str
    bound: Fraction
    text: str

    def keeps(self, value: Number | Fraction | None) -> bool:
        """None (a crossover the model never reaches) compares with no number: dropped."""
        return value is not None and _OPS[self.op](Fraction(value), self.bound)


def parse_bound(text: str, where: str, metric: Metric | None = None) -> Fraction:
    """7e9, 7B, 7000000000, 6.5G, 1/3 (a count); 14GB, 13GiB (bytes); 0.6, 60% (a share):
    compared exactly. The suffixes are those of what the metric measures (ffn_calc.quantities)."""
    name = metric.name if metric is not None else "the bound"
    unit = metric.kind.unit if metric is not None else "count"
    if unit == "share":
        return read_share(text, where, name)
    return read_number(text, unit, where, name)


def parse_filter(
    text: str, option: str = "--where", lengths: Mapping[str, int] | None = None
) -> Filter:
    """`METRIC OP NUMBER` with OP one of < <= > >= == !=: `total_params<=7e9`. `option` names
    where it was given in messages (--where, --require); `lengths` gives a metric written
    without @N its length ({"S": 2048, "L": 32768}: a requirement takes its command's)."""
    t = text.strip()
    if len(t) > MAX_WHERE_CHARS:
        raise UsageError(
            _("{option} {expr}: longer than {max} characters; write METRIC OP NUMBER.").format(
                option=option, expr=quoted(t), max=MAX_WHERE_CHARS
            )
        )
    m = _WHERE.fullmatch(t)
    if not m:
        raise UsageError(
            _(
                "{option} {expr}: write METRIC OP NUMBER with OP one of < <= > >= == != "
                "(e.g. total_params<=7e9)."
            ).format(option=option, expr=quoted(t))
        )
    op = "==" if m.group(2) == "=" else m.group(2)
    name = m.group(1)
    kind = METRICS.get(name)
    if kind is not None and kind.argument and lengths and kind.argument in lengths:
        name = f"{name}@{lengths[kind.argument]}"
    metric = parse_metric(name, option, t)
    return Filter(metric, op, parse_bound(m.group(3), f"{option} {quoted(t)}", metric), t)


# --- the sweep ------------------------------------------------------------------------------


_VALUES = re.compile(r" \([^()]*\d[^()]*\)")


def _reason(exc: ValidationError | FfnCalcError) -> str:
    """The rule a combination breaks, without its numbers, so that the combinations breaking
    one rule count together: "n_kv_heads must divide n_heads"."""
    if isinstance(exc, FfnCalcError):  # its English, whatever the language it was shown in
        text = str(exc if exc.text is None else exc.text).rstrip(".")
    else:
        text = "; ".join(e["msg"].removeprefix("Value error, ") for e in exc.errors())
    return _VALUES.sub("", text)


def _shown(exc: ValidationError | FfnCalcError) -> str:
    """What a person reads about a skipped combination: the message in the current language,
    with the combination's numbers ("n_kv_heads (3) must divide n_heads (32)")."""
    from ffn_calc.model.rules import InvariantError

    if isinstance(exc, FfnCalcError):
        return str(exc).rstrip(".")
    shown = []
    for e in exc.errors():
        error = (e.get("ctx") or {}).get("error")
        text = error.translated() if isinstance(error, InvariantError) else e["msg"]
        shown.append(str(text).removeprefix("Value error, "))
    return "; ".join(shown)


def _combinations(axes: list[Sequence[Value]]) -> Iterator[tuple[Value, ...]]:
    """The cartesian product, the last axis fastest, without listing any axis (a range of a
    million values stays a range; itertools.product would make a tuple of each)."""
    *outer, last = axes
    for prefix in _combinations(outer) if outer else [()]:
        for v in last:
            yield (*prefix, v)


def _check_used(base: ModelConfig, axes: Sequence[Axis]) -> None:
    """A varied field the model has no use for, and that no other varied field gives a use,
    would give the same row for every value: refused."""
    from ffn_calc.model.unused import ENABLED_BY, unused_field

    varied = {a.field for a in axes}
    for a in axes:
        if varied & set(ENABLED_BY.get(a.field, ())):
            continue
        reason = unused_field(base, a.field)
        if reason:
            raise UsageError(
                _("--vary {spec}: {reason}").format(spec=f"{a.field}={a.spec}", reason=reason)
            )


class Sweep:
    """The rows of a sweep, produced one at a time: each a dict of the varied fields and the
    metrics. After (or during) iteration, `matched`, `filtered_out` and `skipped` (a Counter of
    reasons, with `first_skipped` the first combination each reason skipped) say what happened
    to every combination."""

    def __init__(
        self,
        base: ModelConfig,
        axes: Sequence[Axis],
        metrics: Sequence[Metric],
        where: Sequence[Filter] = (),
    ) -> None:
        if not axes:
            raise UsageError(_("a sweep needs at least one --vary FIELD=VALUES."))
        fields = [a.field for a in axes]
        if len(set(fields)) != len(fields):
            twice = next(f for f in fields if fields.count(f) > 1)
            raise UsageError(
                _("--vary: {field} is varied twice; give its values in one --vary.").format(
                    field=twice
                )
            )
        for a in axes:
            if a.follows is not None and a.follows[1] in {
                b.field for b in axes if b.follows is not None
            }:
                raise UsageError(
                    _(
                        "--vary {field}={spec}: {other} follows another field itself; make "
                        "each field follow a varied or fixed one."
                    ).format(field=a.field, spec=a.spec, other=a.follows[1])
                )
        self.base, self.axes, self.where = base, list(axes), list(where)
        shown = list(dict.fromkeys(m.name for m in [*metrics, *(f.metric for f in where)]))
        by_name = {m.name: m for m in [*metrics, *(f.metric for f in where)]}
        self.metrics = [by_name[n] for n in shown]
        if not self.metrics:
            raise UsageError(_("a sweep needs at least one --metric."))
        self.combinations = 1
        for a in axes:
            self.combinations *= len(a.values)
        if self.combinations > MAX_COMBINATIONS:
            raise UsageError(
                _(
                    "the sweep has {count} combinations; at most {max}: narrow a range or take a "
                    "larger step."
                ).format(count=f"{self.combinations:,}", max=f"{MAX_COMBINATIONS:,}")
            )
        _check_used(base, self.axes)
        try:  # a metric that cannot apply to the model at all is an error, not a skip
            self._values(base)
        except PositionLimitError as exc:
            # Past the base model's position table: an error unless an axis changes the
            # table, and then each combination past its own table is skipped.
            if not {a.field for a in axes} & {"positions", "max_positions", "position_offset"}:
                raise UsageError(str(exc)) from None
        except FfnCalcError as exc:
            raise UsageError(str(exc)) from None
        self.warnings = held_fixed(base, {a.field for a in self.axes})
        self.matched = self.filtered_out = 0
        self.skipped: Counter[str] = Counter()
        self.first_skipped: dict[str, dict[str, Value]] = {}
        # The first skipped combination's message, in the reader's language, with its numbers.
        self.first_message: dict[str, str] = {}

    @property
    def columns(self) -> list[str]:
        return [a.field for a in self.axes] + [m.name for m in self.metrics]

    def _values(self, cfg: ModelConfig) -> list[Number | None]:
        cache: Cache = {}
        return [m.kind.compute(cfg, cache, m.argument) for m in self.metrics]

    def _follow(self, field: str, factor: Fraction, other: str, changes: dict[str, Value]) -> int:
        """The value of a field that follows another in this combination (checked against its
        field, as an axis's values are): a skip, with its reason, where it is no whole number."""
        base = changes[other] if other in changes else getattr(self.base, other)
        value = factor * base if isinstance(base, int) and not isinstance(base, bool) else None
        if value is None or value.denominator != 1:
            raise UsageError(
                say(
                    N_("{field} = {factor} x {other} is not a whole number"),
                    field=field,
                    factor=str(factor),
                    other=other,
                )
            )
        fields_model(frozenset({field})).model_validate({field: int(value)})
        return int(value)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        self.matched = self.filtered_out = 0
        self.skipped = Counter()
        self.first_skipped = {}
        self.first_message = {}
        names = [a.field for a in self.axes]
        metric_names = [m.name for m in self.metrics]
        checks = [(metric_names.index(f.metric.name), f) for f in self.where]
        computes = [(m.kind.compute, m.argument) for m in self.metrics]
        varied = self.base.varied
        follows = [(a.field, a.follows) for a in self.axes if a.follows is not None]
        for combo in _combinations([a.values for a in self.axes]):
            changes = dict(zip(names, combo, strict=True))
            for field, _rule in follows:
                del changes[field]  # set below, where it can be counted
            try:
                for field, (factor, other) in follows:
                    changes[field] = self._follow(field, factor, other, changes)
                # Every value passed its field's check when its axis was made.
                cfg = varied(changes, values_checked=True)
                cache: Cache = {}
                values = [compute(cfg, cache, arg) for compute, arg in computes]
            except (ValidationError, FfnCalcError) as exc:
                reason = _reason(exc)  # English, from the same error as its shown message
                self.skipped[reason] += 1
                if reason not in self.first_skipped:
                    self.first_skipped[reason] = changes
                    self.first_message[reason] = _shown(exc)
                continue
            if checks and not all(f.keeps(values[i]) for i, f in checks):
                self.filtered_out += 1
                continue
            self.matched += 1
            changes.update(zip(metric_names, values, strict=True))
            yield changes


def sweep(
    base: ModelConfig,
    vary: Mapping[str, str | Iterable[Value]],
    metrics: Sequence[str] = ("total_params",),
    where: Sequence[str] = (),
) -> Sweep:
    """A sweep from Python: `vary` maps a field to a spec ("8192:16384:1024", "1,2,4",
    "4*d_model": the field follows another) or to values (a range, a list, an iterator);
    metrics and filters are written as on the command line. An iterator is read only as far as
    the combination limit allows."""
    if not isinstance(vary, Mapping):
        raise UsageError(
            _("vary maps each field to its values: {{'d_ff': '8192:16384:1024'}}; got {value}.")
            .format(value=brief(vary))
        )  # fmt: skip
    for k in vary:
        _check_field(k)
    # Specs and sized values first: what they multiply to bounds how far an iterator is read.
    axes: dict[str, Axis] = {}
    sized = 1
    for k, v in vary.items():
        if isinstance(v, str):
            axes[k] = parse_axis(f"{k}={v}")
        elif isinstance(v, Sized) and not isinstance(v, bytes | bytearray | Mapping):
            axes[k] = make_axis(k, v)
        else:
            continue
        sized *= len(axes[k].values)
    for k, v in vary.items():
        if k not in axes:
            axes[k] = make_axis(k, v, limit=max(1, MAX_COMBINATIONS // max(sized, 1)))
            sized *= len(axes[k].values)
    return Sweep(
        base,
        [axes[k] for k in vary],
        [parse_metric(m) for m in metrics],
        [parse_filter(w) for w in where],
    )
