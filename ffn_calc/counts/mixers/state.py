"""One tensor of a mixer's constant-size cache, with its dtype rule as data.

transformers 5 (its torch path) keeps the recurrent states of the Mamba, Mamba-2, gated
delta-rule and KDA mixers in float32 whatever the model's dtype (the scan accumulates and
returns them in float32), while conv states and MiniMax's lightning state stay in the model's
dtype. `dtype`: MODEL (the cache's dtype: --dtype of kv and memory, --kv-dtype of roofline) or FP32
(float32 whatever that dtype is).
"""

from __future__ import annotations

from typing import NamedTuple

MODEL = "model"
FP32 = "fp32"


class StateTensor(NamedTuple):
    """One state tensor of one layer: its name, elements, and dtype rule (MODEL or FP32)."""

    name: str
    elements: int
    dtype: str = MODEL


def state_dtype(t: StateTensor, dtype: str) -> str:
    """The dtype `t` is held in when the cache's dtype is `dtype`."""
    return FP32 if t.dtype == FP32 else dtype
