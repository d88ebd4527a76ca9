"""Every supported family's real-size config.json, exact: parameters, FLOPs, import-hf, presets.

Golden figures: tests/data/coverage.json (copied from the project's reference set) and, for
the presets of 2025-26 model types, tests/data/frontier.json, where each
case says how it was obtained: the transformers 5.24.0 class named in `architectures`,
instantiated on the meta device (parameters), and FlopCounterMode with eager attention (FLOPs).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, run

from ffn_calc.model.families import REGISTRY

COVERAGE: list[dict[str, Any]] = json.loads((DATA / "coverage.json").read_text())["cases"]
# The presets' golden cases: coverage.json, and frontier.json for the 2025-26 model types.
FRONTIER: list[dict[str, Any]] = json.loads((DATA / "frontier.json").read_text())["cases"]
BY_NAME = {c["name"]: c for c in [*COVERAGE, *FRONTIER]}
# The families supported so far (MoE families arrive with their own modules).
SUPPORTED = [c for c in COVERAGE if c["model_type"] in REGISTRY]

# Shipped presets and the coverage case each reproduces. T5 v1.1: the released config.json
# keeps an untied head (tie_word_embeddings false), which ffn-calc follows: 247,577,856 (the
# case's params_note); transformers 5 forces the tie and instantiates 222,903,552.
PRESETS: dict[str, tuple[str, int | None]] = {
    "gemma-2-9b": ("google/gemma-2-9b", None),
    "gemma-3-1b": ("google/gemma-3-1b-it", None),
    "qwen3-8b": ("Qwen/Qwen3-8B", None),
    "phi-3-mini": ("microsoft/Phi-3-mini-4k-instruct", None),
    "olmo-2-7b": ("allenai/OLMo-2-1124-7B", None),
    "starcoder2-3b": ("bigcode/starcoder2-3b", None),
    "pythia-1b": ("EleutherAI/pythia-1b", None),
    "falcon-7b": ("tiiuae/falcon-7b", None),
    "opt-1.3b": ("facebook/opt-1.3b", None),
    "gpt-j-6b": ("EleutherAI/gpt-j-6b", None),
    "t5-base": ("google-t5/t5-base", None),
    "t5-v1.1-base": ("google/t5-v1_1-base", 247_577_856),
    "bart-base": ("facebook/bart-base", None),
    "whisper-large-v3": ("openai/whisper-large-v3", None),
    "roberta-base": ("FacebookAI/roberta-base", None),
    "distilbert-base": ("distilbert/distilbert-base-uncased", None),
    "albert-base-v2": ("albert/albert-base-v2", None),
    # Mixture of experts (total and active from the same case).
    "deepseek-v3": ("deepseek-ai/DeepSeek-V3", None),
    "deepseek-v2-lite": ("deepseek-ai/DeepSeek-V2-Lite", None),
    "qwen3-30b-a3b": ("Qwen/Qwen3-30B-A3B", None),
    "qwen1.5-moe-a2.7b": ("Qwen/Qwen1.5-MoE-A2.7B", None),
    "gpt-oss-20b": ("openai/gpt-oss-20b", None),
    "gpt-oss-120b": ("openai/gpt-oss-120b", None),
    "llama-4-scout-text": ("meta-llama/Llama-4-Scout-17B-16E (text_config)", None),
    "olmoe-1b-7b": ("allenai/OLMoE-1B-7B-0924", None),
    "glm-4.5-air": ("zai-org/GLM-4.5-Air", None),
    # Sparse attention (tests/data/frontier.json).
    "deepseek-v3.2": ("deepseek-ai/DeepSeek-V3.2-Exp", None),
    "glm-5": ("zai-org/GLM-5", None),
    # Encoders of tests/data/frontier.json.
    "xlm-roberta-base": ("FacebookAI/xlm-roberta-base", None),
    "modernbert-base": ("answerdotai/ModernBERT-base", None),
    "deberta-v3-base": ("microsoft/deberta-v3-base", None),
    # 2025-26 model types (tests/data/frontier.json).
    "smollm3-3b": ("HuggingFaceTB/SmolLM3-3B", None),
    "olmo-3-7b": ("allenai/Olmo-3-7B-Instruct", None),
    "minimax-m2": ("MiniMaxAI/MiniMax-M2", None),  # frontier.json
    # Hybrids: token mixers other than attention (tests/data/frontier.json, total_params and
    # active_params of the instantiated class on the meta device).
    "lfm2-1.2b": ("LiquidAI/LFM2-1.2B", None),
    "jamba-mini-1.5": ("ai21labs/AI21-Jamba-Mini-1.5 (= Jamba-v0.1 shape)", None),
    "minimax-text-01": ("MiniMaxAI/MiniMax-Text-01", None),
    "qwen3-next-80b-a3b": ("Qwen/Qwen3-Next-80B-A3B-Instruct", None),
    "kimi-linear-48b-a3b": ("moonshotai/Kimi-Linear-48B-A3B-Instruct", None),
    "mamba-codestral-7b": ("mistralai/Mamba-Codestral-7B-v0.1", None),
    "nemotron-h-8b": ("nvidia/Nemotron-H-8B-Base-8K", None),
    "nemotron-3-nano-30b-a3b": ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", None),
    "nemotron-3-super-120b-a12b": ("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16", None),
    "granite-4.0-h-tiny": ("ibm-granite/granite-4.0-h-tiny", None),
    "falcon-h1": ("tiiuae/Falcon-H1 (FalconH1Config defaults)", None),
}


def write(tmp_path: Path, case: dict[str, Any]) -> Path:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(case["hf_config"], indent=2))
    return path


def _forward_args(fw: dict[str, Any]) -> list[str]:
    args = ["-s", str(fw["seq_len"]), "-b", str(fw.get("batch", 1))]
    if fw.get("target_len") is not None:
        args += ["-t", str(fw["target_len"])]
    return args


@pytest.mark.parametrize("case", SUPPORTED, ids=lambda c: c["name"])
def test_config_json_exact(case: dict[str, Any], tmp_path: Path) -> None:
    # Golden: coverage.json total_params (and active_params) of the instantiated class.
    path = write(tmp_path, case)
    data = run("params", "--hf-config", str(path), "-f", "json").json()
    assert data["total_params"] == case["total_params"]
    assert data["active_params"] == case.get("active_params", case["total_params"])
    assert sum(data["components"].values()) == data["total_params"]
    for fw in case["forward"] if "forward_note" not in case else []:
        # Golden: coverage.json forward_flops (FlopCounterMode, eager attention).
        flops = run("flops", "--hf-config", str(path), *_forward_args(fw), "-f", "json").json()
        assert flops["forward_flops"] == fw["forward_flops"], fw


@pytest.mark.parametrize("case", SUPPORTED, ids=lambda c: c["name"])
def test_import_hf_round_trip(case: dict[str, Any], tmp_path: Path) -> None:
    path = write(tmp_path, case)
    for fmt in ("toml", "json"):
        r = run("import-hf", str(path), "--format", fmt)
        assert r.exit_code == 0, r.stderr
        again = tmp_path / f"model.{fmt}"
        again.write_text(r.stdout)
        data = run("params", "-c", str(again), "-f", "json").json()
        assert data["total_params"] == case["total_params"]
        assert data["active_params"] == case.get("active_params", case["total_params"])
    for fw in case["forward"][:1] if "forward_note" not in case else []:
        flops = run("flops", "-c", str(again), *_forward_args(fw), "-f", "json").json()
        assert flops["forward_flops"] == fw["forward_flops"]


@pytest.mark.parametrize("case", SUPPORTED, ids=lambda c: c["name"])
def test_every_command_takes_the_config(case: dict[str, Any], tmp_path: Path) -> None:
    path = str(write(tmp_path, case))
    for args in (["crossover"], ["compare", "--hf-config"], ["tensors"], ["verify"]):
        cmd = [*args, path] if args[-1] == "--hf-config" else [*args, "--hf-config", path]
        r = run(*cmd, "-f", "json")
        assert r.exit_code == 0, (cmd, r.stderr)
        json.loads(r.stdout)
    tensors = run("tensors", "--hf-config", path, "-f", "json").json()
    assert tensors["total_params"] == case["total_params"]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_family_presets(preset: str) -> None:
    name, override = PRESETS[preset]
    case = BY_NAME[name]
    data = run("params", "--preset", preset, "-f", "json").json()
    assert data["total_params"] == (override or case["total_params"])
    # Golden: coverage.json active_params (MoE) for the same case.
    assert data["active_params"] == case.get("active_params", data["total_params"])
    source = run("show", preset, "-f", "json").json()["source"]
    assert source and name.split("/")[-1].lower().replace("_", "-")[:6] in source.lower().replace(
        "_", "-"
    )


def test_unsupported_model_type_names_the_supported(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"model_type": "not_a_family"}')
    r = run("params", "--hf-config", str(path))
    assert r.exit_code == 2 and "supported:" in r.stderr
    for family in REGISTRY:
        assert family in r.stderr
