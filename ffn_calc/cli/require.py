"""`--require EXPR` on a command: a budget on the model, checked after the output is written.

The metrics and grammar are `sweep --where`'s (ffn_calc.sweeps.require, imported only when
--require is given, so a command without it loads none of the sweep machinery).
"""

from typing import TYPE_CHECKING, Annotated, Any

import typer

from ffn_calc.cli.app import Format, emit, refuse, say
from ffn_calc.i18n.translate import N_, _

if TYPE_CHECKING:
    from ffn_calc.model.config import ModelConfig
    from ffn_calc.sweeps.require import RequirementResult

# `--require EXPR`: a budget on the model (ffn_calc.sweeps.require; imported only when given).
RequireOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--require",
        metavar="EXPR",
        help="Exit 1 unless METRIC OP NUMBER holds, with the metrics and grammar of sweep --where: total_params<=7.2e9, kv_bytes<=4GiB, ffn_share>=60%; a metric without @N takes the command's length (--seq-len, --context); repeat: all must hold.",
    ),
]
# A requirement counts FLOPs as `sweep` does; an option that changes how the command counts
# them would make the two numbers differ.
REQUIRE_FLOPS = N_(
    "{option} with --require {metric}: a requirement counts FLOPs as sweep does (every "
    "position's scores, the LM head, 2 FLOPs per multiply-add, the prefill at S); leave out "
    "{option} or the requirement."
)


def required(
    ctx: typer.Context,
    model: "ModelConfig",
    texts: list[str] | None,
    refused: tuple[str, ...] = (),
    lengths: dict[str, str] | None = None,
    **setting: Any,
) -> "list[RequirementResult] | None":
    """The requirements counted on the model (None: no --require): a bad expression or one
    that does not apply (a length past the model's positions) exits 2 before any output."""
    if not texts:
        return None
    from ffn_calc.sweeps.require import Setting, evaluate, parse_requirements

    s = Setting(**setting)
    filters = parse_requirements(texts, s, lengths=lengths)
    flops = [f.metric.name for f in filters if f.metric.name.split("@")[0].endswith("_flops")]
    if flops and refused:
        refuse(ctx, refused, _(REQUIRE_FLOPS), metric=flops[0])
    return evaluate(model, filters, s)


def emit_checked(
    report: Any,
    format: Format,
    results: "list[RequirementResult] | None",
    explain: bool = False,
    extra: Any = None,
) -> None:
    """Emit the report (JSON with a `requirements` key when there are any); then each failed
    requirement on stderr and exit 1."""
    if results is None:
        emit(report, format, explain, extra)
        return
    from ffn_calc.sweeps.require import failure, with_requirements

    emit(with_requirements(report, results), format, explain, extra)
    failed = [r for r in results if not r.holds]
    for r in failed:
        say(
            _("Requirement failed: {failure} (--require {requirement}).").format(
                failure=failure(r), requirement=r.requirement
            )
        )
    if failed:
        raise typer.Exit(1)
