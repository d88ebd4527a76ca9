"""Hybrid models: token mixers other than attention (Mamba-2), layers without an FFN or
without a mixer, the cache's constant-size states, and what the reports say about them.
Golden numbers come from tests/data/frontier.json (parameters) or from the formulas in
ffn_calc/counts/mixers/mamba2.py, checked against transformers in test_oracle_hybrid_mamba.py."""

from __future__ import annotations

from conftest import DATA, run

from ffn_calc import load
from ffn_calc.counts.params import components
from ffn_calc.counts.totals import param_components
from ffn_calc.model.layer_kinds import MAMBA2, NO_FFN, NO_MIXER, layer_kinds

# The hybrids' model files (presets to be: the shared per-preset invariants do not know
# hybrids yet), each made by import-hf from its frontier.json config.


def toml(name: str) -> str:
    return str(DATA / "hybrid" / f"{name}.toml")


def test_nemotron_h_kinds_with_their_counts() -> None:
    """Nemotron-H 8B: 24 Mamba-2 blocks and 4 attention blocks without an FFN, 24 MLP blocks
    without a token mixer (its 52-block pattern in frontier.json)."""
    cfg = load(config=toml("nemotron-h-8b"))
    kinds = {(k.ffn, k.mixer): n for k, n in layer_kinds(cfg, cfg.n_layers)}
    assert kinds[(NO_FFN, MAMBA2)] == 24 and sum(kinds.values()) == 52
    assert sum(n for (f, m), n in kinds.items() if m is NO_MIXER) == 24
    labels = {str(k) for k, _ in layer_kinds(cfg, cfg.n_layers)}
    assert labels == {"no FFN, Mamba-2", "dense FFN, no token mixer", "no FFN, full attention"}


def test_closed_form_equals_the_terms() -> None:
    for preset in ("nemotron-h-8b", "granite-4.0-h-tiny", "falcon-h1", "mamba-codestral-7b"):
        cfg = load(config=toml(preset))
        assert param_components(cfg) == components(cfg)


def test_kv_reports_states_apart() -> None:
    """Mamba-Codestral-7B, batch 1: no keys or values; per layer a conv state [10240, 4] and
    an SSM state [128, 64, 128]: 64 x (40,960 + 1,048,576) = 69,730,304 at any context."""
    for context in (1, 100_000):
        out = run(
            "kv", "--config", toml("mamba-codestral-7b"), "--context", str(context), "-f", "json"
        ).json()
        assert out["kv_elements"] == 0
        assert out["state_elements"] == 64 * (10240 * 4 + 128 * 64 * 128) == 69_730_304
        assert out["cache_elements"] == out["state_elements"]
        assert out["cache_bytes"] == 2 * 69_730_304  # bf16


def test_nemotron_cache_keys_only_in_attention_layers() -> None:
    """4 attention layers x 2 x 8 kv heads x 128 per token, 24 Mamba-2 layers' states."""
    out = run("kv", "--config", toml("nemotron-h-8b"), "--context", "8192", "-f", "json").json()
    assert out["kv_elements"] == 4 * 2 * 8 * 128 * 8192
    assert out["state_elements"] == 24 * (10240 * 4 + 128 * 64 * 128)


def test_no_attention_no_crossover() -> None:
    r = run("crossover", "--config", toml("mamba-codestral-7b"))
    assert r.exit_code == 2 and r.stdout == ""
    assert "mamba2" in r.stderr and "never" in r.stderr


def test_training_refuses_the_mixer_activations() -> None:
    """The model states alone (exact), the activation part refused naming the mixer."""
    r = run("memory", "--config", toml("nemotron-h-8b"), "--training", "-f", "json")
    assert r.exit_code == 0
    out = r.json()
    assert out["activations_bytes"] is None and out["unmodelled_mixers"] == ["mamba2"]
    assert "mamba2" in out["activations_refused"]


def test_decode_step_is_recurrent() -> None:
    """One decode step of Mamba-Codestral costs the same at any context (no S^2 term)."""
    a = run(
        "flops", "--config", toml("mamba-codestral-7b"), "--decode", "--context", "10", "-f", "json"
    )
    b = run(
        "flops",
        "--config",
        toml("mamba-codestral-7b"),
        "--decode",
        "--context",
        "9999",
        "-f",
        "json",
    )
    assert a.json()["decode_flops"] == b.json()["decode_flops"]


def test_crossover_grid_keeps_the_mixer_sizes() -> None:
    """`crossover --grid` rescales the model's width: a hybrid keeps its mixers' sizes (they
    were left as plain dicts, and every hybrid crashed)."""
    models = [["--config", str(p)] for p in sorted((DATA / "hybrid").glob("*.toml"))]
    models += [["--preset", "qwen3.5-27b"], ["--preset", "qwen3.5-35b-a3b"]]
    for args in models:
        r = run("crossover", *args, "--grid", "-f", "json")
        if "mamba-codestral" in args[-1]:  # no attention: refused, never crashed
            assert r.exit_code == 2, r.stderr
            continue
        assert r.exit_code == 0, (args, r.stderr)
        assert r.json()
