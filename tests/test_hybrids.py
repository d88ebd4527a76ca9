"""Hybrid models: token mixers other than attention (Mamba-2), layers without an FFN or
without a mixer, the cache's constant-size states, and what the reports say about them.
Golden numbers come from tests/data/frontier.json (parameters) or from the formulas in
ffn_calc/counts/mixers/mamba2.py, checked against transformers in test_oracle_hybrid_mamba.py."""

from __future__ import annotations

import pytest
from conftest import run

from ffn_calc import load
from ffn_calc.counts.params import components
from ffn_calc.counts.totals import param_components
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.layer_kinds import MAMBA2, MIXERS, NO_FFN, NO_MIXER, layer_kinds
from ffn_calc.model.sources import preset_names


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
        # bf16: the conv states in 2 bytes, the SSM states in float32 (4 bytes), as
        # transformers holds them after a bf16 prefill: 64 x (40,960 x 2 + 1,048,576 x 4)
        assert out["cache_bytes"] == 64 * (40_960 * 2 + 1_048_576 * 4) == 273_678_336
        assert out["states"][0]["dtypes"] == {"conv state": "bf16", "SSM state": "fp32"}


def test_nemotron_cache_keys_only_in_attention_layers() -> None:
    """4 attention layers x 2 x 8 kv heads x 128 per token, 24 Mamba-2 layers' states."""
    out = run("kv", "--preset", "nemotron-h-8b", "--context", "8192", "-f", "json").json()
    assert out["kv_elements"] == 4 * 2 * 8 * 128 * 8192
    assert out["state_elements"] == 24 * (10240 * 4 + 128 * 64 * 128)


@pytest.mark.parametrize("dtype", ["bf16", "fp16", "fp8", "int4", "fp32"])
def test_recurrent_states_stay_fp32(dtype: str) -> None:
    """transformers 5.24 (torch path) keeps the Mamba-2 SSM state in float32 whatever the
    model's dtype, the conv state and the keys and values in it. Nemotron-H-8B at 8K, bf16:
    keys and values 4 x 2 x 8 x 128 x 8192 x 2 = 134,217,728 B, states 24 x (40,960 x 2 +
    1,048,576 x 4) = 102,629,376 B, the cache 236,847,104 B (was 186,515,456: all in bf16)."""
    out = run("kv", "--preset", "nemotron-h-8b", "--context", "8192", "--dtype", dtype,
              "-f", "json").json()  # fmt: skip
    per = {"bf16": 2, "fp16": 2, "fp8": 1, "int4": 0.5, "fp32": 4}[dtype]
    assert out["kv_bytes"] == 4 * 2 * 8 * 128 * 8192 * per
    assert out["state_bytes"] == 24 * (40_960 * per + 1_048_576 * 4)
    assert out["cache_bytes"] == out["kv_bytes"] + out["state_bytes"]
    if dtype == "bf16":
        assert out["cache_bytes"] == 236_847_104
    mem = run("memory", "--preset", "nemotron-h-8b", "--dtype", dtype, "--gpu-memory", "80GB",
              "-f", "json").json()  # fmt: skip
    assert mem["state_bytes"] == out["state_bytes"]


@pytest.mark.parametrize(
    ("preset", "fp32"),
    [("lfm2-1.2b", False), ("minimax-text-01", False), ("qwen3-next-80b-a3b", True),
     ("kimi-linear-48b-a3b", True), ("jamba-mini-1.5", True), ("granite-4.0-h-tiny", True),
     ("falcon-h1", True)],
)  # fmt: skip
def test_state_dtype_by_mixer(preset: str, fp32: bool) -> None:
    """Conv states and MiniMax's lightning state [B, H, P, P] in the model's dtype; the
    recurrent states (Mamba's, Mamba-2's, the gated delta rule's, KDA's) in float32, as
    transformers 5.24 holds them after a bf16 prefill (tests/test_oracle_hybrid_*.py)."""
    out = run("kv", "--preset", preset, "--context", "16", "-f", "json").json()
    for layer in out["states"]:
        want = sum(
            n * (4 if fp32 and "conv" not in name else 2) for name, n in layer["tensors"].items()
        )
        assert layer["bytes"] == want
        assert ("fp32" in layer["dtypes"].values()) == fp32


def test_no_attention_no_crossover() -> None:
    r = run("crossover", "--preset", "mamba-codestral-7b")
    assert r.exit_code == 2 and r.stdout == ""
    assert "mamba2" in r.stderr and "never" in r.stderr


def test_training_refuses_the_mixer_activations() -> None:
    """The model states alone (exact), the activation part refused naming the mixer."""
    r = run("memory", "--preset", "nemotron-h-8b", "--training", "-f", "json")
    assert r.exit_code == 0
    out = r.json()
    assert out["activations_bytes"] is None and out["unmodelled_mixers"] == ["mamba2"]
    assert "mamba2" in out["activations_refused"]


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


# --- every command over every hybrid preset: an answer, or a refusal naming the mixer --------

HYBRIDS = [n for n in preset_names() if load(preset=n).layer_mixers]


def _attends(cfg: ModelConfig) -> bool:
    return any(MIXERS[m].attends for m in cfg.layer_mixers)


@pytest.mark.parametrize("name", HYBRIDS)
def test_every_command_answers_or_names_the_mixer(name: str) -> None:
    """Read off the model's layer list: crossovers exist where some layer attends, and the
    training activations are refused where a layer keeps a state; each refusal is exit 2
    with the mixer's name, nothing on stdout; every other question is answered."""
    cfg = load(preset=name)
    no_crossover = ", ".join(sorted(set(cfg.layer_mixers)))
    cases: list[tuple[list[str], str | None]] = [
        (["crossover"], None if _attends(cfg) else no_crossover),
        (["crossover", "--decode"], None if _attends(cfg) else no_crossover),
        (["crossover", "--grid"], None if _attends(cfg) else no_crossover),
        (["memory", "--training"], None),  # the model states, the activations refused in it
        (["kv", "--context", "100000"], None),
        (["flops", "--decode", "--context", "4096"], None),
        (["roofline", "--gpu", "h100-sxm", "--seq-len", "2048", "--context", "4096"], None),
        (["memory", "--gpu-memory", "80GB"], None),
    ]
    for args, refusal in cases:
        for fmt in ("table", "json"):
            r = run(args[0], "--preset", name, *args[1:], "-f", fmt)
            if refusal is None:
                assert r.exit_code == 0, (args, r.stderr)
            else:
                assert r.exit_code == 2 and r.stdout == "", (args, r.stdout)
                assert refusal in r.stderr and name + " @" not in r.stderr, (args, r.stderr)


def test_compare_keeps_a_model_without_crossovers() -> None:
    """Mamba-Codestral beside GPT-2: its crossovers are null with the reason, GPT-2's are
    null past its 1,024 positions (at S = 1,024, the shortest table); the rest is counted."""
    r = run("compare", "mamba-codestral-7b", "gpt2-small", "-f", "json")
    assert r.exit_code == 0, r.stderr
    mamba, gpt2 = r.json()["models"]
    keys = {"scores_vs_ffn", "scores_vs_projections", "scores_vs_dense"}
    assert mamba["crossover"] == dict.fromkeys(keys) and mamba["never"] == dict.fromkeys(
        keys, "no attention"
    )
    assert mamba["total_params"] == 7_285_403_648  # frontier.json, Mamba2ForCausalLM
    assert gpt2["never"] == dict.fromkeys(keys, "positions")
    table = run("compare", "mamba-codestral-7b", "gpt2-small")
    assert "no layer of mamba-codestral-7b attends" in table.stdout


def test_grid_keeps_the_mixer_sizes() -> None:
    """crossover --grid redraws the design at other widths: a hybrid's mixer sizes stay
    sizes (Nemotron-H's Mamba-2 at d_model 256 is still 128 heads of 64)."""
    from ffn_calc.counts.grid import scaled

    small = scaled(load(preset="nemotron-h-8b"), 256)
    assert small.mamba2 is not None and (small.mamba2.heads, small.mamba2.head_dim) == (128, 64)
