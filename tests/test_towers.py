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

# frontier.json's cases, and gemma4_moe.json's (Gemma 4 26B-A4B, measured the same way).
CASES = {
    c["name"]: c
    for file in ("frontier.json", "gemma4_moe.json")
    for c in json.loads((DATA / file).read_text())["cases"]
}
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


# --- presets: the frontier cases they reproduce ------------------------------------------------

PRESETS = {
    "gemma-3-4b": GEMMA,
    "gemma-3-27b": "google/gemma-3-27b-it",
    "qwen2.5-vl-7b": "Qwen/Qwen2.5-VL-7B-Instruct",
    "qwen3-vl-8b": "Qwen/Qwen3-VL-8B-Instruct",
    "qwen3.5-27b": "Qwen/Qwen3.5-27B",
    "qwen3.5-35b-a3b": "Qwen/Qwen3.5-35B-A3B",
    "gemma-4-26b-a4b": "google/gemma-4-26B-A4B-it",  # tests/data/gemma4_moe.json
}


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_presets_equal_their_frontier_case(preset: str, tmp_path: Path) -> None:
    case = CASES[PRESETS[preset]]
    out = params_json("--preset", preset)
    # frontier.json: total_params and language_model_params of the same config
    assert out["total_params"] == case["total_params"]
    assert out["language_model_params"] == case["language_model_params"]
    assert (
        out["components"]
        == params_json("--hf-config", str(hf(case["name"], tmp_path)))["components"]
    )
    source = run("show", preset, "-f", "json").json()["source"]
    assert PRESETS[preset].split("/")[-1] in source


# --- tables in every language -------------------------------------------------------------------

TOWER_WORDS = {
    "en": ("vision tower", "projector", "language model"),
    "ja": ("視覚タワー", "プロジェクタ", "言語モデル"),
    "zh": ("视觉塔", "投影器", "语言模型"),
}


@pytest.mark.parametrize("lang", sorted(TOWER_WORDS))
def test_tower_tables_in_every_language(lang: str) -> None:
    r = run("params", "--preset", "gemma-3-4b", "--lang", lang)
    assert r.exit_code == 0, r.stderr
    for word in TOWER_WORDS[lang]:
        assert word in r.stdout
    assert "416,866,032" in r.stdout  # the tower: frontier.json non_language_params - projector
    assert "3,880,263,168" in r.stdout  # frontier.json language_model_params
    csv = run("params", "--preset", "gemma-3-4b", "--format", "csv", "--lang", lang)
    assert csv.exit_code == 0 and "416866032" in csv.stdout
    md = run("params", "--preset", "gemma-3-4b", "--format", "markdown", "--lang", lang)
    assert md.exit_code == 0 and TOWER_WORDS[lang][0] in md.stdout


# --- FLOPs with images --------------------------------------------------------------------------


def flops_json(*args: str) -> dict[str, Any]:
    r = run("flops", *args, "--format", "json")
    assert r.exit_code == 0, r.stderr
    out: dict[str, Any] = json.loads(r.stdout)
    return out


def test_text_only_flops_are_the_language_models() -> None:
    out = flops_json("--preset", "gemma-3-4b", "--seq-len", "64")
    assert "vision" not in out["components"] and "images" not in out
    # the language model alone: the same figures with the towers taken off
    cfg = resolve_model(preset="gemma-3-4b")
    from ffn_calc.counts.flops import Workload, forward_flops

    bare = cfg.varied({"towers": [], "family": "gemma3_text"})
    assert out["forward_flops"] == forward_flops(bare, Workload(batch=1, seq_len=64))


def test_images_add_the_tower_and_their_tokens() -> None:
    out = flops_json("--preset", "gemma-3-4b", "--seq-len", "64", "--images", "2", "--batch", "3")
    assert out["images"] == 2 and out["image_tokens"] == 512  # 2 x mm_tokens_per_image 256
    assert out["seq_len"] == 64 + 512
    (tower,) = out["towers"]
    assert tower["images"] == 6  # images x batch
    d, f, n, tokens, layers = 1152, 4304, 6, 4096, 27
    # SigLIP per layer: Q, K, V, O and the FFN (2 x tokens x (4 d^2 + 2 d f)), both score
    # matmuls (2 x 2 x tokens^2 x d), over 6 images; the patch conv 2 x 4,096 x 1,152 x 3 x 14 x 14
    stack = layers * n * (2 * tokens * (4 * d * d + 2 * d * f) + 4 * tokens * tokens * d)
    conv = 2 * n * tokens * d * 3 * 14 * 14
    assert tower["flops"] == out["components"]["vision"] == stack + conv
    # the projector: [256, 1,152] x [1,152, 2,560] per image
    assert tower["projector_flops"] == out["components"]["projector"] == 2 * n * 256 * d * 2560
    assert out["forward_flops"] == sum(out["components"].values())


def fails(*args: str) -> str:
    r = run(*args)
    assert r.exit_code == 2 and r.stdout == ""
    assert "Traceback" not in r.stderr
    return r.stderr


def test_images_refused_without_a_vision_tower() -> None:
    err = fails("flops", "--preset", "gpt2-small", "--seq-len", "8", "--images", "1")
    assert "--images 1" in err and "no vision tower" in err


def test_wrong_image_size_refused() -> None:
    err = fails("flops", "-p", "gemma-3-4b", "-s", "8", "--images", "1", "--image-size", "448x448")
    assert "--image-size 448x448" in err and "896x896" in err
    err = fails("flops", "-p", "gemma-3-4b", "-s", "8", "--images", "1", "--image-size", "big")
    assert "--image-size big" in err and "HxW" in err
    assert "--images" in fails("flops", "-p", "gemma-3-4b", "-s", "8", "--image-size", "896")
    ok = run("flops", "-p", "gemma-3-4b", "-s", "8", "--images", "1", "--image-size", "896")
    assert ok.exit_code == 0, ok.stderr  # the size the tower takes


def test_images_refused_with_decode_and_generate() -> None:
    err = fails("flops", "-p", "gemma-3-4b", "--decode", "--context", "8", "--images", "1")
    assert "--images" in err
    err = fails("flops", "-p", "gemma-3-4b", "-s", "8", "--generate", "2", "--images", "1")
    assert "--images" in err
