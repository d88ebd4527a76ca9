"""Listings of presets and of one config's fields, as reports and plain tables."""

from __future__ import annotations

from collections.abc import Callable

from ffn_calc.counts import params as pm
from ffn_calc.counts.totals import param_components
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.sources import preset_names, resolve_model
from ffn_calc.reports.base import Result
from ffn_calc.views.params import Column, Table


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
    presets: list[PresetRow]


def presets_listing() -> tuple[PresetsReport, Callable[[], list[Table]]]:
    rows = []
    for name in preset_names():
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
    report = PresetsReport(presets=rows)

    def tables() -> list[Table]:
        t = Table(
            _("Presets"),
            [
                Column(_("name"), "text"), Column(_("family"), "text"), Column("d_model"),
                Column("d_ff"), Column("FFN", "text"), Column(_("layers")),
                Column(_("heads / kv"), "num", only="people"), Column("heads", only="csv"),
                Column("kv heads", only="csv"), Column(_("total params")),
                Column(_("active params")),
            ],
        )  # fmt: skip
        for r in rows:
            t.add(
                r.name, r.family, r.d_model, r.d_ff, f"{r.ffn_kind} ({r.activation})", r.layers,
                f"{r.n_heads} / {r.n_kv_heads}", r.n_heads, r.n_kv_heads, r.total_params,
                r.active_params,
            )  # fmt: skip
        t.notes.append(_("Sources: `ffn-calc show NAME`. Layers: all stacks together."))
        return [t]

    return report, tables


def config_listing(cfg: ModelConfig) -> list[Table]:
    t = Table(
        f"{cfg.name}",
        [Column(_("field"), "text"), Column(_("value"), "text"), Column(_("meaning"), "text")],
    )
    for name, info in ModelConfig.model_fields.items():
        value = getattr(cfg, name)
        if isinstance(value, bool):
            value = str(value).lower()
        elif value is None:
            value = "-"
        elif not isinstance(value, int):
            value = str(value)
        # The description in the current language from the catalogs (else English).
        meaning = _(info.description) if info.description else ""
        t.add(name, value, meaning)  # an int: 4,096 for people, 4096 in CSV
    t.notes.append(
        _(
            "Derived: head_dim {head_dim}, n_kv_heads {n_kv_heads}, FFN {ffn_kind}; total "
            "{total} parameters."
        ).format(
            head_dim=cfg.head_size,
            n_kv_heads=cfg.kv_heads,
            ffn_kind=cfg.ffn_kind,
            total=f"{pm.total_params(cfg):,}",
        )
    )
    return [t]
