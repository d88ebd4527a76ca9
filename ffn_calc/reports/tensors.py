"""The answer to `ffn-calc tensors`: every parameter tensor (name, shape, count) as the reference
implementation stores it, and with --matmuls every matmul of one forward pass."""

from __future__ import annotations

from typing import ClassVar

from ffn_calc.model.config import ModelConfig
from ffn_calc.reference.instantiate import (
    instantiate,
)
from ffn_calc.reports.base import Result


class TensorRow(Result):
    name: str  # `model.layers.{0..31}.mlp.up_proj.weight`: one tensor per index in the braces
    shape: list[int]
    params: int  # of one tensor
    count: int  # tensors the row stands for
    total_params: int  # params x count; 0 for a tied tensor (it counts once, as its target)
    component: str
    tied_to: str | None


class MatmulRow(Result):
    name: str
    component: str
    m: int
    k: int
    n: int
    count: int  # times one forward pass runs it: layers x batch x heads, as it applies
    flops: int  # of all count runs


class TensorsReport(Result):
    view: ClassVar[str] = "ffn_calc.views.tensors:tensors_tables"

    model: str
    total_params: int
    tensors: list[TensorRow]
    seq_len: int
    matmuls: list[MatmulRow] | None


def tensors_report(cfg: ModelConfig, seq_len: int = 1, matmuls: bool = False) -> TensorsReport:
    """One row per tensor template (identical layers and experts once, with their count)."""
    cfg.check_positions(seq_len, f"--seq-len {seq_len}")  # the matmuls of a real forward
    inv = instantiate(cfg, 1, seq_len)
    return TensorsReport(
        model=cfg.name, total_params=inv.params(), seq_len=seq_len,
        tensors=[
            TensorRow(name=t.label, shape=list(t.shape), params=t.numel, count=t.count,
                      total_params=0 if t.tied_to else t.numel * t.count, component=t.component,
                      tied_to=t.tied_to)
            for t in inv.tensors
        ],
        matmuls=[
            MatmulRow(name=m.label, component=m.component, m=m.m, k=m.k, n=m.n, count=m.times, flops=m.flops)
            for m in inv.matmuls
        ] if matmuls else None,
    )  # fmt: skip
