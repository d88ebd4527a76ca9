"""verify: closed form vs the torch-free instantiation, and safetensors headers."""

from __future__ import annotations

import json
import struct
from math import prod
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, expand, run
from hypothesis import given, settings
from hypothesis import strategies as st

from ffn_calc.counts import params as pm
from ffn_calc.counts.flops import Workload, flop_components
from ffn_calc.counts.params import components
from ffn_calc.families.resolve import resolve_model
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.sources import preset_names
from ffn_calc.reference import instantiate as inst
from ffn_calc.reference.instantiate import instantiate
from ffn_calc.reference.safetensors import Entry
from ffn_calc.reports.verify import compare_checkpoint

CKPT = DATA / "checkpoints"


def header(name: str) -> dict[str, Any]:
    # The header save_pretrained wrote for a tiny real checkpoint (tests/data/README.md).
    return json.loads((CKPT / f"{name}.safetensors-header.json").read_text())


def write_safetensors(path: Path, entries: dict[str, Any]) -> Path:
    """A valid safetensors file: the 8-byte length, the JSON header, zeroed data."""
    raw = json.dumps(entries).encode()
    end = max((v["data_offsets"][1] for k, v in entries.items() if k != "__metadata__"), default=0)
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + bytes(end))
    return path


def repack(entries: dict[str, Any]) -> dict[str, Any]:
    """The entries laid out again end to end, as a file without the dropped ones would be."""
    out: dict[str, Any] = {}
    offset = 0
    for name, v in entries.items():
        if name != "__metadata__":
            size = v["data_offsets"][1] - v["data_offsets"][0]
            out[name] = {**v, "data_offsets": [offset, offset + size]}
            offset += size
    return out


def add_entry(entries: dict[str, Any], name: str, shape: list[int], dtype: str = "F32") -> None:
    end = max(v["data_offsets"][1] for k, v in entries.items() if k != "__metadata__")
    size = prod(shape) * (4 if dtype == "F32" else 1)
    entries[name] = {"dtype": dtype, "shape": shape, "data_offsets": [end, end + size]}


def gpt2_config() -> str:
    return str(CKPT / "tiny-gpt2.config.json")


# --- closed form == instantiation ------------------------------------------------------------


@pytest.mark.parametrize("name", preset_names())
def test_presets_inventory_matches_closed_form(name: str) -> None:
    cfg = resolve_model(preset=name)
    inv = instantiate(cfg, batch=2, seq_len=64, target_len=32)
    for comp, value in components(cfg).items():
        assert inv.params(comp) == value, comp
    for comp, value in flop_components(cfg, Workload(2, 64, 32)).items():
        assert inv.flops(comp) == value, comp


def test_reference_names_and_layouts() -> None:
    # Names and layouts as the reference implementations store them (issue 5, item 1; the
    # state_dicts of transformers' GPT2LMHeadModel, LlamaForCausalLM, Mixtral Hub checkpoints,
    # torch.nn.Transformer: MultiheadAttention.in_proj_weight is [3 d_model, d_model]).
    shapes = expand(instantiate(resolve_model(preset="gpt2-small")))
    assert shapes["transformer.h.0.mlp.c_fc.weight"] == (768, 3072)  # Conv1D: [in, out]
    assert shapes["transformer.h.11.mlp.c_fc.weight"] == (768, 3072)
    assert len(shapes) == 149  # GPT2LMHeadModel: 148 named parameters and the tied lm_head
    shapes = expand(instantiate(resolve_model(preset="llama-2-7b")))
    assert shapes["model.layers.0.mlp.gate_proj.weight"] == (11008, 4096)  # Linear: [out, in]
    shapes = expand(instantiate(resolve_model(preset="mixtral-8x7b")))
    assert shapes["model.layers.31.block_sparse_moe.experts.7.w1.weight"] == (14336, 4096)
    assert shapes["model.layers.0.block_sparse_moe.gate.weight"] == (8, 4096)
    assert "model.layers.32.block_sparse_moe.gate.weight" not in shapes
    assert "model.layers.0.block_sparse_moe.experts.8.w1.weight" not in shapes
    shapes = expand(instantiate(resolve_model(preset="transformer-base")))
    assert shapes["decoder.layers.5.multihead_attn.in_proj_weight"] == (1536, 512)
    assert shapes["decoder.layers.5.norm3.bias"] == (512,)
    assert "encoder.layers.5.norm3.bias" not in shapes  # encoder layers have two norms


@st.composite
def any_config(draw: Any) -> ModelConfig:
    heads = draw(st.integers(1, 4))
    arch = draw(st.sampled_from(["decoder-only", "encoder-only", "encoder-decoder"]))
    family_for = {"decoder-only": ["gpt2", "llama", "mistral", "qwen2", "mixtral", "custom"],
                  "encoder-only": ["bert", "custom"], "encoder-decoder": ["transformer", "custom"]}  # fmt: skip
    fields: dict[str, Any] = {
        "family": draw(st.sampled_from(family_for[arch])),
        "architecture": arch,
        "n_layers": draw(st.integers(1, 3)),
        "d_model": heads * draw(st.integers(1, 6)),
        "n_heads": heads,
        "n_kv_heads": draw(st.sampled_from([k for k in range(1, heads + 1) if heads % k == 0])),
        "head_dim": draw(st.one_of(st.none(), st.integers(1, 8))),
        "d_ff": draw(st.integers(1, 50)),
        "activation": draw(
            st.sampled_from(["relu", "gelu", "gelu_tanh", "silu", "swiglu", "geglu"])
        ),
        "attention_bias": draw(st.booleans()),
        "attention_out_bias": draw(st.one_of(st.none(), st.booleans())),
        "ffn_bias": draw(st.booleans()),
        "norm": draw(st.sampled_from(["layernorm", "rmsnorm"])),
        "final_norm": draw(st.booleans()),
        "embedding_norm": draw(st.booleans()),
        "vocab_size": draw(st.one_of(st.none(), st.integers(1, 60))),
        "pooler": draw(st.booleans()),
        "lm_head": draw(st.booleans()),
    }
    if arch == "encoder-decoder":
        fields["n_decoder_layers"] = draw(st.integers(1, 3))
        fields["shared_embeddings"] = draw(st.booleans())
    if fields["vocab_size"] is not None:
        fields["tie_embeddings"] = fields["lm_head"] and draw(st.booleans())
        fields["type_vocab_size"] = draw(st.integers(0, 3))
    if draw(st.booleans()):
        fields["positions"], fields["max_positions"] = "learned", draw(st.integers(1, 40))
    if draw(st.booleans()):
        experts = draw(st.integers(1, 4))
        fields |= {"n_experts": experts, "experts_per_token": draw(st.integers(1, experts)),
                   "router_bias": draw(st.booleans()),
                   "moe_latent_dim": draw(st.none() | st.integers(1, 12))}  # fmt: skip
    return ModelConfig.model_validate(fields)


@settings(max_examples=300, deadline=None)
@given(cfg=any_config(), b=st.integers(1, 3), s=st.integers(1, 40), t=st.integers(1, 40))
def test_random_configs_closed_form_equals_inventory(
    cfg: ModelConfig, b: int, s: int, t: int
) -> None:
    inv = instantiate(cfg, b, s, t)
    assert {k: inv.params(k) for k in components(cfg)} == components(cfg)
    w = Workload(b, s, t)
    assert {k: inv.flops(k) for k in flop_components(cfg, w)} == flop_components(cfg, w)
    names = [x.name for x in inv.tensors]
    assert len(names) == len(set(names))  # every template has its own name
    assert len(expand(inv)) == sum(x.count for x in inv.tensors)  # and so every copy


# --- the verify command ------------------------------------------------------------------------


def test_verify_all_passes() -> None:
    r = run("verify", "--all", "-f", "json")
    assert r.exit_code == 0, r.stdout
    data = r.json()
    assert data["ok"] is True
    assert {c["model"] for c in data["checks"]} == set(preset_names())
    assert "All checks match" in run("verify", "-p", "gpt2-small", "-p", "bert-base").stdout


def test_verify_catches_a_broken_formula(monkeypatch: pytest.MonkeyPatch) -> None:
    real = pm.ffn_terms
    monkeypatch.setattr(pm, "ffn_terms", lambda cfg: real(cfg)[:-1])  # drop one FFN term
    r = run("verify", "-p", "gpt2-small", "-f", "json")
    assert r.exit_code == 1
    bad = [c for c in r.json()["checks"] if not c["ok"]]
    assert {(c["kind"], c["component"]) for c in bad} == {("params", "ffn"), ("params", "total")}
    assert "MISMATCH" in run("verify", "-p", "gpt2-small").stdout


def test_verify_catches_a_broken_inventory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inst._Walker, "norm", lambda self, name: None)  # forget every norm
    r = run("verify", "-p", "llama-2-7b", "-f", "json")
    assert r.exit_code == 1
    assert {c["component"] for c in r.json()["checks"] if not c["ok"]} == {"norm", "total"}


def test_verify_needs_a_model() -> None:
    r = run("verify")
    assert r.exit_code == 2 and "nothing to verify" in r.stderr


def test_tensors_command() -> None:
    data = run("tensors", "-p", "gpt2-small", "--matmuls", "-f", "json").json()
    names = {t["name"]: t for t in data["tensors"]}
    assert names["lm_head.weight"]["tied_to"] == "transformer.wte.weight"
    assert data["total_params"] == 124_439_808  # reference_cases.json gpt2-small
    # One token: 2 x 12 layers x 12 d^2 weights + scores 12 x 4 x 12 heads x 64 + head 2 x 768 x 50257
    # = 169,869,312 + 36,864 + 77,194,752 (FLOPs = 2 x multiply-adds).
    assert sum(m["flops"] for m in data["matmuls"]) == 247_100_928


# --- checkpoints -------------------------------------------------------------------------------


def test_real_headers_pass(tmp_path: Path) -> None:
    for name in ("tiny-gpt2", "tiny-llama-gqa"):
        f = write_safetensors(tmp_path / f"{name}.safetensors", header(name))
        r = run(
            "verify",
            "--hf-config",
            str(CKPT / f"{name}.config.json"),
            "--checkpoint",
            str(f),
            "-f",
            "json",
        )
        assert r.exit_code == 0, r.stdout
        ck = r.json()["checkpoint"]
        assert ck["ok"] and ck["missing"] == [] and ck["unexpected"] == []
    # Bytes by dtype: the data section of the tiny Llama, 66,096 F32 values x 4 bytes.
    assert ck["bytes_by_dtype"] == {"F32": 264_384}
    table = run(
        "verify", "--hf-config", str(CKPT / "tiny-llama-gqa.config.json"), "--checkpoint", str(f)
    ).stdout
    assert "bytes of F32 tensors       264,384" in table


def test_checkpoint_variants_still_pass(tmp_path: Path) -> None:
    entries = header("tiny-gpt2")
    # The original GPT-2 Hub layout: no "transformer." prefix, causal-mask buffers stored.
    renamed = {k.removeprefix("transformer."): v for k, v in entries.items()}
    add_entry(renamed, "h.0.attn.bias", [1, 1, 64, 64])
    add_entry(renamed, "h.0.attn.masked_bias", [])
    add_entry(renamed, "lm_head.weight", [101, 32])  # a tied head stored anyway
    f = write_safetensors(tmp_path / "model.safetensors", renamed)
    r = run("verify", "--hf-config", gpt2_config(), "--checkpoint", str(tmp_path), "-f", "json")
    assert r.exit_code == 0, r.stdout
    ck = r.json()["checkpoint"]
    assert ck["buffers"] == ["h.0.attn.bias", "h.0.attn.masked_bias"]
    assert ck["tied_copies"] == ["lm_head.weight"]
    assert ck["checkpoint_params"] == 30_752  # tiny-gpt2 header sum, buffers and tied copy excluded
    assert f.exists()


def test_sharded_checkpoint(tmp_path: Path) -> None:
    entries = header("tiny-llama-gqa")
    names = sorted(k for k in entries if k != "__metadata__")
    half = len(names) // 2
    weight_map = {}
    for shard, part in (
        ("model-00001-of-00002.safetensors", names[:half]),
        ("model-00002-of-00002.safetensors", names[half:]),
    ):
        sub: dict[str, Any] = {}
        offset = 0
        for n in part:
            size = entries[n]["data_offsets"][1] - entries[n]["data_offsets"][0]
            sub[n] = {**entries[n], "data_offsets": [offset, offset + size]}
            offset += size
            weight_map[n] = shard
        write_safetensors(tmp_path / shard, sub)
    (tmp_path / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {}, "weight_map": weight_map})
    )
    cfg = str(CKPT / "tiny-llama-gqa.config.json")
    r = run("verify", "--hf-config", cfg, "--checkpoint", str(tmp_path), "-f", "json")
    assert r.exit_code == 0 and r.json()["checkpoint"]["checkpoint_params"] == 66_096
    (tmp_path / "model-00002-of-00002.safetensors").unlink()
    r = run("verify", "--hf-config", cfg, "--checkpoint", str(tmp_path))
    assert r.exit_code == 2 and "shard 'model-00002-of-00002.safetensors' is missing" in r.stderr


def test_mismatching_config_lists_differences(tmp_path: Path) -> None:
    f = write_safetensors(tmp_path / "m.safetensors", header("tiny-llama-gqa"))
    cfg = json.loads((CKPT / "tiny-llama-gqa.config.json").read_text())
    other = tmp_path / "config.json"
    other.write_text(
        json.dumps(
            {**cfg, "intermediate_size": 96, "num_hidden_layers": 4, "tie_word_embeddings": True}
        )
    )
    r = run("verify", "--hf-config", str(other), "--checkpoint", str(f), "-f", "json")
    assert r.exit_code == 1
    ck = r.json()["checkpoint"]
    assert "model.layers.3.mlp.down_proj.weight" in ck["missing"]
    assert ck["unexpected"] == ["lm_head.weight"] or "lm_head.weight" in ck["tied_copies"]
    assert {
        "name": "model.layers.0.mlp.up_proj.weight",
        "expected": [96, 48],
        "found": [88, 48],
    } in ck["shape_mismatches"]
    out = run("verify", "--hf-config", str(other), "--checkpoint", str(f)).stdout
    assert "MISMATCH" in out and "model.layers.0.mlp.up_proj.weight" in out


def test_invalid_safetensors_files(tmp_path: Path) -> None:
    cfg = gpt2_config()

    def bad(path: Path) -> str:
        r = run("verify", "--hf-config", cfg, "--checkpoint", str(path))
        assert r.exit_code == 2 and r.stdout == "" and "Traceback" not in r.stderr
        assert str(path) in r.stderr
        return r.stderr

    short = tmp_path / "short.safetensors"
    short.write_bytes(b"\x01\x02")
    assert "too short" in bad(short)
    huge = tmp_path / "huge.safetensors"
    huge.write_bytes(struct.pack("<Q", 2**60) + b"{}")  # claims an exabyte: never read
    assert "beyond the file's size" in bad(huge)
    notjson = tmp_path / "notjson.safetensors"
    notjson.write_bytes(struct.pack("<Q", 4) + b"oops")
    assert "not valid JSON" in bad(notjson)
    array = tmp_path / "array.safetensors"
    array.write_bytes(struct.pack("<Q", 2) + b"[]")
    assert "not a JSON object" in bad(array)
    assert "does not exist" in bad(tmp_path / "missing.safetensors")
    empty = tmp_path / "empty_dir"
    empty.mkdir()
    assert "neither model.safetensors" in bad(empty)


# --- identical layers and experts are described once ----------------------------------------


@pytest.mark.parametrize("architecture", ["decoder-only", "encoder-decoder"])
def test_size_of_the_inventory_does_not_grow_with_layers_or_experts(architecture: str) -> None:
    def inventory(layers: int, experts: int) -> inst.Inventory:
        cfg = ModelConfig(
            architecture=architecture, n_layers=layers, d_model=64, n_heads=4, d_ff=256,
            vocab_size=100, n_experts=experts, experts_per_token=2,
        )  # fmt: skip
        return instantiate(cfg, batch=2, seq_len=8)

    small, huge = inventory(1, 2), inventory(10**6, 10**5)
    assert len(huge.tensors) == len(small.tensors)
    assert len(huge.matmuls) == len(small.matmuls)


@pytest.mark.parametrize("name", preset_names())
def test_huge_inventories_match_the_closed_form(name: str) -> None:
    # A million layers per stack (and 100,000 experts for MoE): the counts multiply, the
    # objects do not.
    big: dict[str, Any] = {"n_layers": 10**6}
    cfg = resolve_model(preset=name)
    if cfg.layer_mixers:
        # A hybrid names each layer's mixer (walked once per count, at most MAX_LISTED_LAYERS):
        # its stack repeated to about 100,000 layers, each layer list repeated with it.
        reps, n = 10**5 // cfg.n_layers, cfg.n_layers
        big = {
            "n_layers": reps * n,
            "layer_mixers": cfg.layer_mixers * reps,
            **{
                key: [i + k * n for k in range(reps) for i in getattr(cfg, key)]
                for key in ("ffn_free_layers", "dense_ffn_layers", "window_layers")
            },
        }
    if cfg.architecture == "encoder-decoder":
        big["n_decoder_layers"] = 10**6 - 1
    if cfg.n_experts is not None:
        big["n_experts"] = 10**5
    cfg = ModelConfig.model_validate({**cfg.model_dump(), **big})
    inv = instantiate(cfg, batch=2, seq_len=64, target_len=32)
    assert {k: inv.params(k) for k in components(cfg)} == components(cfg)
    w = Workload(2, 64, 32)
    assert {k: inv.flops(k) for k in flop_components(cfg, w)} == flop_components(cfg, w)
    assert len(inv.tensors) == len(instantiate(resolve_model(preset=name)).tensors)


def test_counts_of_the_templates() -> None:
    inv = instantiate(resolve_model(preset="mixtral-8x7b"))
    t = {x.name: x for x in inv.tensors}
    w1 = t["model.layers.{i}.block_sparse_moe.experts.{e}.w1.weight"]
    assert (w1.ranges, w1.count, w1.numel) == ((("i", 32), ("e", 8)), 256, 14336 * 4096)
    assert w1.label == "model.layers.{0..31}.block_sparse_moe.experts.{0..7}.w1.weight"
    assert t["model.norm.weight"].count == 1
    assert t["lm_head.weight"].label == "lm_head.weight"
    qk = next(m for m in inv.matmuls if m.name.endswith("scores QK^T"))
    assert qk.times == 32 * 32  # layers x heads, batch 1
    # A one-layer model spells real names.
    one = instantiate(ModelConfig(n_layers=1, d_model=8, n_heads=2, d_ff=16))
    assert [x.label for x in one.tensors][:2] == [
        "decoder.layers.0.norm_attn.weight",
        "decoder.layers.0.norm_attn.bias",
    ]


# --- checkpoints against templates ---------------------------------------------------------------


def llama(layers: int, **extra: Any) -> ModelConfig:
    fields = {"family": "llama", "n_layers": layers, "d_model": 8, "n_heads": 2, "d_ff": 16,
              "activation": "swiglu", "norm": "rmsnorm", "positions": "rotary", "vocab_size": 10}  # fmt: skip
    return ModelConfig.model_validate(fields | extra)


def entries(shapes: dict[str, tuple[int, ...]]) -> list[Entry]:
    return [Entry(n, "F32", s, 4 * prod(s), "model.safetensors") for n, s in shapes.items()]


PER_LAYER = ["input_layernorm.weight", "self_attn.q_proj.weight", "self_attn.k_proj.weight",
             "self_attn.v_proj.weight", "self_attn.o_proj.weight",
             "post_attention_layernorm.weight", "mlp.gate_proj.weight", "mlp.up_proj.weight",
             "mlp.down_proj.weight"]  # fmt: skip


def test_checkpoint_with_a_missing_layer() -> None:
    inv = instantiate(llama(32))
    shapes = expand(inv)
    assert compare_checkpoint("f", inv, entries(shapes)).ok
    file = {n: s for n, s in shapes.items() if not n.startswith("model.layers.5.")}
    r = compare_checkpoint("f", inv, entries(file))
    assert not r.ok
    assert r.missing == [f"model.layers.5.{x}" for x in PER_LAYER]
    assert r.missing_count == 9 and r.unexpected == []
    assert r.expected_params - r.checkpoint_params == sum(
        prod(shapes[f"model.layers.5.{x}"]) for x in PER_LAYER
    )
    # Layers 5, 6, 7 and 31 gone: a run of indices is one name.
    gone = ("model.layers.5.", "model.layers.6.", "model.layers.7.", "model.layers.31.")
    file = {n: s for n, s in shapes.items() if not n.startswith(gone)}
    missing = compare_checkpoint("f", inv, entries(file)).missing
    assert missing[:2] == [
        "model.layers.{5..7}.input_layernorm.weight",
        "model.layers.31.input_layernorm.weight",
    ]
    assert len(missing) == 18


def test_checkpoint_indices_out_of_range_or_not_integers() -> None:
    inv = instantiate(llama(32))
    shapes = expand(inv)
    extra = {
        "model.layers.40.mlp.up_proj.weight": (16, 8),  # layer 40 of a 32-layer model
        "model.layers.32.mlp.up_proj.weight": (16, 8),  # one past the last
        "model.layers.x.mlp.up_proj.weight": (16, 8),
        "model.layers.05.mlp.up_proj.weight": (16, 8),  # torch never writes a leading zero
        "model.layers.-1.mlp.up_proj.weight": (16, 8),
        "model.layers." + "9" * 5000 + ".mlp.up_proj.weight": (16, 8),  # past int()'s limit
    }
    r = compare_checkpoint("f", inv, entries({**shapes, **extra}))
    assert r.unexpected == list(extra) and r.missing == [] and not r.ok
    assert r.checkpoint_params == r.expected_params + 6 * 16 * 8


def test_checkpoint_of_experts() -> None:
    inv = instantiate(llama(4, family="mixtral", n_experts=8, experts_per_token=2))
    shapes = expand(inv)
    expert = "model.layers.{}.block_sparse_moe.experts.{}.w1.weight"
    file = {
        n: s for n, s in shapes.items()
        if not n.startswith("model.layers.1.block_sparse_moe.experts.")
        and n != expert.format(2, 3)
    }  # fmt: skip
    file[expert.format(2, 8)] = (16, 8)  # expert 8 of 8
    r = compare_checkpoint("f", inv, entries(file))
    assert r.unexpected == [expert.format(2, 8)]
    assert [m for m in r.missing if ".w1." in m] == [
        "model.layers.1.block_sparse_moe.experts.{0..7}.w1.weight",
        expert.format(2, 3),
    ]
    assert len(r.missing) == 4 and r.missing_count == 3 * 8 + 1


def test_checkpoint_against_a_huge_config() -> None:
    # A 3-layer file against a million-layer config: a few names, not millions.
    inv = instantiate(llama(3))
    r = compare_checkpoint("f", instantiate(llama(10**6)), entries(expand(inv)))
    assert r.missing == [f"model.layers.{{3..999999}}.{x}" for x in PER_LAYER]
    assert r.missing_count == 9 * (10**6 - 3)


def test_verify_reports_a_missing_layer(tmp_path: Path) -> None:
    entries = header("tiny-llama-gqa")
    file = repack({k: v for k, v in entries.items() if not k.startswith("model.layers.1.")})
    f = write_safetensors(tmp_path / "m.safetensors", file)
    cfg = str(CKPT / "tiny-llama-gqa.config.json")
    r = run("verify", "--hf-config", cfg, "--checkpoint", str(f), "-f", "json")
    assert r.exit_code == 1
    ck = r.json()["checkpoint"]
    assert ck["missing"] == [f"model.layers.1.{x}" for x in PER_LAYER]
    assert ck["missing_count"] == 9
    table = run("verify", "--hf-config", cfg, "--checkpoint", str(f)).stdout
    assert "missing tensors" in table and "model.layers.1.input_layernorm.weight" in table


def test_tensors_of_a_multi_layer_preset() -> None:
    data = run("tensors", "-p", "gpt2-small", "--matmuls", "-f", "json").json()
    rows = {t["name"]: t for t in data["tensors"]}
    assert len(rows) == 17  # 4 embedding/final-norm tensors, 12 per layer, the tied head
    assert rows["transformer.h.{0..11}.mlp.c_fc.weight"] == {
        "name": "transformer.h.{0..11}.mlp.c_fc.weight", "shape": [768, 3072],
        "params": 2_359_296, "count": 12, "total_params": 12 * 2_359_296, "component": "ffn",
        "tied_to": None,
    }  # fmt: skip
    assert rows["lm_head.weight"]["total_params"] == 0  # tied: counts once, as the embedding
    assert sum(t["count"] for t in data["tensors"]) == 149
    assert sum(t["total_params"] for t in data["tensors"]) == data["total_params"] == 124_439_808
    mm = {m["name"]: m for m in data["matmuls"]}
    assert mm["transformer.h.{0..11}.mlp.c_fc"]["count"] == 12
    assert mm["transformer.h.{0..11}.scores QK^T"]["count"] == 12 * 12  # layers x heads
    table = run("tensors", "-p", "gpt2-small").stdout
    row = next(x for x in table.splitlines() if "mlp.c_fc.weight" in x).split()
    assert row == ["transformer.h.{0..11}.mlp.c_fc.weight", "[768,", "3072]", "12",
                   "2,359,296", "28,311,552", "ffn"]  # fmt: skip
    assert "{a..b} in a name: one tensor for each index from a to b" in table
    total = next(x for x in table.splitlines() if x.split()[:1] == ["total"]).split()
    assert total == ["total", "149", "124,439,808"]


def test_tensors_of_one_layer_and_of_a_million() -> None:
    one = run("tensors", "--d-model", "64", "--n-heads", "4", "-f", "json").json()
    assert "decoder.layers.0.mlp.up_proj.weight" in {t["name"] for t in one["tensors"]}
    assert all("{" not in t["name"] for t in one["tensors"])
    many = run(
        "tensors", "--d-model", "64", "--n-heads", "4", "--n-layers", "1000000", "-f", "json"
    ).json()
    assert len(many["tensors"]) == len(one["tensors"])
    assert many["total_params"] == 10**6 * (one["total_params"] - 2 * 64) + 2 * 64  # final norm
