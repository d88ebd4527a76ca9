"""More multimodal wrappers without torch (mistral3 with its pixtral tower; smolvlm; llama4): the
presets against tests/data/frontier.json, the image size a Pixtral tower takes, and its
tokens in the language model's sequence.

Golden figures: tests/data/frontier.json (transformers 5.24.0, meta device, sum of
parameters()) for the real-size configs; the tokens and FLOPs of an image from the shapes, in
the comments (tests/test_oracle_multimodal_2.py checks the same rules against FlopCounterMode
on tiny configs).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, run

from ffn_calc.counts.flops import Workload, forward_flops
from ffn_calc.families.resolve import resolve_model

CASES = {c["name"]: c for c in json.loads((DATA / "frontier.json").read_text())["cases"]}
PRESETS = {
    "mistral-small-3.1": "mistralai/Mistral-Small-3.1-24B-Instruct-2503",
    "llama-4-scout": "meta-llama/Llama-4-Scout-17B-16E-Instruct",
}


def hf(name: str, tmp_path: Path) -> Path:
    path = tmp_path / f"{name.replace('/', '_')}.json"
    path.write_text(json.dumps(CASES[name]["hf_config"]))
    return path


def out_json(*args: str) -> dict[str, Any]:
    r = run(*args, "--format", "json")
    assert r.exit_code == 0, r.stderr
    out: dict[str, Any] = json.loads(r.stdout)
    return out


def fails(*args: str) -> str:
    r = run(*args)
    assert r.exit_code == 2 and r.stdout == ""
    assert "Traceback" not in r.stderr
    return r.stderr


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_presets_equal_their_frontier_case(preset: str, tmp_path: Path) -> None:
    case = CASES[PRESETS[preset]]
    out = out_json("params", "--preset", preset)
    # frontier.json: total_params and language_model_params of the same config
    assert out["total_params"] == case["total_params"]
    assert out["language_model_params"] == case["language_model_params"]
    assert out["active_params"] == case.get("active_params", case["total_params"])
    from_hf = out_json("params", "--hf-config", str(hf(case["name"], tmp_path)))
    assert out["components"] == from_hf["components"]
    assert out["towers"] == from_hf["towers"]
    source = run("show", preset, "-f", "json").json()["source"]
    assert PRESETS[preset].split("/")[-1] in source


def test_mistral3_tie_is_the_top_level_one(tmp_path: Path) -> None:
    """Mistral3Config reads the top-level tie_word_embeddings (default true) only: the same
    config without it builds a tied head, 131,072 x 5,120 fewer parameters."""
    case = CASES["mistralai/Mistral-Small-3.1-24B-Instruct-2503"]
    data = {k: v for k, v in case["hf_config"].items() if k != "tie_word_embeddings"}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    out = out_json("params", "--hf-config", str(path))
    # frontier.json's note: 23,340,272,640 = 24,011,361,280 - 131072 x 5120 (transformers 5.24)
    assert out["total_params"] == case["total_params"] - 131072 * 5120 == 23_340_272_640


def test_pixtral_image_tokens_follow_the_image_size() -> None:
    """1540 x 1540 (the maximum, and the size without --image-size): 110 x 110 = 12,100
    patches of 14; merged 2 x 2 into 55 x 55 = 3,025 image tokens, plus 55 [IMG_BREAK] /
    [IMG_END]: 3,080 tokens in the language model. 1024 x 768: 73 x 54 = 3,942 patches,
    36 x 27 = 972 merged, + 36 rows = 1,008."""
    full = out_json("flops", "-p", "mistral-small-3.1", "-s", "10", "--images", "1")
    (t,) = full["towers"]
    assert (t["tokens_per_image"], t["output_tokens_per_image"]) == (12_100, 3_080)
    assert full["image_tokens"] == 3_080 and full["seq_len"] == 10 + 3_080
    args = ("flops", "-p", "mistral-small-3.1", "-s", "10", "--images", "2")
    out = out_json(*args, "--image-size", "1024x768")
    (t,) = out["towers"]
    assert (t["tokens_per_image"], t["output_tokens_per_image"]) == (3_942, 1_008)
    assert t["image_size"] == [1024, 768] and out["image_tokens"] == 2 * 1_008
    cfg = resolve_model(preset="mistral-small-3.1")
    (tower,) = cfg.towers
    # The tower: both images as one sequence of 2 x 3,942 patches through its stack, the
    # patch convolution (2 x patches x 1024 x 3 x 14 x 14); the projector: the merger
    # [4096 -> 1024], linear_1 [1024 -> 5120], linear_2 [5120 -> 5120] on 972 rows an image.
    stack = forward_flops(tower.stack, Workload(batch=1, seq_len=2 * 3_942))
    assert out["components"]["vision"] == stack + 2 * 2 * 3_942 * 1024 * 3 * 14 * 14
    assert out["components"]["projector"] == 2 * 2 * 972 * (4096 * 1024 + 1024 * 5120 + 5120**2)
    lm = forward_flops(cfg, Workload(batch=1, seq_len=10 + 2 * 1_008))
    assert out["forward_flops"] == lm + out["components"]["vision"] + out["components"]["projector"]


def test_pixtral_image_size_bounds() -> None:
    args = ("flops", "-p", "mistral-small-3.1", "-s", "8", "--images", "1", "--image-size")
    err = fails(*args, "1568x1540")
    assert "--image-size 1568x1540" in err and "1540x1540" in err and "28x28" in err
    assert "--image-size 27x600" in fails(*args, "27x600")  # less than one merged token
    assert run(*args, "28x1540").exit_code == 0


def test_smolvlm_image_tokens(tmp_path: Path) -> None:
    """SmolVLM2-2.2B: a 384 x 384 tile in patches of 14 gives 27 x 27 = 729 patches through
    the tower; the pixel shuffle by 3 leaves 81 tokens of 9 x 1152 features, projected to
    the text width 2048 (one matmul [81, 10368] x [10368, 2048] an image)."""
    name = "HuggingFaceTB/SmolVLM2-2.2B-Instruct"
    out = out_json("flops", "--hf-config", str(hf(name, tmp_path)), "-s", "5", "--images", "2")
    (t,) = out["towers"]
    assert (t["tokens_per_image"], t["output_tokens_per_image"]) == (729, 81)
    assert out["image_tokens"] == 162 and out["seq_len"] == 5 + 162
    assert out["components"]["projector"] == 2 * 2 * 81 * 10368 * 2048
    assert "--image-size 512x512" in fails(
        "flops", "--hf-config", str(hf(name, tmp_path)), "-s", "5", "--images", "1",
        "--image-size", "512x512",
    )  # fmt: skip


def test_llama_4_scout_is_the_whole_model_and_its_text_model_a_preset_of_its_own() -> None:
    """llama-4-scout counts Llama4ForConditionalGeneration (frontier.json: 108,225,039,360);
    llama-4-scout-text its text model alone, which is the whole model's language model
    (107,769,861,120, coverage.json's text_config case), with the same active parameters
    less the tower and projector (17,628,072,960 - 17,172,894,720 = 455,178,240 = the
    total less the language model)."""
    full = out_json("params", "-p", "llama-4-scout")
    text = out_json("params", "-p", "llama-4-scout-text")
    assert full["language_model_params"] == text["total_params"] == 107_769_861_120
    assert full["total_params"] - text["total_params"] == 455_178_240
    assert full["active_params"] - text["active_params"] == 455_178_240
    assert text["language_model_params"] is None and "towers" not in text
    # An image: 32 x 32 patches and the class token through the tower, shuffled to 16 x 16.
    flops = out_json("flops", "-p", "llama-4-scout", "-s", "8", "--images", "1")
    (t,) = flops["towers"]
    assert (t["tokens_per_image"], t["output_tokens_per_image"]) == (1_025, 256)


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_show_names_the_text_family_and_the_towers(lang: str) -> None:
    """A wrapper whose language model's model_type is data (text_family) shows it as one
    value, beside its towers."""
    r = run("show", "mistral-small-3.1", "--lang", lang)
    assert r.exit_code == 0, r.stderr
    assert "text_family" in r.stdout and "mistral" in r.stdout and "pixtral" in r.stdout
