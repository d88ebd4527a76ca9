"""Closed form against the torch-free instantiation, and a checkpoint's header against both."""

from __future__ import annotations

import re
from collections.abc import Mapping
from math import prod
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from ffn_calc.counts import flops as fl
from ffn_calc.counts import params as pm
from ffn_calc.model.config import ModelConfig
from ffn_calc.reference.instantiate import instantiate
from ffn_calc.reference.inventory import Inventory, Ranges, Span, Tensor, spell, values
from ffn_calc.reference.safetensors import Entry
from ffn_calc.reports.base import Result

# Non-parameter buffers that some checkpoints carry (reported, never counted).
BUFFER_SUFFIXES = (
    ".attn.bias",
    ".attn.masked_bias",
    ".attention.bias",  # GPT-NeoX's causal mask and its fill value in older checkpoints
    ".attention.masked_bias",
    ".rotary_emb.inv_freq",
    ".position_ids",
    ".token_type_ids",
    ".final_logits_bias",  # BART's zero logits bias, a buffer that checkpoints keep
    ".e_score_correction_bias",  # DeepSeek-V3 / GLM-4.5's routing-score bias, a buffer
    ".ffn.gate.bias",  # DeepSeek-V4's routing-score bias as its checkpoints name it
    ".ffn.gate.tid2eid",  # DeepSeek-V4's hash-routing table (token id -> experts)
    ".feed_forward.expert_bias",  # LFM2-MoE's routing-score bias, a buffer
    ".self_attn.slope_rate",  # MiniMax lightning attention's decay tables, buffers
    ".self_attn.query_decay",
    ".self_attn.key_decay",
    ".self_attn.diagonal_decay",
    ".layer_scalar",  # Gemma 4's scale of each layer's output, a buffer
    ".input_min",  # Gemma 4's clipped linears: their clipping bounds, buffers
    ".input_max",
    ".output_min",
    ".output_max",
    ".std_bias",  # Gemma 4's vision tower with standardize: its soft tokens' bias and scale
    ".std_scale",
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
    missing: list[str]  # one name per run of missing indices: `model.layers.{5..7}.norm.weight`
    missing_count: int  # the tensors those names stand for
    unexpected: list[str]
    shape_mismatches: list[Mismatch]
    buffers: list[str]
    tied_copies: list[str]
    bytes_by_dtype: dict[str, int]
    not_counted: list[str] = Field(
        [],
        description="tensors the model drops on load (a KV-shared layer's K and V) or of a "
        "part ffn-calc does not count (Gemma 3n's vision tower): listed, not compared",
        exclude_if=lambda v: not v,
    )


class VerifyReport(Result):
    view: ClassVar[str] = "ffn_calc.views.verify:verify_tables"

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


def _candidates(
    key: str, expected: Mapping[str, list[Tensor]], prefixes: tuple[str, ...]
) -> list[Tensor]:
    """The templates a checkpoint key (indices as `#`) may be, allowing a family prefix to be
    absent or extra."""
    if key in expected:
        return expected[key]
    for p in prefixes:
        if p + key in expected:
            return expected[p + key]
        if key.startswith(p) and key[len(p) :] in expected:
            return expected[key[len(p) :]]
    return []


def _renamed(name: str, renames: Mapping[str, str]) -> str:
    """A checkpoint name under the reference's name (`embed_out.weight` -> `lm_head.weight`);
    a key that starts with "." renames a part inside the name (a module of every layer)."""
    for stored, reference in renames.items():
        if stored.startswith(".") and stored in name:
            return name.replace(stored, reference, 1)
        if name.startswith(stored):
            return reference + name[len(stored) :]
    return name


def _pattern(t: Tensor) -> tuple[str, tuple[int | str, ...]]:
    """A template's key (every index segment as `#`) and what each `#` must be: a literal
    number (T5's `layer.1`, a first layer's `0`) or a range index's name."""
    ranges = dict(t.ranges)
    key: list[str] = []
    slots: list[int | str] = []
    for part in t.name.split("."):
        if part.startswith("{") and part.endswith("}") and part[1:-1] in ranges:
            key.append("#")
            slots.append(part[1:-1])
        elif INDEX.fullmatch(part):
            key.append("#")
            slots.append(int(part))
        else:
            key.append(part)
    return ".".join(key), tuple(slots)


def _indices(t: Tensor, index: tuple[int, ...]) -> tuple[int, ...] | None:
    """The range indices of a checkpoint name's `index` under template `t`, or None when a
    literal differs or an index is out of its range."""
    _, slots = _pattern(t)
    ranges = dict(t.ranges)
    out = []
    for slot, i in zip(slots, index, strict=True):
        if isinstance(slot, int):
            if i != slot:
                return None
        elif i not in values(ranges[slot]):
            return None
        else:
            out.append(i)
    return tuple(out)


# An index as torch names it: a whole dot-separated segment, no sign, no leading zero. Longer
# than 18 digits it exceeds any model's count anyway and stays text (so: unexpected).
INDEX = re.compile(r"0|[1-9][0-9]{0,17}")


def _split(name: str) -> tuple[str, tuple[int, ...]]:
    """`model.layers.17.mlp.up_proj.weight` -> (`model.layers.#.mlp.up_proj.weight`, (17,))."""
    parts = name.split(".")
    key = ".".join("#" if INDEX.fullmatch(x) else x for x in parts)
    return key, tuple(int(x) for x in parts if INDEX.fullmatch(x))


def _missing(t: Tensor, present: set[tuple[int, ...]]) -> list[str]:
    """Names for the copies of `t` that `present` lacks: one per run of missing indices.

    Layer 5 of 32 gone: `model.layers.5.mlp.up_proj.weight`; none there:
    `model.layers.{0..31}.mlp.up_proj.weight`. At most len(present) + 1 names per index level,
    never one per missing copy.
    """

    def walk(spans: dict[str, Span], ranges: Ranges, present: set[tuple[int, ...]]) -> list[str]:
        if not ranges:
            return [] if present else [spell(t.name, spans)]
        (key, span), inner = ranges[0], ranges[1:]
        vals = values(span)  # runs are runs of positions in vals (a range: O(1) per lookup)
        whole = {k: values(s) for k, s in inner}  # every inner index, for a run with none present
        by_first: dict[int, set[tuple[int, ...]]] = {}
        for index in present:
            by_first.setdefault(index[0], set()).add(index[1:])
        out, start = [], 0
        for i in sorted(by_first):
            at = vals.index(i)
            if at > start:
                out.append(spell(t.name, {**spans, key: vals[start:at], **whole}))
            out += walk({**spans, key: vals[at : at + 1]}, inner, by_first[i])
            start = at + 1
        if start < len(vals):
            out.append(spell(t.name, {**spans, key: vals[start:], **whole}))
        return out

    return walk({}, t.ranges, present)


def compare_checkpoint(path: str, inv: Inventory, entries: list[Entry]) -> CheckpointReport:
    """Names and shapes of a checkpoint against the inventory, whose templates stay unexpanded.

    A name matches a template when both agree with each index segment read as `#`
    (`model.layers.17.mlp.up_proj.weight` ~ `model.layers.{i}.mlp.up_proj.weight`) and every
    index is in its range (17 < layers).
    """
    expected: dict[str, list[Tensor]] = {}
    for t in inv.tensors:
        expected.setdefault(_pattern(t)[0], []).append(t)
    # By tensor: one template may name tensors of two layer sets (DeepSeek-V4's compressors).
    found: dict[Tensor, set[tuple[int, ...]]] = {t: set() for t in inv.tensors}
    unexpected, buffers, tied, mismatches, not_counted = [], [], [], [], []
    ignored: dict[str, list[Tensor]] = {}
    for t in inv.ignored:
        ignored.setdefault(_pattern(t)[0], []).append(t)
    tied_entries: dict[str, list[str]] = {}  # a tied tensor's copies found, by template
    params = 0
    by_dtype: dict[str, int] = {}
    for e in entries:
        by_dtype[e.dtype] = by_dtype.get(e.dtype, 0) + e.nbytes
        key, index = _split(_renamed(e.name, inv.renames))
        hits = [
            (t, i)
            for t in _candidates(key, expected, inv.prefixes)
            if (i := _indices(t, index)) is not None
        ]
        if not hits:
            if ("." + e.name).endswith(BUFFER_SUFFIXES):
                buffers.append(e.name)
            elif _ignored(e.name, key, index, inv, ignored):
                not_counted.append(e.name)
            else:
                unexpected.append(e.name)
                params += prod(e.shape)
            continue
        t, index = hits[0]
        found[t].add(index)
        if t.tied_to is not None:
            tied.append(e.name)
            tied_entries.setdefault(t.name, []).append(e.name)
        else:
            params += prod(e.shape)
        if tuple(e.shape) != t.shape:
            mismatches.append(Mismatch(name=e.name, expected=list(t.shape), found=list(e.shape)))
    # A checkpoint may hold a tied pair under either name (XLM-RoBERTa's state_dict lists the
    # token table, named_parameters() the head): a tied copy stands for a target it lacks.
    for t in inv.tensors:
        if t.tied_to is None or not found[t]:
            continue
        stand_in = next((u for u in inv.tensors if u.name == t.tied_to), None)
        if (
            stand_in is not None
            and not found[stand_in]
            and stand_in.ranges == t.ranges
            and stand_in.shape == t.shape
        ):
            found[stand_in] = set(found[t])
            params += stand_in.numel * len(found[stand_in])
            tied = [n for n in tied if n not in tied_entries[t.name]]
    missing, missing_count = [], 0
    for t in inv.tensors:
        if t.tied_to is None:
            missing += _missing(t, found[t])
            missing_count += t.count - len(found[t])
    total = inv.params()
    ok = not (missing or unexpected or mismatches) and params == total
    return CheckpointReport(
        path=path, ok=ok, tensors=len(entries), checkpoint_params=params, expected_params=total,
        missing=missing, missing_count=missing_count, unexpected=unexpected,
        shape_mismatches=mismatches, buffers=buffers, tied_copies=tied,
        bytes_by_dtype=dict(sorted(by_dtype.items())), not_counted=not_counted,
    )  # fmt: skip


def _ignored(
    name: str, key: str, index: tuple[int, ...], inv: Inventory,
    ignored: dict[str, list[Tensor]],
) -> bool:  # fmt: skip
    """A checkpoint tensor the model drops on load (inv.ignored) or under the prefix of a
    part not counted (inv.ignored_prefixes)."""
    stored = _renamed(name, inv.renames)
    if any(stored.startswith(p) or name.startswith(p) for p in inv.ignored_prefixes):
        return True
    return any(_indices(t, index) is not None for t in _candidates(key, ignored, inv.prefixes))


def verify(
    models: list[ModelConfig], batch: int, seq_len: int, checkpoint: Path | None = None
) -> VerifyReport:
    """Every model's checks, and the checkpoint comparison for a single model."""
    from ffn_calc.reference.checkpoints import read_checkpoint

    checks: list[Check] = []
    ckpt = None
    for cfg in models:
        inv = instantiate(cfg, batch, seq_len)
        checks += model_checks(cfg, batch, seq_len, inv)
        if checkpoint is not None:
            ckpt = compare_checkpoint(str(checkpoint), inv, read_checkpoint(checkpoint))
    ok = all(c.ok for c in checks) and (ckpt is None or ckpt.ok)
    return VerifyReport(ok=ok, seq_len=seq_len, batch=batch, checks=checks, checkpoint=ckpt)
