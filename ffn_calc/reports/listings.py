"""The answer to `ffn-calc presets`: the shipped presets with their shapes and exact totals
(`ffn-calc show NAME` dumps one model's config, a ModelConfig)."""

from __future__ import annotations

from typing import ClassVar

from ffn_calc.counts import params as pm
from ffn_calc.counts.totals import param_components
from ffn_calc.families.resolve import resolve_model
from ffn_calc.model.sources import read_every_preset
from ffn_calc.reports.base import Result


class PresetRow(Result):
    name: str
    family: str
    architecture: str
    d_model: int
    d_ff: int
    ffn_kind: str
    activation: str
    layers: int
    n_heads: int
    n_kv_heads: int
    total_params: int
    active_params: int
    source: str | None


class PresetsReport(Result):
    view: ClassVar[str] = "ffn_calc.views.listings:presets_tables"

    presets: list[PresetRow]


def presets_report() -> PresetsReport:
    """Every shipped preset with its shapes and exact totals."""
    rows = []
    for name in read_every_preset():
        c = resolve_model(preset=name)
        rows.append(
            PresetRow(
                name=name, family=c.family, architecture=c.architecture, d_model=c.d_model,
                d_ff=c.d_ff, ffn_kind=c.ffn_kind, activation=c.activation,
                layers=c.encoder_layers + c.decoder_layers, n_heads=c.n_heads,
                n_kv_heads=c.kv_heads, total_params=(total := sum(param_components(c).values())),
                active_params=total - pm.idle_params(c), source=c.source,
            )
        )  # fmt: skip
    return PresetsReport(presets=rows)
