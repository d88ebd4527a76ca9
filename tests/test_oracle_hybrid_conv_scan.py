"""Differential tests: short-convolution hybrids (LFM2) against `transformers` 5.24.0.

Optional, as every oracle test: without torch and transformers they skip. Without the
causal_conv1d kernels transformers runs its torch path: the depthwise convolution padded by
K - 1 (aten convolution), the projections (mm) and eager attention (bmm). Each case is a
config.json read with `--hf-config` and built by the class in `architectures`. Checked:
parameters, tensor names and shapes, the FLOPs of a forward pass by op (convolution: the
mixer's conv; everything else against its terms), the cache after a prefill (keys and values;
conv states), one decode step with that cache (the recurrent form), generate(), and a
save_pretrained checkpoint through `verify --checkpoint`.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from oracle_cases import case, classes  # noqa: E402
from oracle_support import (  # noqa: E402
    check_verifies,
    header,
    inventory_names,
    maybe,
    moe_active,
    param_shapes,
    read,
    save,
    split_experts,
    token_ids,
)
from test_oracle_hybrid_mamba import check_bf16_cache, explicit_cases  # noqa: E402
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

from ffn_calc.counts.flops import Workload, forward_flops, layer_flops  # noqa: E402
from ffn_calc.counts.inference import (  # noqa: E402
    decode_flops,
    generation_flops,
    kv_elements,
    state_elements,
)
from ffn_calc.counts.params import active_params, total_params  # noqa: E402
from ffn_calc.families.resolve import resolve_model  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CLASSES = classes("test_oracle_hybrid_conv_scan")
# The mixer terms each aten op computes (by term name).
CONV_TERMS = ("conv", "conv1d")


def build(data: dict[str, Any]) -> Any:
    """The class in `architectures` with eager attention and eager experts (the top-k
    dispatch, whose matmuls FlopCounterMode sees)."""
    conf_name, model_name = CLASSES[data["model_type"]]
    conf = getattr(transformers, conf_name)(**{k: v for k, v in data.items() if k != "model_type"})
    conf._attn_implementation = "eager"
    conf._experts_implementation = "eager"
    return getattr(transformers, model_name)(conf)


EXPERT = re.compile(r"(.*\.experts)\.(\d+)\.(w1|w3|w2|gate_proj|up_proj|down_proj)\.weight")


def fused(names: dict[str, tuple[int, ...]]) -> dict[str, tuple[int, ...]]:
    """Per-expert checkpoint names folded as transformers holds them in memory: gate (w1) and
    up (w3) stacked into gate_up_proj [E, 2 f, d], down (w2) into down_proj [E, d, f];
    MiniMax's `block_sparse_moe.` (checkpoints) is `mlp.` in memory."""
    in_memory = {n.replace(".block_sparse_moe.", ".mlp."): s for n, s in names.items()}
    out, experts = split_experts(in_memory, EXPERT)
    for (prefix, proj), shapes in experts.items():
        (f, d), e = shapes[0], len(shapes)
        if proj in ("w2", "down_proj"):
            out[f"{prefix}.down_proj"] = (e, f, d)
        elif proj in ("w1", "gate_proj"):
            out[f"{prefix}.gate_up_proj"] = (e, 2 * f, d)
    return out


def by_op(model: Any, **inputs: Any) -> dict[str, int]:
    """FlopCounterMode's count of model(**inputs) per aten op (mm, convolution, bmm)."""
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model(**inputs)
    return {
        str(k).removeprefix("aten."): int(v) for k, v in counter.get_flop_counts()["Global"].items()
    }


def _states(cache: Any) -> tuple[int, int]:
    """(keys and values, conv and recurrent states): numel() of what the cache holds."""
    kv = state = 0
    for layer in cache.layers:
        for name in ("keys", "values"):
            t = getattr(layer, name, None)
            kv += t.numel() if hasattr(t, "numel") else 0
        for name in ("conv_states", "recurrent_states"):
            for t in (getattr(layer, name, None) or {}).values():
                state += t.numel() if hasattr(t, "numel") else 0
    for t in getattr(cache, "linear_cache", []):  # MiniMaxCache: lightning states by layer
        state += t.numel() if hasattr(t, "numel") else 0
    return kv, state


@st.composite
def lfm2_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny LFM2 config.json: conv and attention layers in any order, at least one attention
    layer (with none, transformers' cache cannot give its length: get_seq_length raises), the
    FFN width adjusted or not."""
    layers = draw(st.integers(1, 3))
    kv = draw(st.sampled_from([1, 2]))
    heads = kv * draw(st.integers(1, 2))
    head_dim = draw(st.sampled_from([2, 4]))
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "num_hidden_layers": layers, "hidden_size": heads * head_dim,
        "num_attention_heads": heads, "num_key_value_heads": kv,
        "intermediate_size": draw(st.integers(3, 40)), "vocab_size": draw(st.integers(8, 100)),
        "layer_types": draw(st.lists(st.sampled_from(["conv", "full_attention"]),
                                     min_size=layers, max_size=layers)),
        "block_multiple_of": draw(st.integers(1, 8)), "bos_token_id": 0, "eos_token_id": 0,
        "pad_token_id": None,
    }  # fmt: skip
    out["layer_types"][draw(st.integers(0, layers - 1))] = "full_attention"
    maybe(draw, out, "conv_L_cache", draw(st.integers(1, 4)))
    maybe(draw, out, "conv_bias", draw(st.booleans()))
    maybe(draw, out, "block_auto_adjust_ff_dim", draw(st.booleans()))
    maybe(draw, out, "block_ffn_dim_multiplier", draw(st.sampled_from([1.0, 1.5, 0.75])))
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    return out


@st.composite
def lfm2_moe_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny LFM2-MoE config.json: LFM2's layers, dense ones first, then routed experts."""
    out = draw(lfm2_jsons(family))
    for key in ("block_multiple_of", "block_auto_adjust_ff_dim", "block_ffn_dim_multiplier"):
        out.pop(key, None)
    experts = draw(st.integers(1, 4))
    out |= {
        "num_dense_layers": draw(st.integers(0, out["num_hidden_layers"])),
        "num_experts": experts, "num_experts_per_tok": draw(st.integers(1, experts)),
        "moe_intermediate_size": draw(st.integers(1, 12)),
    }  # fmt: skip
    maybe(draw, out, "use_expert_bias", draw(st.booleans()))
    return out


@st.composite
def jamba_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny Jamba config.json: attention and expert layers by period and offset (at least
    one attention layer: transformers' cache needs one to give its length)."""
    layers = draw(st.integers(1, 4))
    period = draw(st.integers(1, 3))
    e_period = draw(st.integers(1, 3))
    kv = draw(st.sampled_from([1, 2]))
    heads = kv * draw(st.integers(1, 2))
    experts = draw(st.integers(1, 4))
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "num_hidden_layers": layers, "hidden_size": heads * draw(st.sampled_from([2, 4])),
        "num_attention_heads": heads, "num_key_value_heads": kv,
        "intermediate_size": draw(st.integers(1, 12)), "vocab_size": draw(st.integers(8, 60)),
        "attn_layer_period": period, "attn_layer_offset": draw(st.integers(0, min(period, layers) - 1)),
        "expert_layer_period": e_period, "expert_layer_offset": draw(st.integers(0, e_period - 1)),
        "num_experts": experts, "num_experts_per_tok": draw(st.integers(1, experts)),
        "mamba_d_state": draw(st.integers(1, 4)), "mamba_expand": draw(st.integers(1, 2)),
        "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None,
    }  # fmt: skip
    maybe(draw, out, "mamba_d_conv", draw(st.integers(1, 4)))
    maybe(draw, out, "mamba_dt_rank", draw(st.integers(1, 3)))
    maybe(draw, out, "mamba_conv_bias", draw(st.booleans()))
    maybe(draw, out, "mamba_proj_bias", draw(st.booleans()))
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    return out


@st.composite
def minimax_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny MiniMax config.json: lightning and full layers (at least one full: the cache's
    length comes from it), blocks shorter or longer than the prompt."""
    layers = draw(st.integers(1, 3))
    kv = draw(st.sampled_from([1, 2]))
    heads = kv * draw(st.integers(1, 2))
    experts = draw(st.integers(1, 3))
    types = draw(st.lists(st.sampled_from(["linear_attention", "full_attention"]),
                          min_size=layers, max_size=layers))  # fmt: skip
    types[draw(st.integers(0, layers - 1))] = "full_attention"
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "num_hidden_layers": layers, "hidden_size": heads * draw(st.sampled_from([2, 4])),
        "num_attention_heads": heads, "num_key_value_heads": kv, "layer_types": types,
        "intermediate_size": draw(st.integers(1, 12)), "vocab_size": draw(st.integers(8, 60)),
        "num_local_experts": experts, "num_experts_per_tok": draw(st.integers(1, experts)),
        "block_size": draw(st.integers(1, 5)), "bos_token_id": 0, "eos_token_id": 0,
        "pad_token_id": None, "max_position_embeddings": 64,
    }  # fmt: skip
    maybe(draw, out, "head_dim", draw(st.sampled_from([2, 4])))
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    return out


FAMILIES = {"lfm2": lfm2_jsons, "lfm2_moe": lfm2_moe_jsons, "jamba": jamba_jsons,
            "minimax": minimax_jsons}  # fmt: skip


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    return FAMILIES[family](family)


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    torch.manual_seed(0)
    cfg = read(data, tmp)
    model = build(data).eval()
    # (a) parameters, (b) names and shapes
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg)
    assert moe_active(model) == active_params(cfg)
    assert param_shapes(model) == fused(inventory_names(cfg))
    # (c) FLOPs by op: the convolutions against their terms, the whole against the total
    ids = token_ids(data["vocab_size"], batch, s)
    ops = by_op(model, input_ids=ids, use_cache=False)
    w = Workload(batch=batch, seq_len=s)
    terms = [(x.count, t) for x in layer_flops(cfg, w) for t in x.terms]
    conv = sum(n * t.value for n, t in terms if t.group == "mixer" and t.name in CONV_TERMS)
    assert ops.get("convolution", 0) == conv
    assert sum(ops.values()) == forward_flops(cfg, w)
    # (d) the cache after a prefill, (e) one decode step with it (the recurrent form)
    with torch.no_grad():
        out = model(input_ids=ids, use_cache=True)
        cache = out.past_key_values
        assert _states(cache) == (kv_elements(cfg, batch, s), state_elements(cfg, batch))
        step = by_op(model, input_ids=ids[:, -1:], cache=cache, use_cache=True)
        assert sum(step.values()) == decode_flops(cfg, batch, s)
        assert _states(cache) == (kv_elements(cfg, batch, s + 1), state_elements(cfg, batch))
    # (f) generate(): the prefill (head on the last position) and decode steps
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=3,
                       min_new_tokens=3, do_sample=False, num_beams=1)  # fmt: skip
    assert int(counter.get_total_flops()) == generation_flops(cfg, batch, s, 3)
    # (g) the checkpoint save_pretrained writes, through verify --checkpoint
    ckpt = save(model, tmp / "ckpt")
    # the checkpoint stores the experts one by one, and the routing-bias buffers beside them
    buffers = (".expert_bias", "slope_rate", "query_decay", "key_decay", "diagonal_decay")
    stored = {n: v for n, v in header(ckpt).items() if not n.endswith(buffers)}
    assert stored == inventory_names(cfg)
    assert total_params(resolve_model(hf_config=ckpt)) == total_params(cfg)
    check_verifies(ckpt, cfg)


def test_lfm2_ffn_width(tmp_path: Path) -> None:
    """Lfm2MLP's width: int(2 x 12288 / 3) = 8192, x 1.0, a multiple of 256: 8192 (the
    LFM2-1.2B layer's w1 [8192, 2048], frontier.json); multiplier 1.5 of 8192 = 12288;
    100 -> int(200 / 3) = 66 (a multiple of 1), 70 (of 7); no adjusting: as given;
    block_ff_dim 30 (the older name) -> 20 -> 256."""
    base = {"model_type": "lfm2", "hidden_size": 8, "num_attention_heads": 2,
            "num_key_value_heads": 1, "num_hidden_layers": 1, "vocab_size": 10}  # fmt: skip
    for extra, width in (
        ({"intermediate_size": 12288}, 8192),
        ({"intermediate_size": 12288, "block_ffn_dim_multiplier": 1.5}, 12288),
        ({"intermediate_size": 100, "block_multiple_of": 1}, 66),
        ({"intermediate_size": 100, "block_multiple_of": 7}, 70),
        ({"intermediate_size": 100, "block_auto_adjust_ff_dim": False}, 100),
        ({"block_ff_dim": 30}, 256),
    ):
        assert read({**base, **extra}, tmp_path / str(width)).d_ff == width


def test_explicit_conv_kernel_beyond_prompt(tmp_path: Path) -> None:
    """A prompt shorter than the kernel: the cached prefill pads the conv input to K."""
    data = case("lfm2 conv kernel 4, biases, attention in layer 1")
    check_case(data, 1, 2, 1, tmp_path / "a")
    check_case(data, 2, 7, 1, tmp_path / "b")


@pytest.mark.parametrize("label", explicit_cases("test_oracle_hybrid_conv_scan"))
def test_bf16_cache_bytes(label: str, tmp_path: Path) -> None:
    """The cache's bytes in bf16 after a prefill and a decode step (check_bf16_cache)."""
    data = case(label)
    torch.manual_seed(0)
    check_bf16_cache(build(data).eval(), read(data, tmp_path), token_ids(data["vocab_size"], 2, 5))
