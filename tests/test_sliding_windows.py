"""Sliding windows read as transformers 5.24.0 applies them, torch-free: Qwen2-MoE and
Qwen3-MoE with use_sliding_window (once ignored) keep window - 1 tokens in their sliding
layers' cache, and a decode step attends over those and itself.

Golden figures: transformers 5.24.0 (torch 2.13.0), the explicit cases of tests/oracle_cases.py
built with eager attention, sum of numel() over the cache after a forward of B = 2 sequences
of 8 tokens with use_cache (tests/test_oracle_moe_qwen_olmoe.py draws such configs at random
and checks the cache, one decode step and generate() against FlopCounterMode).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from oracle_cases import case

from ffn_calc.counts import inference as inf
from ffn_calc.families.resolve import resolve_model
from ffn_calc.model.config import ModelConfig


def read(tmp_path: Path, data: dict[str, Any]) -> ModelConfig:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    return resolve_model(hf_config=path)


@pytest.mark.parametrize(
    ("label", "window", "layers", "elements"),
    [
        # Qwen2MoeConfig.layer_types: i < max_window_layers (3) and i + 1 odd: layers 0 and 2.
        # 2 x 2 kv heads x head_dim 4 = 16 per token and layer, B = 2: layers 0, 2 keep
        # window - 1 = 2 tokens, layers 1, 3 all 8: 2 x 2 x 2 x 16 + 2 x 2 x 8 x 16 = 640.
        ("qwen2_moe sliding window 3 on layers 0 and 2 (max_window_layers 3)", 3, [0, 2], 640),
        # Qwen3MoeConfig has no layer_types: its cache slides in every layer (3 tokens kept):
        # 2 layers x 2 x 3 x 16 = 192.
        ("qwen3_moe sliding window 4 on every layer", 4, [], 192),
    ],
)
def test_moe_qwen_windows(
    label: str, window: int, layers: list[int], elements: int, tmp_path: Path
) -> None:
    data = case(label)
    cfg = read(tmp_path, data)
    assert (cfg.attention_window, cfg.window_layers) == (window, layers)
    assert inf.kv_elements(cfg, 2, 8) == elements  # transformers 5.24.0, as above
    # Without use_sliding_window the window is not used: every layer caches all 8 tokens.
    full = read(tmp_path, {**data, "use_sliding_window": False})
    assert full.attention_window is None
    assert inf.kv_elements(full, 2, 8) == cfg.n_layers * 2 * 8 * 16


def test_layer_types_name_the_sliding_layers(tmp_path: Path) -> None:
    data = {**case("qwen2_moe sliding window 3 on layers 0 and 2 (max_window_layers 3)"),
            "layer_types": ["full_attention", "sliding_attention", "full_attention",
                            "sliding_attention"]}  # fmt: skip
    assert read(tmp_path, data).window_layers == [1, 3]
