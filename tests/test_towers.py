"""Multimodal wrappers without torch: towers and projectors in the counts, the JSON, the tables
and the options (model.towers, counts.towers, the gemma3 and llava families).

Golden figures: tests/data/frontier.json (transformers 5.24.0, meta device) for the real-size
Gemma 3 and LLaVA configs; small figures from the shapes, in the comments.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, run

from ffn_calc.counts.params import components, total_params
from ffn_calc.counts.totals import param_components
from ffn_calc.families.resolve import resolve_model
from ffn_calc.model.config import ModelConfig

CASES = {c["name"]: c for c in json.loads((DATA / "frontier.json").read_text())["cases"]}
GEMMA = "google/gemma-3-4b-it"
LLAVA = "llava-hf/llava-1.5-7b-hf"


def hf(name: str, tmp_path: Path) -> Path:
    path = tmp_path / f"{name.replace('/', '_')}.json"
    path.write_text(json.dumps(CASES[name]["hf_config"]))
    return path


def params_json(*args: str) -> dict[str, Any]:
    r = run("params", *args, "--format", "json")
    assert r.exit_code == 0, r.stderr
    out: dict[str, Any] = json.loads(r.stdout)
    return out


def test_language_model_alone_has_null_language_model_params() -> None:
    out = params_json("--preset", "gpt2-small")
    assert out["language_model_params"] is None  # contract.md: null for a language model alone
    assert "towers" not in out and "vision" not in out["components"]


@pytest.mark.parametrize("name", [GEMMA, LLAVA])
def test_wrapper_json_shape(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    out = params_json("--hf-config", str(hf(name, tmp_path)))
    # frontier.json: total_params and language_model_params of the real-size config
    assert out["total_params"] == case["total_params"]
    assert out["language_model_params"] == case["language_model_params"]
    comps = out["components"]
    assert sum(comps.values()) == out["total_params"]
    assert list(comps)[-2:] == ["vision", "projector"]
    (tower,) = out["towers"]
    assert tower["name"] == "vision"
    assert tower["total_params"] == comps["vision"]
    assert tower["projector_params"] == comps["projector"]
    assert sum(tower["components"].values()) == tower["total_params"]
    # frontier.json's non_language_params: the towers and the projectors
    assert tower["total_params"] + tower["projector_params"] == case["non_language_params"]
    # frontier.json param_breakdown: every vision_tower tensor, every projector tensor
    breakdown = case["param_breakdown"]
    assert tower["total_params"] == sum(v for k, v in breakdown.items() if ".vision_tower." in k)
    assert tower["projector_params"] == sum(
        v for k, v in breakdown.items() if ".multi_modal_projector." in k
    )
    assert out["active_params"] == out["total_params"]  # towers route nothing


def test_tower_counts_by_group(tmp_path: Path) -> None:
    cfg = resolve_model(hf_config=hf(GEMMA, tmp_path))
    (tower,) = cfg.towers
    # SigLIP so400m: 27 layers of d 1152, d_ff 4304, biases everywhere; 4,096 patches of 14 x 14
    d, f, n = 1152, 4304, 27
    attention = n * (4 * d * d + 4 * d)
    ffn = n * (2 * d * f + f + d)
    norm = n * 2 * 2 * d + 2 * d  # layer_norm1/2 per layer, post_layernorm
    embedding = 4096 * d + d * 3 * 14 * 14 + d  # positions, patch conv weight and bias
    from ffn_calc.counts.towers import tower_components

    assert tower_components(tower) == {
        "embedding": embedding, "attention": attention, "ffn": ffn, "norm": norm,
    }  # fmt: skip
    assert tower.output_tokens == 256 and tower.tokens == 4096


def test_fast_and_term_components_agree(tmp_path: Path) -> None:
    for name in (GEMMA, LLAVA):
        cfg = resolve_model(hf_config=hf(name, tmp_path))
        assert param_components(cfg) == components(cfg)


def test_towers_round_trip_through_import_hf(tmp_path: Path) -> None:
    r = run("import-hf", str(hf(LLAVA, tmp_path)))
    assert r.exit_code == 0, r.stderr
    toml = tmp_path / "llava.toml"
    toml.write_text(r.stdout)
    again = resolve_model(config=toml)
    assert total_params(again) == CASES[LLAVA]["total_params"]
    j = run("import-hf", str(hf(LLAVA, tmp_path)), "--format", "json")
    cfg = ModelConfig.model_validate(json.loads(j.stdout))
    assert cfg == again.varied({"name": cfg.name})


def test_language_models_dump_no_towers() -> None:
    from ffn_calc.model.sources import dump_toml

    text = dump_toml(resolve_model(preset="gpt2-small"))
    assert "towers" not in text and "text_family" not in text
