"""Whisper's encoder front end and lengths, and the model-structure fields it brought.

Golden figures: the openai/whisper-large-v3 preset against the count of transformers 5.24.0
WhisperForConditionalGeneration (tests/data/coverage.json and frontier.json, sum of
parameters() on the meta device, 1,543,490,560) and the closed forms below, each written out.
The differential checks against the instantiated model are in tests/test_oracle_whisper_mt5.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, run
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import model_configs

from ffn_calc.counts.flops import Workload, forward_flops
from ffn_calc.counts.params import total_params
from ffn_calc.model.config import ModelConfig
from ffn_calc.reference.instantiate import instantiate

D, LAYERS, MEL, VOCAB, SRC, TGT = 1280, 32, 128, 51866, 1500, 448  # whisper-large-v3


def refused(*args: str, words: tuple[str, ...]) -> None:
    r = run(*args)
    assert r.exit_code == 2, (args, r.stdout)
    assert r.stdout == "" and "Traceback" not in r.stderr
    for w in words:
        assert w in r.stderr, (args, r.stderr)


def test_embedding_component_holds_the_front_end_and_both_tables() -> None:
    data = run("params", "-p", "whisper-large-v3", "-f", "json").json()
    # decoder tokens [51866, 1280], encoder sinusoids [1500, 1280] (a parameter in
    # transformers), decoder positions [448, 1280], conv1 [1280, 128, 3] + bias,
    # conv2 [1280, 1280, 3] + bias
    embedding = VOCAB * D + SRC * D + TGT * D + (MEL * 3 * D + D) + (D * 3 * D + D)
    assert data["components"]["embedding"] == embedding == 74_291_200
    assert data["total_params"] == 1_543_490_560  # coverage.json, WhisperForConditionalGeneration
    # k_proj has no bias: per layer Q, V, O biases (3 x 1280) in self- and cross-attention
    attention = LAYERS * 4 * D * D + LAYERS * 3 * D  # encoder
    attention += LAYERS * 2 * (4 * D * D + 3 * D)  # decoder self- and cross-attention
    assert data["components"]["attention"] == attention
    assert data["components"]["lm_head"] == 0  # proj_out tied to model.decoder.embed_tokens


def test_convolutions_count_in_the_forward_flops() -> None:
    data = run("flops", "-p", "whisper-large-v3", "-s", "1500", "-t", "128", "-f", "json").json()
    # conv1 over 3,000 frames, conv2 over 1,500 positions: 2 x B x length x in x kernel x d
    conv = 2 * 3000 * MEL * 3 * D + 2 * 1500 * D * 3 * D
    assert data["components"]["embedding"] == conv == 17_694_720_000
    # FlopCounterMode over input_features [1, 128, 3000] and 128 target tokens (coverage.json)
    assert data["forward_flops"] == 2_827_386_224_640


def test_each_stack_takes_its_own_table() -> None:
    refused("flops", "-p", "whisper-large-v3", "-s", "1501", "-t", "8",
            words=("--seq-len 1501", "1,500 positions"))  # fmt: skip
    refused("flops", "-p", "whisper-large-v3", "-s", "1500", "-t", "449",
            words=("--target-len 449", "448 positions"))  # fmt: skip
    # T defaults to S: past the decoder's 448 positions, said so
    refused("flops", "-p", "whisper-large-v3", "-s", "1500",
            words=("--seq-len 1500", "--target-len", "448 positions"))  # fmt: skip
    assert run("flops", "-p", "whisper-large-v3", "-s", "1500", "-t", "448").exit_code == 0
    refused("kv", "-p", "whisper-large-v3", "--context", "8", "--source-len", "1501",
            words=("--source-len 1501", "1,500 positions"))  # fmt: skip
    refused("flops", "-p", "whisper-large-v3", "-s", "1500", "--generate", "449",
            words=("--generate 449", "448 positions"))  # fmt: skip
    assert run("flops", "-p", "whisper-large-v3", "-s", "1500", "--generate", "448").exit_code == 0


def test_cache_holds_self_and_cross_attention() -> None:
    data = run("kv", "-p", "whisper-large-v3", "--context", "448", "--source-len", "1500",
               "-f", "json").json()  # fmt: skip
    # per decoder layer K and V of d_model: 448 target tokens and 1,500 encoder positions
    assert data["kv_elements"] == LAYERS * 2 * D * (448 + 1500) == 159_580_160


def test_decode_step_runs_no_convolution() -> None:
    data = run("flops", "-p", "whisper-large-v3", "--decode", "--context", "10",
               "--source-len", "1500", "-f", "json").json()  # fmt: skip
    assert "embedding" not in data["components"] or data["components"]["embedding"] == 0


BASE: dict[str, Any] = {
    "name": "x", "architecture": "encoder-decoder", "n_layers": 1, "d_model": 8, "n_heads": 2,
    "d_ff": 8, "positions": "learned", "max_positions": 4, "separate_position_tables": True,
}  # fmt: skip


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"conv_in_channels": 3}, "conv_in_channels and conv_strides go together"),
        ({"conv_strides": [1, 2]}, "conv_in_channels and conv_strides go together"),
        ({"conv_in_channels": 3, "conv_strides": [2], "conv_kernel": 4}, "must be odd"),
        ({"architecture": "decoder-only", "conv_in_channels": 3, "conv_strides": [2]},
         "in an encoder-decoder model"),
        ({"source_positions": 6, "separate_position_tables": False}, "source_positions needs"),
        ({"relative_attention_per_layer": True}, "needs relative_attention_buckets"),
    ],
)  # fmt: skip
def test_fields_that_go_together(fields: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        ModelConfig.model_validate({**BASE, **fields})


def test_front_end_lengths_and_counts(tmp_path: Path) -> None:
    front = {"conv_in_channels": 3, "conv_strides": [1, 2, 2], "conv_kernel": 5}
    cfg = ModelConfig.model_validate({**BASE, **front, "source_positions": 6})
    # S = 6 positions read 6 x 1 x 2 x 2 = 24 frames: the outputs are 24, 12, 6 long
    assert cfg.conv_lengths(6) == [(3, 24), (8, 12), (8, 6)]
    path = tmp_path / "model.json"
    path.write_text(json.dumps(cfg.model_dump(exclude_none=True)))
    data = run("flops", "-c", str(path), "-s", "6", "-t", "2", "-f", "json").json()
    assert data["components"]["embedding"] == 2 * 5 * 8 * (24 * 3 + 12 * 8 + 6 * 8)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"d_model": 1275, "encoder_attention_heads": 5, "decoder_attention_heads": 5},
         ("d_model = 1275", "even")),
        ({"decoder_attention_heads": 7}, ("decoder_attention_heads = 7", "d_model = 1280")),
    ],
)  # fmt: skip
def test_whisper_config_json_refusals(
    change: dict[str, Any], words: tuple[str, ...], tmp_path: Path
) -> None:
    case = next(
        c for c in json.loads((DATA / "frontier.json").read_text())["cases"]
        if c["model_type"] == "whisper"
    )  # fmt: skip
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**case["hf_config"], **change}, indent=2))
    refused("params", "--hf-config", str(path), words=words)


@settings(max_examples=150, deadline=None)
@given(cfg=model_configs(), batch=st.integers(1, 3), s=st.integers(1, 12), t=st.integers(1, 12))
def test_instantiation_agrees_on_random_models(
    cfg: ModelConfig, batch: int, s: int, t: int
) -> None:
    """The tensor walk (reference/instantiate.py) and the closed forms agree on random models,
    front ends, encoder tables and K biases among them (the oracle checks the walk)."""
    inv = instantiate(cfg, batch, s, t)
    assert inv.params() == total_params(cfg)
    assert inv.flops() == forward_flops(cfg, Workload(batch=batch, seq_len=s, target_len=t))
