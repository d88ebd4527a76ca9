"""Differential tests: DeepSeek-V4 (`DeepseekV4ForCausalLM`) against `transformers`.

Optional, as tests/test_torch_oracle.py: they need torch and transformers and skip cleanly
without them. Each case is a config.json (some fields absent, so the class defaults apply);
ffn-calc reads it with `--hf-config`, transformers builds DeepseekV4ForCausalLM from the same
fields with eager attention and eager experts (the default grouped_mm kernel hides the routed
experts' matmuls from FlopCounterMode, as under DeepSeek-V3).

Checked exactly: parameters (`parameters()`); names and shapes (`named_parameters()`, the
in-memory names, from ffn-calc's inventory, which holds the names `save_pretrained` writes,
renamed as transformers' deepseek_v4 conversion renames them on load); forward FLOPs
(FlopCounterMode: compressors, the indexer's scores, the compressed entries beside the keys,
the hyper-connection matmuls); the cache after a prefill (`cache_numel`: its keys and values),
one decode step and generate(); the checkpoint `save_pretrained` writes (its header against the
inventory plus the score-bias and hash-table buffers, `ffn-calc verify --checkpoint`).

Routing: the hash-routed layers look their experts up in `tid2eid`, which a new model holds as
zeros (every token to expert 0, num_experts_per_tok times); the eager experts still run
every token through num_experts_per_tok expert passes, which is what the count convention
counts (B x S x experts_per_token expert passes per MoE layer, whatever the routing).
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
    save,
    token_ids,
    verify,
)

from ffn_calc.counts.flops import Workload, forward_flops  # noqa: E402
from ffn_calc.counts.inference import kv_elements  # noqa: E402
from ffn_calc.counts.params import active_params, stored_buffers, total_params  # noqa: E402
from ffn_calc.families.resolve import resolve_model  # noqa: E402
from ffn_calc.model.config import ModelConfig  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CLASSES = classes("test_oracle_deepseek_v4")
FRONTIER = next(
    c
    for c in json.loads((DATA / "frontier.json").read_text())["cases"]
    if c["model_type"] == "deepseek_v4"
)


def build(data: dict[str, Any], device: str = "cpu", experts: str = "eager") -> Any:
    """DeepseekV4ForCausalLM built by transformers from the config.json fields."""
    conf_name, model_name = CLASSES["deepseek_v4"]
    fields = {k: v for k, v in data.items() if k != "model_type"}
    conf = getattr(transformers, conf_name)(**fields)
    conf._attn_implementation = "eager"
    conf._experts_implementation = experts
    with torch.device(device):
        return getattr(transformers, model_name)(conf)


# transformers 5.24.0 conversion mapping of "deepseek_v4": the renames on load, in order
# (the checkpoint's names -> the module's), written out here as an independent reading.
LOAD_RENAMES = [
    (r"\.attn\.", ".self_attn."),
    (r"\.ffn\.", ".mlp."),
    (r"\.indexer\.compressor\.", ".compressor.indexer."),
    (r"^head\.weight", "lm_head.weight"),
    (r"\.attn_norm\.", ".input_layernorm."),
    (r"\.ffn_norm\.", ".post_attention_layernorm."),
    (r"\.hc_attn_(fn|base|scale)", r".attn_hc.\1"),
    (r"\.hc_ffn_(fn|base|scale)", r".ffn_hc.\1"),
    (r"\.attn_sink", ".sinks"),
    (r"\.indexer\.weights_proj\.", ".compressor.indexer.scorer.weights_proj."),
    (r"\.indexer\.wq_b\.", ".compressor.indexer.q_b_proj."),
    (r"\.norm\.", ".kv_norm."),
    (r"\.ape", ".position_bias"),
    (r"\.wq_a\.", ".q_a_proj."),
    (r"\.self_attn\.wq_b\.", ".self_attn.q_b_proj."),
    (r"\.wkv\.", ".kv_proj."),
    (r"\.wgate\.", ".gate_proj."),
    (r"\.wo_a\.", ".o_a_proj."),
    (r"\.wo_b\.", ".o_b_proj."),
    (r"\.q_norm\.", ".q_a_norm."),
    (r"\.shared_experts\.w1\.", ".shared_experts.gate_proj."),
    (r"\.shared_experts\.w2\.", ".shared_experts.down_proj."),
    (r"\.shared_experts\.w3\.", ".shared_experts.up_proj."),
]
EXPERT = re.compile(r"(.*\.mlp\.experts)\.\d+\.(w1|w2|w3)\.weight")


def loaded_name(name: str) -> str:
    """A saved name as the module's: the renames act on the name within the base model
    (`model.norm.weight` stays; `model.layers.0.attn.norm.weight` -> `...self_attn.kv_norm`)."""
    prefix = "model." if name.startswith("model.") else ""
    inner = name[len(prefix) :]
    for pattern, target in LOAD_RENAMES:
        inner = re.sub(pattern, target, inner)
    return prefix + inner


def in_memory(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """The inventory (the checkpoint's names) as the module holds it: renamed, and each
    layer's per-expert w1 / w3 (gate, up) fused into `gate_up_proj` [E, 2 x d_ff, d_model],
    w2 into `down_proj` [E, d_model, d_ff]."""
    e, f, d = cfg.n_experts or 0, cfg.d_ff, cfg.d_model
    out: dict[str, tuple[int, ...]] = {}
    for name, shape in inventory_names(cfg).items():
        new = loaded_name(name)
        m = EXPERT.fullmatch(new)
        if m is None:
            out[new] = shape
        elif m.group(2) == "w2":
            out[f"{m.group(1)}.down_proj"] = (e, d, f)
        else:
            out[f"{m.group(1)}.gate_up_proj"] = (e, 2 * f, d)
    return out


def stored(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """What save_pretrained writes: the inventory and each MoE layer's buffer, the score bias
    `ffn.gate.bias` [E] (top-k layers) or the table `ffn.gate.tid2eid` [vocab, k] (hash)."""
    out = inventory_names(cfg)
    for i in range(cfg.n_layers):
        if i in cfg.hash_layers:
            out[f"model.layers.{i}.ffn.gate.tid2eid"] = (
                cfg.vocab_size or 0,
                cfg.experts_per_token or 0,
            )
        else:
            out[f"model.layers.{i}.ffn.gate.bias"] = (cfg.n_experts or 0,)
    return out


# --- random small config.json files ---------------------------------------------------------

TYPES = ["sliding_attention", "compressed_sparse_attention", "heavily_compressed_attention"]


@st.composite
def config_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny config.json: hidden <= 24, <= 4 layers, every attention type drawn."""
    layers = draw(st.integers(1, 4))
    heads = draw(st.integers(1, 4))
    head_dim = draw(st.sampled_from([4, 8]))  # the rotary slice (qk_rope_head_dim 2 or 4)
    groups = draw(st.sampled_from([g for g in (1, 2, 4) if (heads * head_dim) % g == 0]))
    experts = draw(st.integers(1, 4))
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "num_hidden_layers": layers, "num_attention_heads": heads, "head_dim": head_dim,
        "qk_rope_head_dim": draw(st.sampled_from([2, head_dim // 2])),
        "hidden_size": draw(st.integers(2, 24)), "vocab_size": draw(st.integers(8, 60)),
        "moe_intermediate_size": draw(st.integers(1, 12)), "q_lora_rank": draw(st.integers(1, 12)),
        "n_routed_experts": experts, "num_experts_per_tok": draw(st.integers(1, experts)),
        "o_groups": groups, "o_lora_rank": draw(st.integers(1, 8)),
        "index_n_heads": draw(st.integers(1, 3)), "index_head_dim": draw(st.sampled_from([2, 4])),
        "index_topk": draw(st.integers(1, 4)), "sliding_window": draw(st.integers(2, 6)),
        "hc_mult": draw(st.integers(1, 3)), "max_position_embeddings": 64,
        "compress_rates": {"compressed_sparse_attention": draw(st.integers(1, 4)),
                           "heavily_compressed_attention": draw(st.integers(1, 5))},
        "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None,
    }  # fmt: skip
    if draw(st.booleans()):
        out["layer_types"] = draw(
            st.lists(st.sampled_from(TYPES), min_size=layers, max_size=layers)
        )
    if draw(st.booleans()):
        out["mlp_layer_types"] = draw(
            st.lists(st.sampled_from(["hash_moe", "moe"]), min_size=layers, max_size=layers)
        )
    else:
        maybe(draw, out, "num_hash_layers", draw(st.integers(0, 4)))
    maybe(draw, out, "mlp_bias", draw(st.booleans()))
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    maybe(draw, out, "hidden_act", draw(st.sampled_from(["silu", "gelu"])))
    maybe(draw, out, "n_shared_experts", draw(st.integers(1, 3)))  # not read by the class
    return out


def check(data: dict[str, Any], batch: int, s: int, tmp: Path) -> None:
    """Parameters, names and shapes, FLOPs, the cache and decode, a save_pretrained
    checkpoint, all exact."""
    torch.manual_seed(0)
    cfg = read(data, tmp)
    model = build(data).eval()
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg)
    assert {n: tuple(p.shape) for n, p in model.named_parameters()} == in_memory(cfg)
    ids = token_ids(data["vocab_size"], batch, s)
    got = counted_flops(model, input_ids=ids)
    assert got == forward_flops(cfg, Workload(batch=batch, seq_len=s))
    check_cache(model, cfg, ids)  # the cache, one decode step and generate(), cache on
    out = save(model, tmp / "ckpt")
    names = header(out)
    assert names == stored(cfg)
    assert sum(int(torch.Size(x).numel()) for x in names.values()) == total_params(
        cfg
    ) + stored_buffers(cfg)
    assert total_params(resolve_model(hf_config=out)) == total_params(cfg)
    r = verify(out)
    assert r.exit_code == 0, r.stdout
    report = r.json()["checkpoint"]
    assert report["checkpoint_params"] == total_params(cfg)
    assert len(report["buffers"]) == cfg.n_layers  # one per MoE layer: score bias or table
    written = json.loads((out / "config.json").read_text())
    written["moe_intermediate_size"] += 1
    (out / "config.json").write_text(json.dumps(written))
    r = verify(out)
    assert r.exit_code == 1
    assert r.json()["checkpoint"]["shape_mismatches"]


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """The harness's random configs (tests/test_oracle_cases.py)."""
    return config_jsons(family)


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """One case through the harness (tests/test_oracle_cases.py)."""
    check(data, batch, s, tmp)


# --- the family's own tests -----------------------------------------------------------------

BASE = EXPLICIT["deepseek_v4 every attention type, 1 hash layer"]


def test_each_structure_adds_its_tensors(tmp_path: Path) -> None:
    """Each piece of the structure counted by hand (the explicit case: d 16, h 4, hd 8,
    q_lora 12, o_groups 2 x o_lora 6, n 3 streams, E 4, f 8, index 2 x 4, rates 2 and 4)."""
    cfg = read(BASE, tmp_path)
    sliding = read({**BASE, "layer_types": ["sliding_attention"] * 4}, tmp_path)
    # HCA compressor: wkv, wgate [8, 16] 2 x 128 + ape [4, 8] 32 + norm [8] = 296.
    # CSA compressor: wkv, wgate [16, 16] 2 x 256 + ape [2, 16] 32 + norm 8 = 552; its indexer:
    # wkv, wgate [8, 16] 2 x 128 + ape [2, 8] 16 + norm [4] 4 + wq_b [8, 12] 96
    # + weights_proj [2, 16] 32 = 404. One HCA and two CSA layers: 296 + 2 x 956 = 2,208.
    assert total_params(cfg) - total_params(sliding) == 2_208
    one = read({**BASE, "hc_mult": 1}, tmp_path)
    # Streams 3 vs 1 per layer: fn [15, 48] 720 + base 15 + scale 3 = 738 twice against
    # fn [3, 16] 48 + 3 + 3 = 54 twice: 1,368 per layer x 4; hc_head [3, 48] 144 + 3 + 1
    # against [1, 16] 16 + 1 + 1: 130. 4 x 1,368 + 130 = 5,602.
    assert total_params(cfg) - total_params(one) == 5_602
    biased = read({**BASE, "mlp_bias": True}, tmp_path)
    # mlp_bias: the shared expert's gate and up [8] and down [16] biases, 32 per layer; the
    # routed experts have none.
    assert total_params(biased) - total_params(cfg) == 4 * 32
    shared = read({**BASE, "n_shared_experts": 3}, tmp_path)
    assert total_params(shared) == total_params(cfg)  # n_shared_experts is not read
    # Idle experts: (4 - 2) x 3 x 16 x 8 = 768 per layer, 4 layers.
    assert total_params(cfg) - active_params(cfg) == 4 * 768
    # Buffers: tid2eid [50, 2] in the hash layer, e_score_correction_bias [4] in 3 layers.
    assert stored_buffers(cfg) == 100 + 3 * 4
    model = build(BASE, "meta")
    assert sum(b.numel() for n, b in model.named_buffers() if ".mlp.gate." in n) == 112


def test_defaults_and_legacy_keys(tmp_path: Path) -> None:
    """The class's default layer pattern and hash layers, and the legacy keys it folds in."""
    five = read({k: v for k, v in BASE.items() if k not in ("layer_types", "mlp_layer_types")}
                | {"num_hidden_layers": 5}, tmp_path)  # fmt: skip
    # DeepseekV4Config: 2 x HCA, then HCA / CSA alternating; the first 3 layers hash-routed.
    assert (five.hca_layers, five.csa_layers, five.hash_layers) == ([0, 1, 2, 4], [3], [0, 1, 2])
    legacy = read(EXPLICIT["deepseek_v4 legacy keys: compress_ratios, compress_rate_csa, "
                           "num_hash_layers"], tmp_path)  # fmt: skip
    assert (legacy.csa_layers, legacy.hca_layers, legacy.csa_rate, legacy.hca_rate) == (
        [1],
        [2],
        3,
        2,
    )
    assert legacy.hash_layers == [0]
    longer = read({**BASE, "layer_types": [*BASE["layer_types"], "sliding_attention"]}, tmp_path)
    assert longer.csa_layers == [2, 3]  # the class keeps the first num_hidden_layers types


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"layer_types": ["sliding_attention"] * 3}, "layer_types"),
        ({"layer_types": ["full_attention"] * 4}, "layer_types"),
        ({"mlp_layer_types": ["dense"] * 4}, "mlp_layer_types"),
        ({"compress_rates": {"heavily_compressed_attention": 4}}, "compress_rates"),
        ({"layer_types": None, "compress_ratios": [0, 8, 0, 0]}, "compress_ratios"),
        ({"o_groups": 3}, "o_groups"),
    ],
)
def test_bad_config_is_refused(change: dict[str, Any], field: str, tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**BASE, **change}))
    r = run("params", "--hf-config", str(path))
    assert r.exit_code == 2 and r.stdout == "" and field in r.stderr


def test_crossovers_and_training_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(BASE))
    for args in (["crossover"], ["crossover", "--decode"], ["memory", "--training"]):
        r = run(*args, "--hf-config", str(path))
        assert r.exit_code == 2 and r.stdout == "" and "compressed attention" in r.stderr


def test_cache_counts_keys_and_values_only(tmp_path: Path) -> None:
    """kv_elements is what cache_numel sees: each layer's one key head, held as keys and as
    values (one tensor), min(L, window - 1) tokens; the compressed entries, buffers and overlap
    states the cache layers also keep are not counted."""
    cfg = read(BASE, tmp_path)
    model = build(BASE).eval()
    ids = token_ids(50, 2, 9)
    with torch.no_grad():
        cache = model(input_ids=ids, use_cache=True).past_key_values
    # 4 layers x 2 (keys, values) x B 2 x min(9, 4 - 1) = 3 tokens x head_dim 8 = 384.
    assert cache_numel(cache) == kv_elements(cfg, 2, 9) == 384


def test_real_size_params_and_names(tmp_path: Path) -> None:
    """tests/data/frontier.json's DeepSeek-V4-Flash-Base (the class defaults) on the meta
    device: total and active parameters, every name and shape, the buffers."""
    data = FRONTIER["hf_config"]
    cfg = read(data, tmp_path)
    model = build(data, "meta")
    # Golden: frontier.json total_params, active_params (transformers 5.24.0, meta device).
    assert sum(p.numel() for p in model.parameters()) == FRONTIER["total_params"]
    assert total_params(cfg) == FRONTIER["total_params"] == 284_325_869_015
    assert active_params(cfg) == FRONTIER["active_params"] == 13_793_261_015
    assert {n: tuple(p.shape) for n, p in model.named_parameters()} == in_memory(cfg)
    # frontier.json buffers_not_counted: tid2eid 2,327,040 + e_score_correction_bias 10,240.
    assert stored_buffers(cfg) == sum(FRONTIER["buffers_not_counted"].values()) == 2_337_280


@pytest.mark.parametrize(
    "change",
    [
        {"attention": "standard"},  # compressors without compressed attention
        {"o_groups": None},
        {"n_kv_heads": 2},
        {"o_groups": 3},  # does not divide n_heads x head_dim = 32
        {"csa_layers": [2, 3], "hca_layers": [1, 2]},  # a layer in both
        {"csa_layers": [2, 4]},  # past the 4 layers
        {"csa_rate": None},
        {"hash_layers": [0, 0]},
        {"attention_window": None},
    ],
)
def test_model_config_keeps_the_structure_consistent(
    change: dict[str, Any], tmp_path: Path
) -> None:
    """The invariants of compressed attention, its compressors and hash routing, as
    ModelConfig checks them (a config file or a sweep gives the fields directly)."""
    fields = read(BASE, tmp_path).model_dump()
    with pytest.raises(ValueError):
        ModelConfig(**{**fields, **change})
