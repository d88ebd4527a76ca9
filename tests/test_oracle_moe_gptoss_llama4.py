"""Differential tests: gpt-oss and Llama 4's text model against `transformers`.

Optional, as tests/test_torch_oracle.py: they need torch and transformers and skip cleanly
without them. Each case is a config.json as the Hub holds it (some fields absent, so the class
defaults apply); ffn-calc reads it with `--hf-config`, transformers builds the class named in
`architectures` from the same fields. Parameters come from `parameters()`, tensor names from
`named_parameters()` and from the header of the `save_pretrained` checkpoint (both classes keep
their experts fused, [E, ...], in memory and on disk), FLOPs from
`torch.utils.flop_counter.FlopCounterMode` over a real CPU forward pass with eager attention and
eager experts (`config._experts_implementation = "eager"`: gpt-oss's default on CPU,
grouped_mm, would hide the expert matmuls).

gpt-oss's eager experts run only the routed tokens through each expert: FlopCounterMode equals
ffn-calc's top-k dispatch exactly. Llama 4's experts run every token through every expert
(zero-weighted where not routed): FlopCounterMode reports ffn-calc's figure plus
2 x B x S x (n_experts - experts_per_token) x 3 x d_model x d_ff per MoE layer.

The family's random tiny configs (`configs`) and the check of one case (`check_case`) run in
the one harness, tests/test_oracle_cases.py, over the cases in tests/oracle_cases.py (random
draws and explicit variants); this module holds them and the family's own tests.
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
    check_cache,
    check_counts,
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
from safetensors.torch import load_file, save_file  # noqa: E402

from ffn_calc.counts.flops import Workload, forward_flops  # noqa: E402
from ffn_calc.counts.params import active_params, total_params  # noqa: E402
from ffn_calc.families.resolve import resolve_model  # noqa: E402
from ffn_calc.model.config import ModelConfig  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CLASSES = classes("test_oracle_moe_gptoss_llama4")
FAMILIES = sorted(CLASSES)


def build(data: dict[str, Any], device: str = "cpu") -> Any:
    """The class named in `architectures`, built by transformers from the config.json fields,
    with eager attention and eager experts."""
    conf_name, model_name = CLASSES[data["model_type"]]
    fields = {k: v for k, v in data.items() if k != "model_type"}
    conf = getattr(transformers, conf_name)(**fields)
    conf._attn_implementation = "eager"
    conf._experts_implementation = "eager"
    with torch.device(device):
        return getattr(transformers, model_name)(conf)


def dense_expert_surplus(cfg: ModelConfig, batch: int, s: int) -> int:
    """FLOPs Llama 4's eager experts add to the top-k dispatch: every token through the
    n_experts - experts_per_token experts it is not routed to, 3 matmuls of d_model x d_ff each,
    in every MoE layer."""
    assert cfg.n_experts is not None and cfg.experts_per_token is not None
    idle = cfg.n_experts - cfg.experts_per_token
    return cfg.moe_layers(cfg.n_layers) * 2 * batch * s * idle * 3 * cfg.d_model * cfg.d_ff


def torch_active(model: Any, cfg: ModelConfig) -> int:
    """Active parameters from the module tree: the total less, per MoE layer, the idle experts'
    slices of the fused tensors ([E, ...]: one expert is index 0 of each)."""
    assert cfg.experts_per_token is not None
    idle = 0
    for name, module in model.named_modules():
        if name.endswith(".experts"):
            one = sum(p[0].numel() for p in module.parameters(recurse=False))
            idle += (module.num_experts - cfg.experts_per_token) * one
    return sum(p.numel() for p in model.parameters()) - idle


# --- random small config.json files per family ----------------------------------------------


@st.composite
def config_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny config.json: d_model <= 64, <= 3 layers, vocab <= 100, the family's flags drawn."""
    heads = draw(st.sampled_from([1, 2, 3, 4, 8]))
    kv = draw(st.sampled_from([k for k in range(1, heads + 1) if heads % k == 0]))
    experts = draw(st.integers(1, 4))
    layers = draw(st.integers(1, 3))
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "num_hidden_layers": layers, "num_attention_heads": heads,
        "hidden_size": 2 * draw(st.integers(1, 32)),
        "intermediate_size": draw(st.integers(1, 48)), "vocab_size": draw(st.integers(8, 100)),
        "num_local_experts": experts, "num_experts_per_tok": draw(st.integers(1, experts)),
        "max_position_embeddings": 64, "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None,
    }  # fmt: skip
    # head_dim absent: the class default (gpt-oss 64, Llama 4 128), not hidden_size / heads.
    maybe(draw, out, "head_dim", draw(st.sampled_from([2, 4, 6, 8, 16])))  # even for rotary
    if heads != 8 or draw(st.booleans()):  # absent: 8 kv heads, which must divide the heads
        out["num_key_value_heads"] = kv
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    maybe(draw, out, "attention_bias", draw(st.booleans()))
    if family == "gpt_oss":
        maybe(draw, out, "sliding_window", draw(st.integers(1, 8)))
        maybe(draw, out, "swiglu_limit", draw(st.floats(0.5, 8.0)))
    else:
        how = draw(st.sampled_from(["absent", "step", "list"]))
        if how == "step":  # MoE layers step - 1, 2 step - 1, ...
            out["interleave_moe_layer_step"] = draw(st.integers(1, 3))
        elif how == "list":  # any subset, an index past the last layer included
            out["moe_layers"] = draw(st.lists(st.integers(0, layers), unique=True, max_size=4))
        out["intermediate_size_mlp"] = draw(st.integers(1, 48))
        maybe(draw, out, "use_qk_norm", draw(st.booleans()))
        maybe(draw, out, "no_rope_layer_interval", draw(st.integers(1, 3)))
        maybe(draw, out, "attention_chunk_size", draw(st.integers(2, 8)))
    return out


def check(data: dict[str, Any], batch: int, s: int, tmp: Path) -> None:
    """Parameters (total and active), names and shapes, FLOPs and a save_pretrained
    checkpoint, all exact."""
    torch.manual_seed(0)
    cfg = read(data, tmp)
    model = build(data).eval()
    ids = token_ids(data["vocab_size"], batch, s)
    if data["model_type"] == "gpt_oss":  # eager experts: the top-k dispatch, exactly
        check_counts(model, cfg, ids)
    else:  # Llama 4: every expert over every token
        check_counts(model, cfg, None)
        got = counted_flops(model, input_ids=ids)
        ours = forward_flops(cfg, Workload(batch=batch, seq_len=s))
        assert got == ours + dense_expert_surplus(cfg, batch, s)
        check_cache(model, cfg, ids, surplus=dense_expert_surplus(cfg, 1, 1))
    assert torch_active(model, cfg) == active_params(cfg)
    # The checkpoint and the config.json that save_pretrained writes (every field explicit).
    out = save(model, tmp / "ckpt")
    assert header(out / "model.safetensors") == param_shapes(model)  # a tied head: not written
    assert total_params(resolve_model(hf_config=out)) == total_params(cfg)
    check_verifies(out, cfg)
    # Llama 4's dense layers have a width of their own (all layers may be dense).
    widths = ["intermediate_size"] + (["intermediate_size_mlp"] if cfg.family != "gpt_oss" else [])
    check_wider_ffn_fails(out, widths)


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """The harness's random configs (tests/test_oracle_cases.py)."""
    return config_jsons(family)


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """One case through the harness (tests/test_oracle_cases.py)."""
    check(data, batch, s, tmp)


def test_variants_change_the_counts(tmp_path: Path) -> None:
    """The flags read are honoured: each changes the count by the tensors it adds."""
    oss = case("gpt_oss head_dim x heads != d_model, GQA, top-2 of 4, untied")
    # GptOssAttention without bias: q 32 + k 16 + v 16 + o 24 = 88 per layer, 2 layers: 176.
    biased, plain = read(oss, tmp_path), read({**oss, "attention_bias": False}, tmp_path)
    assert total_params(biased) - total_params(plain) == 176
    llama4 = case("llama4_text moe_layers listed, tied, top-2")
    # Layer 1 turns MoE: dense 3 x 16 x 20 = 960 out; router 16 x 3 = 48, experts
    # 3 x 3 x 16 x 12 = 1,728 and shared expert 3 x 16 x 12 = 576 in: + 1,392.
    listed, every = read(llama4, tmp_path), read({**llama4, "moe_layers": [0, 1, 2]}, tmp_path)
    assert total_params(every) - total_params(listed) == 1_392
    assert listed.dense_ffn_layers == [1]
    # moe_layers absent: interleave_moe_layer_step 2 makes layer 1 the only MoE layer.
    del llama4["moe_layers"]
    assert read({**llama4, "interleave_moe_layer_step": 2}, tmp_path).dense_ffn_layers == [0, 2]
    # An index past the last layer names no layer (transformers tests `layer_idx in moe_layers`).
    assert read({**llama4, "moe_layers": [0, 2, 7]}, tmp_path) == listed


def test_bad_fields_exit_2_naming_them(tmp_path: Path) -> None:
    llama4 = case("llama4_text moe_layers listed, tied, top-2")
    path = tmp_path / "config.json"
    for bad, field in (
        ({**llama4, "moe_layers": [0, "2"]}, "moe_layers"),
        ({**llama4, "moe_layers": 2}, "moe_layers"),
    ):  # fmt: skip
        path.write_text(json.dumps(bad, indent=2))
        r = run("params", "--hf-config", str(path))
        assert r.exit_code == 2 and field in r.stderr, r.stderr
    # Left out, a size takes Llama4TextConfig's default (intermediate_size_mlp 16,384,
    # num_local_experts 16), as the class instantiated without it does.
    for key in ("intermediate_size_mlp", "num_local_experts"):
        without = {k: v for k, v in llama4.items() if k != key}
        path.write_text(json.dumps(without, indent=2))
        model = build(without, "meta")
        assert total_params(read(without, tmp_path)) == sum(p.numel() for p in model.parameters())


# --- checkpoints as the Hub stores them ----------------------------------------------------


def test_gpt_oss_mxfp4_checkpoint_is_reported(tmp_path: Path) -> None:
    """The released gpt-oss checkpoints store each expert matrix as MXFP4 blocks and scales
    (uint8): verify lists those names as unexpected, the bf16 tensors as missing, exits 1."""
    data = case("gpt_oss head_dim x heads != d_model, GQA, top-2 of 4, untied")
    data |= {"hidden_size": 64, "intermediate_size": 32}  # multiples of the 32-value block
    save(build(data), tmp_path)
    tensors = load_file(str(tmp_path / "model.safetensors"))
    e, d, f = 4, 64, 32
    for i in range(2):  # the Hub layout: [E, out, in / 32, 16] blocks, [E, out, in / 32] scales
        p = f"model.layers.{i}.mlp.experts."
        del tensors[p + "gate_up_proj"], tensors[p + "down_proj"]
        tensors[p + "gate_up_proj_blocks"] = torch.zeros(e, 2 * f, d // 32, 16, dtype=torch.uint8)
        tensors[p + "gate_up_proj_scales"] = torch.zeros(e, 2 * f, d // 32, dtype=torch.uint8)
        tensors[p + "down_proj_blocks"] = torch.zeros(e, d, f // 32, 16, dtype=torch.uint8)
        tensors[p + "down_proj_scales"] = torch.zeros(e, d, f // 32, dtype=torch.uint8)
    save_file(tensors, str(tmp_path / "model.safetensors"))
    r = verify(tmp_path)
    assert r.exit_code == 1
    ck = r.json()["checkpoint"]
    assert sorted(ck["unexpected"]) == sorted(
        f"model.layers.{i}.mlp.experts.{p}_{kind}"
        for i in range(2) for p in ("gate_up_proj", "down_proj") for kind in ("blocks", "scales")
    )  # fmt: skip
    assert sorted(ck["missing"]) == [
        "model.layers.{0..1}.mlp.experts.down_proj",
        "model.layers.{0..1}.mlp.experts.gate_up_proj",
    ]
    assert not ck["shape_mismatches"]  # the biases, router and attention all match


def test_llama4_multimodal_checkpoint_names(tmp_path: Path) -> None:
    """The released Llama 4 checkpoints hold the text model under `language_model.` beside the
    vision tower: the text tensors match, the vision ones are listed as unexpected."""
    data = case("llama4_text interleaved MoE (step 2), qk-norm, biased")
    save(build(data), tmp_path)
    tensors = load_file(str(tmp_path / "model.safetensors"))
    tensors = {f"language_model.{k}": v for k, v in tensors.items()}
    tensors["vision_model.patch_embedding.linear.weight"] = torch.zeros(4, 6)
    save_file(tensors, str(tmp_path / "model.safetensors"))
    r = verify(tmp_path)
    ck = r.json()["checkpoint"]
    assert ck["unexpected"] == ["vision_model.patch_embedding.linear.weight"]
    assert not ck["missing"] and not ck["shape_mismatches"]
    assert ck["checkpoint_params"] == total_params(read(data, tmp_path)) + 24
    assert r.exit_code == 1  # the vision tensor is not the text model's


# --- the real-size configs on the meta device -----------------------------------------------

COVERAGE = {
    c["name"]: c
    for c in json.loads((DATA / "coverage.json").read_text())["cases"]
    if c["model_type"] in CLASSES
}
PRESETS = {
    "gpt-oss-20b": "openai/gpt-oss-20b",
    "gpt-oss-120b": "openai/gpt-oss-120b",
    "llama-4-scout-text": "meta-llama/Llama-4-Scout-17B-16E (text_config)",
}


@pytest.mark.parametrize("preset", PRESETS)
def test_real_size_and_presets(preset: str, tmp_path: Path) -> None:
    case = COVERAGE[PRESETS[preset]]
    data = case["hf_config"]
    cfg = read(data, tmp_path)
    model = build(data, "meta")
    # Golden: tests/data/coverage.json total_params and active_params (transformers 5.24.0,
    # meta device).
    assert sum(p.numel() for p in model.parameters()) == case["total_params"]
    assert torch_active(model, cfg) == case["active_params"]
    assert total_params(cfg) == case["total_params"]
    assert active_params(cfg) == case["active_params"]
    assert param_shapes(model) == inventory_names(cfg)
    assert resolve_model(preset=preset).model_dump(exclude={"name", "source", "note"}) == (
        cfg.model_dump(exclude={"name", "source", "note"})
    )
    if data["model_type"] == "llama4_text":  # dense experts: no routing, so the meta device runs
        got = counted_flops(model, input_ids=token_ids(8, 1, 64, "meta"))
        assert got == forward_flops(cfg, Workload(1, 64)) + dense_expert_surplus(cfg, 1, 64)


def test_gpt_oss_20b_active_without_embedding() -> None:
    # OpenAI's model card: 3.61B active for gpt-oss-20b, the input embedding left out;
    # total and active from tests/data/coverage.json, embedding 201,088 x 2,880 = 579,133,440.
    data = run("params", "--preset", "gpt-oss-20b", "-f", "json").json()
    assert data["active_params"] == 4_187_440_704
    assert data["components"]["embedding"] == 579_133_440
    assert data["active_params_without_embedding"] == 3_608_307_264
