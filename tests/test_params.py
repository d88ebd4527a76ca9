"""Closed-form parameter counts against exact figures of instantiated models."""

from __future__ import annotations

import pytest
from conftest import CASES, CASES_BY_NAME
from hypothesis import given, settings
from hypothesis import strategies as st

from ffn_calc.counts.params import active_params, components, layer_counts, total_params
from ffn_calc.families.resolve import resolve_model
from ffn_calc.model.sources import preset_names


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["name"])
def test_preset_total_equals_instantiated_model(case: dict) -> None:
    # Golden: reference_cases.json total_params (instantiated model, method in params_method).
    cfg = resolve_model(preset=case["name"])
    assert total_params(cfg) == case["total_params"]
    assert sum(components(cfg).values()) == case["total_params"]


def test_every_preset_has_a_reference_case() -> None:
    from test_families import PRESETS
    from test_multimodal_2 import PRESETS as MULTIMODAL  # tied to tests/data/frontier.json
    from test_towers import PRESETS as WRAPPER_PRESETS  # tied to tests/data/frontier.json

    wrappers = set(WRAPPER_PRESETS) | set(MULTIMODAL)
    assert set(preset_names()) == set(CASES_BY_NAME) | set(PRESETS) | wrappers


def test_mixtral_active_params() -> None:
    # Golden: reference_cases.json mixtral-8x7b active_params = router + 2 of 8 experts per layer.
    cfg = resolve_model(preset="mixtral-8x7b")
    assert active_params(cfg) == CASES_BY_NAME["mixtral-8x7b"]["active_params"] == 12_879_925_248
    assert total_params(cfg) == 46_702_792_704


def test_gpt2_small_block_seed_figures() -> None:
    # Golden: GPT-2 small block (HF GPT2Block): attention c_attn 768x2304+2304, c_proj 768x768+768
    # = 2,362,368; MLP c_fc 768x3072+3072, c_proj 3072x768+768 = 4,722,432; ln_1 + ln_2 = 3,072.
    [layer] = layer_counts(resolve_model(preset="gpt2-small"))
    assert (layer.group("attention"), layer.group("ffn"), layer.group("norm")) == (
        2_362_368,
        4_722_432,
        3_072,
    )
    assert layer.total == 7_087_872
    assert layer.count == 12


def test_gpt2_small_without_biases_and_mlp_share() -> None:
    # Golden: 4 x 768^2 = 2,359,296 and 2 x 768 x 3072 = 4,718,592; 12 x 4,718,592 = 56,623,104,
    # 45.5% of GPT-2 small's 124,439,808 (HF GPT2LMHeadModel, reference_cases.json).
    cfg = resolve_model(preset="gpt2-small", flags={"bias": False})
    [layer] = layer_counts(cfg)
    assert layer.group("attention") == 2_359_296
    assert layer.group("ffn") == 4_718_592
    assert 12 * layer.group("ffn") == 56_623_104
    assert round(100 * 56_623_104 / 124_439_808, 1) == 45.5


def test_transformer_base_layers() -> None:
    # Golden: torch.nn.TransformerEncoderLayer(512, 8, 2048): self_attn in_proj 3x512x512+1536,
    # out_proj 512x512+512 = 1,050,624; linear1 + linear2 = 2,099,712 (reference_cases.json method).
    enc, dec = layer_counts(resolve_model(preset="transformer-base"))
    assert (enc.stack, enc.count) == ("encoder", 6)
    assert enc.group("attention") == 1_050_624
    assert enc.group("ffn") == 2_099_712
    assert dec.group("attention") == 2 * 1_050_624  # self + cross attention
    assert dec.group("norm") == 3 * 2 * 512  # norm1, norm2, norm3 of TransformerDecoderLayer


@pytest.mark.parametrize("d_model", [64, 512, 768, 4096])
def test_ffn_is_two_thirds_of_a_bias_free_layer_at_4x(d_model: int) -> None:
    # Algebra: FFN 8 d^2, attention 4 d^2 (no biases, no norms) -> FFN = 2/3 of 12 d^2.
    cfg = resolve_model(
        flags={"d_model": d_model, "n_heads": 8 if d_model % 8 == 0 else 1, "bias": False}
    )
    [layer] = layer_counts(cfg)
    assert layer.group("ffn") == 2 * layer.group("attention")
    assert 3 * layer.group("ffn") == 2 * (layer.group("ffn") + layer.group("attention"))


def test_homework_ffn_4096() -> None:
    # Golden (issue's homework case): 2 x 4096 x 16384 = 134,217,728 FFN parameters per layer.
    cfg = resolve_model(
        flags={"d_model": 4096, "d_ff": 16384, "n_heads": 32, "n_layers": 1, "bias": False}
    )
    [layer] = layer_counts(cfg)
    assert layer.group("ffn") == 134_217_728


def test_huge_sizes_stay_exact() -> None:
    # Arithmetic: 2 x (10^9)^2 x 4 = 8 x 10^18 FFN weights, beyond float precision.
    cfg = resolve_model(flags={"d_model": 10**9, "n_heads": 1, "bias": False})
    [layer] = layer_counts(cfg)
    assert layer.group("ffn") == 8 * 10**18
    assert total_params(cfg) == 12 * 10**18 + 3 * 2 * 10**9  # + 2 norms + final norm (LayerNorm)


def test_gqa_and_head_dim_override() -> None:
    # Shapes: q 48x(6*8), k/v 48x(2*8), o (6*8)x48 -> 2304 + 768 + 768 + 2304 = 6,144.
    cfg = resolve_model(
        flags={"d_model": 48, "n_heads": 6, "n_kv_heads": 2, "head_dim": 8, "bias": False}
    )
    [layer] = layer_counts(cfg)
    assert layer.group("attention") == 6_144
    cfg = resolve_model(flags={"d_model": 48, "n_heads": 4, "head_dim": 16, "bias": False})
    assert layer_counts(cfg)[0].group("attention") == 4 * 48 * 64


@settings(max_examples=80, deadline=None)
@given(
    d_model=st.sampled_from([8, 16, 24, 64]),
    n_heads=st.sampled_from([1, 2, 4, 8]),
    d_ff=st.integers(1, 200),
    vocab=st.one_of(st.none(), st.integers(1, 300)),
    layers=st.integers(2, 6),
    bias=st.booleans(),
    activation=st.sampled_from(["relu", "swiglu"]),
)
def test_params_affine_in_layers(
    d_model: int,
    n_heads: int,
    d_ff: int,
    vocab: int | None,
    layers: int,
    bias: bool,
    activation: str,
) -> None:
    flags = {"d_model": d_model, "n_heads": n_heads, "d_ff": d_ff, "vocab_size": vocab,
             "bias": bias, "activation": activation}  # fmt: skip
    totals = [
        total_params(resolve_model(flags={**flags, "n_layers": n})) for n in (1, layers, layers + 1)
    ]
    [layer] = layer_counts(resolve_model(flags={**flags, "n_layers": 1}))
    assert totals[2] - totals[1] == layer.total  # one more layer adds exactly one layer
    assert totals[1] - totals[0] == (layers - 1) * layer.total


def test_contradictory_fields() -> None:
    from ffn_calc.errors import ConfigError

    with pytest.raises(ConfigError, match="tie_embeddings need"):
        resolve_model(flags={"d_model": 8, "n_heads": 2, "tie": True})
    with pytest.raises(ConfigError, match="n_decoder_layers applies only"):
        resolve_model(preset="gpt2-small", flags={"n_decoder_layers": 2})
    with pytest.raises(ConfigError, match="n_experts and experts_per_token go together"):
        resolve_model(preset="llama-2-7b", flags={"n_experts": 4})
    with pytest.raises(ConfigError, match="needs max_positions"):
        resolve_model(flags={"d_model": 8, "n_heads": 2, "positions": "learned"})
