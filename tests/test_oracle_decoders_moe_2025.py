"""Differential tests: MiniMax-M2, Ministral 3, ERNIE 4.5 (dense), HunYuan dense and HunYuan MoE
against `transformers`.

Optional, as tests/test_torch_oracle.py: they need torch and transformers and skip cleanly
without them. Each case is a config.json (some fields absent, so the class defaults apply);
ffn-calc reads it with `--hf-config`, transformers builds the class named in `architectures`
from the same fields. Parameters come from `parameters()` (active ones: the total less, in
every MoE layer, (experts - top-k) x one expert's slice of the fused tensors); tensor names
from `named_parameters()` (the experts fused in memory: [E, 2 f, d] gate_up_proj and [E, d, f]
down_proj) and from the header of the `save_pretrained` checkpoint (one tensor per expert,
MiniMax-M2's under Mixtral's `block_sparse_moe.` names: the names ffn-calc lists); FLOPs from
`torch.utils.flop_counter.FlopCounterMode` over a forward pass with eager attention and eager
experts (each expert runs on the tokens routed to it: the top-k dispatch ffn-calc counts); the
cache after a prefill, one decode step and generate() (`check_cache`).

The family's random tiny configs (`configs`) and the check of one case (`check_case`) run in
the one harness, tests/test_oracle_cases.py, over the cases in tests/oracle_cases.py (random
draws and explicit variants); this module holds them and the families' own tests.
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

from conftest import DATA, run  # noqa: E402
from oracle_cases import case, classes  # noqa: E402
from oracle_support import (  # noqa: E402
    cache_numel,
    check_cache,
    check_verifies,
    check_wider_ffn_fails,
    counted_flops,
    header,
    inventory_names,
    maybe,
    param_shapes,
    read,
    save,
    token_ids,
)

from ffn_calc.counts.flops import Workload, forward_flops  # noqa: E402
from ffn_calc.counts.inference import kv_elements  # noqa: E402
from ffn_calc.counts.params import active_params, stored_buffers, total_params  # noqa: E402
from ffn_calc.families.resolve import resolve_model  # noqa: E402
from ffn_calc.model.config import ModelConfig  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CLASSES = classes("test_oracle_decoders_moe_2025")
FAMILIES = sorted(CLASSES)
MOE = {"minimax_m2", "hunyuan_v1_moe"}
BUFFER = "e_score_correction_bias"  # MiniMax-M2's: a buffer that checkpoints store


def build(data: dict[str, Any], device: str = "cpu") -> Any:
    """The class named in `architectures`, built by transformers from the config.json fields,
    with eager attention and eager experts (a loop of F.linear over the experts hit: the
    default grouped kernels hide their matmuls from FlopCounterMode)."""
    conf_name, model_name = CLASSES[data["model_type"]]
    fields = {k: v for k, v in data.items() if k != "model_type"}
    conf = getattr(transformers, conf_name)(**fields)
    conf._attn_implementation = "eager"
    conf._experts_implementation = "eager"
    with torch.device(device):
        return getattr(transformers, model_name)(conf)


# A checkpoint's per-expert tensors: Qwen2-MoE's names or Mixtral's (w1 gate, w3 up, w2 down).
EXPERT = re.compile(r"(.*\.experts\.)(\d+)\.(gate_proj|up_proj|down_proj|w1|w3|w2)\.weight")
ROLE = {"w1": "gate_proj", "w3": "up_proj", "w2": "down_proj"}
# Where transformers keeps a checkpoint's names in memory (its conversion renames on load).
IN_MEMORY = {".block_sparse_moe.": ".mlp."}


def fused(names: dict[str, tuple[int, ...]]) -> dict[str, tuple[int, ...]]:
    """Checkpoint names as transformers holds them in memory: per-expert [f, d] gate and up
    stacked into gate_up_proj [E, 2 f, d], down [d, f] into down_proj [E, d, f]."""
    out: dict[str, tuple[int, ...]] = {}
    experts: dict[str, dict[str, set[tuple[int, tuple[int, ...]]]]] = {}
    for name, shape in names.items():
        for stored, memory in IN_MEMORY.items():
            name = name.replace(stored, memory)
        if m := EXPERT.fullmatch(name):
            role = ROLE.get(m[3], m[3])
            experts.setdefault(m[1], {}).setdefault(role, set()).add((int(m[2]), shape))
            continue
        out[name] = shape
    for prefix, mats in experts.items():
        (gate,), (up,), (down,) = (
            {s for _, s in mats[k]} for k in ("gate_proj", "up_proj", "down_proj")
        )
        e = len(mats["gate_proj"])
        assert {i for i, _ in mats["gate_proj"]} == set(range(e)) and gate == up
        out[prefix + "gate_up_proj"] = (e, 2 * gate[0], gate[1])
        out[prefix + "down_proj"] = (e, *down)
    return out


def moe_active(model: Any) -> int:
    """The total less, in every MoE layer, (experts - top-k) x one expert, from the model
    (the top-k each layer's router uses)."""
    out = sum(p.numel() for p in model.parameters())
    for layer in model.model.layers:
        experts = getattr(layer.mlp, "experts", None)
        if experts is not None:
            k = getattr(layer.mlp, "top_k", None) or layer.mlp.gate.top_k
            one = experts.gate_up_proj[0].numel() + experts.down_proj[0].numel()
            out -= (experts.num_experts - k) * one
    return int(out)


# --- random small config.json files per family ----------------------------------------------


@st.composite
def config_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny config.json: d_model <= 64, <= 3 layers, vocab <= 100, <= 6 experts, the family's
    flags drawn (biases, tie, GQA, head_dim given, absent or null, the expert and top-k keys)."""
    heads = draw(st.integers(1, 4))
    kv = draw(st.sampled_from([k for k in range(1, heads + 1) if heads % k == 0]))
    layers = draw(st.integers(1, 3))
    head_dim = draw(st.sampled_from([2, 4, 8]))  # rotary needs an even head_dim
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "num_hidden_layers": layers, "num_attention_heads": heads,
        "intermediate_size": draw(st.integers(1, 24)), "vocab_size": draw(st.integers(12, 100)),
        "max_position_embeddings": 64, "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None,
    }  # fmt: skip
    # num_key_value_heads: the class defaults (8, 2 or the heads) may not divide the heads.
    if family.startswith("hunyuan"):
        maybe(draw, out, "num_key_value_heads", kv)
    elif family in ("minimax_m2", "ministral3"):  # an int in their strict configs (never null)
        out["num_key_value_heads"] = kv
    else:
        out["num_key_value_heads"] = draw(st.sampled_from([kv, None])) if kv == heads else kv
    # head_dim: given (free of hidden_size / heads), or the class's own rule for absent/null.
    how = draw(st.sampled_from(["given", "derived"]))
    if how == "given" or family != "ernie4_5":
        # MiniMax-M2, Ministral 3: absent is 128, null refused; HunYuan: required
        out |= {"hidden_size": 2 * draw(st.integers(1, 32)), "head_dim": head_dim}
    else:  # null: hidden_size / heads (ERNIE 4.5)
        out |= {"hidden_size": heads * head_dim, "head_dim": None}
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    maybe(draw, out, "hidden_act", draw(st.sampled_from(["silu", "gelu"])))
    if family in MOE:
        experts = draw(st.integers(1, 6))
        k = draw(st.integers(1, experts))
        alias, canonical = (
            ("num_experts", "num_local_experts")
            if family == "minimax_m2"
            else ("num_local_experts", "num_experts")
        )
        keys = draw(st.sampled_from([[canonical], [alias], [canonical, alias]]))
        for key in keys:  # with both, the alias wins: the canonical key gets another count
            out[key] = experts if key == keys[-1] else draw(st.integers(1, 6))
    if family == "minimax_m2":
        out["num_experts_per_tok"] = k
        if out["head_dim"] >= 4:  # partial rotary: no parameters
            maybe(draw, out, "rotary_dim", out["head_dim"] // 2)
    elif family == "hunyuan_v1_moe":
        topk = draw(st.sampled_from(["moe_topk", "list", "num_experts_per_tok"]))
        if topk == "list":  # one per layer, the same (extra entries unread)
            out["moe_topk"] = [k] * (layers + draw(st.integers(0, 1)))
        else:
            out[topk] = k
    if family in ("ernie4_5",):
        maybe(draw, out, "use_bias", draw(st.booleans()))
    if family.startswith("hunyuan"):
        maybe(draw, out, "attention_bias", draw(st.booleans()))
    if family == "ministral3":
        maybe(draw, out, "sliding_window", draw(st.sampled_from([None, 2, 3, 16])))
    return out


def check(data: dict[str, Any], batch: int, s: int, tmp: Path) -> ModelConfig:
    """Parameters (total and active), names and shapes in memory and in the checkpoint, FLOPs,
    the cache, and a save_pretrained checkpoint verified, all exact."""
    torch.manual_seed(0)
    cfg = read(data, tmp)
    model = build(data).eval()
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg)
    assert moe_active(model) == active_params(cfg)
    expected = inventory_names(cfg)
    assert param_shapes(model) == fused(expected)
    ids = token_ids(data["vocab_size"], batch, s)
    got = counted_flops(model, input_ids=ids)
    assert got == forward_flops(cfg, Workload(batch=batch, seq_len=s))
    check_cache(model, cfg, ids)  # the cache, one decode step and generate(), cache on
    # The checkpoint and the config.json that save_pretrained writes (every field explicit).
    out = save(model, tmp / "ckpt")
    stored = header(out)
    buffers = {n for n in stored if n.endswith(BUFFER) and n not in expected}
    assert {n: x for n, x in stored.items() if n not in buffers} == expected
    # MiniMax-M2's routing-score bias, [n_experts] in every layer: stored, not a parameter.
    assert sum(stored[n][0] for n in buffers) == stored_buffers(cfg)
    again = resolve_model(hf_config=out)
    assert (total_params(again), active_params(again)) == (total_params(cfg), active_params(cfg))
    assert sorted(check_verifies(out, cfg)["buffers"]) == sorted(buffers)
    check_wider_ffn_fails(out, ["intermediate_size"])
    return cfg


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """The harness's random configs (tests/test_oracle_cases.py)."""
    return config_jsons(family)


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """One case through the harness (tests/test_oracle_cases.py)."""
    check(data, batch, s, tmp)


# --- what each family reads, as counts ------------------------------------------------------


def test_variants_change_the_counts(tmp_path: Path) -> None:
    """The flags and class defaults read are honoured: each changes the count as it should."""
    m2 = read(case("minimax_m2 top-2 of 4, GQA, full-width q/k norms"), tmp_path)
    d, hd, heads, kv, e, f = 16, 4, 4, 2, 4, 6
    # q_norm [heads x head_dim] and k_norm [kv x head_dim] per layer (2 layers), not [head_dim].
    assert m2.qk_norm == "full"
    assert total_params(m2) - total_params(m2.varied({"qk_norm": "none"})) == 2 * (heads + kv) * hd
    # Routed only: no shared expert, every layer MoE; the score bias is a buffer [E] per layer.
    assert total_params(m2) - active_params(m2) == 2 * (e - 2) * 3 * d * f
    assert stored_buffers(m2) == 2 * e and m2.router_score_bias == "buffer"
    # The alias num_experts wins over num_local_experts, as MiniMaxM2Config sets it.
    both = read({**case("minimax_m2 top-2 of 4, GQA, full-width q/k norms"),
                 "num_local_experts": 6, "num_experts": 3}, tmp_path)  # fmt: skip
    assert both.n_experts == 3 == build(case("minimax_m2 top-2 of 4, GQA, full-width q/k norms")
                                        | {"num_local_experts": 6, "num_experts": 3}
                                        ).model.layers[0].mlp.experts.num_experts  # fmt: skip

    # HunYuan's head_dim is required: the class default (null) builds no model.
    for absent in ({}, {"head_dim": None}):
        data = {k: v for k, v in case("hunyuan_v1_dense defaults: kv = heads").items()
                if k != "head_dim"} | absent  # fmt: skip
        with pytest.raises(TypeError):
            build(data)
        r = run("params", "--hf-config", str(_write(data, tmp_path / "no-head-dim")))
        assert r.exit_code == 2 and "head_dim" in r.stderr and r.stdout == ""
    dense = read(case("hunyuan_v1_dense defaults: kv = heads"), tmp_path)
    assert (dense.kv_heads, dense.head_size, dense.qk_norm) == (4, 4, "head")
    biased = read(
        {**case("hunyuan_v1_dense defaults: kv = heads"),
         "attention_bias": True}, tmp_path,
    )  # fmt: skip
    # attention_bias: Q, K, V, O [16] each in 2 layers; never the MLP.
    assert total_params(biased) - total_params(dense) == 2 * 4 * 16

    moe = read(case("hunyuan_v1_moe top-2 of 3, shared MLP, moe_topk per layer"), tmp_path)
    # The shared MLP and the experts are intermediate_size wide (moe_intermediate_size unread).
    assert moe.shared_expert_d_ff == moe.d_ff == 10 and moe.experts_per_token == 2
    uneven = {**case("hunyuan_v1_moe top-2 of 3, shared MLP, moe_topk per layer"),
              "moe_topk": [2, 1]}  # fmt: skip
    r = run("params", "--hf-config", str(_write(uneven, tmp_path)))
    assert r.exit_code == 2 and "moe_topk" in r.stderr and r.stdout == ""

    ernie = read(case("ernie4_5 defaults: head_dim 128, 2 kv heads, tied"), tmp_path)
    assert (ernie.head_size, ernie.kv_heads, ernie.tie_embeddings) == (128, 2, True)
    # use_bias: Q, K, V, O and the MLP's three, never the head (ERNIE 4.5 MoE's has one).
    ub = read({**case("ernie4_5 defaults: head_dim 128, 2 kv heads, tied"), "use_bias": True},
              tmp_path)  # fmt: skip
    assert not ub.lm_head_bias
    assert total_params(ub) - total_params(ernie) == 2 * (2 * 128 + 2 * 2 * 128 + 16 + 2 * 20 + 16)

    mini = read(case("ministral3 defaults: head_dim 128, 8 kv heads, untied"), tmp_path)
    assert (mini.head_size, mini.kv_heads, mini.tie_embeddings) == (128, 8, False)
    assert mini.attention_window is None


def _write(data: dict[str, Any], tmp: Path) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / "config.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("family", ["minimax_m2", "ernie4_5", "hunyuan_v1_moe"])
def test_a_sliding_window_the_class_lacks_still_slides_the_cache(
    family: str, tmp_path: Path
) -> None:
    """These classes define no sliding window, yet transformers' DynamicCache reads the
    `sliding_window` a config.json carries: after a prefill longer than the window every layer
    keeps only the window's tokens, which ffn-calc counts."""
    label = {
        "minimax_m2": "minimax_m2 top-2 of 4, GQA, full-width q/k norms",
        "ernie4_5": "ernie4_5 defaults: head_dim 128, 2 kv heads, tied",
        "hunyuan_v1_moe": "hunyuan_v1_moe top-2 of 3, shared MLP, moe_topk per layer",
    }[family]
    data = {**case(label), "sliding_window": 3}
    cfg = read(data, tmp_path)
    assert cfg.attention_window == 3
    model = build(data).eval()
    ids = token_ids(data["vocab_size"], 2, 7)
    with torch.no_grad():
        cache = model(input_ids=ids, use_cache=True).past_key_values
    assert (
        cache_numel(cache)
        == kv_elements(cfg, 2, 7)
        < kv_elements(read(case(label), tmp_path), 2, 7)
    )
    check_cache(model, cfg, ids)


# --- the real-size configs and the preset on the meta device: counts and names ---------------

GOLDEN = {
    c["model_type"]: c
    for file in ("coverage.json", "frontier.json")
    for c in json.loads((DATA / file).read_text())["cases"]
    if c["model_type"] in CLASSES
}
PRESET = {"minimax_m2": "minimax-m2"}


@pytest.mark.parametrize("family", FAMILIES)
def test_real_size_counts_and_names(family: str, tmp_path: Path) -> None:
    case = GOLDEN[family]
    model = build(case["hf_config"], "meta")
    names = param_shapes(model)
    # Golden: coverage.json / frontier.json total_params (transformers 5.24.0, meta device).
    assert sum(p.numel() for p in model.parameters()) == case["total_params"]
    configs = [read(case["hf_config"], tmp_path)]
    if family in PRESET:
        configs.append(resolve_model(preset=PRESET[family]))
    for cfg in configs:
        assert total_params(cfg) == case["total_params"]
        # Golden: the case's active_params (a dense model: every parameter).
        assert active_params(cfg) == case.get("active_params", case["total_params"])
        assert fused(inventory_names(cfg)) == names
