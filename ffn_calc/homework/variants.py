"""Variants: the same questions with other sizes for each student, the same for the same seed.

A question that writes its sizes as placeholders ({d_model}, {d_ff}, {n_heads}, {seq_len},
{batch}, {x}) can be varied: `vary(exercise, seed)` draws other sizes from the seed and the
exercise's id (so every student's sheet differs, and the same seed gives the same sheet and
key), keeping what the question is about: d_ff keeps its multiple of d_model, a head keeps its
width, a share stays a share. A question that writes its numbers out (no placeholders) is not
varied: its text would no longer say what is computed. A varied exercise drops its notes and
known slips, which speak of the textbook's own figures.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ffn_calc.errors import UsageError
from ffn_calc.families.resolve import resolve_model
from ffn_calc.i18n.translate import _

if TYPE_CHECKING:  # exercises imports this module: the type only annotates
    from ffn_calc.homework.exercises import Exercise

# The widths a variant draws d_model from: multiples of 128, as real models use.
D_MODELS = (256, 384, 512, 640, 768, 1024, 1280, 1536, 2048, 2560, 3072, 4096, 5120, 8192)
SEQ_LENS = (4, 6, 8, 10, 12, 16, 32, 64, 128, 256, 512, 1024, 2048)
XS = (-3.0, -2.0, -1.5, -1.0, -0.5, -0.25, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0)
MAX_SEED = 2**63 - 1


def varies(e: Exercise) -> bool:
    """Whether the question writes its sizes as placeholders (and so can be varied)."""
    return "{" in e.question


def _number(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def values(e: Exercise) -> dict[str, str]:
    """The sizes a question's placeholders name, from the exercise's model and fields."""
    out: dict[str, str] = {}
    if e.model:
        flags = {k: v for k, v in e.model.items() if k != "preset"}
        cfg = resolve_model(preset=e.model.get("preset"), flags=flags)
        out |= {"d_model": str(cfg.d_model), "d_ff": str(cfg.d_ff), "n_heads": str(cfg.n_heads)}
    if e.d_model is not None:
        out["d_model"] = str(e.d_model)
        out["four_d_model"] = str(4 * e.d_model)
    if e.seq_len is not None:
        out["seq_len"] = str(e.seq_len)
    out["batch"] = str(e.batch)
    out["multiple_of"] = str(e.multiple_of)
    if e.x is not None:
        out["x"] = _number(e.x)
    return out


def check_seed(seed: int) -> int:
    if not 0 <= seed <= MAX_SEED:
        raise UsageError(
            _("--variant {seed}: a variant is a whole number from 0 to {max}.").format(
                seed=seed, max=f"{MAX_SEED:,}"
            )
        )
    return seed


def vary(e: Exercise, seed: int) -> Exercise:
    """The exercise with the sizes of variant `seed` (itself when it writes its numbers out)."""
    check_seed(seed)
    if not varies(e):
        return e
    rng = random.Random(f"{seed}/{e.id}")
    update: dict[str, Any] = {"note": None, "slips": []}
    model = dict(e.model) if e.model else None
    if model and "preset" not in model and "d_model" in model:
        d = model["d_model"]
        ratio = Fraction(model["d_ff"], d) if "d_ff" in model else None
        head = d // model["n_heads"] if "n_heads" in model else None
        choices = [
            n for n in D_MODELS
            if (ratio is None or (n * ratio).denominator == 1) and (head is None or n % head == 0)
        ]  # fmt: skip
        n = rng.choice([c for c in choices if c != d] or choices)
        model["d_model"] = n
        if ratio is not None:
            model["d_ff"] = int(n * ratio)
        if head is not None:
            model["n_heads"] = n // head
        update["model"] = model
    if e.d_model is not None:
        update["d_model"] = rng.choice([n for n in D_MODELS if n != e.d_model])
    if e.seq_len is not None:
        update["seq_len"] = rng.choice([n for n in SEQ_LENS if n != e.seq_len])
    if e.x is not None:
        update["x"] = rng.choice([x for x in XS if x != e.x])
    return e.model_copy(update=update)
