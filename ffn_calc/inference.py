"""Inference: the KV cache after a prefill, and the FLOPs of one decode step (closed forms).

Conventions (what the reference implementation does, transformers 5 with its cache):
- the cache holds, per layer, a key and a value of n_kv_heads x head_dim per cached token;
  MLA holds its compressed latent and the shared rotary key (kv_lora_rank + qk_rope_head_dim);
- after a prefill of L tokens a full-attention layer holds L tokens; a sliding-window or
  chunked layer holds min(L, window - 1);
- an encoder-decoder model caches its decoder's self-attention over the target tokens and its
  cross-attention keys and values over the source (computed once, at the prefill);
- one decode step runs one new token per sequence: every projection and FFN over B rows, the
  scores over the tokens the new one attends to (the cached ones it may see, and itself);
  MLA re-expands every cached latent through kv_b_proj at every step, as the reference does;
  an encoder-decoder step reuses the cached cross-attention keys and values (Q, O and the
  scores over the source only). FLOPs = 2 x multiply-adds, as everywhere.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

from ffn_calc import flop_counts as fl
from ffn_calc.config import ModelConfig
from ffn_calc.errors import UsageError
from ffn_calc.terms import Term, term

# Bytes per cached element.
DTYPE_BYTES: dict[str, Fraction] = {
    "fp32": Fraction(4), "bf16": Fraction(2), "fp16": Fraction(2), "fp8": Fraction(1),
    "int8": Fraction(1), "int4": Fraction(1, 2),
}  # fmt: skip


@dataclass(frozen=True)
class KvKind:
    """One kind of layer's cache: how many layers, tokens cached, elements per layer."""

    stack: str
    kind: str
    count: int
    cached_tokens: int
    per_token: int  # elements per cached token and layer (keys and values, all sequences: x B)
    elements: int  # one layer's, for the whole batch


def _local(cfg: ModelConfig) -> tuple[int, int]:
    """(local layers, full layers) of the decoder stack (window_layers hold local ones)."""
    n = cfg.decoder_layers if cfg.has_decoder else 0
    if cfg.attention_window is not None and not cfg.window_layers:
        return n, 0  # every layer attends locally
    w = len(cfg.window_layers)
    return w, n - w


def cached_per_token(cfg: ModelConfig) -> int:
    """Elements one layer caches per token: keys and values of every KV head, or MLA's latent
    and rotary key."""
    if cfg.attention == "mla":
        assert cfg.kv_lora_rank is not None and cfg.qk_rope_head_dim is not None
        return cfg.kv_lora_rank + cfg.qk_rope_head_dim
    return 2 * cfg.kv_heads * cfg.head_size


def kv_kinds(cfg: ModelConfig, batch: int, context: int, source_len: int | None) -> list[KvKind]:
    """The cache after a prefill of `context` tokens for `batch` sequences, per layer kind."""
    if not cfg.has_decoder:
        from ffn_calc.i18n import _

        raise UsageError(_("{model} is encoder-only: it generates nothing and keeps no KV cache.").format(model=cfg.name))  # fmt: skip
    encdec = cfg.architecture == "encoder-decoder"
    if source_len is not None and not encdec:
        from ffn_calc.i18n import _

        raise UsageError(_("--source-len applies to encoder-decoder models; {model} is {architecture}.").format(model=cfg.name, architecture=cfg.architecture))  # fmt: skip
    per = cached_per_token(cfg)
    local, full = _local(cfg)
    out = []
    if full:
        out.append(KvKind("decoder", "full attention" if local else "", full, context, per, batch * context * per))  # fmt: skip
    if local:
        kept = kept_tokens(cfg, context)
        out.append(KvKind("decoder", cfg.local_label, local, kept, per, batch * kept * per))
    if encdec:
        s = context if source_len is None else source_len
        out.append(KvKind("decoder", "cross-attention", cfg.decoder_layers, s, per, batch * s * per))  # fmt: skip
    return out


def kv_elements(cfg: ModelConfig, batch: int, context: int, source_len: int | None = None) -> int:
    return sum(k.count * k.elements for k in kv_kinds(cfg, batch, context, source_len))


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
) -> list[Term]:
    """One decode step of one layer: `base` (its FLOPs over one token) with the scores over the
    attended tokens, MLA's re-expansion of the cache, and no cross-attention K/V."""
    b, h, g = batch, cfg.n_heads, "attention_scores"
    a = _attended(cfg, context, local)
    out = [t for t in base.terms if t.group != g and t.name not in ("cross K", "cross V")]
    hq, hv = cfg.qk_head_size, cfg.v_head_size
    out += [term(g, "QK^T", "2 x B x n_heads x attended x qk head", 2, b, h, a, hq),
            term(g, "AV", "2 x B x n_heads x attended x v head", 2, b, h, a, hv)]  # fmt: skip
    if cfg.attention == "mla":  # kv_b_proj re-expands the cached latents too (not the new one)
        assert cfg.kv_lora_rank and cfg.qk_nope_head_dim and cfg.v_head_dim
        out.append(term("attention_projections", "kv_b_proj over the cache",
                        "2 x B x cached x kv_lora_rank x n_heads x (nope + v_head_dim)",
                        2, b, a - 1, cfg.kv_lora_rank, h, cfg.qk_nope_head_dim + cfg.v_head_dim))  # fmt: skip
    if cfg.architecture == "encoder-decoder":
        s = context if source_len is None else source_len
        out += [term(g, "cross QK^T", "2 x B x n_heads x S x head_dim", 2, b, h, s, hq),
                term(g, "cross AV", "2 x B x n_heads x S x head_dim", 2, b, h, s, hv)]  # fmt: skip
    return out


@dataclass(frozen=True)
class DecodeLayer:
    stack: str
    kind: str
    count: int
    terms: list[Term]


def decode_layers(
    cfg: ModelConfig, batch: int, context: int, source_len: int | None = None
) -> list[DecodeLayer]:
    """One decode step per layer kind (the decoder's; an encoder is not run again)."""
    kv_kinds(cfg, batch, context, source_len)  # the same checks of the model and options
    w = fl.Workload(batch=batch, seq_len=1, target_len=1)
    by_kind = {(x.stack, x.kind): x for x in fl.layer_flops(cfg, w) if x.stack == "decoder"}
    out = []
    for ffn, attn, count in cfg.layer_kinds(cfg.decoder_layers):
        kind = ", ".join(x for x in (ffn, attn) if x)
        local = attn not in ("", "full attention")
        terms = decode_layer_terms(
            cfg, batch, context, source_len, local, by_kind[("decoder", kind)]
        )
        out.append(DecodeLayer("decoder", kind, count, terms))
    return out


def decode_components(
    cfg: ModelConfig, batch: int, context: int, source_len: int | None = None
) -> dict[str, int]:
    """One decode step's FLOPs per contract component (the LM head over B new tokens)."""
    out = dict.fromkeys(fl.FLOP_COMPONENTS, 0)
    for layer in decode_layers(cfg, batch, context, source_len):
        for t in layer.terms:
            out[t.group] += layer.count * t.value
    w = fl.Workload(batch=batch, seq_len=1, target_len=1)
    for t in fl.model_flop_terms(cfg, w):
        out[t.group] += t.value
    return {
        k: v
        for k, v in out.items()
        if v or k in ("attention_projections", "attention_scores", "ffn", "lm_head")
    }


def decode_flops(cfg: ModelConfig, batch: int, context: int, source_len: int | None = None) -> int:
    return sum(decode_components(cfg, batch, context, source_len).values())


# --- a whole generation, and where attention overtakes the FFN at decode time -------------------


def generation_flops(cfg: ModelConfig, batch: int, prompt: int, new: int) -> int:
    """A prefill of `prompt` tokens (which yields the first new token) and new - 1 decode
    steps with prompt, ..., prompt + new - 2 tokens cached: what generate() runs for `new`
    tokens. Exact for any length: a step's FLOPs are linear in the context between the
    windows' bends, so the steps are summed as arithmetic series."""
    w = fl.Workload(
        batch=batch, seq_len=prompt, target_len=1 if cfg.architecture == "encoder-decoder" else None
    )
    total = fl.forward_flops(cfg, w)
    encdec = cfg.architecture == "encoder-decoder"
    # The decode steps' contexts: the prompt and what follows (an encoder-decoder model's
    # decoder starts from one token and attends to the prompt through its cross-attention).
    first = 1 if encdec else prompt
    last = first + new - 2
    if last < first:
        return total
    source = prompt if encdec else None
    bends = sorted({first, last + 1} | {b for b in _bends(cfg) if first < b <= last})
    for a, b in itertools.pairwise(bends):  # [a, b): one linear piece
        fa = decode_flops(cfg, batch, a, source)
        slope = decode_flops(cfg, batch, a + 1, source) - fa if b - a > 1 else 0
        n = b - a
        total += n * fa + slope * n * (n - 1) // 2
    return total


def _bends(cfg: ModelConfig) -> set[int]:
    """Contexts from which a local layer's attended tokens stop growing."""
    window = cfg.attention_window or 0
    return {window - 1} if window > 1 else set()


@dataclass(frozen=True)
class DecodeLine:
    """One decode step of one layer as a + b x L (batch 1, FLOPs), per part."""

    projections: tuple[int, int]
    scores: tuple[int, int]
    ffn: tuple[int, int]


def decode_line(cfg: ModelConfig) -> tuple[str, DecodeLine]:
    """The crossover layer kind's decode step, batch 1, as linear functions of the context
    (its full-attention layers; a local layer's scores stop growing at the window)."""
    at1, at2 = decode_layers(cfg, 1, 1), decode_layers(cfg, 1, 2)
    full = [i for i, x in enumerate(at1) if "attention over" not in x.kind]  # not local
    pick = max(full or range(len(at1)), key=lambda i: at1[i].count)

    def line(group: str) -> tuple[int, int]:
        a1, a2 = (sum(t.value for t in x[pick].terms if t.group == group) for x in (at1, at2))
        return a1 - (a2 - a1), a2 - a1

    return at1[pick].kind, DecodeLine(
        line("attention_projections"), line("attention_scores"), line("ffn")
    )


def meet(a: tuple[int, int], b: tuple[int, int]) -> Fraction | None:
    """The context L where line a (a0 + a1 L) reaches line b, if it ever overtakes it."""
    if a[1] <= b[1]:
        return None
    return Fraction(b[0] - a[0], a[1] - b[1])


def ffn_weights_read(cfg: ModelConfig, batch: int, moe: bool) -> int:
    """FFN weight elements one decode step reads in one layer: all of a dense FFN; for a MoE
    layer the router, the shared expert and at most min(n_experts, batch x k) experts."""
    from ffn_calc import param_counts as pm

    if not moe or cfg.n_experts is None or cfg.experts_per_token is None:
        width = cfg.dense_d_ff or cfg.d_ff if cfg.is_moe else cfg.d_ff
        return sum(t.value for t in pm.ffn_terms(cfg, width if cfg.is_moe else None))
    used = min(cfg.n_experts, batch * cfg.experts_per_token)
    idle = (cfg.n_experts - used) * pm.expert_params(cfg)
    return sum(t.value for t in pm.moe_terms(cfg)) - idle


def parse_bytes(text: str) -> int:
    """A memory size: 80GB (10^9 bytes each), 80GiB (2^30), 1.5TB, or a plain byte count; B,
    G and the other multipliers alone are refused as ambiguous (see ffn_calc.quantities)."""
    from ffn_calc.i18n import _
    from ffn_calc.quantities import quoted, read_number

    value = read_number(text, "bytes", f"--gpu-memory {quoted(text.strip(), 40)}", "--gpu-memory")
    if value < 1 or value > 2**60:
        raise UsageError(
            _("--gpu-memory {value}: give between 1 byte and 2^60 bytes.").format(
                value=quoted(text.strip(), 40)
            )
        )
    return int(value)
