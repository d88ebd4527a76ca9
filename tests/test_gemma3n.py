"""Gemma 3n without torch: the real-size case of tests/data/frontier.json by component, what
is not counted (the timm vision tower) and how ffn-calc says so, the KV-shared layers' cache,
and the configs the classes refuse (refused here too, exit 2, nothing on stdout). Gemma 4's
real-size MoE case (tests/data/gemma4_moe.json) by its totals.

Golden figures: transformers 5.24.0 on the meta device (tests/test_oracle_gemma3n.py measures
them again where torch is installed): Gemma3nForCausalLM on the case's text_config
6,835,235,568 (frontier.json's language_model_params), Gemma3nAudioEncoder on its
audio_config 681,348,640, Gemma3nMultimodalEmbedder 4,460,544 (vision: 128 x 2048 + 2 x 2048
+ 2048 x 2048) and 3,345,408 (audio: 128 x 1536 + 2 x 1536 + 2048 x 1536).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, run

from ffn_calc.counts import params as pm
from ffn_calc.counts import totals
from ffn_calc.counts.flops import Workload, flop_components
from ffn_calc.families.resolve import resolve_model

FRONTIER = json.loads((DATA / "frontier.json").read_text())["cases"]
(CASE,) = [c for c in FRONTIER if c["model_type"] == "gemma3n"]


def write(data: dict[str, Any], tmp: Path) -> Path:
    path = tmp / "config.json"
    path.write_text(json.dumps(data, indent=2))
    return path


def params(path: Path) -> dict[str, Any]:
    r = run("params", "--hf-config", str(path), "--format", "json")
    assert r.exit_code == 0, r.stderr
    return dict(json.loads(r.stdout))


def test_frontier_by_component(tmp_path: Path) -> None:
    out = params(write(CASE["hf_config"], tmp_path))
    assert out["language_model_params"] == CASE["language_model_params"] == 6_835_235_568
    assert out["components"]["audio"] == 681_348_640  # Gemma3nAudioEncoder (meta device)
    assert out["components"]["projector"] == 4_460_544 + 3_345_408  # the two embedders
    # Every parameter but the vision tower's: the language model, the audio tower, embedders.
    assert out["total_params"] == 6_835_235_568 + 681_348_640 + 4_460_544 + 3_345_408
    assert out["not_counted"] == ["vision tower (timm mobilenetv5_300m_enc)"]
    assert "not counted" in out["note"]
    assert [t["name"] for t in out["towers"]] == ["audio"]


def test_closed_form_equals_the_terms(tmp_path: Path) -> None:
    """The fast totals take the term path for layer and model parts: the same figures."""
    cfg = resolve_model(hf_config=write(CASE["hf_config"], tmp_path))
    assert totals.param_components(cfg) == pm.components(cfg)
    w = Workload(batch=2, seq_len=7)
    assert totals.flop_components(cfg, w) == flop_components(cfg, w)


def test_per_layer_inputs_are_gemma4s(tmp_path: Path) -> None:
    """One design for the per-layer inputs: Gemma 3n's are ModelConfig.per_layer_dim /
    per_layer_vocab, as Gemma 4's (not layer or model parts), so they follow d_model and
    n_layers wherever the model is resized."""
    cfg = resolve_model(hf_config=write(CASE["hf_config"], tmp_path))
    text = CASE["hf_config"]["text_config"]
    d, layers = text["hidden_size"], text["num_hidden_layers"]
    assert (cfg.per_layer_dim, cfg.per_layer_vocab) == (256, 262_144)  # E4B/E2B's sizes
    parts = [p.name for p in [*cfg.layer_parts, *cfg.model_parts]]
    assert not [name for name in parts if "per_layer" in name]
    # Outside the layers: the table 262,144 x (L x 256), the projection d x (L x 256), its
    # norm of 256 (Gemma3nTextModel's embed_tokens_per_layer, per_layer_model_projection,
    # per_layer_projection_norm); in a layer: gate and projection d x 256 each, a norm of d.
    assert sum(t.value for t in pm.per_layer_model_terms(cfg)) == (
        262_144 * layers * 256 + d * layers * 256 + 256
    )
    assert sum(t.value for t in pm.per_layer_input_terms(cfg)) == 2 * d * 256 + d


def test_kv_shared_layers_cache_nothing(tmp_path: Path) -> None:
    """Layers 20-34 reuse keys and values: 4 full layers (4, 9, 14, 19) cache the 1,000
    tokens, 16 sliding ones the last 511 (window 512); 2 kv heads x 256 x (K and V) each."""
    r = run("kv", "--hf-config", str(write(CASE["hf_config"], tmp_path)), "--context", "1000",
            "--format", "json")  # fmt: skip
    assert r.exit_code == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["kv_elements"] == (4 * 1000 + 16 * 511) * 2 * 2 * 256


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["flops", "--seq-len", "8", "--images", "1"], "mobilenetv5_300m_enc"),
        (["memory", "--training", "--seq-len", "8"], "AltUp"),
    ],
)
def test_refused_where_not_modelled(args: list[str], said: str, tmp_path: Path) -> None:
    path = write(CASE["hf_config"], tmp_path)
    r = run(*args, "--hf-config", str(path))
    assert r.exit_code == 2 and r.stdout == ""
    assert said in r.stderr and "Traceback" not in r.stderr


TEXT: dict[str, Any] = {
    "model_type": "gemma3n_text", "num_hidden_layers": 4, "hidden_size": 8,
    "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4, "intermediate_size": 12,
    "vocab_size": 40, "vocab_size_per_layer_input": 30, "hidden_size_per_layer_input": 3,
    "altup_num_inputs": 3, "laurel_rank": 2, "num_kv_shared_layers": 2,
    "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention"],
}  # fmt: skip


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"intermediate_size": [12, 12, 16, 12]}, "intermediate_size"),  # widths differ
        ({"intermediate_size": [12, 12]}, "intermediate_size"),  # not one per layer
        ({"num_kv_shared_layers": 3}, "num_kv_shared_layers"),  # no full layer before them
        ({"num_kv_shared_layers": 4}, "num_kv_shared_layers"),  # every layer shared
        ({"hidden_size": 9}, "hidden_size"),  # Gemma3nTextConfig: a multiple of the heads
        ({"altup_num_inputs": 5000}, "altup_num_inputs"),
    ],
)
def test_configs_the_class_refuses(change: dict[str, Any], field: str, tmp_path: Path) -> None:
    r = run("params", "--hf-config", str(write({**TEXT, **change}, tmp_path)))
    assert r.exit_code == 2 and r.stdout == ""
    assert field in r.stderr


def test_equal_widths_per_layer_are_one_width(tmp_path: Path) -> None:
    """save_pretrained writes intermediate_size as one width per layer."""
    one = params(write(TEXT, tmp_path))
    listed = params(write({**TEXT, "intermediate_size": [12] * 4}, tmp_path))
    assert one["total_params"] == listed["total_params"]


def test_kv_shared_layers_must_be_the_last() -> None:
    """A layer that shares keys and values is one of the stack's last (as Gemma 3n's are)."""
    import ffn_calc

    with pytest.raises(ffn_calc.ConfigError, match="kv_shared_layers"):
        ffn_calc.load(preset="gpt2-small", kv_shared_layers=[1])
    cfg = ffn_calc.load(preset="gpt2-small", kv_shared_layers=[10, 11])
    base = ffn_calc.load(preset="gpt2-small")
    # Two layers without c_attn's K and V columns (and biases): 2 x 2 x (768 x 768 + 768).
    assert pm.total_params(base) - pm.total_params(cfg) == 2 * 2 * (768 * 768 + 768)


def test_generate_runs_kv_shared_layers_over_the_last_prompt_position(tmp_path: Path) -> None:
    """Gemma 4's generate(): the KV-shared layers' prefill over the prompt's last position only
    (kv_shared_prefill_last), torch-free. Golden figures: transformers 5.24.0's generate() on
    this explicit case, B = 2, S = 5, 3 new tokens, FlopCounterMode (tests/oracle_cases.py,
    checked by tests/test_oracle_cases.py): prefill 45,760, whole generation 72,960."""
    from oracle_cases import EXPLICIT

    case = EXPLICIT["gemma4_text 2 KV-shared layers of 5, per-layer inputs 2"]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(case))
    r = run("flops", "--hf-config", str(path), "--generate", "3", "--seq-len", "5",
            "--batch", "2", "--format", "json")  # fmt: skip
    assert r.exit_code == 0, r.stderr
    out = json.loads(r.stdout)
    assert (out["prefill_flops"], out["generation_flops"]) == (45_760, 72_960)


def test_gemma4_moe_real_size(tmp_path: Path) -> None:
    """google/gemma-4-26B-A4B-it (tests/data/gemma4_moe.json, measured with transformers
    5.24.0 on the meta device) without torch: the total, the language model, the active
    parameters (the model card's 25.2B and 3.8B are the language model's), and its text_config
    alone as Gemma4ForCausalLM."""
    (golden,) = json.loads((DATA / "gemma4_moe.json").read_text())["cases"]
    out = params(write(golden["hf_config"], tmp_path))
    keys = ("total_params", "language_model_params", "active_params")
    # Golden: gemma4_moe.json (25,805,933,872; 25,233,141,760; 4,395,322,672).
    assert {k: out[k] for k in keys} == {k: golden[k] for k in keys}
    text = {**golden["hf_config"]["text_config"], "architectures": ["Gemma4ForCausalLM"]}
    alone = params(write(text, tmp_path))
    assert alone["total_params"] == golden["text_only_params"] == 25_233_141_760
    # The language model's active parameters: 3,822,530,560 (its 120 idle experts of
    # 3 x 2816 x 704 in each of 30 layers less).
    assert alone["active_params"] == golden["language_model_active_params"] == 3_822_530_560


def test_kv_shared_d_ff(tmp_path: Path) -> None:
    """kv_shared_d_ff: the KV-shared layers' FFN of its own width; in a MoE model the shared
    expert's (the MLP beside Gemma 4's experts). Without KV-shared layers it is refused, the
    field named (exit 2, nothing on stdout)."""
    import ffn_calc

    shared = {"kv_shared_layers": [28, 29]}
    narrow = ffn_calc.load(preset="gemma-4-26b-a4b", **shared)
    wide = ffn_calc.load(preset="gemma-4-26b-a4b", **shared, kv_shared_d_ff=2 * 2112)
    # Layers 28 and 29: the MLP beside the experts 3 x 2816 x 2112 wider each (hand count).
    assert pm.total_params(wide) - pm.total_params(narrow) == 2 * 3 * 2816 * 2112
    assert pm.active_params(wide) - pm.active_params(narrow) == 2 * 3 * 2816 * 2112
    w = Workload(batch=1, seq_len=8)
    more = sum(flop_components(wide, w).values()) - sum(flop_components(narrow, w).values())
    assert more == 2 * (2 * 8 * 3 * 2816 * 2112)
    bad = tmp_path / "bad.toml"
    bad.write_text("n_layers = 2\nd_model = 8\nn_heads = 2\nd_ff = 16\nkv_shared_d_ff = 32\n")
    r = run("params", "--config", str(bad))
    assert r.exit_code == 2 and r.stdout == ""
    assert "kv_shared_d_ff" in r.stderr
