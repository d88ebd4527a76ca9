"""Requirements: `--require METRIC OP NUMBER` on a command, and every budget of `ffn-calc check`.

One grammar and one metrics table with `sweep --where` (run.parse_filter, metrics.METRICS).
A metric that takes a length and is written without @N takes the command's length: the
sequence length S (`flops --seq-len`, a budget's `seq_len`) for forward_flops and
training_flops, the context L (`kv --context`, `memory --context`, `flops --decode --context`,
a budget's `context`) for kv_elements, kv_bytes and decode_flops; written with @N it takes its
own. Each value is counted on the model by the sweep's metric functions, exactly (integers,
Fractions for a share or a crossover), at the setting's batch (default 1) and dtype (default
bf16, for weights_bytes and kv_bytes); never read back from a report's rounded numbers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, cast

from ffn_calc.errors import UsageError
from ffn_calc.i18n.translate import _
from ffn_calc.quantities import cut
from ffn_calc.reports.base import Number, Result, exact, num
from ffn_calc.sweeps.metrics import BATCH, DTYPE, METRICS, Cache, exact_value
from ffn_calc.sweeps.run import Filter, parse_filter

if TYPE_CHECKING:
    from ffn_calc.model.config import ModelConfig

# The relation that holds when a requirement fails: total_params = 7,241,732,096 > 7.2e9.
NEGATED = {"<=": ">", "<": ">=", ">=": "<", ">": "<=", "==": "!=", "!=": "=="}
_OP = re.compile(r"<=|>=|==|!=|<|>|=")


@dataclass(frozen=True)
class Setting:
    """What a requirement is counted at: the lengths a metric without @N takes, the batch,
    and the dtype of the byte metrics."""

    seq_len: int | None = None
    context: int | None = None
    batch: int = 1
    dtype: str = "bf16"

    def lengths(self) -> dict[str, int]:
        out = {}
        if self.seq_len is not None:
            out["S"] = self.seq_len
        if self.context is not None:
            out["L"] = self.context
        return out

    def cache(self) -> Cache:
        return {BATCH: self.batch, DTYPE: self.dtype}


class RequirementResult(Result):
    """One requirement, counted: JSON `requirements` of a command, a budget's in `check`."""

    requirement: str  # as written: "total_params<=7.2e9"
    metric: str  # as counted, with its length: "forward_flops@4096"
    op: str  # <, <=, >, >=, ==, !=
    limit: str  # the bound as written: "7.2e9", "60%", "4GiB"
    limit_exact: str  # the bound read exactly: "7200000000", "3/5"
    value: Number | None  # the model's value (null: a crossover never reached)
    value_exact: str | None
    holds: bool


_NAME = re.compile(r"\s*([A-Za-z_]++)(@?)")


def parse_requirements(
    texts: Sequence[str],
    setting: Setting,
    option: str = "--require",
    lengths: Mapping[str, str] | None = None,
) -> list[Filter]:
    """Each `METRIC OP NUMBER`, read as --where reads it; a metric without @N takes the
    setting's length (UsageError, exit 2, on a bad expression or an unknown metric).
    `lengths` says where the length of a metric written without @N can be given
    ({"S": "--seq-len", "L": "--context"}): the message for a missing one names it."""
    known = setting.lengths()
    for t in texts:
        m = _NAME.match(t)
        kind = METRICS.get(m.group(1)) if m else None
        if m and kind and kind.argument and not m.group(2) and kind.argument not in known:
            given = (lengths or {}).get(kind.argument)
            text = cut(t.strip())
            if given is None:
                raise UsageError(
                    _("{option} {text}: {metric} takes a length: write {metric}@2048.").format(
                        option=option, text=text, metric=m.group(1)
                    )
                )
            raise UsageError(
                _(
                    "{option} {text}: {metric} takes a length: write {metric}@2048, or give "
                    "{length} (a metric without @N takes it)."
                ).format(option=option, text=text, metric=m.group(1), length=given)
            )
    return [parse_filter(t, option, known) for t in texts]


def evaluate(
    cfg: ModelConfig, filters: Sequence[Filter], setting: Setting
) -> list[RequirementResult]:
    """Each requirement's exact value on `cfg` and whether it holds."""
    cache = setting.cache()
    out = []
    for f in filters:
        value = exact_value(f.metric, cfg, cache)
        out.append(
            RequirementResult(
                requirement=f.text,
                metric=f.metric.name,
                op=f.op,
                limit=_OP.split(f.text, maxsplit=1)[-1].strip(),
                limit_exact=exact(f.bound),
                value=None if value is None else num(value),
                value_exact=None if value is None else exact(value),
                holds=f.keeps(value),
            )
        )
    return out


def shown_value(r: RequirementResult) -> str:
    """The value as a person reads it: 7,241,732,096; 59.8712%; 1,536.5; none."""
    if r.value_exact is None:
        return _("none")
    v = Fraction(r.value_exact)
    if r.metric == "ffn_share":
        return f"{float(v):.4%}"
    if v.denominator == 1:
        return f"{int(v):,}"
    return f"{float(v):,.3f}"


def failure(r: RequirementResult) -> str:
    """`total_params = 7,241,732,096 > 7.2e9`: the value against the limit it crosses."""
    if r.value_exact is None:
        return _("{metric} is never reached (none), so {requirement} does not hold").format(
            metric=r.metric, requirement=r.requirement
        )
    return f"{r.metric} = {shown_value(r)} {NEGATED[r.op]} {r.limit}"


def with_requirements(report: Result, results: list[RequirementResult]) -> Result:
    """The report with a `requirements` key after its own (JSON); the same tables."""
    from pydantic import create_model

    cls = create_model(  # a subclass: the report's keys in their order, then `requirements`
        type(report).__name__,
        __base__=type(report),
        requirements=(list[RequirementResult], ...),
    )
    fields = {k: getattr(report, k) for k in type(report).model_fields}
    extended = cls.model_construct(**fields, requirements=results)
    return cast("Result", extended)
