"""Words the tables share: component, term, stack and layer-kind labels in the reader's language,
and the small sentence helpers (counts with their noun, lists, formulas explained)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_calc.i18n.translate import N_, Text, _, language, shown

if TYPE_CHECKING:  # the report types only annotate: importing them would load every command
    from collections.abc import Iterable

    from ffn_calc.model.layer_kinds import LayerKind
    from ffn_calc.reports.base import TermReport
from ffn_calc.views.numbers import CJK_UNITS

# --- labels people read (the reports keep the English keys: JSON) ------------------------------

# Components of the counts: the reports' keys, shown in the current language.
COMPONENT_LABELS = {
    "embedding": N_("embedding"),
    "attention": N_("attention"),
    "mixer": N_("mixer"),
    "attention_projections": N_("attention_projections"),
    "attention_scores": N_("attention_scores"),
    "ffn": N_("ffn"),
    "norm": N_("norm"),
    "lm_head": N_("lm_head"),
    "pooler": N_("pooler"),
    "vision": N_("vision tower"),
    "audio": N_("audio tower"),
    "projector": N_("projector"),
    "total": N_("total"),
    "logits": N_("logits"),
    "layer inputs (full recomputation)": N_("layer inputs (full recomputation)"),
    "optimizer": N_("optimizer"),
    "communication": N_("communication"),
}

# The FFN's kind, as the tables word it (JSON and CSV: the English value).
FFN_KINDS = {"gated": N_("gated"), "plain": N_("plain")}


def ffn_kind_label(kind: str) -> str:
    return _(FFN_KINDS[kind]) if kind in FFN_KINDS else kind


# The name of a model built from size flags (ModelConfig's default name), as the tables word
# it; JSON and CSV keep "custom".
UNNAMED = N_("custom")


def model_name(name: str) -> str:
    return _(UNNAMED) if name == "custom" else name


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
        N_("optimizer step"),
        N_("gradient all-reduce"),
        N_("experts"),
        N_("shared expert"),
        N_("shared expert gate"),
        N_("expert biases"),
        N_("latent down"),
        N_("latent up"),
        N_("latent biases"),
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
        N_("indexer scores"),
        N_("indexer scores (causal)"),
        N_("indexer.wk"),
        N_("relative position embedding"),
        N_("per-layer token embedding"),
        N_("per-layer projection"),
        N_("per-layer projection norm"),
        N_("per-layer input gate"),
        N_("per-layer input projection"),
        N_("per-layer input norm"),
        N_("relative position norm"),
        N_("relative position projections (every layer)"),
        N_("c2p (Q x position keys^T)"),
        N_("p2c (K x position queries^T)"),
        N_("pos_key_proj bias"),
        N_("pos_query_proj bias"),
        N_("relative attention bias"),
        N_("mixer norm"),
        # Token mixers other than attention (counts.mixers).
        N_("B and C norms"),
        N_("KDA UT keys"),
        N_("KDA UT values"),
        N_("KDA intra-chunk output"),
        N_("KDA key state read"),
        N_("KDA query state read"),
        N_("KDA state update"),
        N_("SSD chunk states"),
        N_("SSD inter-chunk"),
        N_("SSD intra-chunk"),
        N_("SSD state passing"),
        N_("SSM state read-out"),
        N_("compressed QK^T"),
        N_("compressed AV"),
        N_("delta rule beta K K^T"),
        N_("delta rule Q K^T"),
        N_("delta rule decayed-key state read"),
        N_("delta rule query state read"),
        N_("delta rule intra-chunk output"),
        N_("delta rule state update"),
        N_("conv"),
        N_("dt norm"),
        N_("lightning inter-block"),
        N_("lightning intra-block"),
        N_("mixer norm"),
        N_("scan read-out"),
    )
}
# A tensor's bias ("conv1d bias", "in_proj bias"): the tensor named, the word translated.
# The n-th of a layer's norms where it has more than two (counts.params: "norm 3").
NUMBERED_NORM = N_("norm {n}")
TENSOR_BIAS = N_("{name} bias")


STACK_LABELS = {
    "decoder": N_("decoder"),
    "encoder": N_("encoder"),
    "vision": N_("vision tower"),
    "audio": N_("audio tower"),
}


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
    if name in TERM_LABELS:
        return _(TERM_LABELS[name])
    head, _space, last = name.rpartition(" ")
    if head == "norm" and last.isdigit():  # a layer's n-th of several norms (Gemma's four)
        return _(NUMBERED_NORM).format(n=last)
    if last == "bias" and head and " " not in head:  # a tensor's bias: conv1d bias
        return _(TENSOR_BIAS).format(name=head)
    return name


def stack_label(stack: str) -> str:
    return _(STACK_LABELS[stack]) if stack in STACK_LABELS else stack


# A layer kind is a value (model.layer_kinds.LayerKind), worded from its fields; a result
# read back from JSON holds only its English label (a str), shown as it is.


def named(kind: LayerKind | str) -> bool:
    """The kind's label says something (the stack has several kinds, or attends locally)."""
    return bool(kind) if isinstance(kind, str) else kind.named


def kind_label(kind: LayerKind | str) -> str:
    """A layer kind ("MoE", "dense FFN, sliding-window attention over 4,096 tokens")."""
    return kind if isinstance(kind, str) else kind.shown()


def layer_label(layer: tuple[str, LayerKind | str] | str) -> str:
    """(stack, kind) as "decoder", or "decoder (MoE)", in the current language."""
    if isinstance(layer, str):
        return layer
    stack, kind = layer
    if not named(kind):
        return stack_label(stack)
    return _("{stack} ({kind})").format(stack=stack_label(stack), kind=kind_label(kind))


def one_layer(model: str, stack: str, kind: LayerKind | str, count: int) -> str:
    """ "gpt2-small: one decoder layer (x12)", with the kind when a stack has several."""
    if named(kind):
        return _("{model}: one {stack} layer, {kind} (x{count})").format(
            model=model_name(model), stack=stack_label(stack), kind=kind_label(kind), count=count
        )
    return _("{model}: one {stack} layer (x{count})").format(
        model=model_name(model), stack=stack_label(stack), count=count
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
