"""One fact, one place: where a number or a list is derived from another, a test ties them,
and it fails when only one of them changes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import get_args

import pytest

from ffn_calc.counts import flops as fl
from ffn_calc.counts import reach as rc
from ffn_calc.errors import UsageError
from ffn_calc.families.resolve import resolve_model
from ffn_calc.model.layer_kinds import MIXERS
from ffn_calc.model.sources import preset_names

LENGTHS = (1, 2, 7, 100, 4096)


def _layer_scores(cfg: fl.ModelConfig, s: int, causal: bool) -> int:
    """The FLOP path's score FLOPs of one layer of the crossover's kind at batch 1, length S:
    what `flops` sums (flop_components adds every layer's terms). A hybrid (layer_mixers):
    its whole stack, every kind's scores times its layers (some kinds have none)."""
    layers = fl.layer_flops(cfg, fl.Workload(batch=1, seq_len=s, causal=causal))
    if cfg.layer_mixers:
        return sum(x.count * x.group("attention_scores") for x in layers)
    kind = fl.crossover_layer(cfg)
    layer = next(x for x in layers if (x.stack, x.kind) == (kind.stack, kind.kind))
    return layer.group("attention_scores")


def _attends(cfg: fl.ModelConfig) -> bool:
    """Some layer's mixer attends (a hybrid's list may name none: no score grows with S)."""
    return not cfg.layer_mixers or any(MIXERS[m].attends for m in cfg.layer_mixers)


def _refuses_crossovers(cfg: fl.ModelConfig) -> None:
    """A stack where no layer attends has no crossover: the refusal names its mixers."""
    with pytest.raises(UsageError) as err:
        fl.per_token(cfg)
    for mixer in set(cfg.layer_mixers):
        assert mixer in str(err.value)


def _causal_options(cfg: fl.ModelConfig) -> list[bool]:
    return [False, True] if fl.crossover_layer(cfg).stack == "decoder" else [False]


@pytest.mark.parametrize("name", preset_names())
def test_crossover_slope_is_the_flop_paths(name: str) -> None:
    """The crossover's score slope per token equals the difference of the FLOP path's score
    FLOPs per token at S + 1 and S (and its scores equal the FLOP path's at every S): a term
    added to the score FLOPs moves the crossovers too."""
    cfg = resolve_model(preset=name)
    if not _attends(cfg):
        return _refuses_crossovers(cfg)
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
    if not _attends(cfg):
        return _refuses_crossovers(cfg)
    for causal in _causal_options(cfg):
        points = fl.crossovers(cfg, causal)
        pt = fl.per_token(cfg)
        sides = {
            "scores_vs_ffn": pt.ffn,
            "scores_vs_projections": pt.projections,
            "scores_vs_dense": pt.ffn + pt.projections,
        }
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
    pick: int | None = rc.crossover_kind(cfg)[0]
    if cfg.layer_mixers:  # a hybrid's decode crossover: its whole stack (as the prefill's)
        pick = None
    for context in (1, 5, 300):
        step = rc.decode_parts(cfg, 1, context, pick)["attention_scores"]
        gain = _layer_scores(cfg, context + 1, True) - _layer_scores(cfg, context, True)
        assert step == gain, context


# --- the size bound, the CLI's choices and the sweep's metrics: each written once -------------

PACKAGE = Path(fl.__file__).resolve().parents[1]


def test_the_size_bound_is_written_once() -> None:
    """2**40 is written in ffn_calc/limits.py only; the schema and the CLI read it there."""
    from ffn_calc import limits
    from ffn_calc.cli import commands
    from ffn_calc.model import config

    # (not the binary unit TiB = 2**40 of the size suffixes, a different fact)
    spelled = re.compile(r'(?<!"TIB": )2\s*\*\*\s*40\b|1\s*<<\s*40\b|1_?099_?511_?627_?776')
    found = [
        str(p.relative_to(PACKAGE))
        for p in sorted(PACKAGE.rglob("*.py"))
        if spelled.search(p.read_text(encoding="utf-8"))
    ]
    assert found == ["limits.py"]
    assert config.MAX_SIZE is limits.MAX_SIZE and commands.MAX_SIZE is limits.MAX_SIZE


def _cli_choices() -> dict[str, tuple[str, ...]]:
    """Every choice option of every command: '<command> <parameter>' -> its values (the enum of
    the option's annotation, as Typer offers it)."""
    import enum
    import inspect

    from ffn_calc.cli import COMMANDS

    out = {}
    for name, func in COMMANDS.items():
        for p in inspect.signature(func).parameters.values():
            kind, option = get_args(p.annotation) or (p.annotation, None)
            kinds = [k for k in (get_args(kind) or (kind,)) if isinstance(k, type)]
            for k in kinds:
                if issubclass(k, enum.Enum) and option is not None:
                    out[f"{name} {p.name}"] = tuple(m.value for m in k)
    return out


def test_cli_choices_are_the_models_and_reports_lists() -> None:
    """The CLI's choices are the lists the schema and the reports take (a value added to one
    is offered by the other), not a copy of them."""
    from ffn_calc.counts import inference, training
    from ffn_calc.model import config

    fields = config.ModelConfig.model_fields
    expected = {
        "activation": get_args(fields["activation"].annotation),
        "norm": get_args(fields["norm"].annotation),
        "positions": get_args(fields["positions"].annotation),
        "architecture": get_args(fields["architecture"].annotation),
        "dtype": tuple(inference.DTYPE_BYTES),
        "recipe": tuple(training.RECIPES),
        "recompute": tuple(training.RECOMPUTE),
    }
    seen = set()
    for where, values in _cli_choices().items():
        option = where.split()[1]
        if option in expected:
            assert values == expected[option], where
            seen.add(option)
    assert seen == set(expected)


def test_cli_does_not_load_pydantic_at_start() -> None:
    """The choices and the bound come from modules without Pydantic: `--help` stays light."""
    code = (
        "import sys\nfrom ffn_calc import cli\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic'))"
    )
    env = {**os.environ, "PYTHONPATH": str(PACKAGE.parent)}
    got = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert got.stdout.strip() == "[]"


def test_sweep_metric_help_is_the_metrics_table() -> None:
    """`sweep --metric`'s help lists every metric with the table's own words."""
    from ffn_calc.cli.sweep import METRIC_HELP
    from ffn_calc.sweeps.metrics import METRICS

    for name, kind in METRICS.items():
        shown = f"{name}@{kind.argument}" if kind.argument else name
        assert f"{shown}: {kind.help}" in METRIC_HELP, name
    listed = re.findall(r"(?:^|[:;] )([a-z_]+)(?:@[SL])?: ", METRIC_HELP)
    assert listed == list(METRICS)


def test_the_ffn_biases_are_written_once() -> None:
    # One FFN's biases (gated: b_gate, b_up [d_ff], b_down [d_model]; plain: b1, b2) are
    # config.ffn_biases: the closed forms call it rather than writing the sum again. The
    # torch-free instantiation (instantiate.py) stays independent on purpose.
    import re
    from pathlib import Path

    pattern = re.compile(r"\(2 \* \w+ \+ \w+\) if")
    package = Path(__file__).parent.parent / "ffn_calc"
    hits = {
        path.relative_to(package).as_posix(): found
        for path in package.rglob("*.py")
        if path.name != "instantiate.py"
        and (found := pattern.findall(path.read_text(encoding="utf-8")))
    }
    assert hits == {"model/config.py": ["(2 * width + d_model) if"]}, f"written again: {hits}"
