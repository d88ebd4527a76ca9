"""Layer kinds as values: a stack's layers grouped by what sets them apart (their FFN, dense or
MoE, and their token mixer: full attention, or attention over a sliding window or in chunks),
each kind with how many layers it has.

A kind's `str()` is the label results carry in JSON and CSV: "MoE", "full attention",
"dense FFN, sliding-window attention over 4,096 tokens", or "" where a stack has one kind.
It names only what tells the stack's kinds apart: the FFN where a MoE stack has dense layers,
the mixer where some layers attend locally. `shown()` is the same label in the reader's
language, built from the fields. Code compares fields (`kind.is_moe`, `kind.is_local`), never
label text.

An FFN kind and a token mixer are rows (Ffn, Mixer): a name, the message that labels it and,
for a mixer, whether it attends over a window. Another mixer (linear attention, a state-space
or a convolution mixer) is another row and an entry in MIXERS, not another branch.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ffn_calc.i18n.translate import N_, Text, say

if TYPE_CHECKING:  # annotations only: the config imports nothing from here
    from ffn_calc.model.config import ModelConfig


# Ffn and Mixer rows are each defined once (below) and compared by identity: cheap to hash
# where layer kinds key a table. A copy or a pickle is the row itself (found by its name).


@dataclass(frozen=True, slots=True, eq=False)
class Ffn:
    """What a layer's FFN is: one dense FFN, or routed experts (MoE)."""

    name: str  # "dense" | "moe" | "none"
    label: str  # its message (English: the label in JSON)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return _ffn, (self.name,)


@dataclass(frozen=True, slots=True, eq=False)
class Mixer:
    """How a layer mixes tokens. A windowed mixer attends over `window` tokens: its label
    names the window ({tokens}), with a message of its own for a window of one token."""

    name: str  # as ModelConfig.window_kind spells it: "sliding", "chunked"; "full", "cross"
    label: str  # its message; a windowed mixer's has the field {tokens}
    label_one: str = ""  # a windowed mixer: the message for a window of one token
    windowed: bool = False
    # Attends over the cached keys and values (an S^2 term, a KV cache); false: a recurrent
    # or convolution mixer with a constant-size state, or no mixer. Its counts come from
    # counts.mixers.MIXER_MODULES (a module per mixer), keyed by this row.
    attends: bool = True

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return _mixer, (self.name,)

    def text(self, window: int | None) -> Text:
        """The mixer's label as a message: "sliding-window attention over 4,096 tokens"."""
        if not self.windowed:
            return say(self.label)
        n = window or 0
        return say(self.label_one if n == 1 else self.label, tokens=f"{n:,}")


DENSE = Ffn("dense", N_("dense FFN"))
MOE = Ffn("moe", N_("MoE"))
NO_FFN = Ffn("none", N_("no FFN"))  # a mixer-only layer (Nemotron-H's Mamba and attention)

FULL = Mixer("full", N_("full attention"))
SLIDING = Mixer(
    "sliding",
    N_("sliding-window attention over {tokens} tokens"),
    N_("sliding-window attention over {tokens} token"),
    windowed=True,
)
CHUNKED = Mixer(
    "chunked",
    N_("chunked attention over {tokens} tokens"),
    N_("chunked attention over {tokens} token"),
    windowed=True,
)
BIDIRECTIONAL = Mixer(
    "bidirectional",
    N_("bidirectional sliding-window attention over {tokens} tokens"),
    N_("bidirectional sliding-window attention over {tokens} token"),
    windowed=True,
)
CROSS = Mixer("cross", N_("cross-attention"))  # a decoder's attention over the encoder's output
# Compressed attention (DeepSeek-V4): a sliding window plus compressed entries of the context.
CSA = Mixer(
    "csa",
    N_("compressed sparse attention and a sliding window of {tokens} tokens"),
    N_("compressed sparse attention and a sliding window of {tokens} token"),
    windowed=True,
)
HCA = Mixer(
    "hca",
    N_("heavily compressed attention and a sliding window of {tokens} tokens"),
    N_("heavily compressed attention and a sliding window of {tokens} token"),
    windowed=True,
)

# Token mixers with no S^2 term and a constant-size cache (ModelConfig.layer_mixers names
# them per layer).
MAMBA2 = Mixer("mamba2", N_("Mamba-2"), attends=False)
GATED_DELTANET = Mixer("gated_deltanet", N_("gated DeltaNet"), attends=False)
KDA = Mixer("kda", N_("Kimi Delta Attention"), attends=False)
LIGHTNING = Mixer("lightning", N_("lightning attention"), attends=False)
MAMBA = Mixer("mamba", N_("Mamba selective scan"), attends=False)
SHORT_CONV = Mixer("short_conv", N_("short convolution"), attends=False)
NO_MIXER = Mixer("none", N_("no token mixer"), attends=False)  # an FFN-only layer
# Attention and Mamba-2 side by side in one layer (Falcon-H1): both of their counts.
FULL_MAMBA2 = Mixer("full+mamba2", N_("attention and Mamba-2 in parallel"))
# Attention whose weights are shared with other layers, then Mamba-2 (Zamba2's hybrid layer):
# the layer counts the attention's scores and cache and its Mamba-2; the shared weights (and
# their projections' FLOPs, once per use) are model_parts.
SHARED_MAMBA2 = Mixer("shared+mamba2", N_("shared attention, then Mamba-2"))

# Every row by name; a local layer's mixer is MIXERS[ModelConfig.window_kind].
FFNS = {f.name: f for f in (DENSE, MOE, NO_FFN)}
MIXERS = {
    m.name: m
    for m in (
        FULL,
        SLIDING,
        CHUNKED,
        BIDIRECTIONAL,
        CROSS,
        CSA,
        HCA,
        MAMBA2,
        GATED_DELTANET,
        KDA,
        MAMBA,
        LIGHTNING,
        SHORT_CONV,
        NO_MIXER,
        FULL_MAMBA2,
        SHARED_MAMBA2,
    )
}


def _ffn(name: str) -> Ffn:
    return FFNS[name]


def _mixer(name: str) -> Mixer:
    return MIXERS[name]


# A layer that reuses an earlier layer's keys and values (ModelConfig.kv_shared_layers).
KV_SHARED = N_("keys and values of an earlier layer")
# A label of two parts: "dense FFN, chunked attention over 8,192 tokens".
BOTH = N_("{ffn}, {mixer}")
# The first part of layer 0's label where its norms differ: "layer 0, full attention".
FIRST_LAYER = N_("layer 0")


@dataclass(frozen=True, slots=True)
class LayerKind:
    """Layers alike in their FFN and their token mixer. None: the kind groups layers whatever
    their FFN (a cache entry) or their mixer (stored activations, which local and full
    attention share). The label names the FFN where `names_ffn`, the mixer where
    `names_mixer`: what tells a stack's kinds apart."""

    ffn: Ffn | None = None
    mixer: Mixer | None = None
    window: int | None = None  # tokens a windowed mixer attends over
    names_ffn: bool = False  # a MoE stack with dense layers: "dense FFN" / "MoE"
    names_mixer: bool = False  # a stack with local layers: "full attention" / the window
    first_layer: bool = False  # layer 0 alone, whose norms differ (ModelConfig.first_layer_norms)
    kv_shared: bool = False  # reuses an earlier layer's keys and values (no K/V, no cache)

    @property
    def is_dense_ffn(self) -> bool:
        return self.ffn == DENSE

    @property
    def is_moe(self) -> bool:
        return self.ffn == MOE

    @property
    def is_local(self) -> bool:
        """The layers attend over a window (a sliding window or chunks)."""
        return self.mixer is not None and self.mixer.windowed

    @property
    def named(self) -> bool:
        """The label says something: the stack has several kinds, or attends locally."""
        return (
            self.first_layer
            or self.kv_shared
            or (self.names_ffn and self.ffn is not None)
            or (self.names_mixer and self.mixer is not None)
        )

    def parts(self) -> list[Text]:
        """What the label names, as messages: the FFN, then the mixer."""
        out = [say(FIRST_LAYER)] if self.first_layer else []
        if self.names_ffn and self.ffn is not None:
            out.append(say(self.ffn.label))
        if self.names_mixer and self.mixer is not None:
            out.append(self.mixer.text(self.window))
        if self.kv_shared:
            out.append(say(KV_SHARED))
        return out

    def text(self) -> Text:
        """The label as a message (a named kind): str() English, shown() translated."""
        parts = self.parts()
        if not parts:
            return Text("")
        out = parts[0]
        for part in parts[1:]:
            out = say(BOTH, ffn=out, mixer=part)
        return out

    def shown(self) -> str:
        """The label in the reader's language ("" for a kind that is not named)."""
        return self.text().shown() if self.named else ""

    def __str__(self) -> str:
        return str(self.text())


CROSS_ATTENTION = LayerKind(mixer=CROSS, names_mixer=True)  # the cross-attention cache


@lru_cache(maxsize=4096)
def layer_kind(
    ffn: Ffn | None,
    mixer: Mixer | None,
    window: int | None,
    names_ffn: bool,
    names_mixer: bool,
    first_layer: bool = False,
    kv_shared: bool = False,
) -> LayerKind:
    """LayerKind(...), each made once: counting a model's layers (a sweep counts many models)
    looks a kind up instead of building a frozen instance."""
    return LayerKind(ffn, mixer, window, names_ffn, names_mixer, first_layer, kv_shared)


def first_layer_kind(kind: LayerKind) -> LayerKind:
    """Layer 0 of a stack whose layer 0 has norms of its own, of the same FFN and mixer."""
    return layer_kind(
        kind.ffn, kind.mixer, kind.window, kind.names_ffn, kind.names_mixer, True, kind.kv_shared
    )


def with_stack(stack: str, kind: LayerKind) -> str:
    """A stack's layer of a kind, as results name it: "decoder", or "decoder (MoE)" where the
    stack has several kinds."""
    return f"{stack} ({kind})" if kind.named else stack


def local_kind(cfg: ModelConfig) -> LayerKind:
    """A local layer's kind, named by its mixer: "sliding-window attention over 128 tokens"."""
    return layer_kind(None, MIXERS[cfg.window_kind], cfg.attention_window, False, True)


def layer_kinds(cfg: ModelConfig, layers: int) -> list[tuple[LayerKind, int]]:
    """A stack's layer kinds with how many layers each has, in layer order. The label names
    the FFN where a MoE model has dense layers (dense ones first, then MoE, where no layer is
    local) and the mixer where some layers attend locally ("full attention" for the others);
    a stack with neither has one kind, labelled ""."""
    routed = MOE if cfg.is_moe else DENSE  # the FFN of a layer not listed dense
    dense = set(cfg.dense_ffn_layers) if cfg.is_moe and layers else set()
    names_ffn = bool(dense)
    if cfg.layer_mixers and layers:  # a hybrid: each layer's mixer named, some without FFN
        return hybrid_kinds(cfg, layers, routed, dense)
    if cfg.kv_shared_layers and layers:  # some layers reuse earlier keys and values
        return shared_kinds(cfg, layers, routed, dense)
    if (cfg.csa_layers or cfg.hca_layers) and layers:  # compressors in some layers
        csa, hca, window = set(cfg.csa_layers), set(cfg.hca_layers), cfg.attention_window
        plain = MIXERS[cfg.window_kind] if window is not None else FULL
        found: dict[tuple[bool, Mixer], int] = {}
        for i in range(layers):  # at most MAX_LISTED_LAYERS (a validated invariant)
            kind = (i in dense, CSA if i in csa else HCA if i in hca else plain)
            found[kind] = found.get(kind, 0) + 1
        return [
            (layer_kind(DENSE if is_dense else routed, m, window, names_ffn, True), n)
            for (is_dense, m), n in found.items()
        ]
    if cfg.window_layers and layers:  # some layers local, the others full attention
        local = set(cfg.window_layers)
        counts: dict[tuple[bool, bool], int] = {}
        for i in range(layers):  # at most MAX_LISTED_LAYERS (a validated invariant)
            key = (i in dense, i in local)
            counts[key] = counts.get(key, 0) + 1
        window = cfg.attention_window
        mixer = MIXERS[cfg.window_kind]
        return [
            (
                layer_kind(
                    DENSE if is_dense else routed,
                    mixer if is_local else FULL,
                    window if is_local else None,
                    names_ffn,
                    True,
                ),
                n,
            )
            for (is_dense, is_local), n in counts.items()
        ]
    if cfg.attention_window is not None and layers:  # every layer local (Mistral's window)
        mixer, window, names_mixer = MIXERS[cfg.window_kind], cfg.attention_window, True
    else:
        mixer, window, names_mixer = FULL, None, False
    if not dense:
        return [(layer_kind(routed, mixer, window, False, names_mixer), layers)]
    ffns = ((DENSE, len(dense)), (routed, layers - len(dense)))
    return [(layer_kind(f, mixer, window, True, names_mixer), n) for f, n in ffns if n]


def hybrid_kinds(
    cfg: ModelConfig, layers: int, routed: Ffn, dense: set[int]
) -> list[tuple[LayerKind, int]]:
    """The kinds of a stack whose layers name their token mixer (ModelConfig.layer_mixers) and
    may have no FFN (ffn_free_layers), in the order each kind first appears. Labels name the
    mixer where the stack has several, the FFN where it has several."""
    free = set(cfg.ffn_free_layers)
    found: dict[tuple[Ffn, Mixer], int] = {}
    for i in range(layers):  # at most MAX_LISTED_LAYERS (a validated invariant)
        ffn = NO_FFN if i in free else DENSE if i in dense else routed
        key = (ffn, MIXERS[cfg.layer_mixers[i]])
        found[key] = found.get(key, 0) + 1
    names_ffn = len({f for f, _ in found}) > 1
    names_mixer = len({m for _, m in found}) > 1
    return [(layer_kind(f, m, None, names_ffn, names_mixer), n) for (f, m), n in found.items()]


def shared_kinds(
    cfg: ModelConfig, layers: int, routed: Ffn, dense: set[int]
) -> list[tuple[LayerKind, int]]:
    """The kinds of a stack some of whose layers reuse an earlier layer's keys and values
    (kv_shared_layers), in the order each kind first appears: by FFN, by mixer (full or
    local attention) and by whether the layer computes its own keys and values."""
    shared, window = set(cfg.kv_shared_layers), cfg.attention_window
    every = window is not None and not cfg.window_layers  # every layer local
    local = set(range(layers)) if every else set(cfg.window_layers)
    found: dict[tuple[Ffn, bool, bool], int] = {}
    for i in range(layers):  # at most MAX_LISTED_LAYERS (a validated invariant)
        key = (DENSE if i in dense else routed, i in local, i in shared)
        found[key] = found.get(key, 0) + 1
    mixer = MIXERS[cfg.window_kind]
    names_mixer = bool(local)
    return [
        (
            layer_kind(f, mixer if is_local else FULL, window if is_local else None,
                       bool(dense), names_mixer, False, is_shared),
            n,
        )
        for (f, is_local, is_shared), n in found.items()
    ]  # fmt: skip
