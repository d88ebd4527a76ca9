"""Hybrid models: token mixers other than attention (Mamba-2), layers without an FFN or
without a mixer, the cache's constant-size states, and what the reports say about them.
Golden numbers come from tests/data/frontier.json (parameters) or from the formulas in
ffn_calc/counts/mixers/mamba2.py, checked against transformers in test_oracle_hybrid_mamba.py."""

from __future__ import annotations

from conftest import run

from ffn_calc import load
from ffn_calc.counts.params import components
from ffn_calc.counts.totals import param_components
from ffn_calc.model.layer_kinds import MAMBA2, NO_FFN, NO_MIXER, layer_kinds


def test_nemotron_h_kinds_with_their_counts() -> None:
    """Nemotron-H 8B: 24 Mamba-2 blocks and 4 attention blocks without an FFN, 24 MLP blocks
    without a token mixer (its 52-block pattern in frontier.json)."""
    cfg = load(preset="nemotron-h-8b")
    kinds = {(k.ffn, k.mixer): n for k, n in layer_kinds(cfg, cfg.n_layers)}
    assert kinds[(NO_FFN, MAMBA2)] == 24 and sum(kinds.values()) == 52
    assert sum(n for (f, m), n in kinds.items() if m is NO_MIXER) == 24
    labels = {str(k) for k, _ in layer_kinds(cfg, cfg.n_layers)}
    assert labels == {"no FFN, Mamba-2", "dense FFN, no token mixer", "no FFN, full attention"}


def test_closed_form_equals_the_terms() -> None:
    for preset in ("nemotron-h-8b", "granite-4.0-h-tiny", "falcon-h1", "mamba-codestral-7b"):
        cfg = load(preset=preset)
        assert param_components(cfg) == components(cfg)


def test_kv_reports_states_apart() -> None:
    """Mamba-Codestral-7B, batch 1: no keys or values; per layer a conv state [10240, 4] and
    an SSM state [128, 64, 128]: 64 x (40,960 + 1,048,576) = 69,730,304 at any context."""
    for context in (1, 100_000):
        out = run(
            "kv", "--preset", "mamba-codestral-7b", "--context", str(context), "-f", "json"
        ).json()
        assert out["kv_elements"] == 0
        assert out["state_elements"] == 64 * (10240 * 4 + 128 * 64 * 128) == 69_730_304
        assert out["cache_elements"] == out["state_elements"]
        assert out["cache_bytes"] == 2 * 69_730_304  # bf16


def test_nemotron_cache_keys_only_in_attention_layers() -> None:
    """4 attention layers x 2 x 8 kv heads x 128 per token, 24 Mamba-2 layers' states."""
    out = run("kv", "--preset", "nemotron-h-8b", "--context", "8192", "-f", "json").json()
    assert out["kv_elements"] == 4 * 2 * 8 * 128 * 8192
    assert out["state_elements"] == 24 * (10240 * 4 + 128 * 64 * 128)


def test_no_attention_no_crossover() -> None:
    r = run("crossover", "--preset", "mamba-codestral-7b")
    assert r.exit_code == 2 and r.stdout == ""
    assert "mamba2" in r.stderr and "never" in r.stderr


def test_training_refuses_the_mixer_activations() -> None:
    r = run("memory", "--preset", "nemotron-h-8b", "--training")
    assert r.exit_code == 2 and r.stdout == ""
    assert "mamba2" in r.stderr


def test_decode_step_is_recurrent() -> None:
    """One decode step of Mamba-Codestral costs the same at any context (no S^2 term)."""
    a = run("flops", "--preset", "mamba-codestral-7b", "--decode", "--context", "10", "-f", "json")
    b = run(
        "flops",
        "--preset",
        "mamba-codestral-7b",
        "--decode",
        "--context",
        "9999",
        "-f",
        "json",
    )
    assert a.json()["decode_flops"] == b.json()["decode_flops"]
