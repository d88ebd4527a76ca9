"""The tables of `ffn-calc verify`: each check of the closed form against the instantiation and a
checkpoint's header."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_calc.i18n.translate import N_, _

if TYPE_CHECKING:  # the report types only annotate: importing them would load every command
    from ffn_calc.reports.verify import VerifyReport
from ffn_calc.views.labels import component_label
from ffn_calc.views.table import Column, Table

CHECK_KINDS = {"params": N_("params"), "flops": N_("flops")}


def verdict(ok: bool) -> str:
    return _("ok") if ok else _("MISMATCH")


def verify_tables(r: VerifyReport) -> list[Table]:
    tables: list[Table] = []
    for model in dict.fromkeys(c.model for c in r.checks):
        t = Table(
            _("{model}: closed form vs instantiation (FLOPs at batch {batch}, S={seq_len})").format(
                model=model, batch=r.batch, seq_len=r.seq_len
            ),
            [Column(_("kind"), "text"), Column(_("component"), "text"), Column(_("closed form")), Column(_("instantiated")), Column("", "text")],
        )  # fmt: skip
        for c in r.checks:
            if c.model == model:
                t.add(_(CHECK_KINDS[c.kind]) if c.kind in CHECK_KINDS else c.kind,
                      component_label(c.component), c.closed_form, c.inventory, verdict(c.ok),
                      style="total" if c.component == "total" else "")  # fmt: skip
        tables.append(t)
    if r.checkpoint is not None:
        k = r.checkpoint
        none = _("none")
        t = Table(
            _("checkpoint {path}").format(path=k.path),
            [Column(_("check"), "text"), Column(_("result"), "text")],
        )
        # Counts go in as numbers: grouped for people, plain in CSV.
        t.add(_("tensors in the file"), k.tensors)
        t.add(_("parameters in the file"), k.checkpoint_params)
        t.add(_("parameters of the model"), k.expected_params)
        t.add(_("missing tensors"), k.missing_count)
        if k.missing:
            t.add(_("missing names"), ", ".join(k.missing))
        t.add(_("unexpected tensors"), ", ".join(k.unexpected) or none)
        mismatches = [
            _("{name}: expected {expected}, found {found}").format(
                name=m.name, expected=m.expected, found=m.found
            )
            for m in k.shape_mismatches
        ]
        t.add(_("shape mismatches"), "; ".join(mismatches) or none)
        t.add(_("buffers (not counted)"), ", ".join(k.buffers) or none)
        t.add(_("tied copies (not counted)"), ", ".join(k.tied_copies) or none)
        if k.not_counted:  # dropped on load, or a part ffn-calc does not count
            t.add(_("tensors not compared (dropped on load or not counted)"), len(k.not_counted))
        for dtype, n in k.bytes_by_dtype.items():
            t.add(_("bytes of {dtype} tensors").format(dtype=dtype), n)
        t.add(_("result"), verdict(k.ok), style="total")
        if any("{" in m for m in k.missing):
            t.notes.append(_("{a..b} in a name: each index from a to b."))
        tables.append(t)
    tables[-1].notes.append(_("All checks match.") if r.ok else _("Mismatch found: exit code 1."))
    return tables
