"""A hybrid's crossovers per layer kind and for the whole model, the decode cache's states
against its keys and values, and the longest context a memory holds (bounded by the attention
layers alone).

Golden numbers are the closed forms of ffn_calc/counts (FlopCounterMode's convention, checked
against transformers in test_oracle_hybrid_mamba.py): per token and attention layer the
scores cost 2 x 2 x S x n_heads x head_dim FLOPs (QK^T and AV), the projections
2 x d_model x (2 q_dim + 2 kv_dim), a dense FFN 2 x mats x d_model x d_ff; the model files
are the hybrid presets (presets/*.toml; their sizes quoted in each test)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from conftest import run

from ffn_calc import load
from ffn_calc.counts import flops as fl
from ffn_calc.counts import reach as rc
from ffn_calc.counts.grid import scaled

PRESETS = Path(__file__).resolve().parents[1] / "presets"


def toml(name: str) -> str:
    return str(PRESETS / f"{name}.toml")


# Nemotron-H 8B: d_model 4096, 32 heads x 128, 8 KV heads, a ReLU^2 FFN of 21,504 (2 mats);
# 4 attention layers without an FFN, 24 MLP layers without a mixer, 24 Mamba-2 layers
# (conv state 10,240 x 4 and SSM state 128 x 64 x 128 each).
NEMO_SCORES = 2 * 2 * 32 * 128  # per token and per S, one attention layer: 16,384
NEMO_PROJ = 2 * 4096 * (4096 + 1024 + 1024 + 4096)  # one attention layer per token
NEMO_FFN = 2 * 2 * 4096 * 21504  # one MLP layer per token
NEMO_STATES = 24 * (10240 * 4 + 128 * 64 * 128)  # 26,148,864
NEMO_KV = 4 * 2 * 8 * 128  # per cached token, the 4 attention layers: 8,192

# Granite 4.0-H tiny: d_model 1536, 12 heads x 128, 4 KV heads; 36 Mamba-2 and 4 attention
# layers, each with 64 experts (6 per token, SwiGLU d_ff 512), a router and a shared MLP 1024.
GRANITE_SCORES = 2 * 2 * 12 * 128
GRANITE_PROJ = 2 * 1536 * (1536 + 512 + 512 + 1536)
GRANITE_FFN = 2 * 1536 * 64 + 6 * 3 * 2 * 1536 * 512 + 3 * 2 * 1536 * 1024


def kinds_by_label(out: dict) -> dict[str, dict]:  # type: ignore[type-arg]
    return {k["kind"]: k for k in out["kinds"]}


def test_prefill_whole_model_and_per_kind() -> None:
    """Whole model: 4 layers' scores against 24 FFNs; per kind: the attention layer's own
    (no FFN: only its projections), the Mamba-2 and MLP layers never (no attention)."""
    out = run("crossover", "--config", toml("nemotron-h-8b"), "-f", "json").json()
    assert out["crossover"] == {
        "scores_vs_ffn": 24 * NEMO_FFN // (4 * NEMO_SCORES),  # 129,024
        "scores_vs_projections": NEMO_PROJ // NEMO_SCORES,  # 5,120
        "scores_vs_dense": (4 * NEMO_PROJ + 24 * NEMO_FFN) // (4 * NEMO_SCORES),
    }
    kinds = kinds_by_label(out)
    assert {k: v["count"] for k, v in kinds.items()} == {
        "no FFN, Mamba-2": 24, "dense FFN, no token mixer": 24, "no FFN, full attention": 4,
    }  # fmt: skip
    att = kinds["no FFN, full attention"]
    assert att["mixer"] == "full"
    assert att["crossover"] == {
        "scores_vs_ffn": None, "scores_vs_projections": 5120, "scores_vs_dense": 5120,
    }  # fmt: skip
    assert att["never"] == {"scores_vs_ffn": "no ffn"}
    for label in ("no FFN, Mamba-2", "dense FFN, no token mixer"):
        assert set(kinds[label]["crossover"].values()) == {None}
        assert set(kinds[label]["never"].values()) == {"mixer"}
    assert kinds["no FFN, Mamba-2"]["mixer"] == "mamba2"


def test_prefill_per_kind_with_moe_ffn() -> None:
    """Granite 4.0-H: an attention layer's own crossovers against its MoE FFN (6,176), its
    projections (2,048); the whole model: 4 layers' scores against 40 MoE FFNs."""
    out = run("crossover", "--config", toml("granite-4.0-h-tiny"), "-f", "json").json()
    att = kinds_by_label(out)["full attention"]
    assert att["crossover"] == {
        "scores_vs_ffn": GRANITE_FFN // GRANITE_SCORES,  # 6,176
        "scores_vs_projections": GRANITE_PROJ // GRANITE_SCORES,  # 2,048
        "scores_vs_dense": (GRANITE_PROJ + GRANITE_FFN) // GRANITE_SCORES,
    }
    assert out["exact"]["scores_vs_ffn"] == str(
        Fraction(40 * GRANITE_FFN, 4 * GRANITE_SCORES)
    )  # 61,760
    assert kinds_by_label(out)["Mamba-2"]["never"]["scores_vs_ffn"] == "mixer"


def test_per_kind_equals_the_kinds_own_terms() -> None:
    """Every hybrid: each attending kind's crossover is where its own layer_flops terms meet
    (checked at the value), and the kinds together are the whole stack."""
    cfgs = [load(config=toml(n)) for n in ("nemotron-h-8b", "granite-4.0-h-tiny", "falcon-h1")]
    cfgs += [load(preset=p) for p in ("lfm2-1.2b", "jamba-mini-1.5", "minimax-text-01")]
    for cfg in cfgs:
        kinds = rc.kind_crossovers(cfg)
        assert sum(k.count for k in kinds) == cfg.n_layers
        for i, k in enumerate(kinds):
            mixer = k.kind.mixer
            if mixer is not None and not mixer.attends:  # short conv, Mamba, lightning, ...
                assert k.points == dict.fromkeys(rc.CROSSOVER_KEYS)
                assert set(k.never.values()) == {"mixer"}
                continue
            for key, other in (("scores_vs_projections", ("attention_projections",)),
                               ("scores_vs_ffn", ("ffn",))):  # fmt: skip
                s = k.points[key]
                if s is None:
                    assert k.never[key] in ("no ffn", "positions")
                    continue
                # Between whole lengths: the terms at S and S + 1 straddle the crossover.
                lo = fl.layer_flops(cfg, fl.Workload(1, int(s)))[i]
                hi = fl.layer_flops(cfg, fl.Workload(1, int(s) + 1))[i]
                side = [sum(x.group(g) for g in other) for x in (lo, hi)]
                assert lo.group("attention_scores") <= side[0]
                assert hi.group("attention_scores") > side[1] or s.denominator == 1


def test_decode_whole_model_per_kind_and_bytes() -> None:
    """One decode step attends to L + 1 tokens; the whole model's keys and values read
    (8,192 per token) reach its 24 FFNs' weights (2 x 4096 x 21,504 each) at L = 516,096."""
    out = run("crossover", "--decode", "--config", toml("nemotron-h-8b"), "-f", "json").json()
    assert out["flops"]["scores_vs_ffn"] == 24 * NEMO_FFN // (4 * NEMO_SCORES) - 1  # 129,023
    assert out["bytes_context"] == 24 * 2 * 4096 * 21504 // NEMO_KV == 516_096
    assert out["kv_elements_per_token"] == NEMO_KV
    assert out["layer"] == "decoder"  # the whole stack, not one kind
    att = kinds_by_label(out)["no FFN, full attention"]
    assert att["crossover"]["scores_vs_projections"] == NEMO_PROJ // NEMO_SCORES - 1  # 5,119
    assert att["never"] == {"scores_vs_ffn": "no ffn", "bytes_context": "no ffn"}
    mamba = kinds_by_label(out)["no FFN, Mamba-2"]
    assert mamba["never"] == dict.fromkeys(
        ("scores_vs_ffn", "scores_vs_projections", "scores_vs_dense", "bytes_context"), "mixer"
    )


def test_decode_per_kind_equals_flops_decode() -> None:
    """Granite's attention kind: at its own crossover L, one step of one such layer has scores
    equal to its FFN (the same terms as flops --decode)."""
    cfg = load(config=toml("granite-4.0-h-tiny"))
    kinds = rc.kind_decode_crossovers(cfg, 1)
    (i, att), *_ = [(i, k) for i, k in enumerate(kinds) if k.mixer == "full"]
    at = att.flops["scores_vs_ffn"].at
    assert at is not None and at.denominator == 1
    parts = rc.decode_parts(cfg, 1, int(at), i)
    assert parts["attention_scores"] == parts["ffn"]


def test_decode_cache_states_against_kv() -> None:
    """Nemotron-H: 26,148,864 state elements at any context; the keys and values (8,192 per
    token) reach them at L = 3,192; at --context 100,000 the states are 26,148,864 /
    (819,200,000 + 26,148,864) of the cache."""
    out = run(
        "crossover", "--decode", "--config", toml("nemotron-h-8b"), "-L", "100000", "-f", "json"
    ).json()
    assert out["state_elements"] == NEMO_STATES
    assert out["kv_elements_per_context_token"] == NEMO_KV
    assert out["kv_equals_states_exact"] == str(Fraction(NEMO_STATES, NEMO_KV)) == "3192"
    row = next(x for x in out["cache_shares"] if x["context"] == 100_000)
    assert row["kv_elements"] == NEMO_KV * 100_000
    assert row["state_share"] == NEMO_STATES / (NEMO_KV * 100_000 + NEMO_STATES)
    kv = run("kv", "--config", toml("nemotron-h-8b"), "-L", "100000", "-f", "json").json()
    assert kv["state_elements"] == row["state_elements"] and kv["kv_elements"] == row["kv_elements"]


def test_cache_share_option_refused_where_it_does_not_apply() -> None:
    r = run("crossover", "--decode", "--preset", "gpt2-small", "-L", "100")
    assert r.exit_code == 2 and r.stdout == "" and "--context" in r.stderr
    r = run("crossover", "--config", toml("nemotron-h-8b"), "-L", "100")
    assert r.exit_code == 2 and r.stdout == "" and "--decode" in r.stderr


def test_a_transformer_keeps_its_json() -> None:
    """The per-kind and cache fields are a hybrid's only: a transformer's JSON is unchanged."""
    out = run("crossover", "--preset", "gpt2-small", "-f", "json").json()
    assert "kinds" not in out
    out = run("crossover", "--decode", "--preset", "gpt2-small", "-f", "json").json()
    assert not {"kinds", "state_elements", "cache_shares"} & set(out)
    out = run("memory", "--preset", "gpt2-small", "--gpu-memory", "80GB", "-f", "json").json()
    assert not {"state_bytes", "attention_layers"} & set(out)


def test_tables_name_the_whole_model_and_the_kinds() -> None:
    for lang, whole in (("en", "the whole model"), ("ja", "モデル全体"), ("zh", "整个模型")):
        for extra in ((), ("--decode",)):
            r = run("crossover", *extra, "--config", toml("nemotron-h-8b"), "--lang", lang)
            assert r.exit_code == 0 and whole in r.stdout
    r = run("crossover", "--config", toml("nemotron-h-8b"))
    assert "constant per token" in r.stdout and "no FFN" in r.stdout
    for fmt in ("csv", "markdown"):
        r = run("crossover", "--decode", "--config", toml("granite-4.0-h-tiny"), "-f", fmt)
        assert r.exit_code == 0 and "states" in r.stdout


def test_memory_bounded_by_the_attention_layers() -> None:
    """80 GB, bf16, batch 1: the states (24 x (40,960 x 2 + 1,048,576 x 4) bytes: the SSM
    states in float32, as transformers keeps them) are set aside at any context; the context
    takes the rest at 8,192 x 2 bytes per token."""
    out = run(
        "memory", "--config", toml("nemotron-h-8b"), "--gpu-memory", "80GB", "-f", "json"
    ).json()
    states = 24 * (40_960 * 2 + 1_048_576 * 4)
    assert states == 102_629_376 and NEMO_STATES == 24 * (40_960 + 1_048_576)
    assert out["state_bytes"] == states and out["attention_layers"] == 4
    assert out["max_context"] == (out["free_bytes"] - states) // (2 * NEMO_KV)
    assert out["max_context_bound"] == "memory"


def test_memory_without_attention_is_unbounded_by_the_cache() -> None:
    """Mamba-Codestral: no keys or values; its states, 64 x (40,960 x 2 + 1,048,576 x 4) =
    273,678,336 bytes (the SSM states in float32), fit at any context (not "the cache stops
    growing at 1 token")."""
    out = run(
        "memory", "--config", toml("mamba-codestral-7b"), "--gpu-memory", "80GB", "-f", "json"
    ).json()
    assert out["max_context"] is None and out["max_context_bound"] == "none"
    assert out["cache_stops_growing_at"] is None
    assert out["state_bytes"] == 273_678_336 and out["attention_layers"] == 0
    r = run("memory", "--config", toml("mamba-codestral-7b"), "--gpu-memory", "80GB")
    assert "no layer caches keys and values" in r.stdout
    assert "stops growing" not in r.stdout
    small = run(
        "memory", "--config", toml("mamba-codestral-7b"), "--gpu-memory", "14600000000", "-f",
        "json",
    ).json()  # fmt: skip
    assert small["max_context"] == 0  # 14,570,807,296 bytes of weights leave too little


def test_training_model_states_exact_activations_refused() -> None:
    """memory --training on a hybrid: the model states, 18 bytes (mixed) x 8,100,852,736
    parameters (Nemotron-H 8B, frontier.json), exact; the activations of its Mamba-2 layers
    not modelled: the activation part (and the total) null, the mixer named."""
    out = run("memory", "--training", "--config", toml("nemotron-h-8b"), "-f", "json").json()
    assert out["model_states_bytes"] == 18 * 8_100_852_736
    assert out["activations_bytes"] is None and out["total_bytes"] is None
    assert out["unmodelled_mixers"] == ["mamba2"] and "mamba2" in out["activations_refused"]
    tp = run("memory", "--training", "-p", "lfm2-1.2b", "--tp", "2", "-f", "json").json()
    one = run("memory", "--training", "-p", "lfm2-1.2b", "-f", "json").json()
    assert tp["params_per_gpu"] == -(-one["params_per_gpu"] // 2)
    assert tp["unmodelled_mixers"] == ["short_conv"]
    for lang, word in (("ja", "モデル化していません"), ("zh", "未建模")):
        r = run("memory", "--training", "-p", "jamba-mini-1.5", "--lang", lang,
                "--gpu-memory", "80GB")  # fmt: skip
        assert r.exit_code == 0 and word in r.stdout and "mamba" in r.stdout
    r = run("memory", "--training", "-p", "gpt2-small", "-f", "json")
    assert r.json()["activations_bytes"] > 0  # a transformer: unchanged


def test_grid_on_a_hybrid_keeps_the_mixer_sizes() -> None:
    """--grid scales d_model: the scaled design keeps its nested sizes (Mamba-2's) as models,
    not as the dicts model_dump makes of them (a traceback before)."""
    cfg = load(config=toml("granite-4.0-h-tiny"))
    small = scaled(cfg, 512)
    assert small.mamba2 == cfg.mamba2 and small.d_model == 512
    r = run("crossover", "--grid", "--config", toml("granite-4.0-h-tiny"))
    assert r.exit_code == 0 and "d=512" in r.stdout and "whole model's scores" in r.stdout
