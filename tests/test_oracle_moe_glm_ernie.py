"""Differential tests: GLM-4.5 (glm4_moe) and ERNIE 4.5 MoE (ernie4_5_moe) against `transformers`.

Optional, as tests/test_torch_oracle.py: they need torch and transformers and skip cleanly
without them. Each case is a config.json (some fields absent, so the class defaults apply);
ffn-calc reads it with `--hf-config`, transformers builds the class named in `architectures`
from the same fields. Parameters come from `parameters()`; tensor names from
`named_parameters()` (the experts fused in memory: [E, 2 f, d] gate_up_proj and [E, d, f]
down_proj) and from the header of the `save_pretrained` checkpoint (one tensor per expert, the
names ffn-calc lists); FLOPs from `torch.utils.flop_counter.FlopCounterMode` over a forward
pass with eager attention and eager experts (each expert runs on the tokens routed to it: the
top-k dispatch ffn-calc counts).

The family's random tiny configs (`configs`) and the check of one case (`check_case`) run in
the one harness, tests/test_oracle_cases.py, over the cases in tests/oracle_cases.py (random
draws and explicit variants); this module holds them and the family's own tests.
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
from oracle_cases import case, classes  # noqa: E402
from oracle_support import (  # noqa: E402
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
    verify,
)

from ffn_calc.counts.flops import Workload, forward_flops  # noqa: E402
from ffn_calc.counts.params import active_params, stored_buffers, total_params  # noqa: E402
from ffn_calc.families.resolve import resolve_model  # noqa: E402
from ffn_calc.model.config import ModelConfig  # noqa: E402
from ffn_calc.reference.instantiate import instantiate  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CLASSES = classes("test_oracle_moe_glm_ernie")
FAMILIES = sorted(CLASSES)
# Where transformers keeps a checkpoint's name in memory (its conversion renames it on load).
IN_MEMORY = {"mlp.moe_statics.": "mlp.gate.moe_statics."}
BUFFER = "e_score_correction_bias"  # GLM-4.5's: a buffer that checkpoints store


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


EXPERT = re.compile(r"(.*\.experts\.)(\d+)\.(gate_proj|up_proj|down_proj)\.weight")


def fused(names: dict[str, tuple[int, ...]]) -> dict[str, tuple[int, ...]]:
    """Checkpoint names as transformers holds them in memory: per-expert [f, d] gate and up
    stacked into gate_up_proj [E, 2 f, d], down [d, f] into down_proj [E, d, f]."""
    out: dict[str, tuple[int, ...]] = {}
    experts: dict[str, dict[str, set[tuple[int, tuple[int, ...]]]]] = {}
    for name, shape in names.items():
        if m := EXPERT.fullmatch(name):
            experts.setdefault(m[1], {}).setdefault(m[3], set()).add((int(m[2]), shape))
            continue
        for stored, memory in IN_MEMORY.items():
            name = name.replace(stored, memory)
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


# --- random small config.json files per family ----------------------------------------------


@st.composite
def config_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny config.json: d_model <= 64, <= 3 layers, vocab <= 100, the family's flags drawn."""
    heads = draw(st.integers(1, 4))
    kv = draw(st.sampled_from([k for k in range(1, heads + 1) if heads % k == 0]))
    # GLM's router sums each group's top 2 scores: at least 2 experts.
    experts = draw(st.integers(2 if family == "glm4_moe" else 1, 6))
    layers = draw(st.integers(1, 3))
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "num_hidden_layers": layers, "num_attention_heads": heads,
        "num_key_value_heads": kv, "hidden_size": 2 * draw(st.integers(1, 32)),
        "head_dim": draw(st.sampled_from([2, 4, 8])),  # rotary needs an even head_dim
        "intermediate_size": draw(st.integers(1, 48)),
        "moe_intermediate_size": draw(st.integers(1, 16)), "vocab_size": draw(st.integers(8, 100)),
        "max_position_embeddings": 64, "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None,
    }  # fmt: skip
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    maybe(draw, out, "hidden_act", draw(st.sampled_from(["silu", "gelu"])))
    k = draw(st.integers(1, experts))
    if family == "glm4_moe":
        out |= {"n_routed_experts": experts, "num_experts_per_tok": k}
        maybe(draw, out, "attention_bias", draw(st.booleans()))
        maybe(draw, out, "use_qk_norm", draw(st.booleans()))
        maybe(draw, out, "first_k_dense_replace", draw(st.integers(0, 3)))
        maybe(draw, out, "n_shared_experts", draw(st.integers(1, 2)))
        maybe(draw, out, "num_nextn_predict_layers", draw(st.integers(0, 1)))  # not built
        factor = draw(st.sampled_from([0.5, 1.0]))  # partial rotary: no parameters
        maybe(draw, out, "rope_parameters", {"rope_type": "default", "rope_theta": 10000.0,
                                             "partial_rotary_factor": factor})  # fmt: skip
        # Group-limited routing: no parameters (n_group must divide the experts).
        if experts % 2 == 0 and experts >= 4:
            maybe(draw, out, "n_group", 2)
    else:
        out |= {"moe_num_experts": experts, "moe_k": k}
        maybe(draw, out, "use_bias", draw(st.booleans()))
        maybe(draw, out, "moe_num_shared_experts", draw(st.integers(0, 2)))
        maybe(draw, out, "moe_layer_start_index", draw(st.integers(0, 3)))
        maybe(draw, out, "moe_layer_end_index", draw(st.sampled_from([-1, 0, 1, 2])))
        maybe(draw, out, "moe_layer_interval", draw(st.integers(1, 2)))
    return out


def check(data: dict[str, Any], batch: int, s: int, tmp: Path) -> ModelConfig:
    """Parameters, names and shapes, FLOPs and a save_pretrained checkpoint, all exact."""
    torch.manual_seed(0)
    cfg = read(data, tmp)
    model = build(data).eval()
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg)
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
    # GLM-4.5's routing-score bias, [n_experts] in every MoE layer: stored, not a parameter.
    assert sum(stored[n][0] for n in buffers) == stored_buffers(cfg)
    assert total_params(resolve_model(hf_config=out)) == total_params(cfg)
    assert sorted(check_verifies(out, cfg)["buffers"]) == sorted(buffers)
    moe = cfg.moe_layers(cfg.n_layers)
    check_wider_ffn_fails(out, ["moe_intermediate_size" if moe else "intermediate_size"])
    return cfg


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """The harness's random configs (tests/test_oracle_cases.py)."""
    return config_jsons(family)


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """One case through the harness (tests/test_oracle_cases.py)."""
    check(data, batch, s, tmp)


def test_variants_change_the_counts(tmp_path: Path) -> None:
    """The flags and class defaults read are honoured: each changes the count as it should."""
    d, f, e, k, v = 16, 6, 4, 2, 40
    one = 3 * d * f  # one routed SwiGLU expert [f, d] x 3
    glm = read({**case("glm defaults: 1 dense layer, 1 shared expert, untied")}, tmp_path)
    assert glm.dense_ffn_layers == [0] and glm.shared_expert_d_ff == f  # the class defaults
    assert total_params(glm) - active_params(glm) == 2 * (e - k) * one  # 2 MoE layers
    # use_qk_norm: [head_dim = 4] on queries and keys in each of 3 layers.
    qk = read(
        {**case("glm defaults: 1 dense layer, 1 shared expert, untied"), "use_qk_norm": True},
        tmp_path,
    )
    assert total_params(qk) - total_params(glm) == 3 * 2 * 4
    # attention_bias: Q (4 x 4) and K, V (2 x 4) in each of 3 layers; never O.
    biased = read(
        {**case("glm defaults: 1 dense layer, 1 shared expert, untied"), "attention_bias": True},
        tmp_path,
    )
    assert total_params(biased) - total_params(glm) == 3 * (16 + 8 + 8)
    # No MoE layer left: the 2 MoE layers become dense SwiGLU of 24 (no router, experts).
    dense = read(
        {
            **case("glm defaults: 1 dense layer, 1 shared expert, untied"),
            "first_k_dense_replace": 3,
        },
        tmp_path,
    )
    moe_layer = d * e + e * one + 3 * d * f  # router, experts, one shared expert
    assert total_params(glm) - total_params(dense) == 2 * (moe_layer - 3 * d * 24)
    assert stored_buffers(glm) == 2 * e and stored_buffers(dense) == 0

    ernie = read({**case("ernie defaults: layer 0 dense, 2 shared experts, tied")}, tmp_path)
    assert ernie.tie_embeddings and ernie.shared_expert_d_ff == 2 * f  # the class defaults
    assert ernie.dense_ffn_layers == [0]  # start 1, end -1 = the last layer
    # use_bias: Q, K, V, O (16 + 4 + 4 + 16) in 3 layers; the dense MLP's 20 + 20 + 16 in
    # layer 0; the shared experts' 12 + 12 + 16 in layers 1 and 2; lm_head [vocab_size].
    biased = read(
        {**case("ernie defaults: layer 0 dense, 2 shared experts, tied"), "use_bias": True},
        tmp_path,
    )
    assert total_params(biased) - total_params(ernie) == 3 * 40 + 56 + 2 * 40 + v
    assert active_params(biased) - active_params(ernie) == 3 * 40 + 56 + 2 * 40 + v
    # The routing-score bias is a [1, n_experts] parameter in each MoE layer.
    assert ("model.layers.{1..2}.mlp.moe_statics.e_score_correction_bias", (1, e)) in {
        (t.label, t.shape) for t in instantiate(ernie).tensors
    }


def test_glm_without_shared_expert_counts_nothing_for_it(tmp_path: Path) -> None:
    """n_shared_experts 0: transformers builds an empty [0, d_model] MLP (no parameters, no
    FLOPs); ffn-calc lists none."""
    data = {**case("glm defaults: 1 dense layer, 1 shared expert, untied"), "n_shared_experts": 0}
    cfg = read(data, tmp_path)
    model = build(data).eval()
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg)
    names = {n: shape for n, shape in param_shapes(model).items() if 0 not in shape}
    assert names == fused(inventory_names(cfg))
    got = counted_flops(model, input_ids=token_ids(40, 2, 5))
    assert got == forward_flops(cfg, Workload(batch=2, seq_len=5))
    # The checkpoint keeps the empty tensors, reported as unexpected, holding nothing.
    report = verify(save(model, tmp_path / "ckpt")).json()["checkpoint"]
    assert report["checkpoint_params"] == report["expected_params"] == total_params(cfg)
    assert report["unexpected"] == [
        f"model.layers.{i}.mlp.shared_experts.{m}_proj.weight"
        for i in (1, 2)
        for m in ("down", "gate", "up")
    ]


# --- the real-size configs and the preset on the meta device: counts and names ---------------

COVERAGE = {
    c["model_type"]: c
    for c in json.loads((DATA / "coverage.json").read_text())["cases"]
    if c["model_type"] in CLASSES
}
PRESET = {"glm4_moe": "glm-4.5-air"}


@pytest.mark.parametrize("family", FAMILIES)
def test_real_size_counts_and_names(family: str, tmp_path: Path) -> None:
    case = COVERAGE[family]
    model = build(case["hf_config"], "meta")
    names = param_shapes(model)
    # Golden: tests/data/coverage.json total_params (transformers 5.24.0, meta device).
    assert sum(p.numel() for p in model.parameters()) == case["total_params"]
    configs = [read(case["hf_config"], tmp_path)]
    if family in PRESET:
        configs.append(resolve_model(preset=PRESET[family]))
    for cfg in configs:
        assert total_params(cfg) == case["total_params"]
        # Golden: coverage.json active_params.
        assert active_params(cfg) == case["active_params"]
        assert fused(inventory_names(cfg)) == names
