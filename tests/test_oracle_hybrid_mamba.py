"""Differential tests: Mamba-2 (SSD) token mixers against `transformers` 5.24.0.

Optional, as every oracle test: without torch and transformers they skip. Without the CUDA
kernels (mamba_ssm, causal_conv1d) transformers runs its torch path: `torch_forward`'s
chunked SSD scan (einsums FlopCounterMode counts as bmm), the depthwise convolution padded by
K - 1 (convolution) and the projections (mm). Each case is a config.json read with
`--hf-config` and built by the class in `architectures`. Checked: parameters, tensor names and
shapes, the FLOPs of a forward pass by op (mm: projections and head; convolution: conv1d; bmm:
the scan), the cache after a prefill (keys and values; conv and SSM states), one decode step
with that cache (the recurrent form), generate(), and a save_pretrained checkpoint through
`verify --checkpoint`.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from conftest import DATA  # noqa: E402
from oracle_cases import EXPLICIT, case, classes  # noqa: E402
from oracle_support import (  # noqa: E402
    check_verifies,
    inventory_names,
    maybe,
    moe_active,
    param_shapes,
    read,
    save,
    split_experts,
    token_ids,
)
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

from ffn_calc.counts.flops import Workload, forward_flops, layer_flops  # noqa: E402
from ffn_calc.counts.inference import (  # noqa: E402
    decode_flops,
    generation_flops,
    kv_elements,
    state_elements,
)
from ffn_calc.counts.params import active_params, stored_buffers, total_params  # noqa: E402
from ffn_calc.families.resolve import resolve_model  # noqa: E402
from ffn_calc.reports.inference import kv_report  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CLASSES = classes("test_oracle_hybrid_mamba")
COVERAGE = json.loads((DATA / "coverage.json").read_text())["cases"]


def build(data: dict[str, Any]) -> Any:
    """The class in `architectures` from these fields: eager attention, eager experts (each
    expert's matmuls over the rows routed to it, FlopCounterMode's count of ffn-calc's MoE)."""
    fields = {k: v for k, v in data.items() if k != "model_type"}
    conf_name, model_name = CLASSES[data["model_type"]]
    conf = getattr(transformers, conf_name)(**fields)
    conf._attn_implementation = "eager"
    conf._experts_implementation = "eager"
    return getattr(transformers, model_name)(conf)


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
    return kv, state


def cache_nbytes(cache: Any) -> int:
    """Bytes of every tensor the cache holds (keys, values, conv and recurrent states, and
    MiniMaxCache's lightning states): the sum of nbytes, each in the dtype it is held in."""
    tensors = []
    for layer in cache.layers:
        tensors += [getattr(layer, name, None) for name in ("keys", "values")]
        for name in ("conv_states", "recurrent_states"):
            tensors += list((getattr(layer, name, None) or {}).values())
    tensors += list(getattr(cache, "linear_cache", []) or [])
    return sum(t.nbytes for t in tensors if isinstance(t, torch.Tensor))


EXPERT = re.compile(r"(.*\.experts)\.(\d+)\.(up_proj|down_proj)\.weight")


def fused(names: dict[str, tuple[int, ...]]) -> dict[str, tuple[int, ...]]:
    """Per-expert checkpoint names (Nemotron-H's experts.{e}.up_proj.weight [f, w]) as the
    class holds them in memory: experts.up_proj [E, f, w] and experts.down_proj [E, w, f]."""
    out, experts = split_experts(names, EXPERT)
    for (prefix, proj), shapes in experts.items():
        assert len(set(shapes)) == 1
        out[f"{prefix}.{proj}"] = (len(shapes), *shapes[0])
    return out


# A MoE block's modules (Nemotron-H) -> the FLOP terms they compute.
MOE_MODULES = {"gate": ("router",), "fc1_latent_proj": ("latent down",),
               "experts": ("experts",), "fc2_latent_proj": ("latent up",),
               "shared_experts": ("shared expert",)}  # fmt: skip


def moe_by_module(model: Any, **inputs: Any) -> dict[str, int]:
    """FlopCounterMode's count of model(**inputs) in the MoE blocks' modules, by module."""
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model(**inputs)
    out = dict.fromkeys(MOE_MODULES, 0)
    for name, ops in counter.get_flop_counts().items():
        module = name.rsplit(".", 1)[-1]
        if module in MOE_MODULES and ".mixer." in name:
            out[module] += int(sum(ops.values()))
    return out


def moe_by_term(cfg: Any, w: Workload) -> dict[str, int]:
    """The MoE layers' FLOP terms, summed per module of MOE_MODULES."""
    terms = [(x.count, t) for x in layer_flops(cfg, w) if x.kind.is_moe for t in x.terms]
    return {
        module: sum(n * t.value for n, t in terms if t.name in names)
        for module, names in MOE_MODULES.items()
    }


def explicit_cases(module: str) -> list[str]:
    """The explicit cases of the families `module` checks."""
    mine = classes(module)
    return [k for k, v in EXPLICIT.items() if v.get("model_type") in mine]


def check_bf16_cache(model: Any, cfg: Any, ids: Any) -> None:
    """The model in bf16: the cache's bytes after a prefill of `ids` and after one decode step
    equal kv --dtype bf16's cache_bytes (transformers keeps the recurrent states in float32,
    the conv states, keys and values in bf16)."""
    model = model.to(torch.bfloat16)
    batch, s = ids.shape
    with torch.no_grad():
        cache = model(input_ids=ids, use_cache=True).past_key_values
        assert cache_nbytes(cache) == kv_report(cfg, batch, s, "bf16").cache_bytes
        model(input_ids=ids[:, -1:], cache=cache, use_cache=True)
        assert cache_nbytes(cache) == kv_report(cfg, batch, s + 1, "bf16").cache_bytes


@pytest.mark.parametrize("label", explicit_cases("test_oracle_hybrid_mamba"))
def test_bf16_cache_bytes(label: str, tmp_path: Path) -> None:
    data = case(label)
    torch.manual_seed(0)
    check_bf16_cache(build(data).eval(), read(data, tmp_path), token_ids(data["vocab_size"], 2, 5))


@st.composite
def config_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny Mamba-2 config.json: heads x head_dim free of expand x hidden_size is not
    allowed by the class (the scan reshapes), so inner = heads x head_dim = expand x hidden."""
    groups = draw(st.sampled_from([1, 2]))
    heads = groups * draw(st.integers(1, 3))
    head_dim = draw(st.sampled_from([2, 4, 8]))
    expand = draw(st.sampled_from([1, 2]))
    inner = heads * head_dim
    hidden = inner // expand if inner % expand == 0 else inner
    expand = inner // hidden
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "num_hidden_layers": draw(st.integers(1, 3)), "hidden_size": hidden, "expand": expand,
        "num_heads": heads, "head_dim": head_dim, "n_groups": groups,
        "state_size": draw(st.integers(1, 8)), "vocab_size": draw(st.integers(8, 100)),
        "chunk_size": draw(st.integers(1, 6)), "bos_token_id": 0, "eos_token_id": 0,
        "pad_token_id": None,
    }  # fmt: skip
    maybe(draw, out, "conv_kernel", draw(st.integers(1, 4)))
    maybe(draw, out, "use_bias", draw(st.booleans()))
    maybe(draw, out, "use_conv_bias", draw(st.booleans()))
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    return out


@st.composite
def nemotron_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny Nemotron-H config.json: a pattern of Mamba-2 (M), attention (*), MLP (-) and
    MoE (E) blocks, as a string or as layers_block_type; the MoE sizes drawn (latent or not,
    the shared MLP's width 0: intermediate_size), routing groups that the router can take
    (each group 2 experts at least: it sums each group's top 2)."""
    pattern = "".join(draw(st.lists(st.sampled_from("M*-E"), min_size=1, max_size=4)))
    if "*" not in pattern:  # with a cache, the class needs an attention layer (get_seq_length)
        pattern += "*"
    heads = draw(st.integers(1, 3))
    groups = draw(st.sampled_from([1, 2]))
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "hidden_size": draw(st.integers(2, 24)), "num_attention_heads": heads,
        "num_key_value_heads": draw(st.sampled_from([k for k in range(1, heads + 1) if heads % k == 0])),
        "head_dim": draw(st.sampled_from([2, 4, 8])), "intermediate_size": draw(st.integers(1, 32)),
        "vocab_size": draw(st.integers(8, 60)), "mamba_num_heads": groups * draw(st.integers(1, 3)),
        "mamba_head_dim": draw(st.sampled_from([2, 4])), "n_groups": groups,
        "ssm_state_size": draw(st.integers(1, 6)), "chunk_size": draw(st.integers(1, 6)),
        "conv_kernel": draw(st.integers(1, 4)),
    }  # fmt: skip
    if draw(st.booleans()):
        out["hybrid_override_pattern"] = pattern
    else:
        names = {"M": "linear_attention", "*": "full_attention", "-": "mlp", "E": "moe"}
        out["layers_block_type"] = [names[c] for c in pattern]
    if "E" in pattern or draw(st.booleans()):  # the MoE sizes (unused without E blocks)
        routing = draw(st.sampled_from([1, 2]))  # routing groups (n_group)
        experts = routing * draw(st.integers(2, 3))
        top = draw(st.integers(1, routing))
        out.update({
            "n_routed_experts": experts, "n_group": routing, "topk_group": top,
            "num_experts_per_tok": draw(st.integers(1, top * experts // routing)),
            "moe_intermediate_size": draw(st.integers(1, 16)),
            "moe_shared_expert_intermediate_size": draw(st.integers(0, 16)),
        })  # fmt: skip
        maybe(draw, out, "moe_latent_size", draw(st.integers(1, 12)))
        maybe(draw, out, "norm_topk_prob", draw(st.booleans()))
        maybe(draw, out, "routed_scaling_factor", draw(st.sampled_from([1.0, 2.5])))
    maybe(draw, out, "mlp_bias", draw(st.booleans()))
    maybe(draw, out, "mamba_proj_bias", draw(st.booleans()))
    maybe(draw, out, "use_bias", draw(st.booleans()))  # the mixer's in_proj / out_proj biases
    maybe(draw, out, "use_conv_bias", draw(st.booleans()))
    # the legacy names, which NemotronHConfig lets win over the fields
    maybe(draw, out, "mamba_conv_bias", draw(st.booleans()))
    maybe(draw, out, "mamba_n_groups", draw(st.sampled_from([1, groups])))
    maybe(draw, out, "mamba_d_conv", draw(st.integers(1, 4)))
    maybe(draw, out, "mamba_chunk_size", draw(st.integers(1, 6)))
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    return out


@st.composite
def granite_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny Granite 4.0-H config.json: Mamba-2 and attention layers (one at least, for the
    cache), experts or the shared MLP alone, mamba_d_head "auto" or given."""
    layers = draw(
        st.lists(st.sampled_from(["linear_attention", "full_attention"]), min_size=1, max_size=3)
    )
    if "full_attention" not in layers:  # with a cache, the class needs an attention layer
        layers.append("full_attention")
    heads, m_heads, expand = (
        draw(st.integers(1, 2)),
        draw(st.integers(1, 3)),
        draw(st.integers(1, 2)),
    )
    hidden = m_heads * draw(st.integers(1, 4))
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "num_hidden_layers": len(layers), "layer_types": layers, "hidden_size": hidden,
        "num_attention_heads": heads, "intermediate_size": draw(st.integers(1, 12)),
        "shared_intermediate_size": draw(st.integers(1, 12)), "vocab_size": draw(st.integers(8, 60)),
        "mamba_n_heads": m_heads, "mamba_expand": expand, "mamba_d_state": draw(st.integers(1, 5)),
        "mamba_chunk_size": draw(st.integers(1, 5)), "mamba_d_conv": draw(st.integers(1, 4)),
        "num_local_experts": draw(st.sampled_from([0, 2, 3])), "num_experts_per_tok": 1,
    }  # fmt: skip
    if heads > 1 and hidden % heads:
        out["hidden_size"] = hidden * heads
    if draw(st.booleans()):
        out["mamba_d_head"] = expand * out["hidden_size"] // m_heads
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    maybe(draw, out, "mamba_proj_bias", draw(st.booleans()))
    # "nope", as Granite 4.0-H ships (the class default). With "rope", the class's rotary
    # embedding runs a bmm (inv_freq x positions, 2 x B x S x head_dim / 2 FLOPs) that
    # FlopCounterMode counts and ffn-calc's convention does not: a known gap.
    maybe(draw, out, "position_embedding_type", "nope")
    return out


@st.composite
def falcon_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny Falcon-H1 config.json, the flags drawn; an even attention head_dim (rotary)."""
    heads = draw(st.integers(1, 3))
    m_heads, head = draw(st.integers(1, 3)), draw(st.sampled_from([2, 4]))
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "num_hidden_layers": draw(st.integers(1, 2)), "hidden_size": heads * draw(st.sampled_from([2, 4])),
        "num_attention_heads": heads, "num_key_value_heads": heads,
        "intermediate_size": draw(st.integers(1, 16)), "vocab_size": draw(st.integers(8, 50)),
        "mamba_n_heads": m_heads, "mamba_d_ssm": m_heads * head,
        "mamba_d_state": draw(st.integers(1, 5)), "mamba_chunk_size": draw(st.integers(1, 5)),
        "mamba_d_conv": draw(st.integers(1, 4)),
    }  # fmt: skip
    for key in ("mamba_rms_norm", "mamba_proj_bias", "projectors_bias", "tie_word_embeddings",
                "attention_bias", "mlp_bias", "mamba_conv_bias"):  # fmt: skip
        maybe(draw, out, key, draw(st.booleans()))
    return out


@st.composite
def bamba_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny Bamba config.json: Mamba-2 layers and attention at attn_layer_indices (one at
    least, for the cache; an index past the last layer drawn too), mamba_d_head "auto" or
    given, GQA, head_dim given or hidden_size / heads, the biases drawn."""
    layers, heads = draw(st.integers(1, 3)), draw(st.sampled_from([1, 2, 4]))
    kv = draw(st.sampled_from([k for k in range(1, heads + 1) if heads % k == 0]))
    m_heads, expand = draw(st.integers(1, 3)), draw(st.integers(1, 2))
    hidden = 2 * heads * m_heads * draw(st.integers(1, 2))  # rotary: an even head_dim
    attends = draw(st.lists(st.integers(0, layers), min_size=1, max_size=2))
    if not any(i < layers for i in attends):
        attends.append(layers - 1)
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "num_hidden_layers": layers, "hidden_size": hidden, "num_attention_heads": heads,
        "num_key_value_heads": kv, "intermediate_size": draw(st.integers(1, 12)),
        "vocab_size": draw(st.integers(8, 60)), "attn_layer_indices": attends,
        "mamba_n_heads": m_heads, "mamba_expand": expand,
        "mamba_n_groups": draw(st.sampled_from([g for g in (1, 2) if m_heads % g == 0])),
        "mamba_d_state": draw(st.integers(1, 5)), "mamba_chunk_size": draw(st.integers(1, 5)),
        "mamba_d_conv": draw(st.integers(1, 4)),
    }  # fmt: skip
    if draw(st.booleans()):
        out["mamba_d_head"] = expand * hidden // m_heads
    if draw(st.booleans()):
        out["head_dim"] = 2 * draw(st.integers(1, 4))
    for key in ("tie_word_embeddings", "attention_bias", "mlp_bias", "mamba_proj_bias",
                "mamba_conv_bias"):  # fmt: skip
        maybe(draw, out, key, draw(st.booleans()))
    return out


@st.composite
def zamba2_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny Zamba2 config.json: Mamba-2 and hybrid layers (one hybrid at least, for the
    cache), one to three shared blocks used in turn, the adapters on or off (on: every head its
    own keys and values, heads dividing 2 x hidden_size), GQA otherwise, rotary drawn."""
    types = draw(
        st.lists(st.sampled_from(["linear_attention", "mamba", "hybrid"]), min_size=1, max_size=4)
    )
    if "hybrid" not in types:
        types.append("hybrid")
    adapters = draw(st.booleans())
    heads = draw(st.sampled_from([1, 2, 4]))
    kv = (
        heads
        if adapters
        else draw(st.sampled_from([k for k in (1, 2, 4) if k <= heads and heads % k == 0]))
    )
    m_heads, expand = draw(st.integers(1, 3)), draw(st.integers(1, 2))
    hidden = heads * m_heads * draw(st.integers(1, 2))  # rotary: 2 x hidden / heads is even
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "num_hidden_layers": len(types), "layers_block_type": types, "hidden_size": hidden,
        "num_attention_heads": heads, "num_key_value_heads": kv,
        "intermediate_size": draw(st.integers(1, 12)), "vocab_size": draw(st.integers(8, 60)),
        "n_mamba_heads": m_heads, "mamba_expand": expand,
        "mamba_ngroups": draw(st.sampled_from([g for g in (1, 2) if m_heads % g == 0])),
        "mamba_d_state": draw(st.integers(1, 5)), "chunk_size": draw(st.integers(1, 5)),
        "mamba_d_conv": draw(st.integers(1, 4)), "num_mem_blocks": draw(st.integers(1, 3)),
        "use_shared_attention_adapter": adapters, "adapter_rank": draw(st.integers(1, 4)),
        "max_position_embeddings": 64, "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None,
    }  # fmt: skip
    for key in ("tie_word_embeddings", "add_bias_linear", "use_mem_rope", "use_conv_bias"):
        maybe(draw, out, key, draw(st.booleans()))
    return out


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    by_family = {"nemotron_h": nemotron_jsons, "granitemoehybrid": granite_jsons,
                 "falcon_h1": falcon_jsons, "bamba": bamba_jsons,
                 "zamba2": zamba2_jsons}  # fmt: skip
    return by_family.get(family, config_jsons)(family)


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    torch.manual_seed(0)
    cfg = read(data, tmp)
    model = build(data).eval()
    # (a) parameters, total and active, (b) names and shapes (Nemotron-H's experts fused)
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg)
    nemotron_moe = data["model_type"] == "nemotron_h" and cfg.is_moe
    if nemotron_moe:
        assert moe_active(model) == active_params(cfg)
    assert param_shapes(model) == fused(inventory_names(cfg))
    assert {n: tuple(b.shape) for n, b in model.named_buffers() if "e_score" in n} == {
        n.replace("weight", "e_score_correction_bias"): (s[0],)
        for n, s in inventory_names(cfg).items()
        if n.endswith("mixer.gate.weight")
    }  # the router's score bias: a buffer of [n_experts] in each MoE block
    # (c) FLOPs by op: the terms' sums per kind of op; a MoE block's by module, term by term
    ids = token_ids(data["vocab_size"], batch, s)
    ops = by_op(model, input_ids=ids, use_cache=False)
    w = Workload(batch=batch, seq_len=s)
    if nemotron_moe:
        assert moe_by_module(model, input_ids=ids, use_cache=False) == moe_by_term(cfg, w)
    terms = [(x.count, t) for x in layer_flops(cfg, w) for t in x.terms]
    conv = sum(n * t.value for n, t in terms if t.name == "conv1d")
    # bmm: the scan's einsums and, in attention layers, the eager scores (QK^T, AV)
    scan = sum(
        n * t.value for n, t in terms if t.name.startswith("SSD") or t.group == "attention_scores"
    )
    assert ops.get("convolution", 0) == conv
    assert ops.get("bmm", 0) == scan
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
    assert total_params(resolve_model(hf_config=ckpt)) == total_params(cfg)
    check_verifies(ckpt, cfg)


def test_codestral_sizes_in_terms(tmp_path: Path) -> None:
    """Mamba-Codestral-7B (Mamba2Config defaults): one layer's 109,640,064 parameters as
    frontier.json's breakdown gives them (in_proj [18560, 4096], conv1d [10240, 1, 4] + bias,
    3 x [128], norm [8192], out_proj [4096, 8192], the block norm [4096])."""
    cfg = read({"model_type": "mamba2", "time_step_limit": [0.0, float("inf")]}, tmp_path)
    assert total_params(cfg) == 7_285_403_648  # frontier.json, Mamba2ForCausalLM (meta)
    assert cfg.mamba2 is not None and cfg.mamba2.in_width == 18560


def test_explicit_chunk_boundaries(tmp_path: Path) -> None:
    """S a multiple of the chunk and one past it (the scan pads to whole chunks)."""
    data = case("mamba2 chunk 4, kernel 3, 2 groups")
    check_case(data, 2, 8, 1, tmp_path / "a")
    check_case(data, 1, 9, 1, tmp_path / "b")


# Nemotron 3 at real size (tests/data/coverage.json): total, active, buffers (MoE blocks x E).
NEMOTRON_3 = {
    "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16": (31_577_937_344, 3_580_073_408, 23 * 128),
    "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16": (120_668_687_360, 12_770_216_960, 40 * 512),
}


@pytest.mark.parametrize("name", sorted(NEMOTRON_3))
def test_nemotron_3_real_size(name: str, tmp_path: Path) -> None:
    """Nemotron 3 Nano and Super (its experts at a latent width) on the meta device: total and
    active parameters, every name and shape (experts fused), the routers' score-bias buffers;
    no multi-token-prediction layer is built."""
    golden = next(c for c in COVERAGE if c["name"] == name)
    data = golden["hf_config"]
    cfg = read(data, tmp_path)
    conf = transformers.NemotronHConfig.from_dict(data)
    with torch.device("meta"):
        model = transformers.NemotronHForCausalLM(conf)
    total, active, buffers = NEMOTRON_3[name]
    # Golden: coverage.json total_params and active_params (transformers 5.24.0, meta device).
    assert golden["total_params"] == total and golden["active_params"] == active
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg) == total
    assert moe_active(model) == active_params(cfg) == active
    assert param_shapes(model) == fused(inventory_names(cfg))
    held = sum(b.numel() for n, b in model.named_buffers() if "e_score" in n)
    assert held == stored_buffers(cfg) == buffers  # coverage.json buffers_note
    assert not any(n.startswith("mtp") for n, _ in model.named_parameters())
