"""Result models of the inference questions: the KV cache and one decode step."""

from __future__ import annotations

from fractions import Fraction

from pydantic import Field

from ffn_calc import inference as inf
from ffn_calc.config import ModelConfig
from ffn_calc.report import Number, TermReport, exact, num, share
from ffn_calc.result import Result

KV_CONVENTION = (
    "Elements: every cached key and value tensor's numel() after a prefill of `context` tokens "
    "(transformers' cache): 2 x n_kv_heads x head_dim per token and layer (MLA: kv_lora_rank + "
    "qk_rope_head_dim); a sliding-window or chunked layer keeps min(context, window - 1) "
    "tokens; an encoder-decoder model adds its cross-attention cache over the source."
)
DECODE_CONVENTION = (
    "One decode step: one new token per sequence with `context` tokens cached, FLOPs = 2 x "
    "multiply-adds (as FlopCounterMode on transformers with its cache, eager attention): "
    "projections, FFN and LM head over B rows; scores over the attended tokens (the cached "
    "ones the token may see, and itself); MLA re-expands the cached latents through kv_b_proj; "
    "an encoder-decoder step reuses the cached cross-attention keys and values."
)


class KvLayer(Result):
    stack: str
    kind: str
    count: int
    cached_tokens: int
    elements: int = Field(description="one layer's cache, whole batch")
    bytes: int


class KvReport(Result):
    model: str
    batch: int
    context: int
    source_len: int | None
    dtype: str
    kv_elements: int
    kv_bytes: int
    kv_elements_per_token: Number
    kv_elements_per_token_exact: str
    layers: list[KvLayer]
    convention: str


def _bytes(elements: int, dtype: str) -> int:
    """Bytes of `elements` in `dtype`, int4 packed two to a byte (rounded up)."""
    b = elements * inf.DTYPE_BYTES[dtype]
    return -(-b.numerator // b.denominator)


def kv_report(
    cfg: ModelConfig, batch: int, context: int, dtype: str, source_len: int | None = None
) -> KvReport:
    kinds = inf.kv_kinds(cfg, batch, context, source_len)
    total = sum(k.count * k.elements for k in kinds)
    per_token = Fraction(total, batch * context)
    return KvReport(
        model=cfg.name, batch=batch, context=context, source_len=source_len, dtype=dtype,
        kv_elements=total, kv_bytes=_bytes(total, dtype), kv_elements_per_token=num(per_token),
        kv_elements_per_token_exact=exact(per_token),
        layers=[KvLayer(stack=k.stack, kind=k.kind, count=k.count, cached_tokens=k.cached_tokens,
                        elements=k.elements, bytes=_bytes(k.elements, dtype)) for k in kinds],
        convention=KV_CONVENTION,
    )  # fmt: skip


class DecodeLayer(Result):
    stack: str
    kind: str
    count: int
    total: int
    terms: list[TermReport]


class DecodeReport(Result):
    model: str
    batch: int
    context: int
    source_len: int | None
    decode_flops: int
    components: dict[str, int]
    shares: dict[str, float]
    layers: list[DecodeLayer]
    convention: str


def decode_report(
    cfg: ModelConfig, batch: int, context: int, source_len: int | None = None
) -> DecodeReport:
    comps = inf.decode_components(cfg, batch, context, source_len)
    total = sum(comps.values())
    layers = [
        DecodeLayer(stack=x.stack, kind=x.kind, count=x.count, total=sum(t.value for t in x.terms),
                    terms=[TermReport.of(t) for t in x.terms])
        for x in inf.decode_layers(cfg, batch, context, source_len)
    ]  # fmt: skip
    return DecodeReport(
        model=cfg.name, batch=batch, context=context, source_len=source_len, decode_flops=total,
        components=comps, shares={k: share(v, total) for k, v in comps.items()}, layers=layers,
        convention=DECODE_CONVENTION,
    )  # fmt: skip
