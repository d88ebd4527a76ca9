"""Encoder-decoder stacks of their own sizes, torch-free: a decoder with its own FFN width
(decoder_d_ff: BART's and Whisper's decoder_ffn_dim), heads (decoder_n_heads:
decoder_attention_heads) and depth (n_decoder_layers) is counted, not refused, in every
question (parameters, FLOPs, cache, decode, stored activations, tensor names).

The golden figures come from transformers 5.24.0 (torch 2.13.0): the class instantiated from
the config.json below (BartConfig(d_model=16, encoder_attention_heads=4,
decoder_attention_heads=8, encoder_ffn_dim=40, decoder_ffn_dim=12, encoder_layers=1,
decoder_layers=3, vocab_size=40, max_position_embeddings=16, activation_function="relu")),
sum(p.numel() for p in model.parameters()), FlopCounterMode over one forward with eager
attention, and the EncoderDecoderCache's elements after it. The differential tests draw such
configs at random (tests/test_oracle_encoder_decoder.py, tests/test_oracle_whisper_mt5.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA
from hypothesis import HealthCheck, given, settings
from strategies import model_configs, workloads

from ffn_calc.counts import flops as fl
from ffn_calc.counts import inference as inf
from ffn_calc.counts import params as pm
from ffn_calc.counts import reach as rc
from ffn_calc.counts import totals
from ffn_calc.counts import training as tr
from ffn_calc.families.resolve import resolve_model
from ffn_calc.model.config import ModelConfig
from ffn_calc.reference.instantiate import instantiate

BART: dict[str, Any] = {
    "model_type": "bart", "architectures": ["BartForConditionalGeneration"], "d_model": 16,
    "encoder_attention_heads": 4, "decoder_attention_heads": 8, "encoder_ffn_dim": 40,
    "decoder_ffn_dim": 12, "encoder_layers": 1, "decoder_layers": 3, "vocab_size": 40,
    "max_position_embeddings": 16, "activation_function": "relu",
}  # fmt: skip


def read(tmp_path: Path, data: dict[str, Any]) -> ModelConfig:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    return resolve_model(hf_config=path)


def test_bart_stacks_of_their_own_widths(tmp_path: Path) -> None:
    cfg = read(tmp_path, BART)
    assert (cfg.d_ff, cfg.decoder_d_ff, cfg.n_heads, cfg.decoder_n_heads) == (40, 12, 4, 8)
    assert (cfg.encoder_layers, cfg.decoder_layers) == (1, 3)
    # transformers 5.24.0: sum(p.numel() for p in BartForConditionalGeneration(...).parameters())
    assert pm.total_params(cfg) == 11_820
    # FlopCounterMode, eager attention, B = 2, S = 7 source and T = 5 target tokens
    assert fl.forward_flops(cfg, fl.Workload(batch=2, seq_len=7, target_len=5)) == 264_832
    # EncoderDecoderCache after that forward: self-attention keys and values over T = 5 and
    # cross-attention over S = 7, 2 x 16 each per token and layer, 3 layers, B = 2:
    # 3 x 2 x 2 x 16 x (5 + 7) = 2,304
    assert inf.kv_elements(cfg, 2, 5, 7) == 2_304


def test_decoder_layers_count_their_own_width(tmp_path: Path) -> None:
    """The decoder's FFN terms are decoder_d_ff wide and say so; the encoder's are d_ff."""
    cfg = read(tmp_path, BART)
    layers = {x.stack: x for x in pm.layer_counts(cfg)}
    w1 = {s: next(t for t in x.terms if t.name == "W1") for s, x in layers.items()}
    assert w1["encoder"].factors == (16, 40) and w1["encoder"].formula == "d_model x d_ff"
    assert w1["decoder"].factors == (16, 12) and w1["decoder"].formula == "d_model x decoder_d_ff"
    # FFN = 2 x d_model x width (+ biases width + d_model): encoder 1 x (1,280 + 56),
    # decoder 3 x (384 + 28)
    assert pm.components(cfg)["ffn"] == 1 * (2 * 16 * 40 + 40 + 16) + 3 * (2 * 16 * 12 + 12 + 16)
    # the decoder's scores run over its 8 heads of 2: 2 x B x 8 x T x T x 2 at B 1, T 5
    dec = next(
        x for x in fl.layer_flops(cfg, fl.Workload(1, 7, target_len=5)) if x.stack == "decoder"
    )
    qk = next(t for t in dec.terms if t.name == "QK^T")
    assert qk.factors == (2, 1, 8, 5, 5, 2) and "decoder_n_heads" in qk.formula
    # the tensors the reference names: fc1 of the decoder [12, 16], of the encoder [40, 16]
    shapes = {t.name: t.shape for t in instantiate(cfg).tensors}
    assert shapes["model.decoder.layers.{i}.fc1.weight"] == (12, 16)
    assert shapes["model.encoder.layers.{i}.fc1.weight"] == (40, 16)


def test_decode_step_reads_the_decoder_width(tmp_path: Path) -> None:
    """One decode step runs the decoder only: its FFN is decoder_d_ff wide (2 x B x 2 x 16 x
    12 per layer for W1 and W2 at B = 1), and the FFN weights it reads are the decoder's."""
    cfg = read(tmp_path, BART)
    ffn = inf.decode_components(cfg, 1, 4, 7)["ffn"]
    assert ffn == 3 * 2 * (2 * 16 * 12)
    assert rc.ffn_weights_read(cfg, 1, False) == 2 * 16 * 12 + 12 + 16


def test_stored_activations_per_stack_heads(tmp_path: Path) -> None:
    """The softmax output a layer stores is 2 a s^2 b with a the layer's own heads (Korthikanti
    et al.): 4 in the encoder, 8 in the decoder; the hidden FFN activation 4 s b f with the
    layer's own width."""
    cfg = read(tmp_path, BART)
    kinds = {k.stack: k for k in tr.layer_kinds(cfg)}
    s, b = 6, 1

    def bytes_of(stack: str, name: str) -> int:
        return next(t.bytes for t in tr.layer_terms(cfg, s, b, kinds[stack]) if str(t.name) == name)

    assert bytes_of("encoder", "softmax output") == 2 * 4 * s * s * b
    assert bytes_of("decoder", "softmax output") == 2 * 8 * s * s * b
    assert bytes_of("decoder", "cross softmax output") == 2 * 8 * s * s * b
    assert bytes_of("encoder", "hidden") == 4 * s * b * 40
    assert bytes_of("decoder", "hidden") == 4 * s * b * 12


def test_whisper_decoder_of_its_own_width(tmp_path: Path) -> None:
    """Whisper large-v3 (tests/data/frontier.json) with decoder_ffn_dim 4096 (once refused):
    the decoder's 32 layers lose 2 x 1,280 x (5,120 - 4,096) weights and 1,024 fc1 biases
    each."""
    case = next(
        c for c in json.loads((DATA / "frontier.json").read_text())["cases"]
        if c["model_type"] == "whisper"
    )  # fmt: skip
    base = read(tmp_path, case["hf_config"])
    cfg = read(tmp_path, {**case["hf_config"], "decoder_ffn_dim": 4096})
    assert (cfg.d_ff, cfg.decoder_d_ff) == (5120, 4096)
    assert pm.total_params(base) - pm.total_params(cfg) == 32 * (2 * 1280 * 1024 + 1024)


def test_t5_decoder_depth(tmp_path: Path) -> None:
    """T5 (and mT5, UMT5) with num_decoder_layers != num_layers: each stack its own depth."""
    data = {"model_type": "t5", "architectures": ["T5ForConditionalGeneration"], "d_model": 8,
            "d_kv": 4, "num_heads": 2, "d_ff": 12, "num_layers": 1, "num_decoder_layers": 3,
            "vocab_size": 20}  # fmt: skip
    cfg = read(tmp_path, data)
    assert (cfg.encoder_layers, cfg.decoder_layers) == (1, 3)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"decoder_d_ff": 8}, "decoder_d_ff applies only to an encoder-decoder model"),
        ({"decoder_n_heads": 2}, "decoder_n_heads applies only to an encoder-decoder model"),
        ({"architecture": "encoder-decoder", "decoder_n_heads": 3}, "decoder_n_heads (3) must divide d_model (16)"),
        ({"architecture": "encoder-decoder", "n_kv_heads": 2, "decoder_n_heads": 1}, "n_kv_heads (2) must divide decoder_n_heads (1)"),
    ],
)  # fmt: skip
def test_decoder_fields_refused_where_they_mean_nothing(
    fields: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ModelConfig(n_layers=2, d_model=16, n_heads=4, d_ff=32, **fields)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(model_configs(), workloads())
def test_the_stack_view_is_the_decoder(cfg: ModelConfig, w: fl.Workload) -> None:
    """Counting a model with decoder_d_ff and decoder_n_heads is counting each stack with its
    own sizes: the encoder-only model of the encoder's, plus the decoder layers of a model
    whose one FFN width and heads are the decoder's, layer for layer. And the fast totals
    agree with the terms."""
    assert totals.param_components(cfg) == pm.components(cfg)
    assert totals.flop_components(cfg, w) == fl.flop_components(cfg, w)
    if cfg.architecture != "encoder-decoder" or not cfg.stacks_differ:
        return
    dec = cfg.stack("decoder")
    assert (dec.d_ff, dec.n_heads) == (
        cfg.decoder_d_ff or cfg.d_ff,
        cfg.decoder_n_heads or cfg.n_heads,
    )
    same = ModelConfig.model_validate({**cfg.model_dump(), "d_ff": dec.d_ff, "n_heads": dec.n_heads,
                                       "decoder_d_ff": None, "decoder_n_heads": None})  # fmt: skip
    ours = [x for x in pm.layer_counts(cfg) if x.stack == "decoder"]
    theirs = [x for x in pm.layer_counts(same) if x.stack == "decoder"]
    assert [(x.count, x.total) for x in ours] == [(x.count, x.total) for x in theirs]
    ours_f = [x for x in fl.layer_flops(cfg, w) if x.stack == "decoder"]
    theirs_f = [x for x in fl.layer_flops(same, w) if x.stack == "decoder"]
    assert [sum(t.value for t in x.terms) for x in ours_f] == [
        sum(t.value for t in x.terms) for x in theirs_f
    ]
