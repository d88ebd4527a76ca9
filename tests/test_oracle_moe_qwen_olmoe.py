"""Differential tests: Qwen2-MoE, Qwen3-MoE and OLMoE against `transformers`.

Optional, as tests/test_torch_oracle.py: they need torch and transformers and skip cleanly
without them. Each case is a config.json (some fields absent, so the class defaults apply);
ffn-calc reads it with `--hf-config`, transformers builds the class named in `architectures`
from the same fields. Parameters come from `parameters()`; active parameters from the total
less (experts - top-k) x one expert's slice of the fused tensors in every MoE layer; FLOPs from
`torch.utils.flop_counter.FlopCounterMode` over a real CPU forward with eager attention and
eager experts (the default `grouped_mm` experts hide their matmuls from the counter). transformers
keeps the experts fused in memory while checkpoints store them per expert, so names and shapes
are compared twice: the file header `save_pretrained` writes against ffn-calc's inventory, and
`named_parameters()` against the inventory with each layer's experts folded into the fused
tensors.

The family's random tiny configs (`configs`) and the check of one case (`check_case`) run in
the one harness, tests/test_oracle_cases.py, over the cases in tests/oracle_cases.py (random
draws and explicit variants); this module holds them and the family's own tests.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from conftest import DATA, run  # noqa: E402
from oracle_cases import EXPLICIT, case, classes  # noqa: E402
from oracle_support import (  # noqa: E402
    check_cache,
    counted_flops,
    header,
    inventory_names,
    maybe,
    moe_active,
    read,
    split_experts,
    token_ids,
)
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

from ffn_calc.counts.flops import Workload, forward_flops  # noqa: E402
from ffn_calc.counts.params import active_params, total_params  # noqa: E402
from ffn_calc.families.resolve import resolve_model  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CLASSES = classes("test_oracle_moe_qwen_olmoe")
FAMILIES = sorted(CLASSES)
# The configuration classes' num_key_value_heads for an absent field (None: the head count).
KV_DEFAULT = {"qwen2_moe": 16, "qwen3_moe": 4, "olmoe": None}
# The field that holds the routed experts' width (OLMoE's experts use intermediate_size).
EXPERT_WIDTH = {"qwen2_moe": "moe_intermediate_size", "qwen3_moe": "moe_intermediate_size",
                "olmoe": "intermediate_size"}  # fmt: skip


def build(data: dict[str, Any], device: str = "cpu", experts: str | None = "eager") -> Any:
    """The class named in `architectures`, built by transformers from the config.json fields,
    with eager attention and (by default) eager experts: the top-k dispatch."""
    conf_name, model_name = CLASSES[data["model_type"]]
    fields = {k: v for k, v in data.items() if k != "model_type"}
    conf = getattr(transformers, conf_name)(**fields)
    conf._attn_implementation = "eager"
    if experts is not None:  # None: transformers' default
        conf._experts_implementation = experts
    with torch.device(device):
        return getattr(transformers, model_name)(conf)


EXPERT = re.compile(r"(.*\.mlp\.experts)\.(\d+)\.(gate_proj|up_proj|down_proj)\.weight")


def fused(names: dict[str, tuple[int, ...]]) -> dict[str, tuple[int, ...]]:
    """Per-expert checkpoint names folded as transformers holds them in memory: gate and up
    stacked into gate_up_proj [E, 2 f, d], down_proj [E, d, f]."""
    out, experts = split_experts(names, EXPERT)
    for (prefix, proj), shapes in experts.items():
        (f, d), e = shapes[0], len(shapes)
        assert all(s == (f, d) for s in shapes)
        if proj == "down_proj":
            out[f"{prefix}.down_proj"] = (e, f, d)
        elif proj == "gate_proj":
            assert experts[(prefix, "up_proj")] == shapes
            out[f"{prefix}.gate_up_proj"] = (e, 2 * f, d)
    return out


# --- random small config.json files per family ----------------------------------------------


@st.composite
def config_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny config.json: d_model <= 64, <= 3 layers, vocab <= 100, <= 4 experts, the family's
    flags drawn (biases, tie, GQA, head_dim, sparse step, MLP-only layers, the expert key, a
    sliding window of Qwen2-MoE and Qwen3-MoE)."""
    kv_default = KV_DEFAULT[family]
    heads = draw(st.sampled_from(sorted({1, 2, 4, kv_default or 4} - {16})))
    kv = draw(st.sampled_from([k for k in range(1, heads + 1) if heads % k == 0]))
    layers, experts = draw(st.integers(1, 3)), draw(st.integers(1, 4))
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "num_hidden_layers": layers, "num_attention_heads": heads,
        "num_experts_per_tok": draw(st.integers(1, experts)),
        "intermediate_size": draw(st.integers(1, 24)), "vocab_size": draw(st.integers(8, 100)),
        "max_position_embeddings": 64, "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None,
    }  # fmt: skip
    # The expert count under either key the class reads (num_local_experts wins over both).
    keys = ["num_experts"] if family == "qwen2_moe" else ["num_experts", "num_local_experts"]
    out[draw(st.sampled_from(keys))] = experts
    if kv_default is not None and heads % kv_default:  # absent would not divide the heads
        out["num_key_value_heads"] = kv
    else:
        maybe(draw, out, "num_key_value_heads", kv)
    head_dim = draw(st.sampled_from([2, 4, 8]))  # rotary needs an even head_dim
    if family == "olmoe" or draw(st.booleans()):  # OLMoE's q_norm spans hidden_size
        out["hidden_size"] = heads * head_dim
        maybe(draw, out, "head_dim", head_dim)
    else:  # head_dim free of hidden_size / heads
        out |= {"hidden_size": 2 * draw(st.integers(1, 32)), "head_dim": head_dim}
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    maybe(draw, out, "qkv_bias" if family == "qwen2_moe" else "attention_bias", draw(st.booleans()))
    maybe(draw, out, "norm_topk_prob", draw(st.booleans()))
    if family != "olmoe":  # MoE layers: (i + 1) a multiple of the step, not MLP-only
        out["moe_intermediate_size"] = draw(st.integers(1, 24))
        maybe(draw, out, "decoder_sparse_step", draw(st.integers(1, 3)))
        maybe(draw, out, "mlp_only_layers", draw(st.lists(st.integers(0, 3), max_size=2)))
    if family == "qwen2_moe":
        out["shared_expert_intermediate_size"] = draw(st.integers(1, 24))
    if family != "olmoe" and draw(st.booleans()):  # a sliding window shorter than the prompt
        out |= {"use_sliding_window": True, "sliding_window": draw(st.integers(1, 6))}
        if family == "qwen2_moe":  # the layers i < max_window_layers with i + 1 odd slide
            maybe(draw, out, "max_window_layers", draw(st.integers(0, 3)))
    if family == "olmoe":
        maybe(draw, out, "clip_qkv", draw(st.sampled_from([None, 1.0, 8.0])))
    return out


def check(data: dict[str, Any], batch: int, s: int, tmp: Path) -> None:
    """Parameters (total and active), names and shapes in memory and in the checkpoint, FLOPs,
    and a save_pretrained checkpoint verified, all exact."""
    torch.manual_seed(0)
    cfg = read(data, tmp)
    model = build(data).eval()
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg)
    assert moe_active(model) == active_params(cfg)
    names = {n: tuple(p.shape) for n, p in model.named_parameters()}
    assert names == fused(inventory_names(cfg))
    ids = token_ids(data["vocab_size"], batch, s)
    got = counted_flops(model, input_ids=ids)
    assert got == forward_flops(cfg, Workload(batch=batch, seq_len=s))
    check_cache(model, cfg, ids)  # the cache, one decode step and generate(), cache on
    # The checkpoint and the config.json that save_pretrained writes (every field explicit).
    out = tmp / "ckpt"
    with contextlib.redirect_stderr(io.StringIO()):
        model.save_pretrained(out)
    assert header(out) == inventory_names(cfg)
    again = resolve_model(hf_config=out)
    assert (total_params(again), active_params(again)) == (total_params(cfg), active_params(cfg))
    r = run("verify", "--hf-config", str(out), "--checkpoint", str(out), "-f", "json")
    assert r.exit_code == 0, r.stdout
    assert r.json()["checkpoint"]["checkpoint_params"] == total_params(cfg)
    # A wider FFN (the experts', or the dense MLP's where every layer is dense) fails.
    written = json.loads((out / "config.json").read_text())
    key = EXPERT_WIDTH[data["model_type"]] if cfg.moe_layers(cfg.n_layers) else "intermediate_size"
    (out / "config.json").write_text(json.dumps({**written, key: written[key] + 1}))
    r = run("verify", "--hf-config", str(out), "--checkpoint", str(out), "-f", "json")
    assert r.exit_code == 1
    assert r.json()["checkpoint"]["shape_mismatches"]


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """The harness's random configs (tests/test_oracle_cases.py)."""
    return config_jsons(family)


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """One case through the harness (tests/test_oracle_cases.py)."""
    check(data, batch, s, tmp)


def test_variants_change_the_counts(tmp_path: Path) -> None:
    """The flags and class defaults read are honoured: each changes the count as it should."""
    qwen2 = case("qwen2_moe sparse step 2, MLP-only layer 3, GQA, tied")
    cfg = read(qwen2, tmp_path)
    # Layers 0 and 2: (i + 1) odd, no multiple of 2; layer 3 MLP-only; 7 is no layer.
    assert (cfg.dense_ffn_layers, cfg.dense_d_ff, cfg.moe_layers(4)) == ([0, 2, 3], 20, 1)
    every = read({**qwen2, "decoder_sparse_step": 1, "mlp_only_layers": []}, tmp_path)
    # Three layers turn MoE: router 4 x 16 + 4 experts x 3 x 16 x 6 + shared 3 x 16 x 10 +
    # gate 16 = 1,712 in place of a dense 3 x 16 x 20 = 960 each.
    assert total_params(every) - total_params(cfg) == 3 * (1_712 - 960)
    # Active: each MoE layer leaves (4 - 2) experts of 3 x 16 x 6 = 288 out.
    assert total_params(every) - active_params(every) == 4 * 2 * 288
    # No MoE block anywhere (num_experts 0, or no (i + 1) a multiple of the step): dense.
    for label in (
        "qwen2_moe num_experts 0: a dense model",
        "qwen3_moe biased, tied, every layer dense",
    ):
        dense = read(case(label), tmp_path)
        assert (dense.is_moe, dense.d_ff) == (False, EXPLICIT[label]["intermediate_size"])
    label = "qwen2_moe defaults: 16 kv heads, Q/K/V biases, head_dim"
    defaults = read(case(label), tmp_path)
    assert (defaults.kv_heads, defaults.head_size, defaults.attention_bias) == (16, 2, True)
    assert not defaults.out_bias
    label = "qwen3_moe defaults: 4 kv heads, head_dim hidden / heads, both expert keys"
    qwen3 = case(label)
    cfg = read(qwen3, tmp_path)
    # num_local_experts (3) wins over num_experts (2); head_dim 32 / 8 = 4, not Qwen3's 128.
    assert (cfg.n_experts, cfg.kv_heads, cfg.head_size) == (3, 4, 4)
    # OLMoE over Qwen3-MoE at the same sizes, per layer: q_norm over 8 heads x 4 and k_norm
    # over 4 x 4 in place of two [head_dim = 4] norms. FFN: both OLMoE layers are MoE with
    # experts of intermediate_size 12 (router 3 x 32 + 3 experts x 3 x 32 x 12); Qwen3-MoE's
    # layer 0 is a dense MLP of 12 (MLP-only) and its layer 1 MoE of moe_intermediate_size 6.
    olmoe = {**qwen3, "model_type": "olmoe", "num_key_value_heads": 4}  # absent: 8
    diff = total_params(read(olmoe, tmp_path)) - total_params(cfg)
    moe_6 = 3 * 32 + 3 * 3 * 32 * 6
    moe_12 = 3 * 32 + 3 * 3 * 32 * 12
    assert diff == 2 * (32 + 16 - 4 - 4) + 2 * moe_12 - (3 * 32 * 12 + moe_6)


def test_default_experts_kernel_hides_the_routed_matmuls(tmp_path: Path) -> None:
    """transformers' default experts kernel on the CPU (grouped_mm) runs the routed experts as
    grouped matmuls FlopCounterMode does not see; eager experts run the top-k dispatch, which
    ffn-calc counts."""
    data = case("qwen2_moe sparse step 2, MLP-only layer 3, GQA, tied")
    data["moe_intermediate_size"] = 8  # grouped_mm takes rows of a multiple of 16 bytes only
    cfg = read(data, tmp_path)
    ids = torch.randint(0, 40, (2, 5))
    with torch.no_grad(), FlopCounterMode(display=False) as eager:
        build(data)(input_ids=ids)
    model = build(data, experts=None)
    assert model.config._experts_implementation == "grouped_mm"
    with torch.no_grad(), FlopCounterMode(display=False) as default:
        model(input_ids=ids)
    # Routed experts of layer 1: 2 x 10 rows x 2 per token x 3 x 16 x 8 = 15,360 FLOPs.
    expert_flops = 2 * 10 * 2 * 3 * 16 * 8
    assert eager.get_total_flops() == forward_flops(cfg, Workload(batch=2, seq_len=5))
    assert default.get_total_flops() == eager.get_total_flops() - expert_flops


def test_olmoe_refuses_a_head_dim_its_query_norm_cannot_take(tmp_path: Path) -> None:
    data = case("olmoe GQA, biased, tied, clip_qkv, num_local_experts")
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**data, "head_dim": 8}, indent=2))
    r = run("params", "--hf-config", str(path))
    assert r.exit_code == 2
    assert "head_dim" in r.stderr and "hidden_size (24)" in r.stderr and "line" in r.stderr
    # transformers builds it, but the forward fails: q_norm [24] against Q [4 x 8 = 32].
    model = build({**data, "head_dim": 8})
    with pytest.raises(RuntimeError):
        model(input_ids=torch.zeros((1, 2), dtype=torch.long))


# --- the real-size configs and the presets on the meta device: total, active, names ----------

COVERAGE = {
    c["model_type"]: c
    for c in json.loads((DATA / "coverage.json").read_text())["cases"]
    if c["model_type"] in CLASSES
}
# The shipped presets: each is the real-size config of its family.
PRESET = {"qwen2_moe": "qwen1.5-moe-a2.7b", "qwen3_moe": "qwen3-30b-a3b", "olmoe": "olmoe-1b-7b"}


@pytest.mark.parametrize("family", FAMILIES)
def test_real_size_params_and_names(family: str, tmp_path: Path) -> None:
    case = COVERAGE[family]
    model = build(case["hf_config"], "meta")
    names = {n: tuple(p.shape) for n, p in model.named_parameters()}
    # Golden: tests/data/coverage.json total_params and active_params (transformers 5.24.0,
    # meta device).
    assert sum(p.numel() for p in model.parameters()) == case["total_params"]
    assert moe_active(model) == case["active_params"]
    for cfg in (read(case["hf_config"], tmp_path), resolve_model(preset=PRESET[family])):
        assert (total_params(cfg), active_params(cfg)) == (
            case["total_params"],
            case["active_params"],
        )
        assert names == fused(inventory_names(cfg))
