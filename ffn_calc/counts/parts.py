"""FLOPs through tensors given as data (layer_parts, model_parts), and the shared weights a
stack's layers run (Zamba2's shared blocks: model_parts run once per use by the layers whose
mixer row has no attention projections of its own).

A part's multiply-adds per token (Part.macs) count once per use (Part.uses). The shared
weights' attention projections and FFN run inside the stack: the crossovers (counts.flops,
counts.reach) add them to the stack's terms, and to a sharing layer kind its even share.
"""

from __future__ import annotations

from ffn_calc.counts.mixers import counts_of
from ffn_calc.counts.terms import Term, term, total
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.layer_kinds import LayerKind, layer_kinds
from ffn_calc.model.towers import PART_FLOPS, Part


def shared_attention(terms: list[Term]) -> list[Term]:
    """An attention of shared weights (model_parts count its projections): its scores."""
    return [t for t in terms if t.group == "attention_scores"]


# The FLOP components of model_parts that run inside the stack (shared weights its layers use).
STACK_PART_GROUPS = ("attention_projections", "ffn")


def stack_part_terms(cfg: ModelConfig, b: int, s: int) -> list[Term]:
    """The matmuls through model_parts that run inside the stack, over B x S tokens: their
    attention projections and FFN (Zamba2's shared blocks, which its hybrid layers use)."""
    return [t for t in part_flop_terms(cfg.model_parts, b, s) if t.group in STACK_PART_GROUPS]


def shares_weights(kind: LayerKind) -> bool:
    """The kind's attention runs shared weights given as model_parts (its mixer row has no
    projections of its own)."""
    mixer = counts_of(kind.mixer)
    return mixer is not None and mixer.attends and not mixer.projections


def shared_share(cfg: ModelConfig, b: int, s: int) -> dict[str, int]:
    """One layer's share of stack_part_terms, by component, where the layers that share weights
    (shares_weights) use them alike: their FLOPs spread evenly over those layers."""
    n = sum(count for kind, count in layer_kinds(cfg, cfg.n_layers) if shares_weights(kind))
    terms = stack_part_terms(cfg, b, s)
    return {g: total(terms, g) // n if n else 0 for g in STACK_PART_GROUPS}


def part_flop_terms(parts: list[Part], b: int, s: int) -> list[Term]:
    """The matmuls through tensors given as data (layer_parts, model_parts): each part's
    multiply-adds per token over B x S tokens, once per use; a Linear's (macs its [out, in]
    shape) as in x out, a term per use, so a roofline reads its weight and rows each time."""
    out = []
    for p in parts:
        if not p.macs:
            continue
        group, name = PART_FLOPS[p.group], p.name.removesuffix(".weight")
        if len(p.shape) == 2 and p.macs == p.numel:  # a Linear: [out, in], once per use
            d_out, d_in = p.shape
            for u in range(p.uses):
                use = f"{name} (use {u + 1})" if p.uses > 1 else name
                out.append(term(group, use, "2 x B x S x in x out", 2, b, s, d_in, d_out))
        elif p.uses > 1:
            out.append(term(group, name, "uses x 2 x B x S x macs", p.uses, 2, b, s, p.macs))
        else:
            out.append(term(group, name, "2 x B x S x macs", 2, b, s, p.macs))
    return out
