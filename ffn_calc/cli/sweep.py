"""`ffn-calc sweep`: one model with fields varied, each combination counted, rows streamed."""

from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, cast

import typer

from ffn_calc.cli.app import Format, FormatOpt, Streamed, given, output_errors, spelled
from ffn_calc.cli.options import MODEL_OPTION_NAMES, model_command
from ffn_calc.model import choices

if TYPE_CHECKING:
    from ffn_calc.model.config import ModelConfig

METRIC_HELP = (
    "A column; repeat for several (default total_params, and active_params for MoE): "
    + "; ".join(
        f"{name}{'@' + arg if arg else ''}: {what}"
        for name, (arg, what, _unit) in choices.SWEEP_METRICS.items()
    )
    + "."
)


# The fields a size flag sets, where they are not the flag's own name.
FLAG_SETS = {
    "bias": {"attention_bias", "ffn_bias", "attention_out_bias"},
    "tie": {"tie_embeddings"},
}


def _flags_varied(ctx: typer.Context, fields: set[str]) -> None:
    """A size flag whose field the sweep varies would be overwritten by every value: refused
    (but --d-model and --n-heads, which build the base model when no source is given)."""
    from ffn_calc.errors import UsageError
    from ffn_calc.i18n.translate import _

    flags = given(ctx, *MODEL_OPTION_NAMES)
    if not {"preset", "config", "hf_config"} & set(flags):
        flags = [f for f in flags if f not in ("d_model", "n_heads")]
    for name in flags:
        hit = sorted(FLAG_SETS.get(name, {name}) & fields)
        if hit:
            raise UsageError(
                _(
                    "{option} and --vary {field}: the sweep sets {field}; leave out {option}."
                ).format(option=spelled(ctx, name), field=hit[0])
            )


@model_command("sweep")
def sweep_cmd(
    ctx: typer.Context,
    model: "ModelConfig",
    vary: Annotated[list[str], typer.Option("--vary", "-V", metavar="FIELD=VALUES", help="A field and its values: d_ff=8192:16384:1024 (a range, the end included), n_layers=1:64:*2 (doubling), n_kv_heads=1,2,4,8 (a list), activation=gelu,swiglu, d_ff=4*d_model (d_ff follows d_model in every combination; K may be a fraction, 8/3*d_model); repeat for several (every combination).")],
    metric: Annotated[list[str] | None, typer.Option("--metric", "-m", metavar="NAME", help=METRIC_HELP)] = None,
    where: Annotated[list[str] | None, typer.Option("--where", "-w", metavar="EXPR", help="Keep rows where METRIC OP NUMBER holds: total_params<=7e9, ffn_share>=60%, forward_flops@4096<2T; repeat: all must hold.")] = None,
    plot: Annotated[Path | None, typer.Option("--plot", metavar="FILE", help="Also draw each metric over the varied field (a line per value of a second field) to FILE: .png or .svg (needs matplotlib: pip install 'ffn-calc\\[plot]').")] = None,
    format: FormatOpt = Format.table,
) -> None:  # fmt: skip
    """Vary fields of a model over ranges and lists: every combination's parameters, FLOPs,
    crossovers or KV cache, filtered with --where, streamed row by row.

    Combinations that are not valid models (heads that do not divide d_model) are skipped and
    counted with the reason."""
    from ffn_calc.output import sweep as out
    from ffn_calc.sweeps.metrics import parse_metric
    from ffn_calc.sweeps.run import Sweep, parse_axis, parse_filter

    names = metric or (["total_params", "active_params"] if model.is_moe else ["total_params"])
    axes = [parse_axis(v) for v in vary]
    _flags_varied(ctx, {a.field for a in axes})
    s = Sweep(
        model,
        axes,
        [parse_metric(m) for m in names],
        [parse_filter(w) for w in where or []],
    )
    write = {
        Format.table: out.write_table,
        Format.csv: out.write_csv,
        Format.markdown: out.write_markdown,
        Format.json: out.write_json,
    }[format]
    if plot is not None:
        from ffn_calc.output import plot as figures

        figures.sweep(s, plot)
    with output_errors():
        stream = Streamed()
        write(s, cast("IO[str]", stream))  # a text stream's write and flush
        stream.done()
