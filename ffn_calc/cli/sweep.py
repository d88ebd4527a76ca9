"""`ffn-calc sweep`: one model with fields varied, each combination counted, rows streamed."""

from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, cast

import typer

from ffn_calc.cli.app import Format, FormatOpt, Streamed, output_errors
from ffn_calc.cli.options import model_command

if TYPE_CHECKING:
    from ffn_calc.config import ModelConfig

METRIC_HELP = (
    "A column: total_params, active_params, non_embedding_params, embedding_params, "
    "attention_params, ffn_params, norm_params, lm_head_params, ffn_share, weights_bytes, "
    "forward_flops@S, training_flops@S, scores_vs_ffn, scores_vs_projections, scores_vs_dense, "
    "kv_elements@L, kv_bytes@L, decode_flops@L; repeat for several (default total_params, and "
    "active_params for MoE)."
)


@model_command("sweep")
def sweep_cmd(
    model: "ModelConfig",
    vary: Annotated[list[str], typer.Option("--vary", "-V", metavar="FIELD=VALUES", help="A field and its values: d_ff=8192:16384:1024 (a range, the end included), n_layers=1:64:*2 (doubling), n_kv_heads=1,2,4,8 (a list), activation=gelu,swiglu; repeat for several (every combination).")],
    metric: Annotated[list[str] | None, typer.Option("--metric", "-m", metavar="NAME", help=METRIC_HELP)] = None,
    where: Annotated[list[str] | None, typer.Option("--where", "-w", metavar="EXPR", help="Keep rows where METRIC OP NUMBER holds: total_params<=7e9, ffn_share>=60%, forward_flops@4096<2T; repeat: all must hold.")] = None,
    plot: Annotated[Path | None, typer.Option("--plot", metavar="FILE", help="Also draw each metric over the varied field (a line per value of a second field) to FILE: .png or .svg (needs matplotlib: pip install 'ffn-calc\\[plot]').")] = None,
    format: FormatOpt = Format.table,
) -> None:  # fmt: skip
    """Vary fields of a model over ranges and lists: every combination's parameters, FLOPs,
    crossovers or KV cache, filtered with --where, streamed row by row.

    Combinations that are not valid models (heads that do not divide d_model) are skipped and
    counted with the reason."""
    from ffn_calc import sweep_output as out
    from ffn_calc.sweep_metrics import parse_metric
    from ffn_calc.sweeps import Sweep, parse_axis, parse_filter

    names = metric or (["total_params", "active_params"] if model.is_moe else ["total_params"])
    s = Sweep(
        model,
        [parse_axis(v) for v in vary],
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
        from ffn_calc import plot as figures

        figures.sweep(s, plot)
    with output_errors():
        stream = Streamed()
        write(s, cast("IO[str]", stream))  # a text stream's write and flush
        stream.done()
