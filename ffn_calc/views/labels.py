"""Words the tables share: component, term, stack and layer-kind labels in the reader's language,
and the small sentence helpers (counts with their noun, lists, formulas explained)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ffn_calc.i18n.translate import N_, Text, _, language, shown

if TYPE_CHECKING:  # the report types only annotate: importing them would load every command
    from collections.abc import Iterable

    from ffn_calc.reports.base import TermReport
from ffn_calc.views.numbers import CJK_UNITS

# --- labels people read (the reports keep the English keys: JSON) ------------------------------

# Components of the counts: the reports' keys, shown in the current language.
COMPONENT_LABELS = {
    "embedding": N_("embedding"),
    "attention": N_("attention"),
    "attention_projections": N_("attention_projections"),
    "attention_scores": N_("attention_scores"),
    "ffn": N_("ffn"),
    "norm": N_("norm"),
    "lm_head": N_("lm_head"),
    "pooler": N_("pooler"),
    "total": N_("total"),
    "logits": N_("logits"),
    "layer inputs (full recomputation)": N_("layer inputs (full recomputation)"),
}


# Terms named in words (the others are tensor-like names: Q, W1, b_Q, q_proj, norm_attn).
TERM_LABELS = {
    name: name
    for name in (
        N_("token embedding"),
        N_("position embedding"),
        N_("token-type embedding"),
        N_("embedding norm"),
        N_("encoder position embedding"),
        N_("decoder position embedding"),
        N_("encoder embedding norm"),
        N_("decoder embedding norm"),
        N_("encoder relative attention bias"),
        N_("decoder relative attention bias"),
        N_("final encoder norm"),
        N_("final decoder norm"),
        N_("router"),
        N_("experts"),
        N_("shared expert"),
        N_("shared expert gate"),
        N_("expert biases"),
        N_("sinks"),
        N_("head dense"),
        N_("head dense bias"),
        N_("head norm"),
        N_("lm_head bias"),
        N_("lm_head (tied to the token embedding)"),
        N_("norm (shared by attention and FFN)"),
        N_("projection in"),
        N_("projection in bias"),
        N_("pooler W"),
        N_("pooler b"),
        N_("kv_b_proj over the cache"),
        N_("target token embedding"),
        N_("encoder token embedding"),
        N_("decoder token embedding"),
        N_("projection out"),
        N_("projection out bias"),
        N_("lm_head projection bias"),
        N_("router score bias"),
        N_("shared expert biases"),
        N_("q_a_proj bias"),
        N_("kv_a_proj bias"),
        N_("cross Q"),
        N_("cross K"),
        N_("cross V"),
        N_("cross O"),
        N_("cross b_Q"),
        N_("cross b_K"),
        N_("cross b_V"),
        N_("cross b_O"),
        N_("cross QK^T"),
        N_("cross AV"),
        N_("QK^T (causal)"),
        N_("AV (causal)"),
    )
}


STACK_LABELS = {"decoder": N_("decoder"), "encoder": N_("encoder")}


KIND_LABELS = {
    "MoE": N_("MoE"),
    "dense FFN": N_("dense FFN"),
    "full attention": N_("full attention"),
    "cross-attention": N_("cross-attention"),
}


_LOCAL = re.compile(r"(sliding-window|chunked) attention over ([\d,]+) tokens?")


_LAYER = re.compile(r"(\w+) \((.+)\)")


def _cjk() -> bool:
    return language() in CJK_UNITS


def by_count(n: int, one: str, many: str) -> str:
    """`one` (translated) when the count n is 1, else `many`: "1 token", "2 tokens". English
    inflects for number; Japanese and Chinese translate both alike."""
    return one if n == 1 else many


def listed(items: list[str]) -> str:
    """Items in a row: "a, b" in English, "a、b" in Japanese and Chinese."""
    return ("、" if _cjk() else ", ").join(items)


def sentences(*texts: str | Text) -> str:
    """Sentences one after another, each in the reader's language: a space between them in
    English, none in CJK text."""
    return ("" if _cjk() else " ").join(s for s in map(shown, texts) if s)


def component_label(key: str) -> str:
    return _(COMPONENT_LABELS[key]) if key in COMPONENT_LABELS else key


def term_label(name: str) -> str:
    return _(TERM_LABELS[name]) if name in TERM_LABELS else name


def stack_label(stack: str) -> str:
    return _(STACK_LABELS[stack]) if stack in STACK_LABELS else stack


def kind_label(kind: str) -> str:
    """A layer kind ("MoE", "dense FFN, sliding-window attention over 4,096 tokens")."""
    out = []
    for part in kind.split(", "):
        m = _LOCAL.fullmatch(part)
        if m is None:
            out.append(_(KIND_LABELS[part]) if part in KIND_LABELS else part)
        elif m.group(1) == "sliding-window":
            text = by_count(
                int(m[2].replace(",", "")),
                _("sliding-window attention over {tokens} token"),
                _("sliding-window attention over {tokens} tokens"),
            )
            out.append(text.format(tokens=m[2]))
        else:
            text = by_count(
                int(m[2].replace(",", "")),
                _("chunked attention over {tokens} token"),
                _("chunked attention over {tokens} tokens"),
            )
            out.append(text.format(tokens=m[2]))
    return listed(out)


def layer_label(label: str) -> str:
    """ "decoder", or "decoder (MoE)", in the current language."""
    m = _LAYER.fullmatch(label)
    if m is None:
        return stack_label(label)
    return _("{stack} ({kind})").format(stack=stack_label(m[1]), kind=kind_label(m[2]))


def one_layer(model: str, stack: str, kind: str, count: int) -> str:
    """ "gpt2-small: one decoder layer (x12)", with the kind when a stack has several."""
    if kind:
        return _("{model}: one {stack} layer, {kind} (x{count})").format(
            model=model, stack=stack_label(stack), kind=kind_label(kind), count=count
        )
    return _("{model}: one {stack} layer (x{count})").format(
        model=model, stack=stack_label(stack), count=count
    )


def activation_term_label(name: str | Text) -> str:
    """A stored activation's name (training.layer_terms): a message, or a plain msgid."""
    return name.shown() if isinstance(name, Text) else _(name)


def explained(name: str, formula: str | Text, numbers: str, value: int) -> str:
    """A term's line: its name and formula in the reader's words, its numbers and value."""
    name, shown_formula = term_label(name), shown(formula)
    if numbers == f"{value:,}":
        return f"{name}: {shown_formula} = {value:,}"
    return f"{name}: {shown_formula} = {numbers} = {value:,}"


def explained_terms(terms: Iterable[TermReport]) -> list[str]:
    """--explain's lines for a report's terms: `name: formula = numbers = value` each."""
    return [explained(x.name, x.shown_formula(), x.numbers, x.value) for x in terms]
