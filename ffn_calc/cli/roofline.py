"""`ffn-calc roofline`: per component time bounds on an accelerator (its own module: the
commands module stays under its size)."""

from typing import TYPE_CHECKING, Annotated

import typer

from ffn_calc.cli.app import Format, FormatOpt, given, refuse
from ffn_calc.cli.options import BF16, Dtype, PlotOpt, choice_enum, model_command
from ffn_calc.cli.require import RequireOpt, emit_checked, required
from ffn_calc.errors import UsageError
from ffn_calc.i18n.translate import _
from ffn_calc.limits import MAX_SIZE

if TYPE_CHECKING:
    from enum import StrEnum

    from ffn_calc.model.config import ModelConfig

    Phase = StrEnum
    Recompute = StrEnum
else:
    from ffn_calc.model.choices import RECOMPUTE

    Phase = choice_enum("Phase", ("decode", "prefill", "training"))
    Recompute = choice_enum("Recompute", RECOMPUTE)

# Weight-only quantisation computes in bf16 and keeps a bf16 cache.
WEIGHT_ONLY = ("int8", "int4")
DECODE = Phase("decode")
NO_RECOMPUTE = Recompute("none")


@model_command("roofline")
def roofline_cmd(
    ctx: typer.Context,
    model: "ModelConfig",
    seq_len: Annotated[int | None, typer.Option("--seq-len", "-s", min=1, max=MAX_SIZE, help="A prefill of S tokens per sequence (the forward pass, LM head at every position).")] = None,
    context: Annotated[int | None, typer.Option("--context", "-L", min=1, max=MAX_SIZE, help="One decode step with L tokens cached.")] = None,
    batch: Annotated[int, typer.Option("--batch", "-b", min=1, max=MAX_SIZE, help="Sequences B.")] = 1,
    gpu: Annotated[str | None, typer.Option("--gpu", metavar="NAME", help="h100-sxm, h100-pcie, h200, b200, a100-40gb, a100-80gb, l40s, l4, rtx-4090, mi300x, tpu-v5e.")] = None,
    peak_flops: Annotated[float | None, typer.Option("--peak-flops", metavar="FLOP/S", help="Dense peak FLOP/s (any other accelerator, or to override --gpu's).")] = None,
    bandwidth: Annotated[float | None, typer.Option("--bandwidth", metavar="BYTES/S", help="Memory bandwidth in bytes/s (with --peak-flops, or to override --gpu's).")] = None,
    efficiency: Annotated[float, typer.Option("--efficiency", help="Fraction of peak and bandwidth reached (default 1.0: a bound).")] = 1.0,
    dtype: Annotated[Dtype, typer.Option("--dtype", help="Weights' dtype.")] = BF16,
    act_dtype: Annotated[Dtype | None, typer.Option("--act-dtype", help="Activations' dtype, whose peak the matmuls run at (default --dtype; bf16 for int8/int4 weights).")] = None,
    kv_dtype: Annotated[Dtype | None, typer.Option("--kv-dtype", help="KV cache dtype (default as --act-dtype).")] = None,
    tp: Annotated[int, typer.Option("--tp", min=1, max=MAX_SIZE, help="Tensor-parallel degree: divides FLOPs and bytes (communication not modelled).")] = 1,
    training: Annotated[bool, typer.Option("--training", help="The --seq-len phase is a training step: forward, backward (2x), recompute, optimizer step.")] = False,
    dp: Annotated[int, typer.Option("--dp", min=1, max=MAX_SIZE, help="--training: data-parallel replicas; each runs --batch / --dp sequences.")] = 1,
    recompute: Annotated[Recompute, typer.Option("--recompute", help="--training: none, selective (the attention scores) or full (every layer).")] = NO_RECOMPUTE,
    interconnect: Annotated[float | None, typer.Option("--interconnect", metavar="BYTES/S", help="--training --dp 2+: link bandwidth per device for the gradients' ring all-reduce (not counted without it).")] = None,
    measured: Annotated[float | None, typer.Option("--measured", metavar="TOKENS_PER_S", help="A measured throughput: report MFU and MBU.")] = None,
    measured_phase: Annotated[Phase, typer.Option("--measured-phase", help="What --measured measured: decode, prefill or training.")] = DECODE,
    plot: PlotOpt = None,
    require: RequireOpt = None,
    format: FormatOpt = Format.table,
) -> None:  # fmt: skip
    """Time lower bounds per component on an accelerator: FLOPs, bytes, intensity and bound for
    a prefill and a decode step; crossovers in time; MFU and MBU from a measurement."""
    from ffn_calc.counts.roofline import Dtypes
    from ffn_calc.reports.roofline import roofline_report

    if measured is None:
        refuse(ctx, ("measured_phase",), _("{option} goes with --measured TOKENS_PER_S."))
    if training and not given(ctx, "measured_phase"):
        measured_phase = Phase("training")  # what a training step's throughput measures
    w = dtype.value
    act = act_dtype.value if act_dtype is not None else ("bf16" if w in WEIGHT_ONLY else w)
    kv = kv_dtype.value if kv_dtype is not None else act
    timed = [t for t in require or [] if t.strip().startswith(("decode_time", "prefill_time", "training_time"))]  # fmt: skip
    own = (gpu or "").lower() != "h100-sxm" or (w, act, kv) != ("bf16",) * 3
    if timed and (own or peak_flops or bandwidth or efficiency != 1.0 or tp != 1):
        raise UsageError(
            _(
                "--require {text}: the time metrics count an H100 SXM in bf16 at full "
                "efficiency; give --gpu h100-sxm alone, or bound the table's times yourself."
            ).format(text=timed[0].strip())
        )
    results = required(ctx, model, require, (), {"S": "--seq-len S", "L": "--context L"},
                       seq_len=seq_len, context=context, batch=batch, dtype=w)  # fmt: skip
    report = roofline_report(
        model, seq_len=seq_len, context=context, batch=batch, dtypes=Dtypes(w, act, kv),
        gpu=gpu, peak=peak_flops, bandwidth=bandwidth, efficiency=efficiency, tp=tp,
        measured=measured, measured_phase=measured_phase.value, training=training, dp=dp,
        recompute=recompute.value, interconnect=interconnect,
    )  # fmt: skip
    if plot is not None:
        from ffn_calc.counts.roofline import Device
        from ffn_calc.output import roofline_plot

        device = Device(report.accelerator, report.peak_flops, report.bandwidth_bytes)
        if training and context is None:  # the training step over S; else the decode step
            link = None if interconnect is None else interconnect * efficiency
            roofline_plot.training_times(report, model, Dtypes(w, act, kv), device, plot,
                                         recompute.value, link)  # fmt: skip
        else:
            roofline_plot.decode_times(report, model, Dtypes(w, act, kv), device, plot)
    emit_checked(report, format, results)
