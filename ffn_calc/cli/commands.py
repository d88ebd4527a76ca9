"""The commands: each loads a model, computes a report and emits it."""

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ffn_calc.cli.app import (
    ExplainOpt,
    Format,
    FormatOpt,
    command,
    emit,
    output_errors,
    refuse,
    user_errors,
    write,
)
from ffn_calc.cli.options import (
    BF16,
    MIXED,
    NO_OFFLOAD,
    NO_RECOMPUTE,
    ZERO0,
    Dtype,
    Offload,
    PlotOpt,
    Recipe,
    Recompute,
    Unit,
    Zero,
    model_command,
    parse_image_size,
)
from ffn_calc.cli.require import RequireOpt, emit_checked, required
from ffn_calc.errors import UsageError
from ffn_calc.i18n.translate import N_, _
from ffn_calc.limits import MAX_SIZE

if TYPE_CHECKING:
    from ffn_calc.model.config import ModelConfig

# --explain writes the formulas as notes under the tables: JSON holds them already, CSV no notes.
EXPLAIN_FORMATS = N_(
    "{option} writes each term's formula under the tables: use it with --format table or "
    "markdown (JSON holds every term's formula and numbers already; CSV holds no notes)."
)


def _explain_format(ctx: typer.Context, fmt: Format) -> None:
    if fmt in (Format.json, Format.csv):
        refuse(ctx, ("explain",), _(EXPLAIN_FORMATS))


def _generates(model: "ModelConfig", option: str) -> None:
    """--decode and --generate need a decoder."""
    if not model.has_decoder:
        raise UsageError(
            _(
                "{option}: {model} is encoder-only: it generates nothing and keeps no KV cache."
            ).format(option=option, model=model.name)
        )


@model_command("params")
def params_cmd(
    ctx: typer.Context,
    model: "ModelConfig",
    explain: ExplainOpt = False,
    require: RequireOpt = None,
    format: FormatOpt = Format.table,
) -> None:
    """Parameters per layer kind and per component, with shares and the FFN : attention ratio."""
    from ffn_calc.reports.params import params_report

    _explain_format(ctx, format)

    report = params_report(model)
    emit_checked(report, format, required(ctx, model, require), explain)


@model_command("flops")
def flops_cmd(
    ctx: typer.Context,
    model: "ModelConfig",
    seq_len: Annotated[int | None, typer.Option("--seq-len", "-s", min=1, max=MAX_SIZE, help="Sequence length S (source length for encoder-decoder); required without --decode.")] = None,
    decode: Annotated[bool, typer.Option("--decode", help="One decode step: one new token per sequence with --context tokens cached.")] = False,
    context: Annotated[int | None, typer.Option("--context", "-L", min=1, max=MAX_SIZE, help="Cached tokens for --decode.")] = None,
    source_len: Annotated[int | None, typer.Option("--source-len", min=1, max=MAX_SIZE, help="--decode, encoder-decoder: source tokens in the cross-attention cache (default --context).")] = None,
    generate: Annotated[int | None, typer.Option("--generate", min=1, max=MAX_SIZE, help="N new tokens after a prompt of --seq-len S: the prefill and N - 1 decode steps.")] = None,
    batch: Annotated[int, typer.Option("--batch", "-b", min=1, max=MAX_SIZE, help="Batch size B.")] = 1,
    target_len: Annotated[int | None, typer.Option("--target-len", "-t", min=1, max=MAX_SIZE, help="Target length T of an encoder-decoder model (default S).")] = None,
    unit: Annotated[Unit, typer.Option("--unit", help="flops (2 per multiply-add) or macs (multiply-adds); also with --decode and --generate.")] = Unit.flops,
    causal: Annotated[bool, typer.Option("--causal", help="Decoder self-attention scores over the S(S+1)/2 visible pairs only (with --generate: the prefill's).")] = False,
    lm_head: Annotated[bool, typer.Option("--lm-head/--no-lm-head", help="Count the output projection (also with --decode and --generate).")] = True,
    explain: Annotated[bool, typer.Option("--explain", help="Print every term's formula with the numbers put in (not with --generate).")] = False,
    images: Annotated[int | None, typer.Option("--images", min=1, max=MAX_SIZE, help="A multimodal model: N images per sequence through its vision tower and projector; their tokens join the sequence.")] = None,
    image_size: Annotated[str | None, typer.Option("--image-size", help="With --images: the image size HxW (a tower whose config fixes it takes that size only).")] = None,
    require: RequireOpt = None,
    format: FormatOpt = Format.table,
) -> None:  # fmt: skip
    """Forward and training FLOPs per component, per layer and per token, with rules of thumb;
    --decode: one decode step with a cache."""
    from ffn_calc.counts.flops import Workload
    from ffn_calc.reports.flops import flops_report

    _explain_format(ctx, format)
    changed = ("causal", "lm_head", "target_len", "unit", "generate", "source_len")
    results = required(
        ctx,
        model,
        require,
        changed,
        # a length given where this mode takes one (another mode's option is no answer)
        {"L": "--context L"} if decode else {"S": "--seq-len S"},
        seq_len=seq_len,
        context=context,
        batch=batch,
    )
    if decode:
        refuse(
            ctx,
            ("generate",),
            _(
                "{option} and --decode: choose one (--generate counts the prefill and every decode step)."
            ),
        )
        refuse(
            ctx,
            ("seq_len", "target_len", "causal", "images", "image_size"),
            _(
                "{option} applies to a forward pass over S tokens, not to --decode (one new token per sequence with --context L cached)."
            ),
        )
        if context is None:
            raise UsageError(_("--decode needs --context L (the tokens already cached)."))
        from ffn_calc.reports.inference import decode_report

        _generates(model, "--decode")
        dr = decode_report(model, batch, context, source_len, unit=unit.value, lm_head=lm_head)
        emit_checked(dr, format, results, explain)
        return
    if context is not None or source_len is not None:
        raise UsageError(_("--context and --source-len go with --decode."))
    if seq_len is None:
        raise UsageError(_("flops needs --seq-len S (or --decode --context L)."))
    if generate is not None:
        refuse(
            ctx,
            ("target_len",),
            _(
                "{option} does not apply to --generate: an encoder-decoder model's decoder starts from one token and grows by one per step."
            ),
        )
        refuse(
            ctx,
            ("explain",),
            _("{option} goes with a forward pass or --decode: --generate shows no terms."),
        )
        refuse(
            ctx,
            ("images", "image_size"),
            _("{option} goes with a forward pass over S tokens, not with --generate."),
        )
        from ffn_calc.reports.inference import generation_report

        _generates(model, "--generate")
        gr = generation_report(
            model, batch, seq_len, generate, unit=unit.value, causal=causal, lm_head=lm_head
        )
        emit_checked(gr, format, results)
        return

    w = Workload(
        batch=batch, seq_len=seq_len, target_len=target_len, causal=causal, lm_head=lm_head
    )
    if image_size is not None and images is None:
        raise UsageError(_("--image-size goes with --images N."))
    size = None if image_size is None else parse_image_size(image_size)
    report = flops_report(model, w, unit.value, images or 0, size)
    emit_checked(report, format, results, explain)


@model_command("crossover")
def crossover_cmd(
    ctx: typer.Context,
    model: "ModelConfig",
    causal: Annotated[bool, typer.Option("--causal", help="Scores over the S(S+1)/2 visible pairs only.")] = False,
    grid: Annotated[bool, typer.Option("--grid", help="Add the S x d_model grid of scores : FFN.")] = False,
    decode: Annotated[bool, typer.Option("--decode", help="At decode time: the context where one step's scores, and its cache reads, overtake the FFN.")] = False,
    batch: Annotated[int, typer.Option("--batch", "-b", min=1, max=MAX_SIZE, help="--decode: sequences decoded together (the FFN weights are read once for all).")] = 1,
    context: Annotated[int | None, typer.Option("--context", "-L", min=1, max=MAX_SIZE, help="--decode, a model with recurrent or convolution mixers: also the share of the cache that is their states at this context.")] = None,
    plot: PlotOpt = None,
    format: FormatOpt = Format.table,
) -> None:  # fmt: skip
    """The sequence length S where attention's S^2 scores overtake the FFN and the projections;
    --decode: the context where they do at decode time."""
    from ffn_calc.reports.crossover import (
        GRID_D_MODELS,
        GRID_SEQ_LENS,
        crossover_report,
        grid_report,
    )

    if decode:
        if grid or causal:
            raise UsageError(_("--grid and --causal apply to the prefill crossover, not --decode."))
        from ffn_calc.reports.decode_crossover import decode_crossover_report

        _generates(model, "--decode")
        dr = decode_crossover_report(model, batch, context)
        if plot is not None:
            from ffn_calc.output import plot as figures

            figures.decode_crossover(dr, model, plot)

        def decode_bars() -> list[Any]:
            from ffn_calc.output.rich import share_bars

            return [share_bars(dr, what="the context L")]

        emit(dr, format, extra=decode_bars)
        return

    refuse(
        ctx,
        ("context",),
        _(
            "{option} goes with --decode: the share of the decode cache that is mixer states at that context."
        ),
    )
    refuse(
        ctx,
        ("batch",),
        _(
            "{option} goes with --decode (sequences decoded together); the prefill crossover is one sequence's."
        ),
    )
    g = grid_report(model, GRID_D_MODELS, GRID_SEQ_LENS, causal) if grid else None
    report = crossover_report(model, causal=causal, grid=g)
    if plot is not None:
        from ffn_calc.output import plot as figures

        figures.crossover(report, model, plot)

    def bars() -> list[Any]:
        from ffn_calc.output.rich import share_bars

        return [share_bars(report)]

    emit(report, format, extra=bars)


@model_command("kv")
def kv_cmd(
    ctx: typer.Context,
    model: "ModelConfig",
    context: Annotated[int, typer.Option("--context", "-L", min=1, max=MAX_SIZE, help="Tokens cached (a prefill of L tokens).")],
    batch: Annotated[int, typer.Option("--batch", "-b", min=1, max=MAX_SIZE, help="Sequences B.")] = 1,
    dtype: Annotated[Dtype, typer.Option("--dtype", help="Bytes per cached element: fp32 4, bf16 / fp16 2, fp8 / int8 1, int4 1/2.")] = BF16,
    source_len: Annotated[int | None, typer.Option("--source-len", min=1, max=MAX_SIZE, help="Encoder-decoder: source tokens in the cross-attention cache (default --context).")] = None,
    require: RequireOpt = None,
    format: FormatOpt = Format.table,
) -> None:  # fmt: skip
    """The KV cache after a prefill of --context tokens: elements and bytes per layer kind."""
    from ffn_calc.reports.inference import kv_report

    report = kv_report(model, batch, context, dtype.value, source_len)
    if require and source_len is not None:
        refuse(
            ctx,
            ("source_len",),
            _(
                "{option} goes with the kv table, not --require: a requirement's cache holds a source of --context tokens."
            ),
        )
    results = required(ctx, model, require, context=context, batch=batch, dtype=dtype.value)
    emit_checked(report, format, results)


@model_command("memory")
def memory_cmd(
    ctx: typer.Context,
    model: "ModelConfig",
    dtype: Annotated[Dtype, typer.Option("--dtype", help="Bytes per weight and cached element: fp32 4, bf16 / fp16 2, fp8 / int8 1, int4 1/2 (not with --training: see --recipe).")] = BF16,
    gpu_memory: Annotated[str | None, typer.Option("--gpu-memory", metavar="SIZE", help="Memory to fit in: 80GB (10^9 bytes), 80GiB (2^30), or bytes.")] = None,
    batch: Annotated[int, typer.Option("--batch", "-b", min=1, max=MAX_SIZE, help="--gpu-memory: sequences, for the longest context that fits (--training: see --micro-batch).")] = 1,
    context: Annotated[int | None, typer.Option("--context", "-L", min=1, max=MAX_SIZE, help="--gpu-memory: cached tokens, for the largest batch that fits (not with --training).")] = None,
    training: Annotated[bool, typer.Option("--training", help="Training: model states by --recipe and activations (Korthikanti et al. 2022).")] = False,
    recipe: Annotated[Recipe, typer.Option("--recipe", help="--training: mixed (18 bytes per parameter), distributed (6 + 12 / DP) or fp32 (16).")] = MIXED,
    dp: Annotated[int, typer.Option("--dp", min=1, max=MAX_SIZE, help="--training with --zero or --recipe distributed: data-parallel degree (divides the model states they shard).")] = 1,
    zero: Annotated[Zero, typer.Option("--zero", help="--training: ZeRO stage over --dp: 1 shards the optimizer states, 2 also the gradients, 3 also the weights.")] = ZERO0,
    offload: Annotated[Offload, typer.Option("--offload", help="--training --zero 1-3: ZeRO-Offload to CPU memory: the optimizer (its states and the gradients), or optimizer+params (--zero 3).")] = NO_OFFLOAD,
    tp: Annotated[int, typer.Option("--tp", min=1, max=MAX_SIZE, help="--training: tensor-parallel degree.")] = 1,
    sequence_parallel: Annotated[bool, typer.Option("--sequence-parallel", help="--training: sequence parallelism (with --tp 2 or more).")] = False,
    recompute: Annotated[Recompute, typer.Option("--recompute", help="--training: none, selective (the attention scores) or full.")] = NO_RECOMPUTE,
    seq_len: Annotated[int | None, typer.Option("--seq-len", "-s", min=1, max=MAX_SIZE, help="--training: sequence length (default 2048, or the model's learned position table when shorter).", show_default=False)] = None,
    micro_batch: Annotated[int, typer.Option("--micro-batch", min=1, max=MAX_SIZE, help="--training: micro-batch size.")] = 1,
    explain: Annotated[bool, typer.Option("--explain", help="--training: print every activation term's formula with the numbers put in.")] = False,
    require: RequireOpt = None,
    format: FormatOpt = Format.table,
) -> None:  # fmt: skip
    """The weights in bytes per component; with --gpu-memory, the longest context and largest
    batch whose weights and KV cache fit; --training: model states and activations per GPU."""
    from ffn_calc.quantities import parse_bytes
    from ffn_calc.reports.memory import memory_report

    if training:
        refuse(
            ctx,
            ("dtype",),
            _(
                "{option} does not apply to --training: --recipe sets the bytes of the weights, gradients and optimizer states; activations are counted in 16 bits."
            ),
        )
        refuse(
            ctx,
            ("batch",),
            _(
                "{option} does not apply to --training: give the sequences per step with --micro-batch."
            ),
        )
        refuse(
            ctx,
            ("context",),
            _("{option} does not apply to --training: give the sequence length with --seq-len."),
        )
        _explain_format(ctx, format)
    else:
        training_only = (
            "recipe",
            "dp",
            "zero",
            "offload",
            "tp",
            "sequence_parallel",
            "recompute",
            "seq_len",
            "micro_batch",
            "explain",
        )
        refuse(ctx, training_only, _("{option} goes with --training."))
        if gpu_memory is None:
            refuse(
                ctx,
                ("batch",),
                _("{option} goes with --gpu-memory (the longest context that fits at that batch)."),
            )
        elif not model.has_decoder:
            refuse(
                ctx,
                ("batch", "context"),
                _(
                    "{option}: {model} is encoder-only: it keeps no KV cache, so only its weights are fitted."
                ),
                model=model.name,
            )
    if gpu_memory is None and context is not None:
        raise UsageError(_("--context goes with --gpu-memory (the largest batch that fits)."))
    gpu = parse_bytes(gpu_memory) if gpu_memory is not None else None
    results = required(
        ctx,
        model,
        require,
        lengths={"S": "--seq-len S"} if training else {"L": "--gpu-memory SIZE --context L"},
        seq_len=seq_len,
        context=context,
        batch=micro_batch if training else batch,
        dtype="bf16" if training else dtype.value,
    )
    if training:
        from ffn_calc.counts.training import Parallel
        from ffn_calc.reports.training import training_report

        par = Parallel(dp=dp, tp=tp, sequence_parallel=sequence_parallel, recompute=recompute.value)
        tr_report = training_report(
            model, recipe.value, par, seq_len, micro_batch, gpu, int(zero.value), offload.value
        )
        emit_checked(tr_report, format, results, explain)
        return
    report = memory_report(model, dtype.value, gpu, batch, context)
    emit_checked(report, format, results)


@model_command("tensors")
def tensors_cmd(
    ctx: typer.Context,
    model: "ModelConfig",
    seq_len: Annotated[int, typer.Option("--seq-len", "-s", min=1, max=MAX_SIZE, help="--matmuls: sequence length for the matmul list.")] = 1,
    matmuls: Annotated[bool, typer.Option("--matmuls", help="Also list the matmuls of one forward pass.")] = False,
    format: FormatOpt = Format.table,
) -> None:  # fmt: skip
    """List every parameter tensor (name, shape, count) as the reference implementation stores it."""
    from ffn_calc.reports.tensors import tensors_report

    if not matmuls:
        refuse(
            ctx,
            ("seq_len",),
            _("{option} goes with --matmuls (the parameter tensors do not depend on it)."),
        )
    report = tensors_report(model, seq_len, matmuls)
    emit(report, format)


@command("verify")
def verify_cmd(
    ctx: typer.Context,
    preset: Annotated[list[str] | None, typer.Option("--preset", "-p", help="A preset to verify; repeat for several.")] = None,
    all_presets: Annotated[bool, typer.Option("--all", help="Verify every shipped preset.")] = False,
    config: Annotated[Path | None, typer.Option("--config", "-c", help="A TOML or JSON file in ffn-calc's schema.")] = None,
    hf_config: Annotated[Path | None, typer.Option("--hf-config", help="A Hugging Face config.json, a directory holding one, or ORG/NAME[@REVISION] in the local Hugging Face cache.")] = None,
    checkpoint: Annotated[Path | None, typer.Option("--checkpoint", help="A .safetensors file, or a directory with model.safetensors or a sharded index: compare its header with the model.")] = None,
    seq_len: Annotated[int, typer.Option("--seq-len", "-s", min=1, max=MAX_SIZE, help="Sequence length for the FLOP checks.")] = 128,
    batch: Annotated[int, typer.Option("--batch", "-b", min=1, max=MAX_SIZE, help="Batch size for the FLOP checks.")] = 1,
    format: FormatOpt = Format.table,
) -> None:  # fmt: skip
    """Check the closed-form formulas against a torch-free instantiation (and a checkpoint's header).

    Exit 0 when everything matches, 1 on any mismatch.
    """
    from ffn_calc.families.resolve import resolve_model
    from ffn_calc.model.sources import preset_names
    from ffn_calc.reports.verify import verify

    if all_presets:
        refuse(ctx, ("preset",), _("{option} and --all: choose one (--all verifies every preset)."))
    with user_errors():
        names = preset_names() if all_presets else list(preset or [])
        models = [resolve_model(preset=n) for n in names]
        if config or hf_config:
            models.append(resolve_model(config=config, hf_config=hf_config))
        if not models:
            raise UsageError(
                _(
                    "nothing to verify: give --preset NAME, --all, --config FILE or --hf-config PATH."
                )
            )
        if checkpoint is not None and len(models) != 1:
            raise UsageError(
                _("--checkpoint compares one model; {count} were given.").format(count=len(models))
            )
        report = verify(models, batch, seq_len, checkpoint)
    emit(report, format)
    if not report.ok:
        raise typer.Exit(1)


@command("compare")
def compare_cmd(
    presets: Annotated[list[str] | None, typer.Argument(help="Preset names.", show_default=False)] = None,
    config: Annotated[list[Path] | None, typer.Option("--config", "-c", help="A TOML or JSON file in ffn-calc's schema; repeat for several.")] = None,
    hf_config: Annotated[list[Path] | None, typer.Option("--hf-config", help="A Hugging Face config.json, its directory, or ORG/NAME[@REVISION] in the local Hugging Face cache; repeat for several.")] = None,
    seq_len: Annotated[int | None, typer.Option("--seq-len", "-s", min=1, max=MAX_SIZE, help="Sequence length for the FLOP rows (default 1024, or the shortest learned position table among the models).", show_default=False)] = None,
    plot: PlotOpt = None,
    format: FormatOpt = Format.table,
) -> None:  # fmt: skip
    """Compare models side by side: shapes, parameters, FLOPs and crossovers, a column each."""
    from ffn_calc.families.resolve import resolve_model
    from ffn_calc.reports.compare import compare_report

    with user_errors():
        models = [resolve_model(preset=n) for n in presets or []]
        models += [resolve_model(config=p) for p in config or []]
        models += [resolve_model(hf_config=p) for p in hf_config or []]
        if not models:
            raise UsageError(
                _("nothing to compare: name presets, or give --config / --hf-config files.")
            )
        report = compare_report(models, seq_len)
        if plot is not None:
            from ffn_calc.output import plot as figures

            figures.compare(models, plot)
    emit(report, format)


@command("activations")
def activations_cmd(
    ctx: typer.Context,
    x: Annotated[list[float] | None, typer.Option("--x", help="Points to evaluate at; repeat for several (default -3 ... 3). Marked on the --plot figure.")] = None,
    functions: Annotated[list[str] | None, typer.Option("--functions", metavar="NAMES", help="The activations to show, comma-separated: relu, gelu, gelu_tanh, silu (default all); repeat or list.")] = None,
    span: Annotated[str | None, typer.Option("--range", metavar="LO:HI", help="The x range of the curves (terminal and --plot), e.g. -5:5 (default -3:3, widened to take in every --x).")] = None,
    no_plot: Annotated[bool, typer.Option("--no-plot", help="Leave out the curves drawn in the terminal (table format).")] = False,
    plot: PlotOpt = None,
    format: FormatOpt = Format.table,
) -> None:  # fmt: skip
    """ReLU, GELU (exact), GELU tanh approximation and SiLU, with their derivatives."""
    from ffn_calc.counts.activations import DEFAULT_X
    from ffn_calc.reports.activations import activations_report, parse_functions, parse_range

    if format is not Format.table:
        refuse(
            ctx,
            ("no_plot",),
            _("{option} goes with --format table (the curves are drawn in the terminal only)."),
        )
        if plot is None:
            refuse(
                ctx,
                ("span",),
                _(
                    "{option} sets the x range of the curves: use it with --format table (the "
                    "terminal) or --plot FILE (the figure)."
                ),
            )
    with user_errors():
        chosen = parse_functions(functions)
        points = list(x) if x else list(DEFAULT_X)
        report = activations_report(points, chosen)
        lo_hi = parse_range(span, list(x or []))
        if plot is not None:
            from ffn_calc.output.activations_plot import activations

            activations(plot, chosen, lo_hi, list(x or []))

    def curves() -> list[Any]:
        from ffn_calc.output.rich import activation_plot

        if no_plot:
            return []
        if functions is None and span is None and lo_hi == (-3.0, 3.0):
            return [activation_plot()]  # as it always was
        return [activation_plot(functions=chosen, span=lo_hi)]

    emit(report, format, extra=curves)


@command("swiglu-size")
def swiglu_size_cmd(
    d_model: Annotated[int, typer.Option("--d-model", min=1, max=MAX_SIZE, help="Width of the residual stream.")],
    multiple_of: Annotated[int, typer.Option("--multiple-of", min=1, max=MAX_SIZE, help="Round d_ff up to a multiple of this.")] = 256,
    ffn_dim_multiplier: Annotated[float | None, typer.Option("--ffn-dim-multiplier", help="Llama's multiplier on 2/3 of 4 d_model (e.g. 1.3).")] = None,
    format: FormatOpt = Format.table,
) -> None:  # fmt: skip
    """The d_ff of a SwiGLU FFN: parameter parity with a plain 4x FFN, and Llama's rounding rule."""
    from ffn_calc.reports.sizing import swiglu_report

    with user_errors():
        report = swiglu_report(d_model, multiple_of, ffn_dim_multiplier)
    emit(report, format)


@command("presets")
def presets_cmd(format: FormatOpt = Format.table) -> None:
    """List the shipped presets with their shapes and exact totals."""
    from ffn_calc.reports.listings import presets_report

    with user_errors():
        emit(presets_report(), format)


@command("show")
def show_cmd(
    name: Annotated[str, typer.Argument(help="A preset name.")],
    format: Annotated[Format, typer.Option("--format", "-f", help="table, json, csv or markdown (TOML: see import-hf).")] = Format.table,
) -> None:  # fmt: skip
    """Show a preset's config: every field, its value and what it means."""
    from ffn_calc.families.resolve import resolve_model

    with user_errors():
        emit(resolve_model(preset=name), format)


class ConfigFormat(StrEnum):
    toml = "toml"
    json = "json"


@command("import-hf")
def import_hf_cmd(
    path: Annotated[Path, typer.Argument(help="A Hugging Face config.json, a directory holding one, or ORG/NAME[@REVISION] in the local Hugging Face cache.")],
    format: Annotated[ConfigFormat, typer.Option("--format", "-f", help="toml or json: either loads with --config.")] = ConfigFormat.toml,
) -> None:  # fmt: skip
    """Write the ffn-calc config equivalent to a Hugging Face config.json to stdout."""
    from ffn_calc.families.resolve import resolve_model
    from ffn_calc.model.sources import dump_json, dump_toml

    with user_errors():
        cfg = resolve_model(hf_config=path)
    with output_errors():
        if format is ConfigFormat.json:
            write(dump_json(cfg) + "\n", json=True)
        else:
            write(dump_toml(cfg))
