"""Inference: the KV cache after a prefill, and the FLOPs of one decode step (closed forms).

Conventions (what the reference implementation does, transformers 5 with its cache):
- the cache holds, per layer, a key and a value of n_kv_heads x head_dim per cached token
  (n_heads x head_dim where the reference broadcasts K and V to every query head before
  caching them: Falcon's new decoder architecture, `cache_broadcast_kv`); MLA holds its
  compressed latent and the shared rotary key (kv_lora_rank + qk_rope_head_dim), and with
  sparse attention's indexer also the indexer's key (indexer_head_dim);
- after a prefill of L tokens a full-attention layer holds L tokens; a sliding-window or
  chunked layer holds min(L, window - 1);
- an encoder-decoder model caches its decoder's self-attention over the target tokens and its
  cross-attention keys and values over the source (computed once, at the prefill);
- one decode step runs one new token per sequence: every projection and FFN over B rows, the
  scores over the tokens the new one attends to (the cached ones it may see, and itself);
  MLA re-expands every cached latent through kv_b_proj at every step, as the reference does;
  sparse attention's indexer runs at every step too: its projections over the new token, its
  scores over every attended token (the top-k selection a mask over them, not a gather);
  an encoder-decoder step reuses the cached cross-attention keys and values (Q, O and the
  scores over the source only). FLOPs = 2 x multiply-adds, as everywhere;
- generate() (greedy, its default cache) runs a prefill and then one decode step per further
  token. The prefill of a decoder-only model is the forward pass over the prompt with the LM
  head over the last position only (generate() passes logits_to_keep=1, which every
  decoder-only class counted here accepts); an encoder-decoder model's prefill runs the
  encoder over the prompt once and the decoder over its start token.

The decode crossovers (where one step's scores reach the FFN, the projections, both; where its
cache read reaches the FFN weights read) come from this step as a function of the context L,
which is linear between the bends where a local layer's window fills (L = window - 1). A
crossover past the last bend's plateau, or past a learned position table (L + 1 at most its
positions), is never reached.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

from ffn_calc.counts import flops as fl
from ffn_calc.counts.compressed import compressed_decode_terms, decode_entries, entries_flops
from ffn_calc.counts.mixers import counts_of
from ffn_calc.counts.terms import Term, decoder_symbols, term
from ffn_calc.errors import UsageError
from ffn_calc.model.choices import DTYPE_BITS
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.layer_kinds import (
    CROSS_ATTENTION,
    FULL,
    MIXERS,
    LayerKind,
    layer_kind,
    layer_kinds,
    local_kind,
)

# Bytes per cached element (or weight): the dtypes' bits / 8.
DTYPE_BYTES: dict[str, Fraction] = {k: Fraction(bits, 8) for k, bits in DTYPE_BITS.items()}


@dataclass(frozen=True)
class KvKind:
    """One kind of layer's cache: how many layers, tokens cached, elements per layer."""

    stack: str
    kind: LayerKind  # str(): "" | "full attention" | the local window | "cross-attention"
    count: int
    cached_tokens: int
    per_token: int  # elements per cached token and layer (keys and values, all sequences: x B)
    elements: int  # one layer's, for the whole batch


def attention_layers(cfg: ModelConfig) -> int:
    """The decoder's layers that attend (and cache keys and values): every layer, or in a
    hybrid those whose mixer row attends."""
    n = cfg.decoder_layers if cfg.has_decoder else 0
    if cfg.layer_mixers:
        return sum(1 for m in cfg.layer_mixers if MIXERS[m].attends)
    return n


@dataclass(frozen=True)
class StateKind:
    """One kind of layer's constant-size cache (a recurrent or convolution mixer): how many
    layers, and each state tensor of one layer for the whole batch, (name, elements)."""

    stack: str
    kind: LayerKind
    count: int
    tensors: list[tuple[str, int]]

    @property
    def elements(self) -> int:
        return sum(n for _, n in self.tensors)


def state_kinds(cfg: ModelConfig, batch: int) -> list[StateKind]:
    """The states the cache holds after a prefill, per layer kind: the same for any context."""
    out = []
    for kind, count in layer_kinds(cfg, cfg.decoder_layers if cfg.has_decoder else 0):
        mixer = counts_of(kind.mixer)
        tensors = [] if mixer is None else mixer.state(cfg)
        if tensors:
            out.append(StateKind("decoder", kind, count, [(n, batch * e) for n, e in tensors]))
    return out


def state_elements(cfg: ModelConfig, batch: int) -> int:
    return sum(k.count * k.elements for k in state_kinds(cfg, batch))


def _local(cfg: ModelConfig) -> tuple[int, int]:
    """(local layers, full layers) of the decoder stack (window_layers hold local ones)."""
    n = attention_layers(cfg)
    if cfg.attention_window is not None and not cfg.window_layers:
        return n, 0  # every layer attends locally
    w = len(cfg.window_layers)
    return w, n - w


def cached_per_token(cfg: ModelConfig) -> int:
    """Elements one layer caches per token: keys and values of every head the cache holds
    (the KV heads, or every query head where the reference broadcasts K and V before caching
    them), or MLA's latent and rotary key; the decoder's heads (ModelConfig.stack)."""
    cfg = cfg.stack("decoder")
    if cfg.attention == "mla":
        return sum(cached_tensors(cfg))
    return 2 * cfg.cache_kv_heads * cfg.head_size


def cached_tensors(cfg: ModelConfig) -> tuple[int, ...]:
    """Elements per token and sequence of each tensor one layer caches: the key and the value
    (n_kv_heads x head_dim each), or MLA's latent (kv_lora_rank) and rotary key
    (qk_rope_head_dim), and with sparse attention the indexer's key (indexer_head_dim, one
    shared by its heads: transformers' DynamicIndexedLayer.indexer_keys). They sum to
    cached_per_token."""
    cfg = cfg.stack("decoder")
    if cfg.attention == "mla":
        assert cfg.kv_lora_rank is not None and cfg.qk_rope_head_dim is not None
        indexer = () if cfg.indexer_head_dim is None else (cfg.indexer_head_dim,)
        return (cfg.kv_lora_rank, cfg.qk_rope_head_dim, *indexer)
    return cfg.kv_heads * cfg.head_size, cfg.kv_heads * cfg.head_size


def kv_kinds(cfg: ModelConfig, batch: int, context: int, source_len: int | None) -> list[KvKind]:
    """The cache after a prefill of `context` tokens for `batch` sequences, per layer kind."""
    if not cfg.has_decoder:  # a message with its fields: a sweep counts it in English
        from ffn_calc.i18n.translate import N_, say

        raise UsageError(
            say(
                N_("{model} is encoder-only: it generates nothing and keeps no KV cache."),
                model=cfg.name,
            )
        )
    encdec = cfg.architecture == "encoder-decoder"
    if source_len is not None and not encdec:
        from ffn_calc.i18n.translate import _

        raise UsageError(
            _("--source-len applies to encoder-decoder models; {model} is {architecture}.").format(
                model=cfg.name, architecture=cfg.architecture
            )
        )
    per = cached_per_token(cfg)
    local, full = _local(cfg)
    out = []
    if full:
        out.append(
            KvKind(
                "decoder",
                layer_kind(None, FULL, None, False, bool(local)),
                full,
                context,
                per,
                batch * context * per,
            )
        )
    if local:
        kept = kept_tokens(cfg, context)
        out.append(KvKind("decoder", local_kind(cfg), local, kept, per, batch * kept * per))
    if encdec:
        s = context if source_len is None else source_len
        out.append(KvKind("decoder", CROSS_ATTENTION, cfg.decoder_layers, s, per, batch * s * per))
    return out


def kv_elements(cfg: ModelConfig, batch: int, context: int, source_len: int | None = None) -> int:
    return sum(k.count * k.elements for k in kv_kinds(cfg, batch, context, source_len))


# --- the lengths a model takes (its learned position table): one rule, ModelConfig's ---------


def check_cache(cfg: ModelConfig, context: int, source_len: int | None = None) -> None:
    """A prefill of `context` tokens (and an encoder-decoder's `source_len` source tokens)
    fits the model's position table."""
    cfg.check_positions(context, f"--context {context}")
    if source_len is not None:
        cfg.check_positions(source_len, f"--source-len {source_len}", source=True)


def check_decode(cfg: ModelConfig, context: int, source_len: int | None = None) -> None:
    """One decode step after `context` cached tokens reads position context + 1."""
    cfg.check_positions(context + 1, f"--context {context}", "decode")
    if source_len is not None:
        cfg.check_positions(source_len, f"--source-len {source_len}", source=True)


def check_generation(cfg: ModelConfig, prompt: int, new: int) -> None:
    """generate(): the prompt, then new - 1 decode steps (the last new token is never fed
    back). A decoder-only model's positions run to prompt + new - 1; an encoder-decoder's
    encoder takes the prompt and its decoder the start token and new - 1 tokens."""
    encdec = cfg.architecture == "encoder-decoder"
    cfg.check_positions(prompt, f"--seq-len {prompt}", source=encdec)
    if encdec:
        cfg.check_positions(new, f"--generate {new}", "decoder")
    else:
        cfg.check_positions(prompt + new - 1, f"--seq-len {prompt} --generate {new}", "generate")


def kept_tokens(cfg: ModelConfig, context: int) -> int:
    """Tokens a local layer keeps after `context`: the last window - 1 (transformers slices
    `[-window + 1:]`, which for a window of 1 keeps every token)."""
    window = cfg.attention_window or 0
    return min(context, window - 1) if window > 1 else context


def _attended(cfg: ModelConfig, context: int, local: bool) -> int:
    """Tokens the new one attends to: the cached ones it may see, and itself."""
    return (kept_tokens(cfg, context) if local else context) + 1


def decode_layer_terms(
    cfg: ModelConfig,
    batch: int,
    context: int,
    source_len: int | None,
    local: bool,
    base: fl.LayerFlops,
    compressed: bool = True,
) -> list[Term]:
    """One decode step of one layer: `base` (its FLOPs over one token) with the scores over the
    attended tokens, MLA's re-expansion of the cache, no cross-attention K/V, and (unless
    `compressed` is false) the work on the compressed entries of compressed attention."""
    b, h, g = batch, cfg.n_heads, "attention_scores"
    a = _attended(cfg, context, local)
    out = [t for t in base.terms if t.group != g and t.name not in ("cross K", "cross V")]
    out += fl.score_terms(cfg, b, 1, a, rows=None, cols="attended")  # the prefill's terms
    if compressed:
        out += compressed_decode_terms(cfg, base.kind, b, decode_entries(cfg, base.kind, context))
    if cfg.attention == "mla":  # kv_b_proj re-expands the cached latents too (not the new one)
        assert cfg.kv_lora_rank and cfg.qk_nope_head_dim and cfg.v_head_dim
        out.append(
            term(
                "attention_projections",
                "kv_b_proj over the cache",
                "2 x B x cached x kv_lora_rank x n_heads x (nope + v_head_dim)",
                2,
                b,
                a - 1,
                cfg.kv_lora_rank,
                h,
                cfg.qk_nope_head_dim + cfg.v_head_dim,
            )
        )
    if cfg.architecture == "encoder-decoder":
        s = context if source_len is None else source_len
        out += fl.score_terms(cfg, b, 1, s, prefix="cross ", rows=None, cols="S")
    return out


@dataclass(frozen=True)
class DecodeLayer:
    stack: str
    kind: LayerKind
    count: int
    terms: list[Term]


def decode_layers(
    cfg: ModelConfig,
    batch: int,
    context: int,
    source_len: int | None = None,
    compressed: bool = True,
) -> list[DecodeLayer]:
    """One decode step per layer kind (the decoder's; an encoder is not run again);
    `compressed` false: without the work on compressed entries (decode_layer_terms)."""
    kv_kinds(cfg, batch, context, source_len)  # the same checks of the model and options
    w = fl.Workload(batch=batch, seq_len=1, target_len=1)
    by_kind = {(x.stack, x.kind): x for x in fl.layer_flops(cfg, w) if x.stack == "decoder"}
    dec = cfg.stack("decoder")  # an encoder-decoder's decoder: its own width and heads
    out = []
    for kind, count in layer_kinds(cfg, cfg.decoder_layers):
        base = by_kind[("decoder", kind)]
        mixer = counts_of(kind.mixer)
        if mixer is not None:  # a recurrent mixer: one step from its state (counts.mixers)
            base = fl.LayerFlops(base.stack, base.count,
                                 [t for t in base.terms if t.group != "mixer"], kind)  # fmt: skip
            terms = base.terms
            if mixer.attends:
                terms = decode_layer_terms(dec, batch, context, source_len, False, base, compressed)
            out.append(DecodeLayer("decoder", kind, count, terms + mixer.decode(dec, batch)))
            continue
        terms = decode_layer_terms(dec, batch, context, source_len, kind.is_local, base, compressed)
        out.append(DecodeLayer("decoder", kind, count, decoder_symbols(cfg, terms)))
    return out


def decode_components(
    cfg: ModelConfig,
    batch: int,
    context: int,
    source_len: int | None = None,
    *,
    lm_head: bool = True,
    compressed: bool = True,
) -> dict[str, int]:
    """One decode step's FLOPs per contract component (the LM head over B new tokens; none
    with lm_head=False; compressed false: without the work on compressed entries)."""
    out = dict.fromkeys(fl.FLOP_COMPONENTS, 0)
    for layer in decode_layers(cfg, batch, context, source_len, compressed):
        for t in layer.terms:
            out[t.group] += layer.count * t.value
    w = fl.Workload(batch=batch, seq_len=1, target_len=1, lm_head=lm_head)
    for t in fl.model_flop_terms(cfg, w, encoder=False):  # the encoder is not run again
        out[t.group] += t.value
    return {
        k: v
        for k, v in out.items()
        if v or k in ("attention_projections", "attention_scores", "ffn", "lm_head")
    }


def decode_flops(
    cfg: ModelConfig,
    batch: int,
    context: int,
    source_len: int | None = None,
    *,
    lm_head: bool = True,
    compressed: bool = True,
) -> int:
    return sum(
        decode_components(
            cfg, batch, context, source_len, lm_head=lm_head, compressed=compressed
        ).values()
    )


# --- a whole generation, and where attention overtakes the FFN at decode time -------------------


def prefill_workload(
    cfg: ModelConfig, batch: int, prompt: int, *, causal: bool = False, lm_head: bool = True
) -> fl.Workload:
    """The forward pass over the prompt that generate() starts with (an encoder-decoder
    model's decoder runs one token)."""
    encdec = cfg.architecture == "encoder-decoder"
    return fl.Workload(
        batch=batch,
        seq_len=prompt,
        target_len=1 if encdec else None,
        causal=causal,
        lm_head=lm_head,
        cached=True,
    )


def _head_flops(cfg: ModelConfig, batch: int, positions: int) -> int:
    """The LM head (and a masked-LM head's transform) over `positions` per sequence."""
    w = fl.Workload(batch=batch, seq_len=positions)
    return sum(t.value for t in fl.model_flop_terms(cfg, w) if t.group == "lm_head")


def prefill_flops(
    cfg: ModelConfig, batch: int, prompt: int, *, causal: bool = False, lm_head: bool = True
) -> int:
    """The prefill as generate() runs it. Decoder-only: the forward pass over the prompt with
    the LM head over the last position only (generate() passes logits_to_keep=1; a narrow
    embedding's projection out still runs at every position, inside the decoder).
    Encoder-decoder: the encoder over the prompt and the decoder over its start token.
    causal: the prompt's self-attention scores over the visible pairs only; lm_head=False:
    no LM head."""
    w = prefill_workload(cfg, batch, prompt, causal=causal, lm_head=lm_head)
    full = fl.forward_flops(cfg, w)
    if cfg.architecture == "encoder-decoder" or not lm_head:
        return full
    return full - _head_flops(cfg, batch, prompt) + _head_flops(cfg, batch, 1)


def generation_flops(
    cfg: ModelConfig,
    batch: int,
    prompt: int,
    new: int,
    *,
    causal: bool = False,
    lm_head: bool = True,
) -> int:
    """A prefill of `prompt` tokens (which yields the first new token; see prefill_flops)
    and new - 1 decode steps with prompt, ..., prompt + new - 2 tokens cached: what
    generate() runs for `new` tokens (greedy, with its default cache). Exact for any length:
    a step's FLOPs are linear in the context between the windows' bends, so the steps are
    summed as arithmetic series. causal: the prefill's self-attention scores over the
    visible pairs only (a decode step's are so already); lm_head=False: no LM head anywhere."""
    total = prefill_flops(cfg, batch, prompt, causal=causal, lm_head=lm_head)
    encdec = cfg.architecture == "encoder-decoder"
    # The decode steps' contexts: the prompt and what follows (an encoder-decoder model's
    # decoder starts from one token and attends to the prompt through its cross-attention).
    first = 1 if encdec else prompt
    last = first + new - 2
    if last < first:
        return total
    source = prompt if encdec else None
    bends = sorted({first, last + 1} | {b for b in _bends(cfg) if first < b <= last})
    # Compressed entries grow in steps of a compressor's rate: summed on their own.
    flat = {"lm_head": lm_head, "compressed": False}
    for a, b in itertools.pairwise(bends):  # [a, b): one linear piece
        fa = decode_flops(cfg, batch, a, source, **flat)
        slope = decode_flops(cfg, batch, a + 1, source, **flat) - fa if b - a > 1 else 0
        n = b - a
        total += n * fa + slope * n * (n - 1) // 2
    return total + entries_flops(cfg, batch, first, last)


def _bends(cfg: ModelConfig) -> set[int]:
    """Contexts from which a local layer's attended tokens stop growing."""
    window = cfg.attention_window or 0
    return {window - 1} if window > 1 else set()


# Why a crossover is never reached (JSON: `never`): the scores (or the cache read) stop
# growing at a local layer's window below the other side; the other side grows at least as
# fast as the scores; or the crossover lies past the model's learned position table.
NEVER_WINDOW, NEVER_SLOWER, NEVER_POSITIONS = "window", "slower", "positions"
PARTS = ("attention_projections", "attention_scores", "ffn")
Line = tuple[Fraction, Fraction]  # a0 + a1 x L


def crossover_kind(cfg: ModelConfig) -> tuple[int, bool]:
    """The decoder layer kind a decode crossover describes (its index in decode_layers):
    the most numerous full-attention kind, else the most numerous kind; and whether that
    kind attends locally (a sliding window or chunks)."""
    kinds = layer_kinds(cfg, cfg.decoder_layers if cfg.has_decoder else 0)
    full = [i for i, (kind, _n) in enumerate(kinds) if not kind.is_local]
    pick = max(full or range(len(kinds)), key=lambda i: kinds[i][1])
    return pick, kinds[pick][0].is_local


def decode_parts(cfg: ModelConfig, batch: int, context: int, pick: int) -> dict[str, int]:
    """One decode step of one layer of kind `pick`: its projections, scores and FFN FLOPs,
    exactly as decode_layers counts them."""
    layers = decode_layers(cfg, batch, context)
    if cfg.layer_mixers:  # a hybrid: the whole stack (as flops.crossover_layer)
        return {
            g: sum(x.count * t.value for x in layers for t in x.terms if t.group == g)
            for g in PARTS
        }
    layer = layers[pick]
    return {g: sum(t.value for t in layer.terms if t.group == g) for g in PARTS}


@dataclass(frozen=True)
class Piece:
    """Where one decode step is linear in the context: lo <= L <= hi (None: unbounded)."""

    lo: int | None
    hi: int | None
    lines: dict[str, Line]  # per part

    def at(self, context: Fraction) -> dict[str, Fraction]:
        return {g: a0 + a1 * context for g, (a0, a1) in self.lines.items()}


@dataclass(frozen=True)
class DecodeSteps:
    """One decode step of one layer of the crossover kind, as a function of the context L:
    linear between the bends where a local layer's attended tokens stop growing."""

    cfg: ModelConfig
    batch: int
    pick: int
    kind: LayerKind
    local: bool
    pieces: list[Piece]
    stops_at: int | None  # the context from which the scores stop growing (local layers)
    max_context: int | None  # the longest context the learned position table allows

    def parts(self, context: Fraction) -> dict[str, Fraction]:
        """The step's parts at a context L: counted by decode_layers at a whole L; between
        two whole contexts, on the line through them."""
        if context.denominator == 1 and context >= 1:
            return {
                k: Fraction(v)
                for k, v in decode_parts(self.cfg, self.batch, int(context), self.pick).items()
            }
        piece = next(p for p in self.pieces if p.hi is None or context <= p.hi)
        return piece.at(context)


def decode_steps(cfg: ModelConfig, batch: int) -> DecodeSteps:
    fl.check_linear_scores(cfg)
    pick, local = crossover_kind(cfg)
    bends = sorted(b for b in _bends(cfg) if b >= 1) if local else []
    edges: list[int | None] = [None, *bends, None]
    pieces = []
    for lo, hi in itertools.pairwise(edges):
        p = lo if lo is not None else (hi - 1 if hi is not None else 1)
        v0, v1 = decode_parts(cfg, batch, p, pick), decode_parts(cfg, batch, p + 1, pick)
        lines = {g: (Fraction(v0[g] - (v1[g] - v0[g]) * p), Fraction(v1[g] - v0[g])) for g in PARTS}
        pieces.append(Piece(lo, hi, lines))
    window = cfg.attention_window or 0
    limit = cfg.position_limit
    kinds = decode_layers(cfg, batch, 1)
    return DecodeSteps(
        cfg=cfg,
        batch=batch,
        pick=pick,
        kind=kinds[pick].kind,
        local=local,
        pieces=pieces,
        stops_at=window - 1 if local and window > 1 else None,
        max_context=None if limit is None else limit - 1,
    )


def first_meet(
    pieces: list[tuple[int | None, int | None, Line]], max_context: int | None, local: bool
) -> tuple[Fraction | None, str | None, Fraction | None]:
    """Where a piecewise-linear difference (rising side - other side) first reaches 0:
    (the context, None, None) if the model reaches it; (None, why, the context without the
    position table or None) if it does not."""
    for lo, hi, (d0, d1) in pieces:
        if d1 <= 0:
            continue
        at = Fraction(-d0, d1)
        if (hi is None or at <= hi) and (lo is None or at >= lo):
            if max_context is not None and at > max_context:
                return None, NEVER_POSITIONS, at
            return at, None, None
    return None, NEVER_WINDOW if local else NEVER_SLOWER, None


@dataclass(frozen=True)
class Reach:
    """A crossover: where the model reaches it, or why never (and where without the table)."""

    at: Fraction | None
    never: str | None
    unbounded: Fraction | None


def decode_crossovers(steps: DecodeSteps) -> dict[str, Reach]:
    """scores = FFN, scores = projections, scores = projections + FFN (one step's FLOPs)."""
    sides = {
        "scores_vs_ffn": ("ffn",),
        "scores_vs_projections": ("attention_projections",),
        "scores_vs_dense": ("attention_projections", "ffn"),
    }
    out = {}
    for key, other in sides.items():
        diff = []
        for p in steps.pieces:
            s0, s1 = p.lines["attention_scores"]
            o0, o1 = sum(p.lines[g][0] for g in other), sum(p.lines[g][1] for g in other)
            diff.append((p.lo, p.hi, (s0 - o0, s1 - o1)))
        out[key] = Reach(*first_meet(diff, steps.max_context, steps.local))
    return out


def bytes_crossover(steps: DecodeSteps, per_token: int, weights: int) -> Reach:
    """The context where the cache one step reads in one layer (batch x the tokens the layer
    keeps x per token) reaches the FFN weights it reads: it stops growing at the window."""
    b = steps.batch * per_token
    diff: list[tuple[int | None, int | None, Line]]
    if steps.stops_at is None:
        diff = [(None, None, (Fraction(-weights), Fraction(b)))]
    else:
        k = steps.stops_at
        diff = [
            (None, k, (Fraction(-weights), Fraction(b))),
            (k, None, (Fraction(b * k - weights), Fraction(0))),
        ]
    return Reach(*first_meet(diff, steps.max_context, steps.local))


def ffn_weights_read(cfg: ModelConfig, batch: int, moe: bool) -> int:
    """FFN weight elements one decode step reads in one layer: all of a dense FFN; for a MoE
    layer the router, the shared expert and at most min(n_experts, batch x k) experts."""
    from ffn_calc.counts import params as pm

    cfg = cfg.stack("decoder")  # a decode step runs the decoder: its own FFN width
    if not moe or cfg.n_experts is None or cfg.experts_per_token is None:
        width = cfg.dense_d_ff or cfg.d_ff if cfg.is_moe else cfg.d_ff
        return sum(t.value for t in pm.ffn_terms(cfg, width if cfg.is_moe else None))
    used = min(cfg.n_experts, batch * cfg.experts_per_token)
    idle = (cfg.n_experts - used) * pm.expert_params(cfg)
    return sum(t.value for t in pm.moe_terms(cfg)) - idle
