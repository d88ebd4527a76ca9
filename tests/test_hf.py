"""Hugging Face config.json: exact counts per family, field variants, errors, import-hf."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import CASES, DATA, run

from ffn_calc.counts.params import layer_counts, total_params
from ffn_calc.families.resolve import resolve_model

HF_CASES = [c for c in CASES if "hf_config" in c]


def write_config(tmp_path: Path, data: Any, name: str = "config.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(data, indent=2))
    return p


@pytest.mark.parametrize("case", HF_CASES, ids=lambda c: c["name"])
def test_reference_config_exact(case: dict, tmp_path: Path) -> None:
    # Golden: reference_cases.json total_params / active_params for the config.json that
    # transformers wrote (model instantiated on the meta device).
    write_config(tmp_path, case["hf_config"])
    data = run("params", "--hf-config", str(tmp_path), "-f", "json").json()  # a directory
    assert data["total_params"] == case["total_params"]
    assert data["active_params"] == case.get("active_params", case["total_params"])
    file_data = run("params", "--hf-config", str(tmp_path / "config.json"), "-f", "json").json()
    assert file_data["total_params"] == case["total_params"]
    for fw in case["forward"]:
        flops = run(
            "flops", "--hf-config", str(tmp_path), "-s", str(fw["seq_len"]), "-f", "json"
        ).json()
        assert flops["forward_flops"] == fw["forward_flops"]  # reference_cases.json forward


@pytest.mark.parametrize("case", HF_CASES, ids=lambda c: c["name"])
def test_import_hf_round_trip(case: dict, tmp_path: Path) -> None:
    write_config(tmp_path, case["hf_config"])
    r = run("import-hf", str(tmp_path / "config.json"))
    assert r.exit_code == 0 and r.stderr == ""
    toml = tmp_path / "model.toml"
    toml.write_text(r.stdout)
    again = run("params", "--config", str(toml), "-f", "json").json()
    assert again["total_params"] == case["total_params"]
    assert again["active_params"] == case.get("active_params", case["total_params"])


def test_tiny_checkpoint_configs() -> None:
    # Golden: sums of the shapes in the safetensors headers written by save_pretrained
    # (tests/data/checkpoints/*.safetensors-header.json): 30,752 and 66,096 parameters.
    for name, expected in (("tiny-gpt2", 30_752), ("tiny-llama-gqa", 66_096)):
        header = json.loads((DATA / "checkpoints" / f"{name}.safetensors-header.json").read_text())
        from math import prod

        assert sum(prod(v["shape"]) for k, v in header.items() if k != "__metadata__") == expected
        cfg = resolve_model(hf_config=DATA / "checkpoints" / f"{name}.config.json")
        assert total_params(cfg) == expected


LLAMA = {
    "model_type": "llama", "hidden_size": 64, "intermediate_size": 176, "num_attention_heads": 4,
    "num_hidden_layers": 2, "vocab_size": 100, "tie_word_embeddings": False,
}  # fmt: skip


def attn(cfg_data: dict, tmp_path: Path) -> int:
    cfg = resolve_model(hf_config=write_config(tmp_path, cfg_data))
    return layer_counts(cfg)[0].group("attention")


def test_llama_field_variants(tmp_path: Path) -> None:
    # Shapes as LlamaAttention builds them: q/o hidden x heads*head_dim, k/v hidden x kv*head_dim.
    assert attn(LLAMA, tmp_path) == 4 * 64 * 64  # head_dim absent: 64 / 4 = 16
    assert attn({**LLAMA, "head_dim": None}, tmp_path) == 4 * 64 * 64  # null: same
    assert attn({**LLAMA, "head_dim": 32}, tmp_path) == 4 * 64 * 128  # differs: 4 x 32 = 128
    assert attn({**LLAMA, "num_key_value_heads": 1}, tmp_path) == 2 * 64 * 64 + 2 * 64 * 16
    assert attn({**LLAMA, "attention_bias": True}, tmp_path) == 4 * 64 * 64 + 4 * 64
    base = total_params(resolve_model(hf_config=write_config(tmp_path, LLAMA)))
    tied = total_params(
        resolve_model(hf_config=write_config(tmp_path, {**LLAMA, "tie_word_embeddings": True}))
    )
    assert base - tied == 100 * 64  # the untied head counts, the tied one does not
    mlp = total_params(resolve_model(hf_config=write_config(tmp_path, {**LLAMA, "mlp_bias": True})))
    assert mlp - base == 2 * (176 + 176 + 64)  # gate, up, down biases per layer


def test_qwen2_bias_on_qkv_only(tmp_path: Path) -> None:
    # Qwen2Attention: q/k/v with bias, o_proj without.
    q = {**LLAMA, "model_type": "qwen2", "num_key_value_heads": 2}
    assert attn(q, tmp_path) == (64 * 64 + 2 * 64 * 32 + 64 * 64) + (64 + 32 + 32)


def test_gpt2_custom_n_inner(tmp_path: Path) -> None:
    data = json.loads((DATA / "checkpoints" / "tiny-gpt2.config.json").read_text())
    cfg = resolve_model(hf_config=write_config(tmp_path, {**data, "n_inner": 80}))
    assert layer_counts(cfg)[0].group("ffn") == 2 * 32 * 80 + 80 + 32


def bad(*args: str) -> str:
    r = run(*args)
    assert r.exit_code == 2 and r.stdout == "" and "Traceback" not in r.stderr, r.stderr
    return r.stderr


def test_hf_errors(tmp_path: Path) -> None:
    p = str(write_config(tmp_path, {**LLAMA, "model_type": "xlnet"}))
    err = bad("params", "--hf-config", p)
    assert "'xlnet' is not supported" in err
    assert all(f in err for f in ("gpt2", "llama", "mistral", "mixtral", "qwen2", "bert"))
    no_size = {k: v for k, v in LLAMA.items() if k != "hidden_size"}  # LlamaConfig's 4,096
    no_size_cfg = resolve_model(hf_config=write_config(tmp_path, no_size))
    assert no_size_cfg.d_model == 4096 and "hidden_size = 4096" in no_size_cfg.source
    err = bad("params", "--hf-config", str(write_config(tmp_path, {**LLAMA, "hidden_size": "64"})))
    assert "hidden_size = '64'" in err and "expected an integer" in err and "line 3" in err
    err = bad(
        "params", "--hf-config", str(write_config(tmp_path, {**LLAMA, "num_hidden_layers": 2.0}))
    )
    assert "num_hidden_layers = 2.0" in err
    err = bad(
        "params",
        "--hf-config",
        str(write_config(tmp_path, {**LLAMA, "tie_word_embeddings": "yes"})),
    )
    assert "expected true or false" in err
    assert "found an array" in bad("params", "--hf-config", str(write_config(tmp_path, [LLAMA])))
    assert "found a number" in bad("params", "--hf-config", str(write_config(tmp_path, 3)))
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "model_type": "llama",\n  "hidden_size": 64,,\n}')
    assert "line 3" in bad("params", "--hf-config", str(broken))
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    assert "holds no config.json" in bad("params", "--hf-config", str(empty_dir))
    assert "holds no config.json" in bad("import-hf", str(empty_dir))
    assert "does not exist" in bad("import-hf", str(tmp_path / "missing.json"))
    err = bad(
        "params", "--hf-config", str(write_config(tmp_path, {**LLAMA, "num_key_value_heads": 3}))
    )
    assert "n_kv_heads (3) must divide n_heads (4)" in err


COVERAGE = {c["name"]: c for c in json.loads((DATA / "coverage.json").read_text())["cases"]}

# A field the configuration class gives a default for may be left out: the count is the
# class's instantiated with that default. Each row: the coverage.json case, the field left out,
# the transformers 5.24.0 class default (the configuration class's field), and the parameters
# (and MoE active parameters) of the class instantiated on the meta device from the config.json
# without the field (transformers 5.24.0 `from_dict`, the `architectures` class, meta device).
LEFT_OUT = [
    # OPTConfig.max_position_embeddings = 2048; OPTForCausalLM: 1,315,758,080.
    ("facebook/opt-1.3b", "max_position_embeddings", 2048, 1_315_758_080, None),
    # BartConfig.max_position_embeddings = 1024; BartForConditionalGeneration: 139,420,416.
    ("facebook/bart-base", "max_position_embeddings", 1024, 139_420_416, None),
    # DistilBertConfig.max_position_embeddings = 512; DistilBertForMaskedLM: 66,985,530.
    ("distilbert/distilbert-base-uncased", "max_position_embeddings", 512, 66_985_530, None),
    # AlbertConfig.max_position_embeddings = 512; AlbertForMaskedLM: 11,221,680.
    ("albert/albert-base-v2", "max_position_embeddings", 512, 11_221_680, None),
    # Ernie4_5_MoeConfig.moe_k = 6; Ernie4_5_MoeForCausalLM: 21,825,437,888 parameters, and
    # coverage.json's active parameters (6 of 64 routed experts per token): 3,352,150,208.
    ("baidu/ERNIE-4.5-21B-A3B-PT", "moe_k", 6, 21_825_437_888, 3_352_150_208),
]


@pytest.mark.parametrize(("name", "key", "default", "total", "active"), LEFT_OUT)
def test_field_left_out_takes_class_default(
    name: str, key: str, default: int, total: int, active: int | None, tmp_path: Path
) -> None:
    data = {k: v for k, v in COVERAGE[name]["hf_config"].items() if k != key}
    counted = run("params", "--hf-config", str(write_config(tmp_path, data)), "-f", "json").json()
    assert counted["total_params"] == total
    assert counted["active_params"] == (active or total)
    taken = counted["source"].split("absent, so transformers' defaults: ")[1]
    assert f"{key} = {default}" in taken.split(", ")


def test_left_out_size_is_the_default_not_the_neighbour(tmp_path: Path) -> None:
    # OPT-1.3b (hidden_size 2,048) with 512 positions against none: OPTLearnedPositionalEmbedding
    # holds max_position_embeddings + 2 rows, so the class default 2,048 adds
    # (2,050 - 514) x 2,048 = 3,145,728 parameters.
    data = dict(COVERAGE["facebook/opt-1.3b"]["hf_config"])
    short = total_params(
        resolve_model(hf_config=write_config(tmp_path, {**data, "max_position_embeddings": 512}))
    )
    del data["max_position_embeddings"]
    absent = total_params(resolve_model(hf_config=write_config(tmp_path, data)))
    assert absent - short == (2050 - 514) * 2048


def test_left_out_without_class_default_is_required(tmp_path: Path) -> None:
    # DeepseekV2Config.num_experts_per_tok defaults to None: no class default, still required.
    data = {k: v for k, v in COVERAGE["deepseek-ai/DeepSeek-V2-Lite"]["hf_config"].items()
            if k != "num_experts_per_tok"}  # fmt: skip
    err = bad("params", "--hf-config", str(write_config(tmp_path, data)))
    assert "required field 'num_experts_per_tok' is missing" in err


def test_default_that_breaks_the_model_is_named(tmp_path: Path) -> None:
    # gpt2-medium (n_embd 1,024) without n_head: GPT2Config's 12 heads do not divide 1,024
    # (transformers refuses too); the message names the default taken.
    data = {k: v for k, v in CASES[1]["hf_config"].items() if k != "n_head"}
    err = bad("params", "--hf-config", str(write_config(tmp_path, data)))
    assert "n_head = 12" in err and "must divide" in err
    # OLMo-2's pad_token_id 100,277 past Olmo2Config's vocab_size 50,304: nn.Embedding refuses
    # a padding index outside the table, and so does ffn-calc, naming both.
    olmo = {k: v for k, v in COVERAGE["allenai/OLMo-2-1124-7B"]["hf_config"].items()
            if k != "vocab_size"}  # fmt: skip
    err = bad("params", "--hf-config", str(write_config(tmp_path, olmo)))
    assert "pad_token_id = 100277" in err and "vocab_size = 50304" in err
