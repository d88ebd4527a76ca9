"""One fact, one place: where a number or a list is derived from another, a test ties them,
and it fails when only one of them changes."""

from __future__ import annotations

from fractions import Fraction

import pytest

from ffn_calc import flop_counts as fl
from ffn_calc import inference as inf
from ffn_calc.presets import preset_names, resolve_model

LENGTHS = (1, 2, 7, 100, 4096)


def _layer_scores(cfg: fl.ModelConfig, s: int, causal: bool) -> int:
    """The FLOP path's score FLOPs of one layer of the crossover's kind at batch 1, length S:
    what `flops` sums (flop_components adds every layer's terms)."""
    kind = fl.crossover_layer(cfg)
    layers = fl.layer_flops(cfg, fl.Workload(batch=1, seq_len=s, causal=causal))
    layer = next(x for x in layers if (x.stack, x.kind) == (kind.stack, kind.kind))
    return layer.group("attention_scores")


def _causal_options(cfg: fl.ModelConfig) -> list[bool]:
    return [False, True] if fl.crossover_layer(cfg).stack == "decoder" else [False]


@pytest.mark.parametrize("name", preset_names())
def test_crossover_slope_is_the_flop_paths(name: str) -> None:
    """The crossover's score slope per token equals the difference of the FLOP path's score
    FLOPs per token at S + 1 and S (and its scores equal the FLOP path's at every S): a term
    added to the score FLOPs moves the crossovers too."""
    cfg = resolve_model(preset=name)
    pt = fl.per_token(cfg)
    for causal in _causal_options(cfg):
        for s in LENGTHS:
            here = Fraction(_layer_scores(cfg, s, causal), s)
            there = Fraction(_layer_scores(cfg, s + 1, causal), s + 1)
            assert pt.scores(s + 1, causal) - pt.scores(s, causal) == there - here, (causal, s)
            assert pt.scores(s, causal) == here, (causal, s)
    # The full square's slope: one more token adds a score against every other token.
    full = Fraction(_layer_scores(cfg, 2, False), 2) - _layer_scores(cfg, 1, False)
    assert pt.scores_slope == full


@pytest.mark.parametrize("name", preset_names())
def test_crossovers_balance_the_flop_paths_terms(name: str) -> None:
    """At each crossover S, the FLOP path's scores of one layer equal its other side."""
    cfg = resolve_model(preset=name)
    for causal in _causal_options(cfg):
        points = fl.crossovers(cfg, causal)
        pt = fl.per_token(cfg)
        sides = {"scores_vs_ffn": pt.ffn, "scores_vs_projections": pt.projections,
                 "scores_vs_dense": pt.ffn + pt.projections}  # fmt: skip
        layer1 = fl.crossover_layer(cfg)
        assert (pt.projections, pt.ffn) == (
            layer1.group("attention_projections"),
            layer1.group("ffn"),
        )
        for key, side in sides.items():
            s = points[key]
            # the score line through the FLOP path's S = 1 and S = 2 counts, evaluated at S
            at1 = Fraction(_layer_scores(cfg, 1, causal))
            at2 = Fraction(_layer_scores(cfg, 2, causal), 2)
            assert at1 + (at2 - at1) * (s - 1) == side, (key, causal)


@pytest.mark.parametrize("name", preset_names())
def test_decode_scores_are_the_prefills(name: str) -> None:
    """One decode step after L tokens attends to L + 1 of them: its score FLOPs are what the
    causal prefill's scores gain from L to L + 1 tokens (the same terms, not a copy)."""
    cfg = resolve_model(preset=name)
    if cfg.architecture != "decoder-only" or cfg.attention_window:
        pytest.skip("a decoder-only model with full attention")
    pick, _local = inf.crossover_kind(cfg)
    for context in (1, 5, 300):
        step = inf.decode_parts(cfg, 1, context, pick)["attention_scores"]
        gain = _layer_scores(cfg, context + 1, True) - _layer_scores(cfg, context, True)
        assert step == gain, context
