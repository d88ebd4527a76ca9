"""The tables of `ffn-calc presets` (every preset) and `ffn-calc show NAME` (one config's fields)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_calc.counts import params as pm
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig
from ffn_calc.views.labels import ffn_kind_label
from ffn_calc.views.table import Column, Table

if TYPE_CHECKING:
    from ffn_calc.reports.listings import PresetsReport


def presets_tables(report: PresetsReport) -> list[Table]:
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
    for r in report.presets:
        t.add(
            r.name, r.family, r.d_model, r.d_ff,
            _("{kind} ({activation})").format(kind=ffn_kind_label(r.ffn_kind), activation=r.activation),
            r.layers,
            f"{r.n_heads} / {r.n_kv_heads}", r.n_heads, r.n_kv_heads, r.total_params,
            r.active_params,
        )  # fmt: skip
    t.notes.append(_("Sources: `ffn-calc show NAME`. Layers: all stacks together."))
    return [t]


def config_tables(cfg: ModelConfig) -> list[Table]:
    t = Table(
        f"{cfg.name}",
        [Column(_("field"), "text"), Column(_("value"), "text"), Column(_("meaning"), "text")],
    )
    for name, info in ModelConfig.model_fields.items():
        value = getattr(cfg, name)
        if name in ("towers", "text_family") and not value:  # a language model alone: no row
            continue
        if name == "towers":
            value = ", ".join(
                _("{name} ({family}, {layers} layers, d_model {d_model})").format(
                    name=t.name, family=t.family, layers=t.stack.n_layers, d_model=t.stack.d_model
                )
                for t in value
            )
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
