"""Closed form against the torch-free instantiation, and a checkpoint's header against both."""

from __future__ import annotations

from collections.abc import Mapping
from math import prod
from pathlib import Path

from ffn_calc import flops as fl
from ffn_calc import params as pm
from ffn_calc.config import ModelConfig
from ffn_calc.instantiate import PREFIXES, Inventory, instantiate
from ffn_calc.result import Result
from ffn_calc.safetensors import Entry

# Non-parameter buffers that some checkpoints carry (reported, never counted).
BUFFER_SUFFIXES = (
    ".attn.bias",
    ".attn.masked_bias",
    ".rotary_emb.inv_freq",
    ".position_ids",
    ".token_type_ids",
)


class Check(Result):
    model: str
    kind: str  # "params" | "flops"
    component: str
    closed_form: int
    inventory: int
    ok: bool


class Mismatch(Result):
    name: str
    expected: list[int]
    found: list[int]


class CheckpointReport(Result):
    path: str
    ok: bool
    tensors: int
    checkpoint_params: int
    expected_params: int
    missing: list[str]
    unexpected: list[str]
    shape_mismatches: list[Mismatch]
    buffers: list[str]
    tied_copies: list[str]
    bytes_by_dtype: dict[str, int]


class VerifyReport(Result):
    ok: bool
    seq_len: int
    batch: int
    checks: list[Check]
    checkpoint: CheckpointReport | None = None


def model_checks(
    cfg: ModelConfig, batch: int, seq_len: int, inv: Inventory | None = None
) -> list[Check]:
    """Per component: closed-form parameters and forward FLOPs against the inventory's sums."""
    inv = inv or instantiate(cfg, batch, seq_len)
    w = fl.Workload(batch=batch, seq_len=seq_len)
    out = []
    for kind, closed, counted in (
        ("params", pm.components(cfg), inv.params),
        ("flops", fl.flop_components(cfg, w), inv.flops),
    ):
        for comp, value in closed.items():
            got = counted(comp)
            out.append(
                Check(
                    model=cfg.name,
                    kind=kind,
                    component=comp,
                    closed_form=value,
                    inventory=got,
                    ok=value == got,
                )
            )
        total, got = sum(closed.values()), counted(None)
        out.append(
            Check(
                model=cfg.name,
                kind=kind,
                component="total",
                closed_form=total,
                inventory=got,
                ok=total == got,
            )
        )
    return out


def _match(name: str, expected: Mapping[str, object]) -> str | None:
    """The inventory name of a checkpoint name, allowing a family prefix to be absent or extra."""
    if name in expected:
        return name
    for p in PREFIXES:
        if p + name in expected:
            return p + name
        if name.startswith(p) and name[len(p) :] in expected:
            return name[len(p) :]
    return None


def compare_checkpoint(path: str, inv: Inventory, entries: list[Entry]) -> CheckpointReport:
    """Names and shapes of a checkpoint against the inventory."""
    expected = {t.name: t for t in inv.tensors}
    found: set[str] = set()
    unexpected, buffers, tied, mismatches = [], [], [], []
    params = 0
    by_dtype: dict[str, int] = {}
    for e in entries:
        by_dtype[e.dtype] = by_dtype.get(e.dtype, 0) + e.nbytes
        name = _match(e.name, expected)
        if name is None:
            if ("." + e.name).endswith(BUFFER_SUFFIXES):
                buffers.append(e.name)
            else:
                unexpected.append(e.name)
                params += prod(e.shape)
            continue
        t = expected[name]
        found.add(name)
        if t.tied_to is not None:
            tied.append(e.name)
        else:
            params += prod(e.shape)
        if tuple(e.shape) != t.shape:
            mismatches.append(Mismatch(name=e.name, expected=list(t.shape), found=list(e.shape)))
    missing = [n for n, t in expected.items() if n not in found and t.tied_to is None]
    total = inv.params()
    ok = not (missing or unexpected or mismatches) and params == total
    return CheckpointReport(
        path=path, ok=ok, tensors=len(entries), checkpoint_params=params, expected_params=total,
        missing=missing, unexpected=unexpected, shape_mismatches=mismatches, buffers=buffers,
        tied_copies=tied, bytes_by_dtype=dict(sorted(by_dtype.items())),
    )  # fmt: skip


def verify(
    models: list[ModelConfig], batch: int, seq_len: int, checkpoint: Path | None = None
) -> VerifyReport:
    """Every model's checks, and the checkpoint comparison for a single model."""
    from ffn_calc.safetensors import read_checkpoint

    checks: list[Check] = []
    ckpt = None
    for cfg in models:
        inv = instantiate(cfg, batch, seq_len)
        checks += model_checks(cfg, batch, seq_len, inv)
        if checkpoint is not None:
            ckpt = compare_checkpoint(str(checkpoint), inv, read_checkpoint(checkpoint))
    ok = all(c.ok for c in checks) and (ckpt is None or ckpt.ok)
    return VerifyReport(ok=ok, seq_len=seq_len, batch=batch, checks=checks, checkpoint=ckpt)


class TensorRow(Result):
    name: str
    shape: list[int]
    params: int
    component: str
    tied_to: str | None


class MatmulRow(Result):
    name: str
    component: str
    m: int
    k: int
    n: int
    count: int
    flops: int


class TensorsReport(Result):
    model: str
    total_params: int
    tensors: list[TensorRow]
    seq_len: int
    matmuls: list[MatmulRow] | None


def tensors_report(cfg: ModelConfig, seq_len: int = 1, matmuls: bool = False) -> TensorsReport:
    from ffn_calc.instantiate import instantiate

    inv = instantiate(cfg, 1, seq_len)
    return TensorsReport(
        model=cfg.name, total_params=inv.params(), seq_len=seq_len,
        tensors=[
            TensorRow(name=t.name, shape=list(t.shape), params=t.numel, component=t.component, tied_to=t.tied_to)
            for t in inv.tensors
        ],
        matmuls=[
            MatmulRow(name=m.name, component=m.component, m=m.m, k=m.k, n=m.n, count=m.count, flops=m.flops)
            for m in inv.matmuls
        ] if matmuls else None,
    )  # fmt: skip
