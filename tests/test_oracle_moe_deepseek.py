"""Differential tests: DeepSeek-V3 and DeepSeek-V2 against `transformers`.

Optional, as tests/test_torch_oracle.py: they need torch and transformers and skip cleanly
without them. Each case is a config.json as the Hub holds it (some fields absent, so the class
defaults apply); ffn-calc reads it with `--hf-config`, transformers builds the class named in
`architectures` from the same fields. Parameters come from `parameters()`; tensor names from
`named_parameters()` (the experts fused in memory) and from the header of what
`save_pretrained` writes (one tensor per expert, plus the routing-score bias buffer of V3);
FLOPs from `torch.utils.flop_counter.FlopCounterMode` over a forward pass with eager attention
and eager experts (transformers' default grouped_mm kernel hides the expert matmuls from the
counter: see test_default_experts_kernel_hides_the_routed_matmuls).

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
safetensors = pytest.importorskip("safetensors")

from conftest import DATA, run  # noqa: E402
from oracle_cases import EXPLICIT, classes  # noqa: E402
from oracle_support import (  # noqa: E402
    check_cache,
    counted_flops,
    header,
    inventory_names,
    maybe,
    read,
    token_ids,
)

from ffn_calc.counts.flops import Workload, forward_flops  # noqa: E402
from ffn_calc.counts.params import active_params, expert_params, stored_buffers, total_params  # noqa: E402
from ffn_calc.families.resolve import resolve_model  # noqa: E402
from ffn_calc.model.config import ModelConfig  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CLASSES = classes("test_oracle_moe_deepseek")
FAMILIES = sorted(CLASSES)


def build(data: dict[str, Any], device: str = "cpu", experts: str = "eager") -> Any:
    """The class named in `architectures`, built by transformers from the config.json fields."""
    conf_name, model_name = CLASSES[data["model_type"]]
    fields = {k: v for k, v in data.items() if k != "model_type"}
    conf = getattr(transformers, conf_name)(**fields)
    conf._attn_implementation = "eager"
    conf._experts_implementation = experts
    with torch.device(device):
        return getattr(transformers, model_name)(conf)


EXPERT = re.compile(r"(.*\.mlp\.experts)\.\d+\.(gate_proj|up_proj|down_proj)\.weight")


def in_memory(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """The inventory as transformers holds it: each layer's per-expert matrices fused into
    `mlp.experts.gate_up_proj` [E, 2 x d_ff, d_model] and `mlp.experts.down_proj` [E, d_model,
    d_ff] (DeepseekV3Experts / DeepseekV2Experts)."""
    e, f, d = cfg.n_experts or 0, cfg.d_ff, cfg.d_model
    out: dict[str, tuple[int, ...]] = {}
    for name, shape in inventory_names(cfg).items():
        m = EXPERT.fullmatch(name)
        if m is None:
            out[name] = shape
        elif m.group(2) == "down_proj":
            out[f"{m.group(1)}.down_proj"] = (e, d, f)
        else:
            out[f"{m.group(1)}.gate_up_proj"] = (e, 2 * f, d)
    return out


def stored(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """What save_pretrained writes: the inventory's names (one tensor per expert) and, under
    DeepSeek-V3, each MoE layer's e_score_correction_bias buffer [n_experts]."""
    out = inventory_names(cfg)
    if cfg.router_score_bias == "buffer":
        dense = set(cfg.dense_ffn_layers)
        for i in (i for i in range(cfg.n_layers) if i not in dense):
            out[f"model.layers.{i}.mlp.gate.e_score_correction_bias"] = (cfg.n_experts or 0,)
    return out


# --- random small config.json files per family ----------------------------------------------


@st.composite
def config_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny config.json: d_model <= 64, <= 3 layers, vocab <= 100, the family's flags drawn."""
    heads = draw(st.integers(1, 4))
    v3 = family == "deepseek_v3"
    experts = draw(st.integers(2 if v3 else 1, 8))
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "num_hidden_layers": draw(st.integers(1, 3)), "num_attention_heads": heads,
        # V2 requires heads | hidden_size; V3 does not (MLA's head widths are their own).
        "hidden_size": heads * draw(st.integers(1, 16)) if not v3 else draw(st.integers(2, 64)),
        "intermediate_size": draw(st.integers(1, 48)), "vocab_size": draw(st.integers(8, 100)),
        "moe_intermediate_size": draw(st.integers(1, 16)), "n_routed_experts": experts,
        # V2's rotary views q and k_pe as complex numbers: the widths before them are even.
        "kv_lora_rank": draw(st.integers(1, 8)) * (1 if v3 else 2),
        "qk_nope_head_dim": draw(st.integers(1, 8)) * (1 if v3 else 2),
        "qk_rope_head_dim": draw(st.sampled_from([2, 4, 8])),  # rotary pairs: even
        "v_head_dim": draw(st.integers(1, 8)), "max_position_embeddings": 64,
        "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None,
    }  # fmt: skip
    # Keys and values have n_heads heads: any other num_key_value_heads breaks the forward
    # (V3's class default is 128; V2's is the head count).
    if v3 or draw(st.booleans()):
        out["num_key_value_heads"] = heads
    q_lora = draw(st.sampled_from(["absent", None, 1, 8, 16]))  # absent: 1536; null: q_proj
    if q_lora != "absent":
        out["q_lora_rank"] = q_lora
    maybe(draw, out, "first_k_dense_replace", draw(st.integers(0, 3)))
    maybe(draw, out, "n_shared_experts", draw(st.integers(1, 3)))
    maybe(draw, out, "attention_bias", draw(st.booleans()))
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    maybe(draw, out, "hidden_act", draw(st.sampled_from(["silu", "gelu"])))
    if v3:  # sigmoid scores, top-2 sums per group: at least 2 experts in each of n_group
        group = draw(st.sampled_from([g for g in range(1, experts + 1) if experts % g == 0
                                      and experts // g >= 2]))  # fmt: skip
        topk_group = draw(st.integers(1, group))
        out |= {"n_group": group, "topk_group": topk_group,
                "num_experts_per_tok": draw(st.integers(1, topk_group * experts // group))}  # fmt: skip
        maybe(draw, out, "num_nextn_predict_layers", draw(st.integers(0, 2)))
        maybe(draw, out, "rope_interleave", draw(st.booleans()))
    else:
        out["num_experts_per_tok"] = draw(st.integers(1, experts))  # no class default
        maybe(draw, out, "mlp_bias", draw(st.booleans()))
        maybe(draw, out, "moe_layer_freq", draw(st.integers(1, 2)))  # not read by the class
        if draw(st.booleans()):
            group = draw(st.sampled_from([g for g in range(1, experts + 1) if experts % g == 0]))
            topk_group = draw(st.integers(1, group))
            out |= {"topk_method": "group_limited_greedy", "n_group": group,
                    "topk_group": topk_group,
                    "num_experts_per_tok": min(out["num_experts_per_tok"],
                                               topk_group * experts // group)}  # fmt: skip
    return out


def widened(data: dict[str, Any], cfg: ModelConfig) -> dict[str, Any]:
    """The config.json with the FFN width the model's layers use changed by one: the routed
    experts' where there is a MoE layer, else the dense FFN's."""
    key = (
        "moe_intermediate_size" if len(cfg.dense_ffn_layers) < cfg.n_layers else "intermediate_size"
    )
    return {**data, key: data[key] + 1}


def check(data: dict[str, Any], batch: int, s: int, tmp: Path) -> None:
    """Parameters, names and shapes, FLOPs and a save_pretrained checkpoint, all exact."""
    torch.manual_seed(0)
    cfg = read(data, tmp)
    model = build(data).eval()
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg)
    assert {n: tuple(p.shape) for n, p in model.named_parameters()} == in_memory(cfg)
    # Top-k dispatch: every token through experts_per_token experts, whatever the routing.
    ids = token_ids(data["vocab_size"], batch, s)
    got = counted_flops(model, input_ids=ids)
    assert got == forward_flops(cfg, Workload(batch=batch, seq_len=s))
    check_cache(model, cfg, ids)  # the cache, one decode step and generate(), cache on
    # The checkpoint and the config.json that save_pretrained writes (every field explicit).
    out = tmp / "ckpt"
    with contextlib.redirect_stderr(io.StringIO()):
        model.save_pretrained(out)
    names = header(out)
    assert names == stored(cfg)
    assert sum(int(torch.Size(x).numel()) for x in names.values()) == total_params(
        cfg
    ) + stored_buffers(cfg)
    assert total_params(resolve_model(hf_config=out)) == total_params(cfg)
    r = run("verify", "--hf-config", str(out), "--checkpoint", str(out), "-f", "json")
    assert r.exit_code == 0, r.stdout
    report = r.json()["checkpoint"]
    assert report["checkpoint_params"] == total_params(cfg)
    assert len(report["buffers"]) == (
        stored_buffers(cfg) and len(stored(cfg)) - len(inventory_names(cfg))
    )
    written = json.loads((out / "config.json").read_text())
    (out / "config.json").write_text(json.dumps(widened(written, cfg)))
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
    """The flags read are honoured: each changes the count by the tensors it adds."""
    v2 = EXPLICIT["deepseek_v2 lite: plain q_proj, layer 0 dense, mlp_bias"]
    biased, plain = read(v2, tmp_path), read({**v2, "mlp_bias": False}, tmp_path)
    # DeepseekV2MLP biases: the dense layer's gate 40 + up 40 + down 32 = 112; the shared
    # experts' (2 x 12 = 24 wide) 24 + 24 + 32 = 80 in each of the 2 MoE layers; the routed
    # experts (DeepseekV2Experts) have none: 112 + 2 x 80 = 272.
    assert total_params(biased) - total_params(plain) == 272
    assert expert_params(biased) == expert_params(plain) == 3 * 32 * 12
    v3 = EXPLICIT["deepseek_v3 low-rank Q, biased attention, 2 shared experts, tied"]
    # Absent n_shared_experts: V2's class default 2 (2 x 12 = 24 wide), V3's 1 (12 wide).
    assert plain.shared_expert_d_ff == 24
    assert (
        read({k: v for k, v in v3.items() if k != "n_shared_experts"}, tmp_path).shared_expert_d_ff
        == 12
    )
    low, full = read(v3, tmp_path), read({**v3, "q_lora_rank": None}, tmp_path)
    # q_a_proj [24, 32] 768 + its bias 24 + q_a_layernorm 24 + q_b_proj [4 x 12, 24] 1,152
    # = 1,968 against q_proj [4 x 12, 32] = 1,536, in each of 3 layers: 3 x 432 = 1,296.
    assert total_params(low) - total_params(full) == 1_296
    unbiased = read({**v3, "attention_bias": False}, tmp_path)
    # q_a_proj 24 + kv_a_proj_with_mqa (16 + 4) 20 + o_proj 32 = 76 per layer, 3 layers.
    assert total_params(low) - total_params(unbiased) == 228
    defaults = read({k: v for k, v in v3.items() if k != "first_k_dense_replace"}, tmp_path)
    assert defaults.dense_ffn_layers == [0, 1, 2]  # V3's class default 3: all 3 layers dense
    assert active_params(defaults) == total_params(defaults)
    assert stored_buffers(low) == 2 * 8  # e_score_correction_bias [8] in the 2 MoE layers


def test_moe_layer_freq_is_noted_not_counted(tmp_path: Path) -> None:
    v2 = EXPLICIT["deepseek_v2 lite: plain q_proj, layer 0 dense, mlp_bias"]
    every, second = read(v2, tmp_path), read({**v2, "moe_layer_freq": 2}, tmp_path)
    # DeepseekV2DecoderLayer: MoE iff layer_idx >= first_k_dense_replace; moe_layer_freq unread.
    assert total_params(every) == total_params(second)
    assert second.note and "moe_layer_freq = 2" in second.note and every.note is None
    model = build({**v2, "moe_layer_freq": 2}, "meta")
    assert sum(p.numel() for p in model.parameters()) == total_params(second)


def test_required_fields_are_named(tmp_path: Path) -> None:
    v2 = {k: v for k, v in EXPLICIT["deepseek_v2 lite: plain q_proj, layer 0 dense, mlp_bias"].items()
          if k != "num_experts_per_tok"}  # fmt: skip
    path = tmp_path / "config.json"
    path.write_text(json.dumps(v2))
    r = run("params", "--hf-config", str(path))
    assert r.exit_code == 2 and "num_experts_per_tok" in r.stderr
    path.write_text(json.dumps({**v2, "num_experts_per_tok": 2, "hidden_size": 30}))
    r = run("params", "--hf-config", str(path))
    assert r.exit_code == 2 and "num_attention_heads" in r.stderr


def test_default_experts_kernel_hides_the_routed_matmuls(tmp_path: Path) -> None:
    """Why the oracle runs eager experts: transformers' default grouped_mm kernel is invisible
    to FlopCounterMode, which then misses exactly the routed experts' FLOPs."""
    data = EXPLICIT["deepseek_v3 low-rank Q, biased attention, 2 shared experts, tied"]
    cfg = read(data, tmp_path)
    torch.manual_seed(0)
    model = build(data, experts="grouped_mm").eval()
    missed = forward_flops(cfg, Workload(batch=2, seq_len=5)) - counted_flops(
        model, input_ids=token_ids(50, 2, 5)
    )
    # 2 MoE layers x 10 tokens x 2 experts each x 2 x 3 x 32 x 12 FLOPs per expert pass.
    assert missed == 2 * 10 * 2 * 2 * 3 * 32 * 12


# --- the real-size configs on the meta device ------------------------------------------------

COVERAGE = {
    c["model_type"]: c
    for c in json.loads((DATA / "coverage.json").read_text())["cases"]
    if c["model_type"] in CLASSES
}
PRESETS = {"deepseek-v3": "deepseek_v3", "deepseek-v2-lite": "deepseek_v2"}


@pytest.mark.parametrize("family", FAMILIES)
def test_real_size_params_and_names(family: str, tmp_path: Path) -> None:
    data = COVERAGE[family]["hf_config"]
    cfg = read(data, tmp_path)
    model = build(data, "meta")
    # Golden: tests/data/coverage.json total_params and active_params (transformers 5.24.0,
    # meta device).
    assert sum(p.numel() for p in model.parameters()) == COVERAGE[family]["total_params"]
    assert total_params(cfg) == COVERAGE[family]["total_params"]
    assert active_params(cfg) == COVERAGE[family]["active_params"]
    assert {n: tuple(p.shape) for n, p in model.named_parameters()} == in_memory(cfg)


@pytest.mark.parametrize("family", FAMILIES)
def test_real_size_dense_layers_flops(family: str, tmp_path: Path) -> None:
    """MoE routing cannot run on the meta device; the dense layers can: the real-size config
    cut to its first layers (DeepSeek-V3's 3 dense ones, V2-Lite's 1) at S = 64, so the MLA
    projections and both score widths run at full size."""
    data = COVERAGE[family]["hf_config"]
    cut = {**data, "num_hidden_layers": data["first_k_dense_replace"]}
    cfg = read(cut, tmp_path)
    assert cfg.moe_layers(cfg.n_layers) == 0
    model = build(cut, "meta")
    assert counted_flops(model, input_ids=token_ids(8, 1, 64, "meta")) == forward_flops(
        cfg, Workload(1, 64)
    )


@pytest.mark.parametrize("preset", PRESETS)
def test_presets_are_the_instantiated_models(preset: str, tmp_path: Path) -> None:
    cfg = resolve_model(preset=preset)
    assert total_params(cfg) == total_params(read(COVERAGE[PRESETS[preset]]["hf_config"], tmp_path))
    model = build(COVERAGE[PRESETS[preset]]["hf_config"], "meta")
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg)
    assert {n: tuple(p.shape) for n, p in model.named_parameters()} == in_memory(cfg)


def test_deepseek_v3_checkpoint_elements_and_mtp_layer() -> None:
    """The preset's note: 671,026,419,200 elements with the score-bias buffers, and the
    released checkpoint's multi-token-prediction layer, derived from its tensors."""
    cfg = resolve_model(preset="deepseek-v3")
    # Golden: coverage.json params_note (671,026,419,200 stored elements, main model).
    assert total_params(cfg) + stored_buffers(cfg) == 671_026_419_200
    d, v, e = cfg.d_model, cfg.vocab_size or 0, cfg.n_experts or 0
    one = total_params(cfg.model_copy(update={"n_layers": 4})) - total_params(
        cfg.model_copy(update={"n_layers": 3})
    )  # one MoE layer (layer 3)
    assert one == 11_507_286_016
    # model.layers.61 (DeepSeek-V3 README_WEIGHTS.md): one MoE decoder layer with its score
    # bias, enorm, hnorm, shared_head.norm [d], eh_proj [d, 2d], and the checkpoint's own
    # embed_tokens and shared_head.head copies [vocab, d].
    mtp = one + e + 3 * d + 2 * d * d + 2 * v * d
    assert mtp == 13_463_426_304
    assert 671_026_419_200 + mtp == 684_489_845_504
    assert f"{mtp:,}" in (cfg.note or "") and "684,489,845,504" in (cfg.note or "")
