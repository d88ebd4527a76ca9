"""What the hybrid families share: reading a Mamba-2 mixer's sizes and a per-layer list of
block types (Nemotron-H's layers_block_type, Granite 4.0-H's layer_types)."""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import Reader
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _


def block_types(r: Reader, key: str, allowed: tuple[str, ...]) -> list[str] | None:
    """A list of block type names (None when absent), each one of `allowed`."""
    value = r.data.get(key)
    if value is None:
        return None
    if (
        not isinstance(value, list)
        or not value
        or any(not isinstance(v, str) or v not in allowed for v in value)
    ):
        raise ConfigError(
            _("{where}: {field} = {value}: expected a list of {choices}.").format(
                where=r.where(key), field=key, value=shown(value), choices=", ".join(allowed)
            )
        )
    return list(value)


def mamba2_sizes(r: Reader, keys: dict[str, tuple[str, ...]], **fixed: Any) -> dict[str, Any]:
    """Mamba2Config fields read from the first present key of each field's aliases in `keys`
    (sizes required unless `fixed` gives them), booleans with their defaults in `fixed`."""
    out: dict[str, Any] = {}
    for field, names in keys.items():
        present = next((n for n in names if r.data.get(n) is not None), names[0])
        default = fixed.get(field)
        if isinstance(default, bool):
            out[field] = r.boolean(present, default)
        else:
            out[field] = r.integer(present, default)
    return {**fixed, **out}
