"""Differential tests: gated DeltaNet token mixers (Qwen3-Next) against `transformers` 5.24.0.

Optional, as every oracle test: without torch and transformers they skip. Without the fla and
causal_conv1d kernels transformers runs its torch path: the chunked gated delta rule
(torch_chunk_gated_delta_rule: matmuls FlopCounterMode counts as bmm, in chunks of 64; its
triangular solve counts 0), the depthwise convolution padded by K - 1 (convolution), the
projections (mm); one decode step runs the recurrent rule (elementwise: 0 FLOPs). Each case is
a config.json read with `--hf-config` and built by the class in `architectures`, with eager
attention and eager experts. Checked: parameters (total and active), tensor names and shapes
(in memory, experts fused; in the checkpoint, experts one by one), the FLOPs of a forward
pass by op (convolution: conv1d; bmm: the delta rule and the attention scores), the cache
after a prefill (keys and values; conv and recurrent states) and after one decode step, the
decode step's FLOPs, generate(), and a save_pretrained checkpoint through
`verify --checkpoint`.
"""

from __future__ import annotations

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
    read,
    save,
    token_ids,
)
from test_oracle_hybrid_mamba import (  # noqa: E402
    _states,
    by_op,
    check_bf16_cache,
    explicit_cases,
)
from test_oracle_moe_qwen_olmoe import fused  # noqa: E402
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

CLASSES = classes("test_oracle_hybrid_linear")


def build(data: dict[str, Any]) -> Any:
    """The class in `architectures` with eager attention and eager experts (top-k dispatch)."""
    conf_name, model_name = CLASSES[data["model_type"]]
    conf = getattr(transformers, conf_name)(**{k: v for k, v in data.items() if k != "model_type"})
    conf._attn_implementation = "eager"
    conf._experts_implementation = "eager"
    return getattr(transformers, model_name)(conf)


@st.composite
def config_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny Qwen3-Next config.json: <= 4 layers (layer_types drawn, or the interval),
    key heads dividing value heads, GQA, <= 4 experts, MLP-only layers, sparse step."""
    layers = draw(st.integers(1, 4))
    heads = draw(st.sampled_from([1, 2, 4]))
    kv = draw(st.sampled_from([k for k in range(1, heads + 1) if heads % k == 0]))
    key_heads = draw(st.sampled_from([1, 2]))
    experts = draw(st.integers(1, 4))
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "num_hidden_layers": layers, "hidden_size": 2 * draw(st.integers(2, 16)),
        "num_attention_heads": heads, "num_key_value_heads": kv,
        "head_dim": draw(st.sampled_from([4, 8])),
        "linear_num_key_heads": key_heads,
        "linear_num_value_heads": key_heads * draw(st.integers(1, 2)),
        "linear_key_head_dim": draw(st.sampled_from([1, 2, 4, 8])),
        "linear_value_head_dim": draw(st.sampled_from([2, 3, 4])),
        "linear_conv_kernel_dim": draw(st.integers(1, 4)),
        "intermediate_size": draw(st.integers(1, 24)),
        "moe_intermediate_size": draw(st.integers(1, 16)),
        "shared_expert_intermediate_size": draw(st.integers(1, 16)),
        "num_experts": experts, "num_experts_per_tok": draw(st.integers(1, experts)),
        "vocab_size": draw(st.integers(8, 100)), "max_position_embeddings": 256,
        "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None,
    }  # fmt: skip
    # At least one attention layer: transformers' cache of linear layers alone cannot decode
    # (get_seq_length asks an attention layer), and the real models all have some.
    if draw(st.booleans()):
        kinds = ["linear_attention", "full_attention"]
        types = draw(st.lists(st.sampled_from(kinds), min_size=layers, max_size=layers))
        if "full_attention" not in types:
            types = [*types[:-1], "full_attention"]
        out["layer_types"] = types
    elif layers >= 4:
        maybe(draw, out, "full_attention_interval", draw(st.integers(1, layers)))
    else:
        out["full_attention_interval"] = draw(st.integers(1, layers))
    maybe(draw, out, "attention_bias", draw(st.booleans()))
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    maybe(draw, out, "decoder_sparse_step", draw(st.integers(1, 2)))
    maybe(draw, out, "mlp_only_layers", draw(st.lists(st.integers(0, 3), max_size=2)))
    return out


@st.composite
def kimi_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny Kimi Linear config.json: <= 4 layers (layer_types drawn, at least one MLA
    layer), MLA with or without q_lora_rank, dense and sparse FFNs, <= 4 experts."""
    layers = draw(st.integers(1, 4))
    kinds = draw(st.lists(st.sampled_from(["linear_attention", "full_attention"]),
                          min_size=layers, max_size=layers))  # fmt: skip
    if "full_attention" not in kinds:
        kinds = [*kinds[:-1], "full_attention"]
    experts, heads = draw(st.integers(2, 4)), draw(st.sampled_from([1, 2, 4]))
    # num_key_value_heads = heads: the class repeats MLA's K/V heads heads // kv times.
    # At least 2 experts: the router's group scores take the top 2 of each group.
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "num_hidden_layers": layers, "layer_types": kinds,
        "hidden_size": 2 * draw(st.integers(2, 16)),
        "num_attention_heads": heads, "num_key_value_heads": heads,
        "kv_lora_rank": draw(st.integers(1, 8)), "qk_rope_head_dim": 2 * draw(st.integers(1, 2)),
        "qk_nope_head_dim": draw(st.integers(1, 6)), "v_head_dim": draw(st.integers(1, 6)),
        "linear_num_heads": draw(st.integers(1, 3)), "linear_head_dim": draw(st.integers(1, 6)),
        "linear_conv_kernel_dim": draw(st.integers(1, 4)),
        "intermediate_size": draw(st.integers(1, 24)),
        "moe_intermediate_size": draw(st.integers(1, 16)),
        "num_experts": experts, "num_experts_per_token": draw(st.integers(1, experts)),
        "vocab_size": draw(st.integers(8, 100)), "bos_token_id": 0, "eos_token_id": 0,
        "pad_token_id": None,
    }  # fmt: skip
    kinds_ffn = ["dense", "sparse"]
    if draw(st.booleans()):
        out["mlp_layer_types"] = draw(st.lists(st.sampled_from(kinds_ffn), min_size=layers,
                                               max_size=layers))  # fmt: skip
    else:
        maybe(draw, out, "first_k_dense_replace", draw(st.integers(0, 2)))
    maybe(draw, out, "q_lora_rank", draw(st.integers(1, 8)))
    maybe(draw, out, "num_shared_experts", draw(st.integers(1, 2)))  # 0: empty tensors
    maybe(draw, out, "attention_bias", draw(st.booleans()))
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    return out


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    return kimi_jsons(family) if family == "kimi_linear" else config_jsons(family)


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    torch.manual_seed(0)
    cfg = read(data, tmp)
    model = build(data).eval()
    # (a) parameters, total and active; (b) names and shapes in memory (experts fused)
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg)
    assert moe_active(model) == active_params(cfg)
    if data["model_type"] == "qwen3_next":  # Kimi Linear's stored names: the checkpoint's
        names = {n: tuple(p.shape) for n, p in model.named_parameters()}
        assert names == fused(inventory_names(cfg))
    # (c) FLOPs by op: the terms' sums per kind of op
    ids = token_ids(data["vocab_size"], batch, s)
    ops = by_op(model, input_ids=ids, use_cache=False)
    w = Workload(batch=batch, seq_len=s)
    terms = [(x.count, t) for x in layer_flops(cfg, w) for t in x.terms]
    conv = sum(n * t.value for n, t in terms if t.name == "conv1d")
    scan = sum(n * t.value for n, t in terms if t.name.startswith(("delta rule", "KDA")))
    scores = sum(n * t.value for n, t in terms if t.group == "attention_scores")
    assert ops.get("convolution", 0) == conv
    assert ops.get("bmm", 0) == scan + scores
    assert sum(ops.values()) == forward_flops(cfg, w)
    # (d) the cache after a prefill, (e) one decode step with it (the recurrent form)
    with torch.no_grad():
        cache = model(input_ids=ids, use_cache=True).past_key_values
        assert _states(cache) == (kv_elements(cfg, batch, s), state_elements(cfg, batch))
        step = by_op(model, input_ids=ids[:, -1:], cache=cache, use_cache=True)
        assert sum(step.values()) == decode_flops(cfg, batch, s)
        assert _states(cache) == (kv_elements(cfg, batch, s + 1), state_elements(cfg, batch))
    # (f) generate(): the prefill (head on the last position, the conv input padded to K)
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=3,
                       min_new_tokens=3, do_sample=False, num_beams=1)  # fmt: skip
    assert int(counter.get_total_flops()) == generation_flops(cfg, batch, s, 3)
    # (g) the checkpoint save_pretrained writes (experts one by one), through verify
    ckpt = save(model, tmp / "ckpt")
    # (the router's score bias is a buffer: stored, not a parameter; verify reports it)
    stored = {k: v for k, v in header(ckpt).items() if not k.endswith("e_score_correction_bias")}
    assert stored == inventory_names(cfg)
    again = resolve_model(hf_config=ckpt)
    assert (total_params(again), active_params(again)) == (total_params(cfg), active_params(cfg))
    check_verifies(ckpt, cfg)


def test_chunk_boundaries(tmp_path: Path) -> None:
    """S at the delta rule's chunk (64), one past it (two chunks), and below the kernel."""
    data = case("qwen3_next two key heads, four value heads, MLP-only layer")
    check_case(data, 1, 64, 1, tmp_path / "a")
    check_case(data, 2, 65, 1, tmp_path / "b")
    check_case(data, 1, 2, 1, tmp_path / "c")


def test_gated_q_proj(tmp_path: Path) -> None:
    """Gated attention: q_proj [2 x n_heads x head_dim, d_model] (half an output gate)."""
    data = case("qwen3_next two key heads, four value heads, MLP-only layer")
    cfg = read(data, tmp_path)
    names = inventory_names(cfg)
    q = names["model.layers.3.self_attn.q_proj.weight"]
    assert q == (2 * data["num_attention_heads"] * data["head_dim"], data["hidden_size"])


@pytest.mark.parametrize("label", explicit_cases("test_oracle_hybrid_linear"))
def test_bf16_cache_bytes(label: str, tmp_path: Path) -> None:
    """The cache's bytes in bf16 after a prefill and a decode step (check_bf16_cache)."""
    data = case(label)
    torch.manual_seed(0)
    check_bf16_cache(build(data).eval(), read(data, tmp_path), token_ids(data["vocab_size"], 2, 5))
