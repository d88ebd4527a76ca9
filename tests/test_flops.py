"""Closed-form FLOPs against FlopCounterMode figures, and the crossover."""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import CASES
from hypothesis import given, settings
from hypothesis import strategies as st

from ffn_calc.counts.flops import (
    Workload,
    crossovers,
    flop_components,
    forward_flops,
    layer_flops,
)
from ffn_calc.families.resolve import resolve_model
from ffn_calc.reports.flops import flops_report

FORWARD = [(c["name"], f) for c in CASES for f in c["forward"]]


@pytest.mark.parametrize(
    ("name", "fw"),
    FORWARD,
    ids=lambda x: x if isinstance(x, str) else f"S{x['seq_len']}B{x['batch']}",
)
def test_forward_flops_equal_flop_counter(name: str, fw: dict) -> None:
    # Golden: reference_cases.json forward_flops (FlopCounterMode, eager/math attention; see method).
    cfg = resolve_model(preset=name)
    w = Workload(batch=fw["batch"], seq_len=fw["seq_len"], target_len=fw.get("target_len"))
    assert forward_flops(cfg, w) == fw["forward_flops"]
    report = flops_report(cfg, w)
    assert sum(report.components.values()) == report.forward_flops == fw["forward_flops"]
    assert report.training_flops == 3 * fw["forward_flops"]


def test_gpt2_small_per_layer_figures() -> None:
    # Golden (issue, FlopCounterMode on GPT2LMHeadModel, S=1024): projections 4,831,838,208,
    # scores 3,221,225,472, FFN 9,663,676,416 per layer; LM head 79,047,426,048.
    cfg = resolve_model(preset="gpt2-small")
    w = Workload(batch=1, seq_len=1024)
    [layer] = layer_flops(cfg, w)
    assert layer.group("attention_projections") == 4_831_838_208
    assert layer.group("attention_scores") == 3_221_225_472
    assert layer.group("ffn") == 9_663_676_416
    assert flop_components(cfg, w)["lm_head"] == 79_047_426_048


CROSSOVER = {
    # Golden (issue 4, item 4), derived from the FlopCounterMode-matching per-layer terms.
    "gpt2-small": (3072, 1536, 4608),
    "transformer-base": (2048, 1024, 3072),
    "llama-2-7b": (16512, 8192, 24704),
    "llama-3-8b": (21504, 5120, 26624),
    "mixtral-8x7b": (43012, 5120, 48132),
}


@pytest.mark.parametrize("name", CROSSOVER)
def test_crossovers(name: str) -> None:
    got = crossovers(resolve_model(preset=name))
    assert (
        got["scores_vs_ffn"],
        got["scores_vs_projections"],
        got["scores_vs_dense"],
    ) == CROSSOVER[name]


# The crossovers against the FLOP path's own score terms: tests/test_one_fact.py.


def test_fractional_crossover_is_exact() -> None:
    # d_ff = 1000, 1 head of 64: FFN per token 2*2*64*1000, slope 4*64 -> S = 1000 exactly;
    # d_ff = 1001 with 3 heads of 64: 2*2*192*1001 / (4*192) = 1001; gated 3 matrices: 3*1001/2.
    cfg = resolve_model(flags={"d_model": 192, "n_heads": 3, "d_ff": 1001, "activation": "swiglu"})
    assert crossovers(cfg)["scores_vs_ffn"] == Fraction(3003, 2)


configs = st.builds(
    dict,
    d_model=st.sampled_from([32, 48, 64, 96]),
    n_heads=st.sampled_from([1, 2, 4, 8]),
    d_ff=st.integers(1, 300),
    n_layers=st.integers(1, 4),
    vocab_size=st.one_of(st.none(), st.integers(1, 500)),
    activation=st.sampled_from(["relu", "gelu", "swiglu", "geglu"]),
    bias=st.booleans(),
)


@settings(max_examples=60, deadline=None)
@given(flags=configs, b=st.integers(1, 8), s=st.integers(1, 300), causal=st.booleans())
def test_flop_properties(flags: dict, b: int, s: int, causal: bool) -> None:
    cfg = resolve_model(flags=flags)
    one = forward_flops(cfg, Workload(1, s, causal=causal))
    # Linear in batch.
    assert forward_flops(cfg, Workload(b, s, causal=causal)) == b * one
    # MACs x 2 = FLOPs.
    assert 2 * flops_report(cfg, Workload(b, s, causal=causal), "macs").forward_flops == b * one
    # Causal never exceeds the full square.
    assert one <= forward_flops(cfg, Workload(1, s))
    # Scores quadratic in S (full square): doubling S multiplies them by 4.
    sc = lambda n: flop_components(cfg, Workload(1, n))["attention_scores"]  # noqa: E731
    assert sc(2 * s) == 4 * sc(s)


@pytest.mark.parametrize("causal", [False, True])
def test_macs_terms_sum_to_the_layer(causal: bool) -> None:
    flops = flops_report(resolve_model(preset="llama-3-8b"), Workload(1, 128, causal=causal))
    macs = flops_report(resolve_model(preset="llama-3-8b"), Workload(1, 128, causal=causal), "macs")
    for f_layer, m_layer in zip(flops.layers, macs.layers, strict=True):
        assert sum(t.value for t in m_layer.terms) == m_layer.total == f_layer.total // 2
        assert [2 * t.value for t in m_layer.terms] == [t.value for t in f_layer.terms]
    gate = next(t for t in macs.layers[0].terms if t.name == "gate")
    assert gate.formula == "B x S x d_model x d_ff" and gate.value == 128 * 4096 * 14336
