"""RoBERTa, DistilBERT and ALBERT without torch: shared-layer names, untied heads, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import run

# A small ALBERT whose layers nest: 2 groups of 2 layers hold parameters, 3 steps apply a
# group each (group 0 twice, group 1 once: transformers' int(i / (3 / 2))), so 6 layers run.
NESTED: dict[str, Any] = {
    "model_type": "albert", "architectures": ["AlbertForMaskedLM"], "hidden_size": 16,
    "num_attention_heads": 2, "num_hidden_layers": 3, "num_hidden_groups": 2,
    "inner_group_num": 2, "embedding_size": 4, "intermediate_size": 8, "vocab_size": 20,
    "max_position_embeddings": 8, "tie_word_embeddings": False,
}  # fmt: skip


def write(tmp_path: Path, data: dict[str, Any]) -> str:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data, indent=2))
    return str(path)


def test_albert_nested_groups(tmp_path: Path) -> None:
    path = write(tmp_path, NESTED)
    # Golden: transformers 5.24.0 AlbertForMaskedLM(AlbertConfig(**NESTED)), sum of
    # parameters() = 6,132; FlopCounterMode, eager attention, batch 1, S=4: 69,248.
    assert run("params", "--hf-config", path, "-f", "json").json()["total_params"] == 6_132
    flops = run("flops", "--hf-config", path, "-s", "4", "-f", "json").json()
    assert flops["forward_flops"] == 69_248
    report = run("tensors", "--hf-config", path, "--matmuls", "-s", "4", "-f", "json").json()
    rows = {t["name"]: t for t in report["tensors"]}
    # named_parameters(): albert.encoder.albert_layer_groups.{0,1}.albert_layers.{0,1}.*
    query = "albert.encoder.albert_layer_groups.{0..1}.albert_layers.{0..1}.attention.query.weight"
    assert rows[query]["count"] == 4 and rows[query]["shape"] == [16, 16]
    # untied: the decoder keeps its weight and bias, beside predictions.bias
    for name in ("predictions.decoder.weight", "predictions.decoder.bias", "predictions.bias"):
        assert rows[name]["tied_to"] is None
    # a matmul names the modules that run and counts every layer applied (3 steps x 2)
    matmuls = {m["name"]: m for m in report["matmuls"]}
    ffn = matmuls["albert.encoder.albert_layer_groups.{0..1}.albert_layers.{0..1}.ffn"]
    assert ffn["count"] == 6


def test_albert_states_the_convention(tmp_path: Path) -> None:
    # AlbertModel(albert-base-v2) with its pooler: 11,683,584; AlbertForMaskedLM: 11,221,680.
    data = run("params", "--preset", "albert-base-v2", "-f", "json").json()
    assert "11,683,584 is AlbertModel" in data["note"]
    # any ALBERT config.json states it too, whatever its own figures
    note = run("params", "--hf-config", write(tmp_path, NESTED), "-f", "json").json()["note"]
    assert "Counts AlbertForMaskedLM" in note and "11,683,584 is AlbertModel" in note


def test_tied_heads_name_their_aliases() -> None:
    # RobertaForMaskedLM.state_dict() holds lm_head.decoder.bias, the same tensor as
    # lm_head.bias (transformers 5.24.0 _tied_weights_keys).
    rows = {
        t["name"]: t
        for t in run("tensors", "--preset", "roberta-base", "-f", "json").json()["tensors"]
    }
    assert rows["lm_head.decoder.bias"]["tied_to"] == "lm_head.bias"
    assert rows["lm_head.decoder.weight"]["tied_to"] == "roberta.embeddings.word_embeddings.weight"
    assert rows["lm_head.bias"]["total_params"] == 50_265


def test_bad_configs_exit_2(tmp_path: Path) -> None:
    cases = [
        ({**NESTED, "num_hidden_groups": 4}, "num_hidden_groups = 4 exceeds"),
        ({**NESTED, "inner_group_num": "2"}, "inner_group_num"),
        (
            {"model_type": "roberta", "num_hidden_layers": 1, "hidden_size": 8,
             "num_attention_heads": 2, "intermediate_size": 8, "max_position_embeddings": 8,
             "vocab_size": 10, "is_decoder": True, "add_cross_attention": True},
            "add_cross_attention = true",
        ),
        (
            {"model_type": "distilbert", "n_layers": 1, "dim": 8, "n_heads": 2,
             "hidden_dim": 8.5, "max_position_embeddings": 8, "vocab_size": 10},
            "hidden_dim = 8.5",
        ),
    ]  # fmt: skip
    for data, message in cases:
        r = run("params", "--hf-config", write(tmp_path, data))
        assert r.exit_code == 2 and message in r.stderr, r.stderr
        assert "Traceback" not in r.stderr


def test_layers_per_group_must_divide(tmp_path: Path) -> None:
    path = tmp_path / "model.toml"
    path.write_text(
        'family = "albert"\nn_layers = 4\nunique_layers = 2\nlayers_per_group = 3\n'
        "d_model = 8\nn_heads = 2\nd_ff = 8\n"
    )
    r = run("params", "-c", str(path))
    assert r.exit_code == 2 and "layers_per_group (3) must divide" in r.stderr
