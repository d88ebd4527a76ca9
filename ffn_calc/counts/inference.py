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

The decode crossovers, from this step as a function of the context L, are counts/reach.py's.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from ffn_calc.counts.compressed import compressed_decode_terms, decode_entries, entries_flops
from ffn_calc.counts.mixers import counts_of
from ffn_calc.counts.mixers.state import StateTensor
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

if TYPE_CHECKING:  # the FLOP counts load with the first FLOP question, not with `kv` or `memory`
    from ffn_calc.counts import flops as fl

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
    layers, and each state tensor of one layer for the whole batch (name, elements, dtype
    rule: counts.mixers.state)."""

    stack: str
    kind: LayerKind
    count: int
    tensors: list[StateTensor]

    @property
    def elements(self) -> int:
        return sum(t.elements for t in self.tensors)


def state_kinds(cfg: ModelConfig, batch: int) -> list[StateKind]:
    """The states the cache holds after a prefill, per layer kind: the same for any context."""
    out = []
    for kind, count in layer_kinds(cfg, cfg.decoder_layers if cfg.has_decoder else 0):
        mixer = counts_of(kind.mixer)
        tensors = [] if mixer is None else mixer.state(cfg)
        if tensors:
            out.append(StateKind("decoder", kind, count, [t._replace(elements=batch * t.elements)
                                                          for t in tensors]))  # fmt: skip
    return out


def state_elements(cfg: ModelConfig, batch: int) -> int:
    return sum(k.count * k.elements for k in state_kinds(cfg, batch))


def _local(cfg: ModelConfig) -> tuple[int, int]:
    """(local layers, full layers) of the decoder stack that cache keys and values
    (window_layers hold local ones; kv_shared_layers cache none)."""
    n, shared = attention_layers(cfg), set(cfg.kv_shared_layers)
    if cfg.attention_window is not None and not cfg.window_layers:
        return n - len(shared), 0  # every layer attends locally
    local = set(cfg.window_layers)
    return len(local - shared), n - len(local) - len(shared - local)


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


def kind_tensors(cfg: ModelConfig, kind: KvKind) -> tuple[int, ...]:
    """cached_tensors of one kind's layers (global ones of their own width: attending)."""
    return cached_tensors(cfg.attending(kind.kind.mixer is not FULL))


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
        wide = cached_per_token(cfg.attending(False))  # global layers of their own width
        kind = layer_kind(None, FULL, None, False, bool(local))
        out.append(KvKind("decoder", kind, full, context, wide, batch * context * wide))
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
    from ffn_calc.counts import flops as fl

    b, h, g = batch, cfg.n_heads, "attention_scores"
    a = _attended(cfg, context, local)
    out = [t for t in base.terms if t.group != g and t.name not in ("cross K", "cross V")]
    wide = cfg.attending(local)  # a global layer of its own width (Gemma 4)
    out += fl.score_terms(wide, b, 1, a, rows=None, cols="attended")  # the prefill's terms
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
    from ffn_calc.counts import flops as fl

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
    from ffn_calc.counts import flops as fl

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
    from ffn_calc.counts import flops as fl

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
    from ffn_calc.counts import flops as fl

    w = fl.Workload(batch=batch, seq_len=positions)
    return sum(t.value for t in fl.model_flop_terms(cfg, w) if t.group == "lm_head")


def _shared(layers: list[fl.LayerFlops]) -> int:
    """FLOPs of the KV-shared layers among `layers`."""
    return sum(x.count * sum(t.value for t in x.terms) for x in layers if x.kind.kv_shared)


def _last_only(cfg: ModelConfig, batch: int, prompt: int, causal: bool) -> int:
    """The KV-shared layers over the prompt's last position only (kv_shared_prefill_last):
    its projections, FFN and parts over one token, its scores against the keys of the layer
    it shares them from, every prompt token (eager attention multiplies the whole masked row;
    causal: the visible ones, as a decode step's)."""
    from ffn_calc.counts import flops as fl

    out = []
    for x in fl.layer_flops(cfg, fl.Workload(batch=batch, seq_len=1)):
        if not x.kind.kv_shared:
            continue
        local = x.kind.is_local
        keys = _attended(cfg, prompt - 1, local) if causal else prompt
        terms = [t for t in x.terms if t.group != "attention_scores"]
        terms += fl.score_terms(cfg.attending(local), batch, 1, keys, rows=None, cols="attended")
        out.append(fl.LayerFlops(x.stack, x.count, terms, x.kind))
    return _shared(out)


def prefill_flops(
    cfg: ModelConfig, batch: int, prompt: int, *, causal: bool = False, lm_head: bool = True
) -> int:
    """The prefill as generate() runs it. Decoder-only: the forward pass over the prompt with
    the LM head over the last position only (generate() passes logits_to_keep=1; a narrow
    embedding's projection out still runs at every position, inside the decoder).
    Encoder-decoder: the encoder over the prompt and the decoder over its start token.
    causal: the prompt's self-attention scores over the visible pairs only; lm_head=False:
    no LM head."""
    from ffn_calc.counts import flops as fl

    w = prefill_workload(cfg, batch, prompt, causal=causal, lm_head=lm_head)
    full = fl.forward_flops(cfg, w)
    if cfg.kv_shared_prefill_last and cfg.kv_shared_layers:
        full += _last_only(cfg, batch, prompt, causal) - _shared(fl.layer_flops(cfg, w))
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


def tensor_bytes(elements: int, dtype: str) -> int:
    """Bytes of one tensor of `elements` in `dtype`, int4 packed two to a byte (rounded up)."""
    b = elements * DTYPE_BYTES[dtype]
    return -(-b.numerator // b.denominator)


def layer_cache_bytes(cfg: ModelConfig, kind: KvKind, dtype: str) -> int:
    """One layer's cache in bytes: each cached tensor (key and value, or MLA's latent and
    rotary key, over the whole batch) rounded up on its own, as a packed int4 tensor is."""
    rows = kind.elements // kind.per_token if kind.per_token else 0  # batch x cached tokens
    return sum(tensor_bytes(rows * width, dtype) for width in kind_tensors(cfg, kind))


def state_bytes(kind: StateKind, dtype: str) -> int:
    """One layer's states in bytes, each tensor in the dtype its rule gives (a float32
    recurrent state stays float32 whatever `dtype`: counts.mixers.state)."""
    from ffn_calc.counts.mixers.state import state_dtype

    return sum(tensor_bytes(t.elements, state_dtype(t, dtype)) for t in kind.tensors)


def cache_bytes(cfg: ModelConfig, batch: int, context: int, dtype: str) -> int:
    """The whole cache in bytes: the sum over every cached tensor of its rounded bytes, the
    constant-size states of recurrent and convolution mixers included."""
    states = sum(k.count * state_bytes(k, dtype) for k in state_kinds(cfg, batch))
    return states + sum(
        k.count * layer_cache_bytes(cfg, k, dtype) for k in kv_kinds(cfg, batch, context, None)
    )
