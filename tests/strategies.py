"""Hypothesis strategies shared by the tests: random valid ModelConfigs and workloads.

`model_configs()` draws every structural field the counts depend on (stacks, GQA, head_dim,
biases, gated FFNs, MoE with dense layers and shared experts, MLA, sinks, qk norms, norms per
layer, embeddings narrow or not, heads, pooler, relative attention, shared layers, local
attention layers) at small sizes, and builds each config so that it satisfies the invariants
of `ModelConfig._check`: validation is the last step, not a filter.
"""

from __future__ import annotations

from math import gcd
from typing import Any

from hypothesis import strategies as st

from ffn_calc.counts.flops import Workload
from ffn_calc.model.config import ModelConfig

ACTIVATIONS = ["relu", "gelu", "gelu_tanh", "silu", "swiglu", "geglu"]
ARCHITECTURES = ["decoder-only", "encoder-only", "encoder-decoder"]


def _maybe(draw: Any, strategy: st.SearchStrategy[Any]) -> Any:
    """None or a value of `strategy`, half and half."""
    return draw(st.one_of(st.none(), strategy))


def _often(draw: Any) -> bool:
    """True three times in four."""
    return bool(draw(st.integers(0, 3)))


def _subset(draw: Any, n: int) -> list[int]:
    """Distinct layer indices in 0 .. n - 1 (at least one), in random order."""
    out: list[int] = draw(st.lists(st.integers(0, n - 1), unique=True, min_size=1, max_size=n))
    return out


@st.composite
def model_configs(draw: Any) -> ModelConfig:
    """A random valid ModelConfig with small sizes (d_model <= 64, <= 6 layers per stack)."""
    arch = draw(st.sampled_from(ARCHITECTURES))
    one_stack = arch != "encoder-decoder"
    n_layers = draw(st.integers(1, 6))
    heads = draw(st.integers(1, 4))
    head_dim = _maybe(draw, st.integers(1, 8))
    kv_heads = [None, *(k for k in range(1, heads + 1) if heads % k == 0)]  # None: n_heads
    d_model = heads * draw(st.integers(1, 16)) if head_dim is None else draw(st.integers(1, 64))
    f: dict[str, Any] = {
        "name": "random",
        "architecture": arch,
        "n_layers": n_layers,
        "d_model": d_model,
        "n_heads": heads,
        "n_kv_heads": draw(st.sampled_from(kv_heads)),
        "head_dim": head_dim,
        "d_ff": draw(st.integers(1, 64)),
        "activation": draw(st.sampled_from(ACTIVATIONS)),
        "attention_bias": draw(st.booleans()),
        "attention_out_bias": _maybe(draw, st.booleans()),
        "attention_k_bias": _maybe(draw, st.booleans()),
        "ffn_bias": draw(st.booleans()),
        "norm": draw(st.sampled_from(["layernorm", "rmsnorm"])),
        "norm_bias": draw(st.booleans()),
        "final_norm": draw(st.booleans()),
        "embedding_norm": draw(st.booleans()),
        "layer_norms": _maybe(draw, st.sampled_from([0, 1, 2, 3, 4, 5, 8])),
        "qk_norm": draw(st.sampled_from(["none", "head", "per_head", "full"])),
        "parallel_block": draw(st.booleans()),
        "attention_sinks": draw(st.booleans()),
        "pooler": draw(st.booleans()),
        "relative_attention_buckets": _maybe(draw, st.integers(1, 8)),
        "lm_head": _often(draw),
        "vocab_size": draw(st.integers(1, 100)) if _often(draw) else None,
    }  # fmt: skip
    vocab = f["vocab_size"]
    has_head = f["lm_head"] and vocab is not None
    f["relative_attention_per_layer"] = f["relative_attention_buckets"] is not None and draw(
        st.booleans()
    )

    # Positions: only a learned table has weights (and needs max_positions).
    f["positions"] = draw(st.sampled_from(["learned", "sinusoidal", "rotary", "none"]))
    f["max_positions"] = (
        draw(st.integers(1, 40))
        if f["positions"] == "learned"
        else _maybe(draw, st.integers(1, 40))
    )

    # Stacks.
    if arch == "encoder-decoder":
        f["n_decoder_layers"] = _maybe(draw, st.integers(1, 6))
        f["decoder_d_ff"] = _maybe(draw, st.integers(1, 64))  # the decoder's own FFN width
        kv = f["n_kv_heads"] or 1
        own_heads = [
            h for h in range(kv, 5)
            if h % kv == 0 and (head_dim is not None or d_model % h == 0)
        ]  # fmt: skip
        f["decoder_n_heads"] = _maybe(draw, st.sampled_from(own_heads))
        f["shared_embeddings"] = draw(st.booleans())
        f["separate_position_tables"] = draw(st.booleans())
        f["stack_embeddings"] = f["shared_embeddings"] and vocab is not None and draw(st.booleans())
        if f["positions"] == "learned" and f["separate_position_tables"]:
            f["source_positions"] = _maybe(draw, st.integers(1, 40))
        if draw(st.booleans()):  # a convolutional front end (Whisper's)
            f["conv_in_channels"] = draw(st.integers(1, 8))
            f["conv_strides"] = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
            f["conv_kernel"] = draw(st.sampled_from([1, 3, 5]))

    # Embeddings and head.
    if vocab is not None:
        f["type_vocab_size"] = draw(st.integers(0, 3))
        f["tie_embeddings"] = f["lm_head"] and draw(st.booleans())
        if one_stack and draw(st.booleans()):
            f["embedding_dim"] = draw(st.integers(1, 64))
            f["embedding_projection"] = draw(st.sampled_from(["tokens", "all"]))
            f["embedding_projection_bias"] = draw(st.booleans())
    if has_head:
        f["lm_head_transform"] = draw(st.booleans())
        f["lm_head_bias"] = draw(st.booleans())
        f["lm_head_projection_bias"] = draw(st.booleans())
        if f.get("embedding_projection") == "all":
            f["lm_head_transform"] = True  # "all" projects in only: the head maps back

    # Attention kind: MLA in one stack, without qk norms or an O bias of its own.
    if one_stack and draw(st.integers(0, 3)) == 0:
        f["qk_norm"], f["attention_out_bias"] = "none", None
        f |= {
            "attention": "mla",
            "q_lora_rank": _maybe(draw, st.integers(1, 16)),
            "kv_lora_rank": draw(st.integers(1, 16)),
            "qk_nope_head_dim": draw(st.integers(1, 8)),
            "qk_rope_head_dim": draw(st.integers(1, 8)),
            "v_head_dim": draw(st.integers(1, 8)),
        }
        # Sparse attention's indexer: needs the query latent and a head at least rope wide.
        if f["q_lora_rank"] is not None and draw(st.booleans()):
            f |= {
                "indexer_heads": draw(st.integers(1, 4)),
                "indexer_head_dim": f["qk_rope_head_dim"] + draw(st.integers(0, 4)),
                "indexer_topk": draw(st.integers(1, 64)),
            }

    # MoE.
    if draw(st.booleans()):
        experts = draw(st.integers(1, 4))
        f |= {
            "n_experts": experts,
            "experts_per_token": draw(st.integers(1, experts)),
            "router_bias": draw(st.booleans()),
            "router_score_bias": draw(st.sampled_from(["none", "parameter", "buffer"])),
            "expert_bias": _maybe(draw, st.booleans()),
            "dense_ffn_layers": _subset(draw, min(n_layers, f.get("n_decoder_layers") or n_layers))
            if draw(st.booleans())
            else [],
            "dense_d_ff": _maybe(draw, st.integers(1, 64)),
            "shared_expert_d_ff": _maybe(draw, st.integers(1, 64)),
            "shared_expert_gate": draw(st.booleans()),
            "moe_latent_dim": _maybe(draw, st.integers(1, 64)),
        }

    # Local attention: a window on some layers (one stack only), or on every layer.
    if draw(st.booleans()):
        f["attention_window"] = draw(st.integers(1, 128))
        f["window_kind"] = draw(st.sampled_from(["sliding", "chunked"]))
        if one_stack and _often(draw):  # else every layer is local
            f["window_layers"] = _subset(draw, n_layers)

    # Shared layers (ALBERT), in groups that divide both counts; one layer kind.
    if (
        one_stack
        and not f.get("dense_ffn_layers")
        and not f.get("window_layers")
        and draw(st.booleans())
    ):
        unique = draw(st.integers(1, n_layers))
        f["unique_layers"] = unique
        g = gcd(n_layers, unique)
        f["layers_per_group"] = draw(
            st.sampled_from([None, *(k for k in range(1, g + 1) if g % k == 0)])
        )

    return ModelConfig.model_validate(f)


@st.composite
def workloads(draw: Any) -> Workload:
    """Batch, sequence and target lengths (target None half the time), causal, LM head."""
    return Workload(
        batch=draw(st.integers(1, 4)),
        seq_len=draw(st.one_of(st.integers(1, 64), st.just(2048))),
        target_len=_maybe(draw, st.integers(1, 64)),
        causal=draw(st.booleans()),
        lm_head=draw(st.booleans()),
    )
