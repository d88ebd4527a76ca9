"""Differential tests: sparse attention (DeepSeek-V3.2, GLM-5) against `transformers`.

Optional, as tests/test_torch_oracle.py: they need torch and transformers and skip cleanly
without them. Each case is a config.json as the Hub holds it (some fields absent, so the class
defaults apply); ffn-calc reads it with `--hf-config`, transformers builds the class named in
`architectures` (DeepseekV32ForCausalLM, GlmMoeDsaForCausalLM) from the same fields.
Parameters come from `parameters()`; tensor names from `named_parameters()` (the experts fused
in memory, the lightning indexer's `self_attn.indexer.wq_b`, `wk`, `k_norm`, `weights_proj`)
and from the header of what `save_pretrained` writes (one tensor per expert, plus the
routing-score bias buffer); FLOPs from `torch.utils.flop_counter.FlopCounterMode` over a
forward pass with eager attention and eager experts (as tests/test_oracle_moe_deepseek.py:
top-k dispatch sends every token through experts_per_token experts whatever the routing);
the cache after a prefill (the MLA latent, the rotary key and the indexer's keys), one decode
step and generate() through oracle_support.check_cache.

The random tiny configs (`configs`) and the check of one case (`check_case`) run in the one
harness, tests/test_oracle_cases.py, over the cases in tests/oracle_cases.py; this module
holds them and the families' own tests.
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
    cache_numel,
    check_cache,
    counted_flops,
    header,
    inventory_names,
    maybe,
    read,
    token_ids,
)

from ffn_calc.counts.flops import Workload, forward_flops  # noqa: E402
from ffn_calc.counts.inference import decode_flops, kv_elements  # noqa: E402
from ffn_calc.counts.params import active_params, stored_buffers, total_params  # noqa: E402
from ffn_calc.families.resolve import resolve_model  # noqa: E402
from ffn_calc.model.config import ModelConfig  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::FutureWarning")

CLASSES = classes("test_oracle_sparse_attention")
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
    """The inventory as transformers holds it: each MoE layer's per-expert matrices fused into
    `mlp.experts.gate_up_proj` [E, 2 x d_ff, d_model] and `mlp.experts.down_proj` [E, d_model,
    d_ff] (DeepseekV32Experts / GlmMoeDsaExperts)."""
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
    """What save_pretrained writes: the inventory's names (one tensor per expert) and each MoE
    layer's e_score_correction_bias buffer [n_experts]."""
    out = inventory_names(cfg)
    dense = set(cfg.dense_ffn_layers)
    for i in (i for i in range(cfg.n_layers) if i not in dense):
        out[f"model.layers.{i}.mlp.gate.e_score_correction_bias"] = (cfg.n_experts or 0,)
    return out


# --- random small config.json files per family ----------------------------------------------


@st.composite
def config_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny config.json: d_model <= 64, <= 3 layers, vocab <= 100, the indexer's sizes and
    the family's flags drawn."""
    heads = draw(st.integers(1, 4))
    experts = draw(st.integers(2, 8))
    layers = draw(st.integers(1, 3))
    rope = draw(st.sampled_from([2, 4, 8]))  # rotary pairs: even
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "num_hidden_layers": layers, "num_attention_heads": heads,
        # Keys and values have n_heads heads: any other num_key_value_heads breaks the forward.
        "num_key_value_heads": heads,
        "hidden_size": draw(st.integers(2, 64)), "intermediate_size": draw(st.integers(1, 48)),
        "vocab_size": draw(st.integers(8, 100)), "moe_intermediate_size": draw(st.integers(1, 16)),
        "n_routed_experts": experts, "kv_lora_rank": draw(st.integers(1, 8)),
        "q_lora_rank": draw(st.integers(1, 16)), "qk_nope_head_dim": draw(st.integers(1, 8)),
        "qk_rope_head_dim": rope, "v_head_dim": draw(st.integers(1, 8)),
        # The indexer splits its head into the rotary part and the rest: at least rope wide.
        "index_n_heads": draw(st.integers(1, 4)),
        "index_head_dim": rope + draw(st.integers(0, 6)),
        "index_topk": draw(st.integers(1, 12)),
        "max_position_embeddings": 64, "bos_token_id": 0, "eos_token_id": 0,
        "pad_token_id": None,
    }  # fmt: skip
    dense = draw(st.integers(0, 3))
    if draw(st.booleans()):  # the per-layer pattern, which the class reads over the count
        out["mlp_layer_types"] = draw(
            st.lists(st.sampled_from(["dense", "sparse"]), min_size=layers, max_size=layers)
        )
        maybe(draw, out, "first_k_dense_replace", dense)
    else:
        out["first_k_dense_replace"] = dense
    maybe(draw, out, "n_shared_experts", draw(st.integers(1, 3)))
    maybe(draw, out, "attention_bias", draw(st.booleans()))
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    maybe(draw, out, "hidden_act", draw(st.sampled_from(["silu", "gelu"])))
    # sigmoid scores, top-2 sums per group: at least 2 experts in each of n_group
    group = draw(
        st.sampled_from(
            [g for g in range(1, experts + 1) if experts % g == 0 and experts // g >= 2]
        )
    )
    topk_group = draw(st.integers(1, group))
    out |= {"n_group": group, "topk_group": topk_group,
            "num_experts_per_tok": draw(st.integers(1, topk_group * experts // group))}  # fmt: skip
    if family == "glm_moe_dsa":
        maybe(draw, out, "indexer_types", ["full"] * layers)
    return out


def widened(data: dict[str, Any], cfg: ModelConfig) -> dict[str, Any]:
    """The config.json with the indexer one head wider: wq_b and weights_proj change shape."""
    return {**data, "index_n_heads": data["index_n_heads"] + 1}


def check(data: dict[str, Any], batch: int, s: int, tmp: Path) -> None:
    """Parameters, names and shapes, FLOPs, the cache and a save_pretrained checkpoint."""
    torch.manual_seed(0)
    cfg = read(data, tmp)
    model = build(data).eval()
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg)
    assert {n: tuple(p.shape) for n, p in model.named_parameters()} == in_memory(cfg)
    ids = token_ids(data["vocab_size"], batch, s)
    got = counted_flops(model, input_ids=ids)
    assert got == forward_flops(cfg, Workload(batch=batch, seq_len=s))
    check_cache(model, cfg, ids)  # the cache, one decode step and generate(), cache on
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


# --- the indexer, term by term ----------------------------------------------------------------

V32 = EXPLICIT["deepseek_v32 indexer of 3 heads, layer 0 dense, biased attention"]
GLM = EXPLICIT["glm_moe_dsa mlp_layer_types, tied, every indexer full"]


def test_indexer_parameters_and_flops_by_hand(tmp_path: Path) -> None:
    """The indexer's share, from its shapes (tests/oracle_cases.py: d_model 32, q_lora_rank 24,
    index_n_heads 3, index_head_dim 8, 2 layers), against the instantiated model."""
    cfg = read(V32, tmp_path)
    without = cfg.model_copy(
        update={"indexer_heads": None, "indexer_head_dim": None, "indexer_topk": None}
    )
    # wq_b [3 x 8, 24] 576 + wk [8, 32] 256 + k_norm weight and bias 2 x 8 + weights_proj
    # [3, 32] 96 = 944 per layer, 2 layers.
    assert total_params(cfg) - total_params(without) == 2 * 944
    model = build(V32, "meta")
    indexer = sum(p.numel() for n, p in model.named_parameters() if ".indexer." in n)
    assert indexer == 2 * 944
    # Forward at B = 2, S = 5, per layer: projections 2 x 10 x (24 x 24 + 32 x 8 + 32 x 3)
    # = 18,560; scores 2 x 2 x 3 x 5 x 5 x (8 + 1) = 2,700 (q . k, then the head weights).
    w = Workload(batch=2, seq_len=5)
    assert forward_flops(cfg, w) - forward_flops(without, w) == 2 * (18_560 + 2_700)
    torch.manual_seed(0)
    got = counted_flops(build(V32).eval(), input_ids=token_ids(50, 2, 5))
    assert got == forward_flops(cfg, w)


def test_cache_holds_the_indexer_keys(tmp_path: Path) -> None:
    """transformers' DynamicIndexedLayer: keys [B, 1, L, kv_lora_rank], values [B, 1, L,
    qk_rope_head_dim], indexer_keys [B, L, index_head_dim]."""
    cfg = read(GLM, tmp_path)
    torch.manual_seed(0)
    model = build(GLM).eval()
    ids = token_ids(GLM["vocab_size"], 2, 6)
    with torch.no_grad():
        cache = model(input_ids=ids, use_cache=True).past_key_values
    layer = cache.layers[0]
    assert tuple(layer.keys.shape) == (2, 1, 6, 16)
    assert tuple(layer.values.shape) == (2, 1, 6, 4)
    assert tuple(layer.indexer_keys.shape) == (2, 6, 8)
    # 2 layers x 2 sequences x 6 tokens x (16 + 4 + 8)
    assert cache_numel(cache) == kv_elements(cfg, 2, 6) == 2 * 2 * 6 * 28
    # A decode step runs the indexer over the new token against the 7 attended keys.
    with torch.no_grad():
        step = counted_flops(model, input_ids=ids[:, -1:], past_key_values=cache, use_cache=True)
    assert step == decode_flops(cfg, 2, 6)


def test_indexer_term_is_named_in_flops_and_crossover(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(V32))
    flops = run("flops", "--hf-config", str(path), "-s", "8", "-f", "json").json()
    names = {t["name"] for layer in flops["layers"] for t in layer["terms"]}
    assert {"indexer scores", "indexer.wq_b", "indexer.wk", "indexer.weights_proj"} <= names
    assert "indexer scores" in flops["convention"]
    crossover = run("crossover", "--hf-config", str(path), "-f", "json").json()
    assert "indexer scores" in crossover["convention"]
    kv = run("kv", "--hf-config", str(path), "-L", "10", "-f", "json").json()
    assert "indexer" in kv["convention"]


# --- what the classes refuse or read differently -----------------------------------------------


def _refused(data: dict[str, Any], tmp_path: Path, field: str) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    r = run("params", "--hf-config", str(path))
    assert r.exit_code == 2 and r.stdout == ""
    assert field in r.stderr and "Traceback" not in r.stderr


def test_null_q_lora_rank_is_refused(tmp_path: Path) -> None:
    """DeepseekV32Attention has no plain q_proj, and DeepseekV32Config (strict) refuses a
    null q_lora_rank."""
    with pytest.raises(Exception, match="q_lora_rank"):
        build({**V32, "q_lora_rank": None}, "meta")
    _refused({**V32, "q_lora_rank": None}, tmp_path, "q_lora_rank")


def test_shared_indexer_layers_are_refused(tmp_path: Path) -> None:
    """GLM-MoE-DSA layers that reuse the previous full layer's top-k build no indexer: not
    counted yet, so refused rather than counted with one."""
    shared = {**GLM, "indexer_types": ["full", "shared"]}
    model = build(shared, "meta")
    assert not any(".layers.1.self_attn.indexer." in n for n, _ in model.named_parameters())
    _refused(shared, tmp_path, "indexer_types")
    # GlmMoeDsaConfig.__post_init__ without indexer_types: layer i is full iff
    # max(i - offset + 1, 0) % freq == 0; freq 2, offset 0: layer 0 shared.
    plain = {k: v for k, v in GLM.items() if k != "indexer_types"}
    freq = {**plain, "index_topk_freq": 2, "index_skip_topk_offset": 0}
    assert build(freq, "meta").config.indexer_types == ["shared", "full"]
    _refused(freq, tmp_path, "index_topk_freq")
    _refused({**plain, "index_topk_pattern": "FS"}, tmp_path, "index_topk_pattern")
    assert total_params(read({**plain, "index_topk_freq": 1}, tmp_path)) == total_params(
        read(GLM, tmp_path)
    )  # freq 1: every layer full, the default


def test_narrow_indexer_head_is_refused(tmp_path: Path) -> None:
    """An indexer head narrower than the rotary width cannot be split (torch.split fails)."""
    _refused({**V32, "index_head_dim": 2}, tmp_path, "indexer_head_dim")


def test_mlp_layer_types_overrides_first_k_dense_replace(tmp_path: Path) -> None:
    data = {**GLM, "first_k_dense_replace": 2, "mlp_layer_types": ["sparse", "dense"]}
    cfg = read(data, tmp_path)
    assert cfg.dense_ffn_layers == [1]
    assert sum(p.numel() for p in build(data, "meta").parameters()) == total_params(cfg)
    _refused({**GLM, "mlp_layer_types": ["dense"]}, tmp_path, "mlp_layer_types")


# --- the real-size configs on the meta device ------------------------------------------------

FRONTIER = {
    c["model_type"]: c
    for c in json.loads((DATA / "frontier.json").read_text())["cases"]
    if c["model_type"] in CLASSES
}
PRESETS = {"deepseek-v3.2": "deepseek_v32", "glm-5": "glm_moe_dsa"}


@pytest.mark.parametrize("family", FAMILIES)
def test_real_size_params_and_names(family: str, tmp_path: Path) -> None:
    data = FRONTIER[family]["hf_config"]
    cfg = read(data, tmp_path)
    model = build(data, "meta")
    # Golden: tests/data/frontier.json total_params and active_params (transformers 5.24.0,
    # meta device).
    assert sum(p.numel() for p in model.parameters()) == FRONTIER[family]["total_params"]
    assert total_params(cfg) == FRONTIER[family]["total_params"]
    assert active_params(cfg) == FRONTIER[family]["active_params"]
    assert {n: tuple(p.shape) for n, p in model.named_parameters()} == in_memory(cfg)


@pytest.mark.parametrize("family", FAMILIES)
def test_real_size_dense_layers_flops_and_cache(family: str, tmp_path: Path) -> None:
    """MoE routing cannot run on the meta device; the dense layers can: the real-size config
    cut to its 3 dense layers at S = 64, so the MLA projections, the indexer and every score
    width run at full size; the cache after the prefill and one decode step too."""
    data = FRONTIER[family]["hf_config"]
    cut = {**data, "num_hidden_layers": 3, "mlp_layer_types": data["mlp_layer_types"][:3],
           "layer_types": data["layer_types"][:3]}  # fmt: skip
    if "indexer_types" in cut:
        cut["indexer_types"] = cut["indexer_types"][:3]
    cfg = read(cut, tmp_path)
    assert cfg.moe_layers(cfg.n_layers) == 0
    model = build(cut, "meta")
    ids = token_ids(8, 1, 64, "meta")
    assert counted_flops(model, input_ids=ids) == forward_flops(cfg, Workload(1, 64))
    check_cache(model, cfg, ids)


@pytest.mark.parametrize("preset", PRESETS)
def test_presets_are_the_instantiated_models(preset: str) -> None:
    cfg = resolve_model(preset=preset)
    case = FRONTIER[PRESETS[preset]]
    model = build(case["hf_config"], "meta")
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg)
    assert {n: tuple(p.shape) for n, p in model.named_parameters()} == in_memory(cfg)
    # Golden: frontier.json buffers_not_counted (e_score_correction_bias in each MoE layer),
    # which the preset's note adds to the parameters as checkpoint elements.
    buffers = sum(case["buffers_not_counted"].values())
    assert (
        stored_buffers(cfg)
        == buffers
        == sum(b.numel() for b in model.buffers() if b.ndim == 1 and b.shape[0] == cfg.n_experts)
    )
    assert f"{total_params(cfg) + buffers:,}" in (cfg.note or "")


def _fields_read() -> list[tuple[str, str]]:
    from test_oracle_defaults import keys_read

    return [(f, k) for f in FAMILIES for k in keys_read(FRONTIER[f]["hf_config"])]


@pytest.mark.parametrize(("family", "field"), _fields_read())
def test_every_field_left_out(family: str, field: str, tmp_path: Path) -> None:
    """As tests/test_oracle_defaults.py over the frontier cases: each field the family reads,
    left out of the real config.json, takes the class default as transformers does (or both
    refuse)."""
    from test_oracle_defaults import instantiated

    data = {k: v for k, v in FRONTIER[family]["hf_config"].items() if k != field}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    want = instantiated(data)
    r = run("params", "--hf-config", str(path), "-f", "json")
    if isinstance(want, str):
        assert r.exit_code == 2 and r.stdout == "" and field in r.stderr, (want, r.stderr)
        return
    assert r.exit_code == 0, r.stderr
    assert r.json()["total_params"] == want
