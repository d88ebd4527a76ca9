"""The model options every model-taking command shares, and the decorator that adds them."""

import functools
import inspect
from collections.abc import Callable, Iterable
from enum import Enum, StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeAlias

import typer

from ffn_calc.cli.app import COMMANDS, user_errors
from ffn_calc.errors import UsageError
from ffn_calc.i18n.translate import _
from ffn_calc.model import choices

if TYPE_CHECKING:
    from ffn_calc.model.config import ModelConfig


def choice_enum(name: str, values: Iterable[str]) -> type[StrEnum]:
    """A Typer choice whose values are one of ffn_calc.model.choices' lists (never typed again)."""
    return StrEnum(name, {v.replace("-", "_"): v for v in values})  # type: ignore[return-value]


if TYPE_CHECKING:  # the checker sees StrEnums; the members are built from the lists below
    Activation: TypeAlias = StrEnum
    NormKind: TypeAlias = StrEnum
    PositionsKind: TypeAlias = StrEnum
    ArchitectureKind: TypeAlias = StrEnum
else:
    Activation = choice_enum("Activation", choices.ACTIVATIONS)
    NormKind = choice_enum("NormKind", choices.NORMS)
    PositionsKind = choice_enum("PositionsKind", choices.POSITIONS)
    ArchitectureKind = choice_enum("ArchitectureKind", choices.ARCHITECTURES)


class Unit(StrEnum):
    flops = "flops"
    macs = "macs"


_M = "Model"
_S = "Size flags (alone, or overriding the chosen model)"


def _opt(*names: str, help: str, panel: str = _S, **kw: Any) -> Any:
    return typer.Option(*names, help=help, rich_help_panel=panel, **kw)


# The model options every model-taking command shares: (name, type, Option).
MODEL_OPTIONS: list[tuple[str, Any, Any]] = [
    ("preset", str | None, _opt("--preset", "-p", help="A shipped preset (see `ffn-calc presets`).", panel=_M)),
    ("config", Path | None, _opt("--config", "-c", help="A TOML or JSON file in ffn-calc's schema.", panel=_M)),
    ("hf_config", Path | None, _opt("--hf-config", help="A Hugging Face config.json, a directory holding one, or ORG/NAME[@REVISION] in the local Hugging Face cache.", panel=_M)),
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


def load_model(opts: dict[str, Any]) -> "ModelConfig":
    from ffn_calc.families.resolve import resolve_model

    flags = {k: (v.value if isinstance(v, Enum) else v) for k, v in opts.items()}
    model = resolve_model(
        preset=flags.pop("preset"),
        config=flags.pop("config"),
        hf_config=flags.pop("hf_config"),
        flags=flags,
    )
    unused_flags(model, flags)
    return model


def unused_flags(model: "ModelConfig", flags: dict[str, Any]) -> None:
    """Refuse a size flag the model has no use for (it would change no count)."""
    from ffn_calc.errors import UsageError
    from ffn_calc.i18n.translate import _
    from ffn_calc.model.unused import unused_field

    tie = "--no-tie" if flags.get("tie") is False else "--tie"
    options = {
        "max_positions": "--max-positions",
        "n_kv_heads": "--n-kv-heads",
        "head_dim": "--head-dim",
        "tie": tie,
    }
    for name, option in options.items():
        field = "tie_embeddings" if name == "tie" else name
        reason = unused_field(model, field) if flags.get(name) is not None else None
        if reason:
            raise UsageError(_("{option}: {reason}").format(option=option, reason=reason))


def model_command(name: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register a command whose `model` parameter is filled from the shared model options."""

    def decorate(func: Callable[..., None]) -> Callable[..., None]:
        sig = inspect.signature(func)
        own = [p for p in sig.parameters.values() if p.name != "model"]
        shared = [
            inspect.Parameter(
                n, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Annotated[t, o]
            )
            for n, t, o in MODEL_OPTIONS
        ]

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


# `--plot FILE`: a figure for slides (ffn_calc.output.plot; matplotlib is imported only when given).
PlotOpt = Annotated[
    Path | None,
    typer.Option(
        "--plot",
        metavar="FILE",
        help="Also draw a figure to FILE: .png or .svg (needs matplotlib: pip install 'ffn-calc\\[plot]').",
    ),
]

if TYPE_CHECKING:  # the checker sees StrEnums; the members come from ffn_calc.model.choices
    Dtype: TypeAlias = StrEnum
    Recipe: TypeAlias = StrEnum
    Recompute: TypeAlias = StrEnum
    Zero: TypeAlias = StrEnum
    Offload: TypeAlias = StrEnum
else:
    Dtype = choice_enum("Dtype", choices.DTYPE_BITS)
    Recipe = choice_enum("Recipe", choices.RECIPES)
    Recompute = choice_enum("Recompute", choices.RECOMPUTE)
    Zero = choice_enum("Zero", choices.ZERO_STAGES)
    Offload = choice_enum("Offload", choices.OFFLOAD)
BF16, MIXED, NO_RECOMPUTE = Dtype("bf16"), Recipe("mixed"), Recompute("none")  # the defaults
ZERO0, NO_OFFLOAD = Zero("0"), Offload("none")


def parse_image_size(text: str) -> tuple[int, int]:
    """--image-size: HxW (896x896) or one side N for a square image."""
    import re

    from ffn_calc.files import printable

    m = re.fullmatch(r"\s*(\d{1,7})\s*(?:[xX]\s*(\d{1,7})\s*)?", text)
    if m is None or int(m.group(1)) == 0 or (m.group(2) is not None and int(m.group(2)) == 0):
        raise UsageError(
            _("--image-size {value}: expected HxW in pixels, e.g. 896x896.").format(
                value=printable(text)
            )
        )
    h = int(m.group(1))
    return h, int(m.group(2)) if m.group(2) is not None else h
