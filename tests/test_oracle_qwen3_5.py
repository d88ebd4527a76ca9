"""Differential tests: Qwen3.5 and Qwen3.5-MoE (the image-text wrappers and their text models)
against `transformers` 5.24.0.

Optional, as every oracle test: without torch and transformers they skip. Without the fla and
causal_conv1d kernels transformers runs the gated DeltaNet's torch path (the chunked delta
rule's matmuls as bmm in chunks of 64, its triangular solve 0 FLOPs; the depthwise
convolution; the four input projections as mm); one decode step runs the recurrent rule
(elementwise: 0 FLOPs). Each case is a config.json read with `--hf-config` and built by the
class in `architectures` (Qwen3_5ForConditionalGeneration, Qwen3_5MoeForConditionalGeneration,
Qwen3_5ForCausalLM, Qwen3_5MoeForCausalLM), with eager attention and eager experts. Checked:
parameters (total, active; a wrapper's language model), tensor names and shapes in memory
(experts fused) and in the checkpoint (experts one by one), the FLOPs of a text-only forward
by op (convolution, bmm: the delta rule and the attention scores), the cache after a prefill
(keys and values; conv and recurrent states) and after one decode step, the decode step's
FLOPs, generate(), for a wrapper the FLOPs of forwards with images (`flops --images`), and a
save_pretrained checkpoint through `verify --checkpoint`.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from conftest import DATA, run  # noqa: E402
from oracle_cases import case, classes  # noqa: E402
from oracle_support import (  # noqa: E402
    check_verifies,
    header,
    inventory_names,
    maybe,
    param_shapes,
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
from test_oracle_qwen_vl import SPECIAL, check_images  # noqa: E402
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
from ffn_calc.model.config import ModelConfig  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CLASSES = classes("test_oracle_qwen3_5")
WRAPPERS = ("qwen3_5", "qwen3_5_moe")
MOE = ("qwen3_5_moe", "qwen3_5_moe_text")


def build(data: dict[str, Any], device: str = "cpu") -> Any:
    """The class in `architectures` with eager attention (the wrapper's and every
    sub-config's) and eager experts (top-k dispatch)."""
    conf_name, model_name = CLASSES[data["model_type"]]
    fields = {k: v for k, v in data.items() if k not in ("model_type", "architectures")}
    conf = getattr(transformers, conf_name)(**fields)
    subs = [getattr(conf, key, None) for key in ("text_config", "vision_config")]
    for c in [conf, *(s for s in subs if s is not None)]:
        c._attn_implementation = "eager"
        c._experts_implementation = "eager"
    with torch.device(device):
        return getattr(transformers, model_name)(conf)


def text_of(data: dict[str, Any]) -> dict[str, Any]:
    """The language model's fields: a wrapper's text_config (absent: the class defaults)."""
    if data["model_type"] in WRAPPERS:
        return data.get("text_config") or {}
    return data


def layers_of(model: Any) -> Any:
    inner = model.model
    return inner.language_model.layers if hasattr(inner, "language_model") else inner.layers


def moe_active(model: Any) -> int:
    """The total less, in every MoE layer, (experts - top-k) x one expert, from the model."""
    out = sum(p.numel() for p in model.parameters())
    top_k = getattr(model.config.get_text_config(), "num_experts_per_tok", 0)
    for layer in layers_of(model):
        experts = getattr(layer.mlp, "experts", None)
        if experts is not None:
            one = experts.gate_up_proj[0].numel() + experts.down_proj[0].numel()
            out -= (experts.num_experts - top_k) * one
    return int(out)


# --- random small config.json files per family ----------------------------------------------


@st.composite
def text_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny Qwen3.5 text config: <= 4 layers (layer_types drawn, or the interval, at least
    one attention layer), key heads dividing value heads, GQA, a dense MLP or <= 4 experts."""
    layers = draw(st.integers(1, 4))
    heads = draw(st.sampled_from([1, 2, 4]))
    kv = draw(st.sampled_from([k for k in range(1, heads + 1) if heads % k == 0]))
    key_heads = draw(st.sampled_from([1, 2]))
    head_dim = draw(st.sampled_from([4, 8]))
    out: dict[str, Any] = {
        "num_hidden_layers": layers, "hidden_size": 2 * draw(st.integers(2, 16)),
        "num_attention_heads": heads, "num_key_value_heads": kv, "head_dim": head_dim,
        "linear_num_key_heads": key_heads,
        "linear_num_value_heads": key_heads * draw(st.integers(1, 2)),
        "linear_key_head_dim": draw(st.sampled_from([1, 2, 4, 8])),
        "linear_value_head_dim": draw(st.sampled_from([2, 3, 4])),
        "linear_conv_kernel_dim": draw(st.integers(1, 4)),
        "vocab_size": draw(st.integers(12, 100)), "max_position_embeddings": 256,
        "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None,
    }  # fmt: skip
    if family in MOE:
        experts = draw(st.integers(1, 4))
        out |= {"num_experts": experts, "num_experts_per_tok": draw(st.integers(1, experts)),
                "moe_intermediate_size": draw(st.integers(1, 16)),
                "shared_expert_intermediate_size": draw(st.integers(1, 16))}  # fmt: skip
    else:
        out["intermediate_size"] = draw(st.integers(1, 24))
    # At least one attention layer: transformers' cache of linear layers alone cannot decode.
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
    if family in WRAPPERS:  # the text rotary of the wrappers: mrope sections over head_dim / 2
        quarter = head_dim // 4  # partial_rotary_factor 0.25: head_dim / 4 rotary channels
        half = max(quarter // 2, 1)
        out["rope_parameters"] = {"rope_type": "default", "rope_theta": 10000.0,
                                  "partial_rotary_factor": 0.25,
                                  "mrope_section": [half, 0, 0], "mrope_interleaved": True}  # fmt: skip
    maybe(draw, out, "attention_bias", draw(st.booleans()))
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    return out


@st.composite
def vision_jsons(draw: Any, out_hidden: int) -> dict[str, Any]:
    """A tiny vision_config: width <= 16, 1 or 2 blocks, patches of 2 to 4 pixels."""
    heads = draw(st.sampled_from([1, 2]))
    out: dict[str, Any] = {
        "depth": draw(st.integers(1, 2)), "num_heads": heads,
        "hidden_size": heads * draw(st.sampled_from([4, 8])),  # 2-D rotary: head_dim % 4 == 0
        "intermediate_size": draw(st.integers(1, 24)), "patch_size": draw(st.integers(2, 4)),
        "spatial_merge_size": draw(st.integers(1, 2)),
        "temporal_patch_size": draw(st.integers(1, 2)), "in_channels": draw(st.integers(1, 3)),
        "num_position_embeddings": draw(st.sampled_from([4, 9, 16])),
        "out_hidden_size": out_hidden,
    }  # fmt: skip
    maybe(draw, out, "hidden_act", draw(st.sampled_from(["gelu_pytorch_tanh", "gelu"])))
    return out


@st.composite
def config_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny config.json of the family: a wrapper's text_config, vision_config and special
    tokens at the top of the vocabulary, or a text model's fields at the top level."""
    text = draw(text_jsons(family))
    head = {"model_type": family, "architectures": [CLASSES[family][1]]}
    if family not in WRAPPERS:
        return {**head, **text}
    vocab = text["vocab_size"]
    out: dict[str, Any] = {
        **head, **{key: vocab - 1 - i for i, key in enumerate(SPECIAL)},
        "text_config": text, "vision_config": draw(vision_jsons(text["hidden_size"])),
    }  # fmt: skip
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    return out


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """The harness's random configs (tests/test_oracle_cases.py)."""
    return config_jsons(family)


# --- one case ---------------------------------------------------------------------------------


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """One case through the harness (tests/test_oracle_cases.py)."""
    torch.manual_seed(0)
    cfg = read(data, tmp)
    model = build(data).eval()
    wrapper = data["model_type"] in WRAPPERS
    # (a) parameters, total and active (and a wrapper's language model)
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg)
    assert moe_active(model) == active_params(cfg)
    if wrapper:
        language = sum(
            p.numel() for n, p in model.named_parameters()
            if ".language_model." in n or n.startswith("lm_head")
        )  # fmt: skip
        params = run("params", "--hf-config", str(tmp / "config.json"), "-f", "json").json()
        assert params["language_model_params"] == language
    # (b) names and shapes in memory (experts fused)
    assert param_shapes(model) == fused(inventory_names(cfg))
    # (c) FLOPs of a text-only forward by op: the terms' sums per kind of op
    vocab = text_of(data).get("vocab_size", 248320) - (len(SPECIAL) if wrapper else 0)
    ids = token_ids(vocab, batch, s)
    ops = by_op(model, input_ids=ids, use_cache=False)
    w = Workload(batch=batch, seq_len=s)
    terms = [(x.count, t) for x in layer_flops(cfg, w) for t in x.terms]
    conv = sum(n * t.value for n, t in terms if t.name == "conv1d")
    scan = sum(n * t.value for n, t in terms if t.name.startswith("delta rule"))
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
    # (g) a wrapper with images: the tower, the merger, the language model over every token
    if wrapper:
        check_with_images(model, cfg, tmp)
    # (h) the checkpoint save_pretrained writes (experts one by one), through verify
    ckpt = save(model, tmp / "ckpt")
    assert header(ckpt) == inventory_names(cfg)
    again = resolve_model(hf_config=ckpt)
    assert (total_params(again), active_params(again)) == (total_params(cfg), active_params(cfg))
    check_verifies(ckpt, cfg)


def check_with_images(model: Any, cfg: ModelConfig, tmp: Path) -> None:
    grid = cfg.towers[0].grid
    assert grid is not None
    for images, a, b in ((1, 1, 1), (2, 2, 3)):
        check_images(model, cfg, images, grid.multiple * a, grid.multiple * b, 3, tmp)


# --- the family's own tests -------------------------------------------------------------------

LABEL = "qwen3_5 text_config by interval, untied, two value heads per key head"


def test_split_projections_names_and_widths(tmp_path: Path) -> None:
    """Qwen3_5GatedDeltaNet: in_proj_qkv [2 key_dim + value_dim, d], in_proj_z [value_dim, d],
    in_proj_b and in_proj_a [value heads, d]; no in_proj_qkvz / in_proj_ba."""
    data = case(LABEL)
    names = inventory_names(read(data, tmp_path))
    t = data["text_config"]
    d, kd = t["hidden_size"], t["linear_num_key_heads"] * t["linear_key_head_dim"]
    hv = t["linear_num_value_heads"]
    vd = hv * t["linear_value_head_dim"]
    x = "model.language_model.layers.0.linear_attn."
    assert names[x + "in_proj_qkv.weight"] == (2 * kd + vd, d)
    assert names[x + "in_proj_z.weight"] == (vd, d)
    assert names[x + "in_proj_b.weight"] == names[x + "in_proj_a.weight"] == (hv, d)
    assert not any("in_proj_qkvz" in n or "in_proj_ba" in n for n in names)
    assert not any("deepstack" in n for n in names)


def test_flops_terms_name_the_four_projections(tmp_path: Path) -> None:
    """`flops` lists Qwen3.5's four projections, whose sum is Qwen3-Next's two."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps(case(LABEL)))
    r = run("flops", "--hf-config", str(path), "-s", "4", "-f", "json")
    assert r.exit_code == 0, r.stderr
    text = r.stdout
    for name in ("in_proj_qkv", "in_proj_z", "in_proj_b", "in_proj_a"):
        assert f'"{name}"' in text
    assert "in_proj_qkvz" not in text and "in_proj_ba" not in text


# --- the real-size configs on the meta device: names and parameters ---------------------------

FRONTIER = {c["name"]: c for c in json.loads((DATA / "frontier.json").read_text())["cases"]}
REAL = {"Qwen/Qwen3.5-27B": "qwen3.5-27b", "Qwen/Qwen3.5-35B-A3B": "qwen3.5-35b-a3b"}


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_size_names(name: str, tmp_path: Path) -> None:
    data = FRONTIER[name]["hf_config"]
    model = build(data, "meta")
    names = param_shapes(model)
    # Golden: frontier.json total_params (transformers 5.24.0, meta device).
    assert sum(p.numel() for p in model.parameters()) == FRONTIER[name]["total_params"]
    for cfg in (read(data, tmp_path), resolve_model(preset=REAL[name])):
        assert total_params(cfg) == FRONTIER[name]["total_params"]
        assert names == fused(inventory_names(cfg))


@pytest.mark.parametrize("label", explicit_cases("test_oracle_qwen3_5"))
def test_bf16_cache_bytes(label: str, tmp_path: Path) -> None:
    """The cache's bytes in bf16 after a text-only prefill and a decode step (check_bf16_cache)."""
    data = case(label)
    torch.manual_seed(0)
    wrapper = data["model_type"] in WRAPPERS
    vocab = text_of(data).get("vocab_size", 248320) - (len(SPECIAL) if wrapper else 0)
    check_bf16_cache(build(data).eval(), read(data, tmp_path), token_ids(vocab, 2, 5))
