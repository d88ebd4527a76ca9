"""The tables of `ffn-calc roofline`: per component FLOPs, bytes, intensity, bound and time for
each phase; the phases side by side; the crossovers in time; utilisation from a measurement."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_calc.i18n.translate import _, shown

if TYPE_CHECKING:  # the report types only annotate: importing them would load every command
    from ffn_calc.reports.roofline import RooflineReport
from ffn_calc.views.labels import component_label, model_name, term_label
from ffn_calc.views.numbers import human
from ffn_calc.views.table import Column, Spelled, Table, never


def _us(seconds: float) -> Spelled:
    return Spelled(seconds * 1e6, f"{seconds * 1e6:,.1f}")


def _bound(b: str) -> str:
    return _("compute") if b == "compute" else _("memory")


def roofline_tables(r: RooflineReport) -> list[Table]:
    tables: list[Table] = []
    device = _(
        "{accelerator}: peak {peak}FLOP/s, bandwidth {bandwidth}B/s, ridge point {ridge} FLOPs/byte"
    ).format(
        accelerator=model_name(r.accelerator),
        peak=human(r.peak_flops),
        bandwidth=human(r.bandwidth_bytes),
        ridge=f"{r.ridge_point:,.1f}",
    )
    for p in r.phases:
        if p.phase == "prefill":
            shape = _("prefill, B={batch}, S={length}").format(batch=r.batch, length=p.length())
        elif p.phase == "training":
            shape = _("training step, B={batch}, S={length}").format(
                batch=r.batch, length=p.length()
            )
        else:
            shape = _("decode step, B={batch}, L={length}").format(batch=r.batch, length=p.length())
        t = Table(
            f"{model_name(r.model)}: {shape}",
            [
                Column(_("term"), "text"),
                Column(_("component"), "text"),
                Column("FLOPs"),
                Column(_("bytes")),
                Column(_("FLOPs/byte"), "num", fmt=",.1f"),
                Column(_("bound"), "text"),
                Column(_("time (us)"), "num"),
                Column(_("share"), "pct"),
            ],
        )
        for c in p.components:
            t.add(
                term_label(c.name),
                component_label(c.group),
                c.flops,
                c.bytes,
                c.intensity,
                _bound(c.bound),
                _us(c.time_s),
                c.time_s / p.time_s,
            )
        t.add(
            _("total"),
            "",
            p.flops,
            p.bytes,
            p.flops / p.bytes if p.bytes else 0.0,
            "",
            _us(p.time_s),
            1.0,
            style="total",
        )
        t.notes.append(device)
        tables.append(t)
    s = Table(
        _("{model} on {accelerator}: time per phase").format(
            model=model_name(r.model), accelerator=model_name(r.accelerator)
        ),
        [
            Column(_("phase"), "text"),
            Column(_("time (us)"), "num"),
            Column(_("tokens/s (bound)"), "num"),
            Column(_("FFN time share"), "pct"),
            Column(_("attention time share"), "pct"),
        ],
    )
    mixers = any("mixer" in p.time_shares for p in r.phases)
    if mixers:
        s.columns.append(Column(_("mixer time share"), "pct"))
    for p in r.phases:
        att = p.time_shares.get("attention_projections", 0.0) + p.time_shares.get(
            "attention_scores", 0.0
        )
        names = {"prefill": _("prefill"), "training": _("training step")}
        s.add(
            names.get(p.phase, _("decode")),
            _us(p.time_s),
            Spelled(p.tokens_per_s, f"{p.tokens_per_s:,.0f}"),
            p.time_shares.get("ffn", 0.0),
            att,
            *([p.time_shares.get("mixer", 0.0)] if mixers else []),
        )
    s.notes += [shown(n) for n in r.sentences()]
    tables.append(s)
    if r.crossovers is not None:
        cx = r.crossovers
        x = Table(
            _("Crossovers in time (decode step)"),
            [Column(_("where"), "text"), Column(_("value"), "num")],
        )
        x.add(
            _("context L where attention time reaches the FFN's (at B={batch})").format(
                batch=r.batch
            ),
            cx.context_at_batch if cx.context_at_batch is not None else never(),
        )
        length = next((p.length() for p in r.phases if p.phase == "decode"), 0)
        x.add(
            _("batch B where attention time reaches the FFN's (at L={length})").format(
                length=length
            ),
            cx.batch_at_context if cx.batch_at_context is not None else never(),
        )
        x.add(
            _("batch B where the FFN matmuls turn compute-bound"),
            cx.ffn_compute_bound_batch if cx.ffn_compute_bound_batch is not None else never(),
        )
        x.add(
            _("cache reads' FLOPs/byte as L grows (any batch)"),
            Spelled(cx.kv_intensity_limit, f"{cx.kv_intensity_limit:,.2f}"),
        )
        tables.append(x)
    if r.measured is not None:
        m = r.measured
        u = Table(
            _("Utilisation at {tokens} tokens/s ({phase})").format(
                tokens=f"{m.tokens_per_s:,g}", phase=m.phase
            ),
            [Column(_("measure"), "text"), Column(_("value"), "pct")],
        )
        u.add("MFU", m.mfu)
        if m.mfu_causal is not None:
            u.add(_("MFU, causal halving"), m.mfu_causal)
        if m.mfu_counted is not None:
            u.add(_("MFU, the step's own FLOPs (3 x forward)"), m.mfu_counted)
        if m.hfu is not None and m.hfu != m.mfu_counted:
            u.add(_("HFU, with the recomputed forward"), m.hfu)
        if m.mbu is not None:
            u.add("MBU", m.mbu)
        tables.append(u)
    return tables
