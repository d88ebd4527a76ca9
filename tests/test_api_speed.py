"""A loop through the API pays for what it reads: a preset's file once per process, a
report's totals without its term lists. Nothing here is timed (benchmarks/api_loop.py times
the loop); these tests count the work instead, and check that the saved work changes no
result: the same JSON, the same models, the same errors."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path
from typing import Any

import pytest

import ffn_calc
from ffn_calc.counts import params as pm
from ffn_calc.counts.totals import term_path
from ffn_calc.counts.towers import language_model_params
from ffn_calc.errors import FfnCalcError
from ffn_calc.model import sources as presets
from ffn_calc.model.config import ModelConfig
from ffn_calc.reports.base import share
from ffn_calc.reports.params import ParamsReport, params_report
from ffn_calc.reports.params import _tower_params as tower_report

PRESETS = ffn_calc.preset_names()


def eager(cfg: ModelConfig) -> ParamsReport:
    """The report built in one go, as every field's definition reads: the components from
    the term path (counts.params), each field validated."""
    comps = pm.components(cfg)
    tot = sum(comps.values())
    idle = pm.idle_params(cfg)
    lines = pm.active_lines(cfg)
    layers = [
        {
            "stack": c.stack, "kind": str(c.kind), "count": c.count,
            "attention": c.group("attention"), "ffn": c.group("ffn"), "norm": c.group("norm"),
            "total": c.total,
            "terms": [
                {"name": t.name, "group": t.group, "formula": t.formula, "numbers": t.numbers,
                 "value": t.value}
                for t in c.terms
            ],
        }
        for c in pm.layer_counts(cfg)
    ]  # fmt: skip
    other = [
        {"name": t.name, "group": t.group, "formula": t.formula, "numbers": t.numbers,
         "value": t.value}
        for t in pm.model_terms(cfg)
    ]  # fmt: skip
    report = ParamsReport.model_validate(
        {
            "model": cfg.name, "source": cfg.source, "note": cfg.note, "total_params": tot,
            "active_params": tot - idle,
            "active_params_without_embedding": tot - idle - comps["embedding"],
            "checkpoint_elements": tot + pm.stored_buffers(cfg),
            "non_embedding_params": tot - comps["embedding"] - comps["lm_head"],
            "components": comps, "shares": {k: share(v, tot) for k, v in comps.items()},
            "ffn_to_attention": share(comps["ffn"], comps["attention"]),
            "layers": layers, "other_terms": other, "active_terms": [str(x) for x in lines],
            # a multimodal wrapper: the language model's share and each tower (built eagerly)
            "language_model_params": language_model_params(cfg, tot),
            "towers": [tower_report(t) for t in cfg.towers],
        }
    )  # fmt: skip
    report._active_lines = tuple(lines)  # the messages a view translates
    for layer, c in zip(report.layers, pm.layer_counts(cfg), strict=True):
        layer.with_kind(c.kind)  # the layer kinds as values, for a view to word
    return report


@pytest.mark.parametrize("preset", PRESETS)
def test_the_report_dumps_as_the_eager_one(preset: str) -> None:
    cfg = ffn_calc.load(preset=preset)
    want = eager(cfg)
    assert params_report(cfg).model_dump_json() == want.model_dump_json()
    assert params_report(cfg).model_dump() == want.model_dump()
    assert params_report(cfg).model_dump(exclude_unset=True) == want.model_dump()
    # Read a term list first, then dump: the keys keep their order.
    read = params_report(cfg)
    assert read.active_terms == want.active_terms
    assert read.model_dump_json() == want.model_dump_json()
    assert params_report(cfg) == want and want == params_report(cfg)
    assert repr(params_report(cfg)) == repr(want)
    assert list(params_report(cfg)) == list(want)
    assert [str(x) for x in params_report(cfg).active_lines()] == want.active_terms
    assert pickle.loads(pickle.dumps(params_report(cfg))).model_dump_json() == (
        want.model_dump_json()
    )
    assert copy.deepcopy(params_report(cfg)).model_dump_json() == want.model_dump_json()
    back = ParamsReport.model_validate_json(params_report(cfg).model_dump_json())
    assert back.model_dump_json() == want.model_dump_json()
    assert back.active_lines() == want.active_terms  # read back: English lines


def test_totals_build_no_terms(monkeypatch: pytest.MonkeyPatch) -> None:
    """A loop that reads the totals builds no term object; the tables still get them. (A
    preset of parts given as data or global layers of their own width, Gemma 4 26B-A4B, takes
    the term path by design: counts.totals.term_path.)"""
    cfgs = [c for c in (ffn_calc.load(preset=p) for p in PRESETS) if not term_path(c)]
    assert len(cfgs) >= len(PRESETS) - 1

    def refuse(*args: Any) -> Any:
        raise AssertionError("a term list was built for the totals")

    for name in ("layer_counts", "model_terms", "active_lines", "components"):
        monkeypatch.setattr(pm, name, refuse)
    reports = [ffn_calc.params(cfg) for cfg in cfgs]
    totals = [(r.total_params, r.active_params, r.non_embedding_params) for r in reports]
    assert all(t[0] > 0 for t in totals)
    monkeypatch.undo()
    for cfg, r in zip(cfgs, reports, strict=True):
        assert r.model_dump_json() == eager(cfg).model_dump_json()


def test_a_preset_file_is_read_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[str] = []
    real = Path.read_text

    def counted(self: Path, *args: Any, **kwargs: Any) -> str:
        reads.append(self.name)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", counted)
    models = [ffn_calc.load(preset="gpt2-small", d_ff=f) for f in range(1000, 1010)]
    models += [ffn_calc.load(preset="gpt2-small") for _ in range(3)]
    models += [ffn_calc.load(preset="gpt2-small", n_layers=n, tie_embeddings=False) for n in (1, 2)]
    assert reads.count("gpt2-small.toml") <= 1  # none if an earlier test loaded it
    assert [m.d_ff for m in models[:10]] == list(range(1000, 1010))


@pytest.mark.parametrize("preset", ["gpt2-small", "mixtral-8x7b", "t5-base", "deepseek-v3"])
def test_a_repeated_load_makes_the_model_a_first_one_does(preset: str) -> None:
    """From the second load on, a preset's model is validated once and only the changes are
    checked: the models, and the errors, are those of validating every field."""
    presets._ENTRIES.clear()
    changes: list[dict[str, Any]] = [
        {}, {"d_ff": 1000}, {"d_ff": 1000, "n_layers": 3}, {"name": "mine", "d_model": 512},
        {"n_heads": 7}, {"d_ff": 0}, {"d_ff": "1000"}, {"dff": 1000}, {"d_ff": True},
        {"family": "nope"}, {"family": "llama"}, {"vocab_size": None, "tie_embeddings": True},
    ]  # fmt: skip

    def outcome(fields: dict[str, Any]) -> Any:
        try:
            return ffn_calc.load(preset=preset, **fields)
        except FfnCalcError as exc:
            return type(exc), str(exc)

    first = [outcome(c) for c in changes]
    assert presets.preset_entry(preset).model is not None  # the later loads use the validated one
    for c, want in zip(changes, first, strict=True):
        got = outcome(c)
        assert got == want, c
        if isinstance(want, ModelConfig):
            assert got.model_dump() == want.model_dump()
            assert got.model_fields_set == want.model_fields_set


def test_a_config_file_is_read_every_time(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text("n_layers = 1\nd_model = 64\nn_heads = 4\nd_ff = 256\n")
    assert ffn_calc.load(config=path).d_ff == 256
    path.write_text("n_layers = 1\nd_model = 64\nn_heads = 4\nd_ff = 128\n")
    assert ffn_calc.load(config=path).d_ff == 128


def test_preset_data_is_a_copy() -> None:
    """load_preset_data hands out the cached fields' copy: a caller's change stays its own."""
    data, _ = presets.load_preset_data("gemma-3-1b")
    data["d_ff"] = 1
    data["window_layers"].append(10**6)
    again, _ = presets.load_preset_data("gemma-3-1b")
    assert again["d_ff"] != 1 and 10**6 not in again["window_layers"]
    model = ffn_calc.load(preset="gemma-3-1b")
    assert model.d_ff == again["d_ff"] and 10**6 not in model.window_layers
