"""Nemotron-H's MoE blocks (E, moe) and latent MoE (ModelConfig.moe_latent_dim), torch-free.

Golden numbers: tests/data/coverage.json (NVIDIA-Nemotron-3-Nano-30B-A3B, transformers 5.24.0
on the meta device) and hand derivations written beside each assert; the same counts are
checked against transformers itself in tests/test_oracle_hybrid_mamba.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, run
from oracle_cases import EXPLICIT

from ffn_calc import load
from ffn_calc.counts.flops import Workload, layer_flops
from ffn_calc.counts.params import (
    active_lines,
    active_params,
    components,
    expert_params,
    layer_counts,
    stored_buffers,
    total_params,
)
from ffn_calc.counts.totals import param_components
from ffn_calc.model.layer_kinds import FULL, MAMBA2, MOE, NO_FFN, NO_MIXER, layer_kinds

NANO = next(
    c
    for c in json.loads((DATA / "coverage.json").read_text())["cases"]
    if c["name"] == "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"
)

# A tiny latent-MoE config.json: the oracle's pattern ME*-E case (blocks M, E, *, -, E; 4
# experts of 12, top 2, over hidden_size 16, a shared MLP of 20) at a latent width of 6.
TINY: dict[str, Any] = {
    **EXPLICIT[
        "nemotron_h pattern ME*-E: MoE blocks (4 experts, top 2, shared MLP), MLP, attention"
    ],
    "moe_latent_size": 6,
}


def write(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    return path


def test_nano_preset_kinds_and_totals() -> None:
    """Nemotron 3 Nano: 23 Mamba-2 and 6 attention blocks without an FFN, 23 MoE blocks
    without a token mixer; the preset counts what transformers instantiates."""
    cfg = load(preset="nemotron-3-nano-30b-a3b")
    kinds = {(k.ffn, k.mixer): n for k, n in layer_kinds(cfg, cfg.n_layers)}
    assert kinds == {(NO_FFN, MAMBA2): 23, (MOE, NO_MIXER): 23, (NO_FFN, FULL): 6}
    # Golden: coverage.json total_params, active_params (transformers 5.24.0, meta device).
    assert total_params(cfg) == NANO["total_params"] == 31_577_937_344
    assert active_params(cfg) == NANO["active_params"] == 3_580_073_408
    assert stored_buffers(cfg) == 23 * 128  # coverage.json buffers_note: [128] per MoE block
    assert param_components(cfg) == components(cfg)
    # One routed expert: up [1856, 2688] + down [2688, 1856], no biases.
    assert expert_params(cfg) == 2 * 2688 * 1856


def test_nano_config_json_equals_the_preset(tmp_path: Path) -> None:
    cfg = load(hf_config=write(tmp_path, NANO["hf_config"]))
    assert cfg.n_experts == 128 and cfg.experts_per_token == 6 and cfg.moe_latent_dim is None
    assert cfg.shared_expert_d_ff == 3712 and cfg.dense_ffn_layers == []
    assert total_params(cfg) == total_params(load(preset="nemotron-3-nano-30b-a3b"))


def test_nano_cache() -> None:
    """6 attention blocks x 2 x 2 kv heads x 128 per token; 23 Mamba-2 blocks' states: conv
    [64 x 64 + 2 x 8 x 128 = 6,144, 4] and SSM [64, 64, 128] each."""
    out = run("kv", "--preset", "nemotron-3-nano-30b-a3b", "--context", "100000", "-f", "json")
    data = out.json()
    assert data["kv_elements"] == 6 * 2 * 2 * 128 * 100_000 == 307_200_000
    assert data["state_elements"] == 23 * (6144 * 4 + 64 * 64 * 128) == 12_623_872


def test_latent_moe_terms_by_hand(tmp_path: Path) -> None:
    """A MoE block of TINY: router [4, 16] 64, fc1_latent_proj [6, 16] 96, fc2_latent_proj
    [16, 6] 96, experts 4 x (up [12, 6] + down [6, 12]) 576, shared MLP 2 x 16 x 20 640, its
    norm 16: 1,488. Per token: router 2 x 16 x 4 = 128, the latent projections 2 x 2 x 16 x 6
    = 384, 2 experts 2 x 2 x 2 x 6 x 12 = 576, the shared MLP 2 x 2 x 16 x 20 = 1,280."""
    cfg = load(hf_config=write(tmp_path, TINY))
    assert cfg.moe_latent_dim == 6 and cfg.expert_width == 6
    moe = [x for x in layer_counts(cfg) if x.kind.is_moe]
    assert len(moe) == 1 and moe[0].count == 2 and moe[0].total == 1488
    terms = {t.name: t.value for t in moe[0].terms}
    assert (terms["router"], terms["latent down"], terms["latent up"]) == (64, 96, 96)
    assert (terms["experts"], terms["shared expert"]) == (576, 640)
    assert expert_params(cfg) == 2 * 6 * 12
    assert total_params(cfg) - active_params(cfg) == 2 * (4 - 2) * 144  # 2 blocks' idle experts
    flops = next(x for x in layer_flops(cfg, Workload(batch=1, seq_len=1)) if x.kind.is_moe)
    by_name = {t.name: t.value for t in flops.terms}
    assert by_name == {
        "router": 128, "latent down": 192, "latent up": 192, "experts": 576, "shared expert": 1280
    }  # fmt: skip
    assert param_components(cfg) == components(cfg)


def test_latent_biases_follow_mlp_bias(tmp_path: Path) -> None:
    """mlp_bias: the latent projections' biases [6] and [16], the shared MLP's [20] and [16];
    the routed experts have none."""
    plain = total_params(load(hf_config=write(tmp_path, TINY)))
    biased = total_params(load(hf_config=write(tmp_path, {**TINY, "mlp_bias": True})))
    dense = 24 + 16  # the MLP block's up and down biases
    assert biased - plain == 2 * (6 + 16 + 20 + 16) + dense


def test_active_lines_add_up(tmp_path: Path) -> None:
    """--explain's active lines: no idle experts in the blocks without an FFN or with the dense
    MLP; the sum line is active_params."""
    cfg = load(hf_config=write(tmp_path, TINY))
    lines = [str(x) for x in active_lines(cfg)]
    assert lines[-1].endswith(f"= {active_params(cfg):,}")
    assert sum("idle experts" in line for line in lines) == 1  # the MoE kind alone
    assert lines[0] == "one routed expert: 2 x moe_latent_dim x d_ff = 2 x 6 x 12 = 144"


def test_shared_width_zero_takes_intermediate_size(tmp_path: Path) -> None:
    """NemotronHMLP(intermediate_size=0 or config.intermediate_size): the shared MLP at 24."""
    cfg = load(hf_config=write(tmp_path, {**TINY, "moe_shared_expert_intermediate_size": 0}))
    assert cfg.shared_expert_d_ff == 24


@pytest.mark.parametrize(
    ("field", "value"),
    [("moe_latent_size", 0), ("n_routed_experts", 0), ("moe_intermediate_size", -1),
     ("num_experts_per_tok", 5), ("moe_latent_size", "6")],
)  # fmt: skip
def test_bad_moe_fields_name_the_field(tmp_path: Path, field: str, value: Any) -> None:
    r = run("params", "--hf-config", str(write(tmp_path, {**TINY, field: value})))
    assert r.exit_code == 2 and "Traceback" not in r.stderr
    assert field in r.stderr or ("experts_per_token" in r.stderr and field.startswith("num_"))


def test_latent_width_needs_experts(tmp_path: Path) -> None:
    path = tmp_path / "model.toml"
    path.write_text(
        'family = "custom"\nn_layers = 1\nd_model = 16\nn_heads = 2\nd_ff = 8\nmoe_latent_dim = 4\n'
    )
    r = run("params", "-c", str(path))
    assert r.exit_code == 2 and "moe_latent_dim" in r.stderr and "n_experts" in r.stderr


def test_latent_activations_in_training_memory(tmp_path: Path) -> None:
    """A latent MoE layer also keeps the experts' input and output at the latent width for its
    backward pass: 2 x 2sb(moe_latent_dim) = 4 x 128 x 1 x 16 = 8,192 bytes (s = 128, b = 1)."""
    path = tmp_path / "model.toml"
    path.write_text(
        'family = "custom"\nn_layers = 2\nd_model = 64\nn_heads = 4\nd_ff = 32\n'
        'activation = "relu"\nn_experts = 8\nexperts_per_token = 2\nmoe_latent_dim = 16\n'
        "vocab_size = 100\n"
    )
    out = run("memory", "--training", "-c", str(path), "-s", "128", "-f", "json").json()
    latent = [t for t in out["activation_terms"] if t["name"] == "latent input and output"]
    assert [t["bytes"] for t in latent] == [4 * 128 * 16]
    plain = path.read_text().replace("moe_latent_dim = 16\n", "")
    path.write_text(plain)
    again = run("memory", "--training", "-c", str(path), "-s", "128", "-f", "json").json()
    assert out["activations_per_layer_bytes"] - again["activations_per_layer_bytes"] == 8192


def test_super_preset_latent_moe() -> None:
    """Nemotron 3 Super: 40 Mamba-2, 8 attention and 40 latent MoE blocks; one MoE block holds
    the router [512, 4096], fc1_latent_proj [1024, 4096], fc2_latent_proj [4096, 1024],
    512 x (up [2688, 1024] + down [1024, 2688]), the shared MLP 2 x 4096 x 5376 and its norm."""
    super_ = next(
        c
        for c in json.loads((DATA / "coverage.json").read_text())["cases"]
        if c["name"] == "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16"
    )
    cfg = load(preset="nemotron-3-super-120b-a12b")
    kinds = {(k.ffn, k.mixer): n for k, n in layer_kinds(cfg, cfg.n_layers)}
    assert kinds == {(NO_FFN, MAMBA2): 40, (MOE, NO_MIXER): 40, (NO_FFN, FULL): 8}
    # Golden: coverage.json total_params, active_params (transformers 5.24.0, meta device).
    assert total_params(cfg) == super_["total_params"] == 120_668_687_360
    assert active_params(cfg) == super_["active_params"] == 12_770_216_960
    moe = next(x for x in layer_counts(cfg) if x.kind.is_moe)
    block = 512 * 4096 + 2 * 4096 * 1024 + 512 * 2 * 1024 * 2688 + 2 * 4096 * 5376 + 4096
    assert moe.total == block
    assert total_params(cfg) - active_params(cfg) == 40 * (512 - 22) * 2 * 1024 * 2688
    assert param_components(cfg) == components(cfg)
