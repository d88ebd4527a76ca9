"""The Python API: the same models, counts and reports as the command line, in process.

    import ffn_calc
    model = ffn_calc.load(preset="llama-2-7b")
    ffn_calc.counts.params(model).total_params          # 6738415616
    ffn_calc.counts.flops(model, seq_len=4096).forward_flops

Each function returns the result model that the matching command dumps with `--format json`
(`report.model_dump()` is that JSON). Bad input raises ffn_calc.FfnCalcError (ConfigError,
FileError, UsageError) with the message the command line prints. In a notebook a report shows
as the command's tables.

Every argument's type is checked here, at the boundary: lengths and counts are ints (a bool is
not one), switches are bools (the string "no" is not False), files are a str or a path object,
`metrics` and `where` lists of strings, `models` a list of models, `vary` a mapping of field
names to specs, lists, ranges or iterators. A wrong type raises UsageError naming the
argument; no TypeError or AttributeError escapes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ffn_calc.errors import UsageError
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import MAX_SIZE, ModelConfig
from ffn_calc.reports.base import Result

if TYPE_CHECKING:
    from ffn_calc.reports.compare import CompareReport
    from ffn_calc.reports.crossover import CrossoverReport
    from ffn_calc.reports.decode_crossover import DecodeCrossoverReport
    from ffn_calc.reports.flops import FlopsReport
    from ffn_calc.reports.inference import (
        DecodeReport,
        GenerationReport,
        KvReport,
    )
    from ffn_calc.reports.memory import MemoryReport
    from ffn_calc.reports.params import ParamsReport
    from ffn_calc.reports.roofline import RooflineReport
    from ffn_calc.reports.training import TrainingReport, TrainingStatesReport
    from ffn_calc.sweeps.run import Sweep, Value

# The public names are listed once, in ffn_calc/__init__.py, which loads them from here.


def _size(name: str, value: object) -> int:
    """A length or count the CLI would take: an integer from 1 to MAX_SIZE."""
    if type(value) is not int or not 1 <= value <= MAX_SIZE:
        raise UsageError(
            _("{name} must be an integer from 1 to {max}; got {value}.").format(
                name=name, max=f"{MAX_SIZE:,}", value=shown(value)
            )
        )
    return value


def _optional_size(name: str, value: object) -> int | None:
    return None if value is None else _size(name, value)


def _flag(name: str, value: object) -> bool:
    """A switch: True or False, never a string or a number read for its truth ("no" is true)."""
    if type(value) is not bool:
        raise UsageError(
            _("{name} must be True or False; got {value}.").format(name=name, value=shown(value))
        )
    return value


def _optional_text(name: str, value: object) -> str | None:
    if value is not None and not isinstance(value, str):
        raise UsageError(
            _("{name} must be a string; got {value}.").format(name=name, value=shown(value))
        )
    return value


def _optional_path(name: str, value: object) -> Path | None:
    """A file: a str or a path object (os.PathLike) naming it."""
    if value is None:
        return None
    if isinstance(value, str | os.PathLike) and isinstance(os.fspath(value), str):
        return Path(value)
    raise UsageError(
        _("{name} must be a file path (a str or a pathlib.Path); got {value}.").format(
            name=name, value=shown(value)
        )
    )


def _strings(name: str, value: object, example: str) -> list[str]:
    """A list (or tuple) of strings, as the option would be repeated on the command line."""
    if isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray):
        items = list(value)
        if all(isinstance(v, str) for v in items):
            return items
    raise UsageError(
        _("{name} must be a list of strings such as {example}; got {value}.").format(
            name=name, example=example, value=shown(value)
        )
    )


def _choice(name: str, value: object, choices: Iterable[str]) -> str:
    options = list(choices)
    if not isinstance(value, str) or value not in options:
        raise UsageError(
            _("{name} must be one of {choices}; got {value}.").format(
                name=name, choices=", ".join(options), value=shown(value)
            )
        )
    return str(value)


def _model(model: object) -> ModelConfig:
    if not isinstance(model, ModelConfig):
        raise UsageError(
            _("expected a model from ffn_calc.load(...), got {type}.").format(
                type=type(model).__name__
            )
        )
    return model


def load(
    preset: str | None = None,
    config: str | Path | None = None,
    hf_config: str | Path | None = None,
    **fields: Any,
) -> ModelConfig:
    """A model: a preset, a config file (ffn-calc's TOML or JSON), a Hugging Face config.json
    (or its directory, or "ORG/NAME[@REVISION]" found in the local Hugging Face cache, offline;
    an existing path wins), or ModelConfig fields alone; fields given with a source override it.

    Fields alone start from what the size flags start from: one layer, d_ff = 4 x d_model,
    biases on (`load(d_model=4096, n_heads=32)`)."""
    from ffn_calc.families.resolve import resolve_model

    preset = _optional_text("preset", preset)
    config_path = _optional_path("config", config)
    hf_path = _optional_path("hf_config", hf_config)
    if (
        preset is None
        and config is None
        and hf_config is None
        and not ("d_model" in fields and "n_heads" in fields)
    ):
        raise UsageError(
            _(
                "no model given: use load(preset=NAME), load(config=FILE), load(hf_config=PATH), "
                "or fields with at least d_model and n_heads."
            )
        )
    return resolve_model(preset=preset, config=config_path, hf_config=hf_path, fields=fields)


def preset_names() -> list[str]:
    """The shipped preset names."""
    from ffn_calc.model.sources import preset_names

    return preset_names()


def params(model: ModelConfig) -> ParamsReport:
    """`ffn-calc params`: parameters per component and per layer kind."""
    from ffn_calc.reports.params import params_report

    return params_report(_model(model))


def flops(
    model: ModelConfig,
    seq_len: int,
    batch: int = 1,
    target_len: int | None = None,
    causal: bool = False,
    lm_head: bool = True,
    unit: str = "flops",
    images: int | None = None,
) -> FlopsReport:
    """`ffn-calc flops`: forward and training FLOPs at batch B and sequence length S; with
    `images` (a multimodal model), that many images per sequence through its vision tower."""
    from ffn_calc.counts.flops import Workload
    from ffn_calc.reports.flops import flops_report

    w = Workload(
        batch=_size("batch", batch), seq_len=_size("seq_len", seq_len),
        target_len=_optional_size("target_len", target_len), causal=_flag("causal", causal),
        lm_head=_flag("lm_head", lm_head),
    )  # fmt: skip
    n = _optional_size("images", images) or 0
    return flops_report(_model(model), w, _choice("unit", unit, ("flops", "macs")), n)


def decode(
    model: ModelConfig,
    context: int,
    batch: int = 1,
    source_len: int | None = None,
    lm_head: bool = True,
    unit: str = "flops",
) -> DecodeReport:
    """`ffn-calc flops --decode`: one decode step with `context` tokens cached."""
    from ffn_calc.reports.inference import decode_report

    return decode_report(
        _model(model), _size("batch", batch), _size("context", context),
        _optional_size("source_len", source_len), lm_head=_flag("lm_head", lm_head),
        unit=_choice("unit", unit, ("flops", "macs")),
    )  # fmt: skip


def generate(
    model: ModelConfig,
    prompt: int,
    new: int,
    batch: int = 1,
    causal: bool = False,
    lm_head: bool = True,
    unit: str = "flops",
) -> GenerationReport:
    """`ffn-calc flops --seq-len PROMPT --generate NEW`: the prefill and the decode steps."""
    from ffn_calc.reports.inference import generation_report

    return generation_report(
        _model(model), _size("batch", batch), _size("prompt", prompt), _size("new", new),
        causal=_flag("causal", causal), lm_head=_flag("lm_head", lm_head),
        unit=_choice("unit", unit, ("flops", "macs")),
    )  # fmt: skip


def crossover(model: ModelConfig, causal: bool = False, grid: bool = False) -> CrossoverReport:
    """`ffn-calc crossover`: where attention's S^2 scores overtake the FFN and projections."""
    from ffn_calc.reports.crossover import crossover_report, grid_report

    cfg = _model(model)
    causal, grid = _flag("causal", causal), _flag("grid", grid)
    g = None
    if grid:
        from ffn_calc.reports.crossover import GRID_D_MODELS, GRID_SEQ_LENS

        g = grid_report(cfg, GRID_D_MODELS, GRID_SEQ_LENS, causal)
    return crossover_report(cfg, causal=causal, grid=g)


def decode_crossover(
    model: ModelConfig, batch: int = 1, context: int | None = None
) -> DecodeCrossoverReport:
    """`ffn-calc crossover --decode`: the context where decode-time scores overtake the FFN
    (a hybrid: also each layer kind's, and the cache's states against its keys and values,
    at `context` too)."""
    from ffn_calc.reports.decode_crossover import decode_crossover_report

    return decode_crossover_report(
        _model(model), _size("batch", batch), _optional_size("context", context)
    )


def compare(models: Sequence[ModelConfig], seq_len: int | None = None) -> CompareReport:
    """`ffn-calc compare`: models side by side at one sequence length (default 1024, or the
    shortest learned position table among the models)."""
    from ffn_calc.reports.compare import compare_report

    if isinstance(models, ModelConfig) or not (
        isinstance(models, Sequence) and not isinstance(models, str | bytes | bytearray)
    ):
        raise UsageError(
            _("models must be a list of models from ffn_calc.load(...); got {value}.").format(
                value=shown(models)
            )
        )
    chosen = [_model(m) for m in models]
    if not chosen:
        raise UsageError(_("nothing to compare: give at least one model."))
    return compare_report(chosen, _optional_size("seq_len", seq_len))


def kv(
    model: ModelConfig,
    context: int,
    batch: int = 1,
    dtype: str = "bf16",
    source_len: int | None = None,
) -> KvReport:
    """`ffn-calc kv`: the KV cache after a prefill of `context` tokens."""
    from ffn_calc.counts.inference import DTYPE_BYTES
    from ffn_calc.reports.inference import kv_report

    return kv_report(
        _model(model), _size("batch", batch), _size("context", context),
        _choice("dtype", dtype, DTYPE_BYTES), _optional_size("source_len", source_len),
    )  # fmt: skip


def _gpu(gpu_memory: str | int | None) -> int | None:
    from ffn_calc.quantities import parse_bytes

    if gpu_memory is None:
        return None
    if type(gpu_memory) is int:  # bytes (a huge int is never turned into text)
        if not 1 <= gpu_memory <= 2**60:
            raise UsageError(
                _("gpu_memory must be from 1 byte to 2^60 bytes; got {value}.").format(
                    value=shown(gpu_memory)
                )
            )
        return gpu_memory
    if isinstance(gpu_memory, str):
        return parse_bytes(gpu_memory)
    raise UsageError(
        _("gpu_memory is a size such as '80GB' or a byte count; got {value}.").format(
            value=shown(gpu_memory)
        )
    )


def memory(
    model: ModelConfig,
    dtype: str = "bf16",
    gpu_memory: str | int | None = None,
    batch: int = 1,
    context: int | None = None,
) -> MemoryReport:
    """`ffn-calc memory`: the weights; with gpu_memory, the longest context and largest batch
    whose weights and KV cache fit."""
    from ffn_calc.counts.inference import DTYPE_BYTES
    from ffn_calc.reports.memory import memory_report

    if gpu_memory is None and context is not None:
        raise UsageError(_("--context goes with --gpu-memory (the largest batch that fits)."))
    if gpu_memory is None and batch != 1:
        raise UsageError(
            _("{option} goes with --gpu-memory (the longest context that fits at that batch).")
            .format(option="batch")
        )  # fmt: skip
    return memory_report(
        _model(model), _choice("dtype", dtype, DTYPE_BYTES), _gpu(gpu_memory),
        _size("batch", batch), _optional_size("context", context),
    )  # fmt: skip


def roofline(
    model: ModelConfig,
    seq_len: int | None = None,
    context: int | None = 512,
    batch: int = 1,
    gpu: str | None = "h100-sxm",
    peak_flops: float | None = None,
    bandwidth: float | None = None,
    efficiency: float = 1.0,
    dtype: str = "bf16",
    act_dtype: str | None = None,
    kv_dtype: str | None = None,
    tp: int = 1,
    measured: float | None = None,
    measured_phase: str | None = None,
    training: bool = False,
    dp: int = 1,
    recompute: str = "none",
    interconnect: float | None = None,
) -> RooflineReport:
    """`ffn-calc roofline`: per component FLOPs, bytes, intensity, bound and time lower bound
    for a prefill of seq_len tokens and a decode step after context tokens on an accelerator
    (gpu=None: peak_flops and bandwidth). context=None: the prefill alone. training=True: the
    seq_len phase is a training step over dp replicas (recompute none, selective or full;
    interconnect: bytes/s for the gradients' all-reduce). measured_phase: decode by default,
    training with training=True."""
    import math

    from ffn_calc.counts.inference import DTYPE_BYTES

    def real(name: str, value: object) -> float | None:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if value is None and name != "efficiency":
            return None
        big = isinstance(value, int) and abs(value) > 10**21
        if not ok or big or not math.isfinite(float(value)) or float(value) <= 0:  # type: ignore[arg-type]
            raise UsageError(
                _("{name} must be a positive number; got {value}.").format(
                    name=name, value=shown(value)
                )
            )
        return float(value)  # type: ignore[arg-type]

    peak_flops, bandwidth = real("peak_flops", peak_flops), real("bandwidth", bandwidth)
    efficiency = real("efficiency", efficiency) or 1.0
    measured = real("measured", measured)
    interconnect = real("interconnect", interconnect)
    training = _flag("training", training)
    if measured_phase is None:
        measured_phase = "training" if training else "decode"
    from ffn_calc.counts.roofline import RECOMPUTED, Dtypes
    from ffn_calc.reports.roofline import roofline_report

    w = _choice("dtype", dtype, DTYPE_BYTES)
    act = _choice("act_dtype", act_dtype, DTYPE_BYTES) if act_dtype is not None else None
    act = act or ("bf16" if w in ("int8", "int4") else w)
    kv = _choice("kv_dtype", kv_dtype, DTYPE_BYTES) if kv_dtype is not None else act
    return roofline_report(
        _model(model), seq_len=_optional_size("seq_len", seq_len),
        context=_optional_size("context", context), batch=_size("batch", batch),
        dtypes=Dtypes(w, act, kv), gpu=_optional_text("gpu", gpu), peak=peak_flops,
        bandwidth=bandwidth, efficiency=efficiency, tp=_size("tp", tp), measured=measured,
        measured_phase=_choice("measured_phase", measured_phase, ("decode", "prefill", "training")),
        training=training, dp=_size("dp", dp), recompute=_choice("recompute", recompute, RECOMPUTED),
        interconnect=interconnect,
    )  # fmt: skip


def training_memory(
    model: ModelConfig,
    seq_len: int | None = None,
    micro_batch: int = 1,
    recipe: str = "mixed",
    dp: int = 1,
    tp: int = 1,
    sequence_parallel: bool = False,
    recompute: str = "none",
    gpu_memory: str | int | None = None,
    zero: int = 0,
    offload: str = "none",
) -> TrainingReport | TrainingStatesReport:
    """`ffn-calc memory --training`: model states and activations per GPU (seq_len: default
    2048, or the model's learned position table when shorter); zero: the ZeRO stage 0-3 over
    dp, offload: none, optimizer or optimizer+params; a model whose token mixers' stored
    activations are not modelled: the model states alone (TrainingStatesReport)."""
    from ffn_calc.counts.training import OFFLOAD, RECIPES, RECOMPUTE, Parallel
    from ffn_calc.reports.training import training_report

    par = Parallel(
        dp=_size("dp", dp), tp=_size("tp", tp),
        sequence_parallel=_flag("sequence_parallel", sequence_parallel),
        recompute=_choice("recompute", recompute, RECOMPUTE),
    )  # fmt: skip
    return training_report(
        _model(model), _choice("recipe", recipe, RECIPES), par, _optional_size("seq_len", seq_len),
        _size("micro_batch", micro_batch), _gpu(gpu_memory),
        int(_choice("zero", str(zero) if type(zero) is int else zero, ("0", "1", "2", "3"))),
        _choice("offload", offload, OFFLOAD),
    )  # fmt: skip


def sweep(
    model: ModelConfig,
    vary: Mapping[str, str | Iterable[Value]],
    metrics: Sequence[str] = ("total_params",),
    where: Sequence[str] = (),
) -> Sweep:
    """`ffn-calc sweep`: the model with fields varied; iterate for one dict per valid
    combination (the varied fields and the metrics). `vary` maps a field to a spec as on the
    command line ("8192:16384:1024", "1,2,4,8") or to values (a range, a list); metrics and
    filters are written as on the command line ("forward_flops@2048", "total_params<=7e9").
    After iterating, `.skipped` counts the combinations that are not valid models, by reason."""
    from ffn_calc.sweeps import run as sw

    cfg = _model(model)
    metric_names = _strings("metrics", metrics, "['total_params']")
    filters = _strings("where", where, "['total_params<=7e9']")
    return sw.sweep(cfg, vary, metric_names, filters)


def _markdown(report: Result) -> str | None:
    """A report as the command's tables in Markdown (what a notebook shows)."""
    from ffn_calc.output.markdown import to_markdown
    from ffn_calc.views.registry import tables_for

    tables = tables_for(report)
    return to_markdown(tables) if tables else None


Result.display_markdown = _markdown
