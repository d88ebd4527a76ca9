"""The command line: the only module that imports Typer.

Commands are load -> compute -> emit. Core errors (FfnCalcError) become one message on
stderr and exit code 2; nothing is written to stdout on error.
"""

import functools
import inspect
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import Enum, StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ffn_calc.errors import FfnCalcError, UsageError

if TYPE_CHECKING:
    from ffn_calc.config import ModelConfig
    from ffn_calc.views import Table

APP_HELP = "Exact parameter and FLOP counts for Transformers, with the FFN set against attention."

# Every command, registered on the app by name. Building a Typer command costs time at each
# start (Typer inspects every parameter), so `main` builds only the command that was asked for.
COMMANDS: dict[str, Callable[..., None]] = {}


def command(name: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    def register(func: Callable[..., None]) -> Callable[..., None]:
        COMMANDS[name] = func
        return func

    return register


def build_app(only: str | None = None) -> typer.Typer:
    """The Typer app with every command, or with one (the one being run)."""
    new = typer.Typer(
        name="ffn-calc",
        no_args_is_help=True,
        rich_markup_mode="rich",
        add_completion=False,
        pretty_exceptions_enable=False,
        help=APP_HELP,
    )
    if only is not None:
        new.callback()(lambda: None)  # keep `ffn-calc NAME ...` a group with one command
    for name, func in COMMANDS.items():
        if only is None or name == only:
            new.command(name)(func)
    if only is None or only == "exercise":
        new.add_typer(
            exercise_app(),
            name="exercise",
            help="Homework exercises: list, show, check an answer, solve.",
        )
    return new


class Format(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"
    markdown = "markdown"


class Activation(StrEnum):
    relu = "relu"
    gelu = "gelu"
    gelu_tanh = "gelu_tanh"
    silu = "silu"
    swiglu = "swiglu"
    geglu = "geglu"


class NormKind(StrEnum):
    layernorm = "layernorm"
    rmsnorm = "rmsnorm"


class PositionsKind(StrEnum):
    learned = "learned"
    sinusoidal = "sinusoidal"
    rotary = "rotary"
    none = "none"


class ArchitectureKind(StrEnum):
    decoder_only = "decoder-only"
    encoder_only = "encoder-only"
    encoder_decoder = "encoder-decoder"


class Unit(StrEnum):
    flops = "flops"
    macs = "macs"


FormatOpt = Annotated[
    Format, typer.Option("--format", "-f", help="Output: table, json, csv or markdown.")
]
ExplainOpt = Annotated[
    bool, typer.Option("--explain", help="Print every term's formula with the numbers put in.")
]

_M = "Model"
_S = "Size flags (alone, or overriding the chosen model)"


def _opt(*names: str, help: str, panel: str = _S, **kw: Any) -> Any:
    return typer.Option(*names, help=help, rich_help_panel=panel, **kw)


# The model options every model-taking command shares: (name, type, Option).
MODEL_OPTIONS: list[tuple[str, Any, Any]] = [
    ("preset", str | None, _opt("--preset", "-p", help="A shipped preset (see `ffn-calc presets`).", panel=_M)),
    ("config", Path | None, _opt("--config", "-c", help="A TOML or JSON file in ffn-calc's schema.", panel=_M)),
    ("hf_config", Path | None, _opt("--hf-config", help="A Hugging Face config.json, or a directory holding one.", panel=_M)),
    ("d_model", int | None, _opt("--d-model", help="Width of the residual stream.")),
    ("d_ff", int | None, _opt("--d-ff", help="FFN hidden width (alone: default 4 x d_model).")),
    ("n_heads", int | None, _opt("--n-heads", help="Query heads.")),
    ("n_kv_heads", int | None, _opt("--n-kv-heads", help="Key/value heads (GQA/MQA).")),
    ("head_dim", int | None, _opt("--head-dim", help="Per-head width (default d_model / n_heads).")),
    ("n_layers", int | None, _opt("--n-layers", help="Layers per stack (alone: default 1).")),
    ("n_decoder_layers", int | None, _opt("--n-decoder-layers", help="Decoder layers of an encoder-decoder model.")),
    ("vocab_size", int | None, _opt("--vocab-size", help="Vocabulary (alone: none, a bare stack).")),
    ("max_positions", int | None, _opt("--max-positions", help="Rows of a learned position table.")),
    ("activation", Activation | None, _opt("--activation", help="FFN activation; swiglu/geglu are gated.")),
    ("norm", NormKind | None, _opt("--norm", help="layernorm or rmsnorm.")),
    ("positions", PositionsKind | None, _opt("--positions", help="Position encoding.")),
    ("architecture", ArchitectureKind | None, _opt("--architecture", help="Which stacks the model has.")),
    ("n_experts", int | None, _opt("--n-experts", help="MoE experts per layer.")),
    ("experts_per_token", int | None, _opt("--experts-per-token", help="MoE experts each token uses.")),
    ("bias", bool | None, _opt("--bias/--no-bias", help="Biases on attention and FFN (alone: on).")),
    ("tie", bool | None, _opt("--tie/--no-tie", help="Tie the output head to the token embedding.")),
]  # fmt: skip
MODEL_OPTION_NAMES = [name for name, _, _ in MODEL_OPTIONS]


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn core errors into a message on stderr and exit code 2, without a traceback."""
    try:
        yield
    except FfnCalcError as exc:
        typer.echo(f"Error: {exc}", err=True)
        raise typer.Exit(exc.exit_code) from None


def load_model(opts: dict[str, Any]) -> "ModelConfig":
    from ffn_calc.presets import resolve_model

    flags = {k: (v.value if isinstance(v, Enum) else v) for k, v in opts.items()}
    return resolve_model(
        preset=flags.pop("preset"), config=flags.pop("config"),
        hf_config=flags.pop("hf_config"), flags=flags,
    )  # fmt: skip


def model_command(name: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register a command whose `model` parameter is filled from the shared model options."""

    def decorate(func: Callable[..., None]) -> Callable[..., None]:
        sig = inspect.signature(func)
        own = [p for p in sig.parameters.values() if p.name != "model"]
        shared = [
            inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Annotated[t, o])
            for n, t, o in MODEL_OPTIONS
        ]  # fmt: skip

        @functools.wraps(func)
        def wrapper(**kwargs: Any) -> None:
            opts = {n: kwargs.pop(n) for n in MODEL_OPTION_NAMES}
            with user_errors():
                func(model=load_model(opts), **kwargs)

        params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own] + shared
        wrapper.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in params}
        COMMANDS[name] = wrapper
        return func

    return decorate


def views() -> Any:
    """The table builders, imported only when a text format is drawn."""
    import ffn_calc.views

    return ffn_calc.views


def emit(
    report: Any,
    tables: Callable[[], "list[Table]"],
    fmt: Format,
    extra: Callable[[], list[Any]] | None = None,
) -> None:
    """JSON straight from the report; other formats from the plain tables."""
    if fmt is Format.json:
        print(report.model_dump_json(indent=2))
        return
    if fmt is Format.csv:
        from ffn_calc.formats import to_csv

        sys.stdout.write(to_csv(tables()))
        return
    if fmt is Format.markdown:
        from ffn_calc.formats import to_markdown

        sys.stdout.write(to_markdown(tables()))
        return
    from ffn_calc.render import print_tables

    print_tables(tables(), extra() if extra else None)


@model_command("params")
def params_cmd(
    model: "ModelConfig", explain: ExplainOpt = False, format: FormatOpt = Format.table
) -> None:
    """Parameters per layer kind and per component, with shares and the FFN : attention ratio."""
    from ffn_calc.report import params_report

    report = params_report(model)
    emit(report, lambda: views().params_tables(report, explain), format)


@model_command("flops")
def flops_cmd(
    model: "ModelConfig",
    seq_len: Annotated[int, typer.Option("--seq-len", "-s", min=1, help="Sequence length S (source length for encoder-decoder).")],
    batch: Annotated[int, typer.Option("--batch", "-b", min=1, help="Batch size B.")] = 1,
    target_len: Annotated[int | None, typer.Option("--target-len", "-t", min=1, help="Target length T of an encoder-decoder model (default S).")] = None,
    unit: Annotated[Unit, typer.Option("--unit", help="flops (2 per multiply-add) or macs (multiply-adds).")] = Unit.flops,
    causal: Annotated[bool, typer.Option("--causal", help="Decoder self-attention scores over the S(S+1)/2 visible pairs only.")] = False,
    lm_head: Annotated[bool, typer.Option("--lm-head/--no-lm-head", help="Count the output projection.")] = True,
    explain: ExplainOpt = False,
    format: FormatOpt = Format.table,
) -> None:  # fmt: skip
    """Forward and training FLOPs per component, per layer and per token, with rules of thumb."""
    from ffn_calc.flops import Workload
    from ffn_calc.report import flops_report

    if target_len is not None and model.architecture != "encoder-decoder":
        raise UsageError(
            f"--target-len applies to encoder-decoder models; {model.name} is {model.architecture}."
        )
    w = Workload(
        batch=batch, seq_len=seq_len, target_len=target_len, causal=causal, lm_head=lm_head
    )
    report = flops_report(model, w, unit.value)
    emit(report, lambda: views().flops_tables(report, explain), format)


GRID_D_MODELS = [256, 512, 1024, 2048, 4096, 8192, 16384]
GRID_SEQ_LENS = [2**k for k in range(6, 18)]


@model_command("crossover")
def crossover_cmd(
    model: "ModelConfig",
    causal: Annotated[bool, typer.Option("--causal", help="Scores over the S(S+1)/2 visible pairs only.")] = False,
    grid: Annotated[bool, typer.Option("--grid", help="Add the S x d_model grid of scores : FFN.")] = False,
    format: FormatOpt = Format.table,
) -> None:  # fmt: skip
    """The sequence length S where attention's S^2 scores overtake the FFN and the projections."""
    from ffn_calc.report import crossover_report, grid_report

    g = grid_report(model, GRID_D_MODELS, GRID_SEQ_LENS) if grid else None
    report = crossover_report(model, causal=causal, grid=g)

    def bars() -> list[Any]:
        from ffn_calc.render import share_bars

        return [share_bars(report)]

    emit(report, lambda: views().crossover_tables(report), format, bars)


@model_command("tensors")
def tensors_cmd(
    model: "ModelConfig",
    seq_len: Annotated[int, typer.Option("--seq-len", "-s", min=1, help="Sequence length for the matmul list.")] = 1,
    matmuls: Annotated[bool, typer.Option("--matmuls", help="Also list the matmuls of one forward pass.")] = False,
    format: FormatOpt = Format.table,
) -> None:  # fmt: skip
    """List every parameter tensor (name, shape, count) as the reference implementation stores it."""
    from ffn_calc.verify import tensors_report

    report = tensors_report(model, seq_len, matmuls)
    emit(report, lambda: views().tensors_tables(report), format)


@command("verify")
def verify_cmd(
    preset: Annotated[list[str] | None, typer.Option("--preset", "-p", help="A preset to verify; repeat for several.")] = None,
    all_presets: Annotated[bool, typer.Option("--all", help="Verify every shipped preset.")] = False,
    config: Annotated[Path | None, typer.Option("--config", "-c", help="A TOML or JSON file in ffn-calc's schema.")] = None,
    hf_config: Annotated[Path | None, typer.Option("--hf-config", help="A Hugging Face config.json, or a directory holding one.")] = None,
    checkpoint: Annotated[Path | None, typer.Option("--checkpoint", help="A .safetensors file, or a directory with model.safetensors or a sharded index: compare its header with the model.")] = None,
    seq_len: Annotated[int, typer.Option("--seq-len", "-s", min=1, help="Sequence length for the FLOP checks.")] = 128,
    batch: Annotated[int, typer.Option("--batch", "-b", min=1, help="Batch size for the FLOP checks.")] = 1,
    format: FormatOpt = Format.table,
) -> None:  # fmt: skip
    """Check the closed-form formulas against a torch-free instantiation (and a checkpoint's header).

    Exit 0 when everything matches, 1 on any mismatch.
    """
    from ffn_calc.presets import preset_names, resolve_model
    from ffn_calc.verify import verify

    with user_errors():
        names = preset_names() if all_presets else list(preset or [])
        models = [resolve_model(preset=n) for n in names]
        if config or hf_config:
            models.append(resolve_model(config=config, hf_config=hf_config))
        if not models:
            raise UsageError(
                "nothing to verify: give --preset NAME, --all, --config FILE or --hf-config PATH."
            )
        if checkpoint is not None and len(models) != 1:
            raise UsageError(f"--checkpoint compares one model; {len(models)} were given.")
        report = verify(models, batch, seq_len, checkpoint)
    emit(report, lambda: views().verify_tables(report), format)
    if not report.ok:
        raise typer.Exit(1)


@command("compare")
def compare_cmd(
    presets: Annotated[list[str] | None, typer.Argument(help="Preset names.", show_default=False)] = None,
    config: Annotated[list[Path] | None, typer.Option("--config", "-c", help="A TOML or JSON file in ffn-calc's schema; repeat for several.")] = None,
    hf_config: Annotated[list[Path] | None, typer.Option("--hf-config", help="A Hugging Face config.json or its directory; repeat for several.")] = None,
    seq_len: Annotated[int, typer.Option("--seq-len", "-s", min=1, help="Sequence length for the FLOP rows.")] = 1024,
    format: FormatOpt = Format.table,
) -> None:  # fmt: skip
    """Compare models side by side: shapes, parameters, FLOPs and crossovers, a column each."""
    from ffn_calc.compare import compare_report
    from ffn_calc.presets import resolve_model

    with user_errors():
        models = [resolve_model(preset=n) for n in presets or []]
        models += [resolve_model(config=p) for p in config or []]
        models += [resolve_model(hf_config=p) for p in hf_config or []]
        if not models:
            raise UsageError(
                "nothing to compare: name presets, or give --config / --hf-config files."
            )
        report = compare_report(models, seq_len)
    emit(report, lambda: views().compare_tables(report), format)


@command("activations")
def activations_cmd(
    x: Annotated[list[float] | None, typer.Option("--x", help="Points to evaluate at; repeat for several (default -3 ... 3).")] = None,
    plot: Annotated[bool, typer.Option("--plot/--no-plot", help="Draw the curves in the terminal (table format).")] = True,
    format: FormatOpt = Format.table,
) -> None:  # fmt: skip
    """ReLU, GELU (exact), GELU tanh approximation and SiLU, with their derivatives."""
    from ffn_calc.activations import DEFAULT_X, activations_report

    report = activations_report(list(x) if x else list(DEFAULT_X))

    def curves() -> list[Any]:
        from ffn_calc.render import activation_plot

        return [activation_plot()] if plot else []

    emit(report, lambda: views().activation_tables(report), format, curves)


@command("swiglu-size")
def swiglu_size_cmd(
    d_model: Annotated[int, typer.Option("--d-model", min=1, help="Width of the residual stream.")],
    multiple_of: Annotated[int, typer.Option("--multiple-of", min=1, help="Round d_ff up to a multiple of this.")] = 256,
    ffn_dim_multiplier: Annotated[float | None, typer.Option("--ffn-dim-multiplier", help="Llama's multiplier on 2/3 of 4 d_model (e.g. 1.3).")] = None,
    format: FormatOpt = Format.table,
) -> None:  # fmt: skip
    """The d_ff of a SwiGLU FFN: parameter parity with a plain 4x FFN, and Llama's rounding rule."""
    from ffn_calc.sizing import swiglu_report

    if ffn_dim_multiplier is not None and not ffn_dim_multiplier > 0:
        with user_errors():
            raise UsageError(f"--ffn-dim-multiplier must be positive, not {ffn_dim_multiplier:g}.")
    report = swiglu_report(d_model, multiple_of, ffn_dim_multiplier)
    emit(report, lambda: views().swiglu_tables(report), format)


@command("presets")
def presets_cmd(format: FormatOpt = Format.table) -> None:
    """List the shipped presets with their shapes and exact totals."""
    from ffn_calc.catalog import presets_listing

    with user_errors():
        report, tables = presets_listing()
        emit(report, tables, format)


@command("show")
def show_cmd(
    name: Annotated[str, typer.Argument(help="A preset name.")],
    format: Annotated[Format, typer.Option("--format", "-f", help="table, json, csv or markdown (TOML: see import-hf).")] = Format.table,
) -> None:  # fmt: skip
    """Show a preset's config: every field, its value and what it means."""
    from ffn_calc.catalog import config_listing
    from ffn_calc.presets import resolve_model

    with user_errors():
        cfg = resolve_model(preset=name)
        emit(cfg, lambda: config_listing(cfg), format)


@command("import-hf")
def import_hf_cmd(
    path: Annotated[
        Path, typer.Argument(help="A Hugging Face config.json, or a directory holding one.")
    ],
) -> None:
    """Write the ffn-calc TOML config equivalent to a Hugging Face config.json to stdout."""
    from ffn_calc.presets import dump_toml, resolve_model

    with user_errors():
        sys.stdout.write(dump_toml(resolve_model(hf_config=path)))


CatalogOpt = Annotated[
    Path | None,
    typer.Option("--exercises", help="An instructor's catalog (TOML, the built-in format)."),
]


def exercise_app() -> typer.Typer:
    """The `exercise` sub-commands: list, show, check, solve."""
    sub = typer.Typer(no_args_is_help=True, rich_markup_mode="rich")

    @sub.command("list")
    def list_cmd(exercises: CatalogOpt = None, format: FormatOpt = Format.table) -> None:
        """List the exercises with their computed answers."""
        from ffn_calc.exercises import exercises_report

        with user_errors():
            report = exercises_report(exercises)
        emit(report, lambda: views().exercise_tables(report), format)

    @sub.command("show")
    def show_cmd(
        exercise_id: Annotated[str, typer.Argument(metavar="ID", help="An exercise id.")],
        exercises: CatalogOpt = None,
    ) -> None:
        """Print an exercise's question."""
        from ffn_calc.exercises import find, load_catalog

        with user_errors():
            typer.echo(f"{exercise_id}: {find(load_catalog(exercises), exercise_id).question}")

    @sub.command("check")
    def check_cmd(
        exercise_id: Annotated[str, typer.Argument(metavar="ID", help="An exercise id.")],
        answer: Annotated[
            str,
            typer.Argument(
                help="Your answer: 134217728, 134,217,728, 134.2M, 1.342e8, 28.4x, 46%."
            ),
        ],
        exercises: CatalogOpt = None,
    ) -> None:
        """Check an answer within the precision it is written in; exit 1 when it is wrong."""
        from ffn_calc.exercises import check, find, load_catalog

        with user_errors():
            ok, expected, _ = check(find(load_catalog(exercises), exercise_id), answer)
        if ok:
            typer.echo(f"Right: {answer} (exact: {expected.text()}).")
            return
        typer.echo(
            f"Wrong: {answer}; expected {expected.text()}. See `ffn-calc exercise solve {exercise_id}`."
        )
        raise typer.Exit(1)

    @sub.command("solve")
    def solve_cmd(
        exercise_id: Annotated[str, typer.Argument(metavar="ID", help="An exercise id.")],
        exercises: CatalogOpt = None,
    ) -> None:
        """Print the worked solution: each formula with the numbers put in."""
        from ffn_calc.exercises import answer, find, load_catalog

        with user_errors():
            e = find(load_catalog(exercises), exercise_id)
            a = answer(e)
        typer.echo(f"{e.id}: {e.question}\n")
        for step in a.steps:
            typer.echo(f"  {step}")
        typer.echo(f"\nAnswer: {a.text()}")

    return sub


app = build_app()


def main() -> None:
    """Console-script entry point: builds only the command asked for, when it is one."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")  # no entry-point scan at start
    name = sys.argv[1] if len(sys.argv) > 1 else None
    build_app(name if name in COMMANDS or name == "exercise" else None)()
