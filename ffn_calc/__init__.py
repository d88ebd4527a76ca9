"""ffn-calc: exact parameter and FLOP counts for Transformers, with the FFN set against attention.

    >>> import ffn_calc
    >>> model = ffn_calc.load(preset="gpt2-small")
    >>> ffn_calc.params(model).total_params
    124439808
    >>> ffn_calc.flops(model, seq_len=1024).forward_flops
    291648307200

Importing the package does no work: every name below is loaded when first used (the command
line imports this package too, and starts faster for it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ffn_calc.api import (
        compare,
        crossover,
        decode,
        decode_crossover,
        flops,
        generate,
        kv,
        load,
        memory,
        params,
        preset_names,
        roofline,
        sweep,
        training_memory,
    )
    from ffn_calc.errors import ConfigError, FfnCalcError, FileError, UsageError
    from ffn_calc.model.config import ModelConfig
    from ffn_calc.sweeps.run import Sweep

__all__ = [
    "ConfigError",
    "FfnCalcError",
    "FileError",
    "ModelConfig",
    "Sweep",
    "UsageError",
    "__version__",
    "compare",
    "crossover",
    "decode",
    "decode_crossover",
    "flops",
    "generate",
    "kv",
    "load",
    "memory",
    "params",
    "preset_names",
    "roofline",
    "sweep",
    "training_memory",
]

_HOME = {
    "ModelConfig": "ffn_calc.model.config",
    "Sweep": "ffn_calc.sweeps.run",
    "FfnCalcError": "ffn_calc.errors",
    "ConfigError": "ffn_calc.errors",
    "FileError": "ffn_calc.errors",
    "UsageError": "ffn_calc.errors",
}


def __getattr__(name: str) -> Any:
    """Load a public name on first use (PEP 562)."""
    import importlib

    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("ffn-calc")
        except PackageNotFoundError:  # a checkout that is not installed
            return "unknown"
    if name in __all__:
        value = getattr(importlib.import_module(_HOME.get(name, "ffn_calc.api")), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ffn_calc' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
