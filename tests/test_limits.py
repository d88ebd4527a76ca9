"""Every figure true for the model it names: a learned position table is a limit, and the
memory fits name what bounds them.

Position tables (transformers 5, what each class accepts; the oracle test
tests/test_oracle_positions.py runs them): GPT-2 takes n_positions = 1,024 tokens, BERT
max_position_embeddings = 512; OPT and BART store max_position_embeddings + 2 rows and add 2
to every position id (OPTLearnedPositionalEmbedding, BartLearnedPositionalEmbedding), so
they take max_position_embeddings = 2,048 and 1,024; RoBERTa's position ids start after its
padding index (pad_token_id 1), so its 514 rows take 512 tokens.
"""

from __future__ import annotations

import json

import pytest
from conftest import run

import ffn_calc
from ffn_calc.errors import UsageError
from ffn_calc.families.resolve import resolve_model


def refused(*args: str, words: tuple[str, ...]) -> None:
    r = run(*args)
    assert r.exit_code == 2, (args, r.stdout)
    assert r.stdout == "" and "Traceback" not in r.stderr
    for w in words:
        assert w in r.stderr, (args, r.stderr)


# --- the limit of each model ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "limit"),
    [("gpt2-small", 1024), ("bert-base", 512), ("bart-base", 1024), ("opt-1.3b", 2048),
     ("roberta-base", 512), ("distilbert-base", 512), ("albert-base-v2", 512),
     ("llama-2-7b", None), ("t5-base", None), ("mistral-7b", None)],
)  # fmt: skip
def test_position_limit_of_each_preset(preset: str, limit: int | None) -> None:
    assert resolve_model(preset=preset).position_limit == limit


def test_hf_configs_give_the_offset(tmp_path: object) -> None:
    from ffn_calc.families.hf import hf_fields

    opt = {"model_type": "opt", "hidden_size": 16, "ffn_dim": 32, "num_attention_heads": 2,
           "num_hidden_layers": 1, "max_position_embeddings": 8, "vocab_size": 20}  # fmt: skip
    fields = hf_fields(opt, "config.json")
    assert (fields["max_positions"], fields["position_offset"]) == (10, 2)
    roberta = {"model_type": "roberta", "hidden_size": 16, "intermediate_size": 32,
               "num_attention_heads": 2, "num_hidden_layers": 1, "max_position_embeddings": 10,
               "vocab_size": 20, "pad_token_id": 3}  # fmt: skip
    # position ids start at pad_token_id + 1 = 4: the table's 10 rows take 6 tokens
    assert hf_fields(roberta, "config.json")["position_offset"] == 4


# --- past the table: exit 2 naming it ------------------------------------------------------


def test_kv_past_the_table_names_it() -> None:
    refused("kv", "-p", "gpt2-small", "--context", "100000",
            words=("--context 100000", "gpt2-small", "1,024 positions"))  # fmt: skip
    assert run("kv", "-p", "gpt2-small", "--context", "1024").exit_code == 0
    refused("kv", "-p", "opt-1.3b", "--context", "2049", words=("2,048 positions",))
    assert run("kv", "-p", "opt-1.3b", "--context", "2048").exit_code == 0
    refused("kv", "-p", "bart-base", "--context", "8", "--source-len", "1025",
            words=("--source-len 1025", "1,024 positions"))  # fmt: skip


def test_flops_past_the_table_names_it() -> None:
    refused("flops", "-p", "bert-base", "--seq-len", "1000", words=("--seq-len 1000", "512"))
    assert run("flops", "-p", "bert-base", "--seq-len", "512").exit_code == 0
    refused("flops", "-p", "roberta-base", "-s", "513", words=("512 positions",))
    refused("flops", "-p", "bart-base", "-s", "16", "--target-len", "1025",
            words=("--target-len 1025", "1,024 positions"))  # fmt: skip
    # One decode step after L cached tokens reads position L + 1.
    refused("flops", "-p", "gpt2-small", "--decode", "--context", "1024", words=("1,025",))
    assert run("flops", "-p", "gpt2-small", "--decode", "--context", "1023").exit_code == 0
    # generate(): the prompt, then N - 1 steps: positions up to prompt + N - 1.
    refused("flops", "-p", "gpt2-small", "-s", "1000", "--generate", "26", words=("1,025",))
    assert run("flops", "-p", "gpt2-small", "-s", "1000", "--generate", "25").exit_code == 0
    # BART's decoder: its start token and N - 1 tokens; the prompt goes to the encoder.
    refused("flops", "-p", "bart-base", "-s", "1000", "--generate", "1025", words=("1,025",))
    assert run("flops", "-p", "bart-base", "-s", "1024", "--generate", "1024").exit_code == 0


def test_no_limit_without_a_table() -> None:
    # Rotary (llama) and relative (T5) positions set no limit in the model.
    assert run("kv", "-p", "llama-2-7b", "--context", "100000").exit_code == 0
    assert run("flops", "-p", "t5-base", "-s", "100000").exit_code == 0


def test_the_api_checks_the_same() -> None:
    gpt2 = ffn_calc.load(preset="gpt2-small")
    for call in (
        lambda: ffn_calc.kv(gpt2, context=2000),
        lambda: ffn_calc.flops(gpt2, seq_len=2000),
        lambda: ffn_calc.decode(gpt2, context=1024),
        lambda: ffn_calc.generate(gpt2, prompt=1000, new=100),
        lambda: ffn_calc.memory(gpt2, gpu_memory="80GB", context=1025),
        lambda: ffn_calc.training_memory(gpt2, seq_len=2048),
        lambda: ffn_calc.compare([gpt2], seq_len=2048),
    ):
        with pytest.raises(UsageError, match="1,024 positions"):
            call()
    assert ffn_calc.training_memory(gpt2).seq_len == 1024


# --- no default exceeds the table ----------------------------------------------------------


def test_training_default_seq_len_is_capped() -> None:
    # Default s = min(2048, the table): gpt2-small 1,024, said so; llama-2-7b keeps 2,048.
    r = run("memory", "-p", "gpt2-small", "--training")
    assert r.exit_code == 0 and "s = 1,024" in r.stdout and "not the default 2,048" in r.stdout
    data = run("memory", "-p", "gpt2-small", "--training", "-f", "json").json()
    assert data["seq_len"] == 1024 and data["seq_len_lowered"] is True
    assert run("memory", "-p", "llama-2-7b", "--training", "-f", "json").json()["seq_len"] == 2048
    refused("memory", "-p", "gpt2-small", "--training", "--seq-len", "2048",
            words=("--seq-len 2048", "1,024 positions"))  # fmt: skip


def test_compare_default_and_refusal() -> None:
    data = run("compare", "gpt2-small", "bert-base", "llama-2-7b", "-f", "json").json()
    assert data["seq_len"] == 512 and data["seq_len_lowered_for"] == "bert-base"
    assert all(m["seq_len"] == 512 for m in data["models"])
    assert "bert-base takes at most 512 tokens" in run("compare", "gpt2-small", "bert-base").stdout
    assert run("compare", "gpt2-small", "llama-2-7b", "-f", "json").json()["seq_len"] == 1024
    refused("compare", "gpt2-small", "bert-base", "-s", "1024", words=("bert-base", "512"))


def test_sweep_skips_combinations_past_the_table() -> None:
    r = run("sweep", "-p", "gpt2-small", "--vary", "max_positions=512,1024,2048",
            "--metric", "forward_flops@2048", "--metric", "decode_flops@1024", "-f", "json")  # fmt: skip
    data = r.json()
    assert [row["max_positions"] for row in data["rows"]] == [2048]
    reasons = {x["reason"]: x["count"] for x in data["skipped_reasons"]}
    assert sum(reasons.values()) == 2 and all("position table" in k for k in reasons)
    # Nothing varies the table: every combination would be past it, an error at once.
    refused("sweep", "-p", "gpt2-small", "--vary", "d_ff=1024,2048",
            "--metric", "kv_bytes@4096", words=("kv_bytes@4096", "1,024 positions"))  # fmt: skip


# --- memory fits: what bounds them ---------------------------------------------------------


def test_fit_capped_at_the_table_with_a_note() -> None:
    data = run("memory", "-p", "gpt2-small", "--gpu-memory", "80GB", "-f", "json").json()
    free = 80 * 10**9 - 2 * 124_439_808  # weights in bf16
    per_token = 2 * 12 * 2 * 768  # bf16 x 12 layers x (K + V) x d_model
    assert data["max_context_memory"] == free // per_token == 2_163_387
    assert data["max_context"] == 1024 and data["max_context_bound"] == "position table"
    out = run("memory", "-p", "gpt2-small", "--gpu-memory", "80GB").stdout
    assert "1,024 (the learned position table)" in out and "2,163,387" in out


def test_a_cache_that_stops_growing_is_said_so() -> None:
    # mistral-7b: every layer slides over 4,096 tokens and keeps window - 1 = 4,095; 32 layers
    # x 4,095 x 2 x 8 x 128 x 2 bytes = 536,739,840 bytes fit in 80 GB, so any context does.
    data = run("memory", "-p", "mistral-7b", "--gpu-memory", "80GB", "-f", "json").json()
    assert data["max_context"] is None and data["max_context_bound"] == "none"
    assert data["cache_stops_growing_at"] == 4095
    out = run("memory", "-p", "mistral-7b", "--gpu-memory", "80GB").stdout
    assert "stops growing at 4,095 tokens" in out
    assert "1,099,511,627,776" not in out and "1099511627776" not in json.dumps(data)
    # Short of memory the cache bounds the context: (15 GB - weights) / 131,072 bytes a token.
    small = run("memory", "-p", "mistral-7b", "--gpu-memory", "15GB", "-f", "json").json()
    assert small["max_context"] == (15 * 10**9 - 14_483_464_192) // (32 * 2 * 8 * 128 * 2) == 3940
    assert small["max_context_bound"] == "memory"


def test_weights_that_do_not_fit_are_said_so() -> None:
    # llama-2-7b in bf16: 6,738,415,616 x 2 = 13,476,831,232 bytes > 8 GB.
    args = ("memory", "-p", "llama-2-7b", "--gpu-memory", "8GB", "--context", "100")
    data = run(*args, "-f", "json").json()
    assert data["weights_fit"] is False and data["context"] == 100
    assert data["max_context"] == 0 and data["max_batch"] == 0
    out = run(*args).stdout
    assert "13,476,831,232" in out and "8,000,000,000" in out and "do not fit" in out


# --- sub-byte dtypes round per tensor ------------------------------------------------------


def test_int4_kv_rounds_per_cached_tensor() -> None:
    # head_dim 3, 1 KV head, 5 tokens: each key and value tensor [1, 1, 5, 3] holds 15
    # elements, ceil(15 / 2) = 8 bytes packed; 3 layers x 2 tensors x 8 = 48 (not 90 / 2 = 45).
    data = run("kv", "--d-model", "6", "--n-heads", "2", "--n-kv-heads", "1", "--n-layers", "3",
               "--context", "5", "--dtype", "int4", "-f", "json").json()  # fmt: skip
    assert data["kv_elements"] == 90 and data["kv_bytes"] == 48
    assert sum(x["count"] * x["bytes"] for x in data["layers"]) == data["kv_bytes"]


def test_int4_weights_round_per_parameter_tensor() -> None:
    # d_model 5, one head: Q, K, V, O weights [5, 5] take ceil(25 / 2) = 13 bytes each and
    # their biases [5] 3 each: attention 4 x 13 + 4 x 3 = 64; the rows sum to the total.
    data = run("memory", "--d-model", "5", "--n-heads", "1", "--n-layers", "1",
               "--vocab-size", "7", "--dtype", "int4", "-f", "json").json()  # fmt: skip
    assert data["component_bytes"]["attention"] == 64
    assert sum(data["component_bytes"].values()) == data["weights_bytes"] == 231


def test_tensors_matmuls_within_the_table() -> None:
    refused("tensors", "-p", "bert-base", "--matmuls", "--seq-len", "513",
            words=("--seq-len 513", "512 positions"))  # fmt: skip
    assert run("tensors", "-p", "bert-base", "--matmuls", "--seq-len", "512").exit_code == 0


def test_training_score_crossover_past_the_position_table_is_never_reached() -> None:
    # GPT-2 small's scores' activations 5as^2b overtake its FFN's 19sbh... at
    # s = 19h / (5a) = 19 x 768 / 60 = 1216/5 = 243.2 (Korthikanti et al. 2022, sec. 4): within
    # its 1,024 positions, past a 128-position table.
    full = run("memory", "-p", "gpt2-small", "--training", "-f", "json").json()
    assert full["score_crossover_exact"] == "1216/5" and full["score_crossover"] == 243.2
    short = run(
        "memory", "-p", "gpt2-small", "--max-positions", "128", "--training", "-f", "json"
    ).json()
    assert short["score_crossover"] is None and short["score_crossover_exact"] is None
    assert short["score_crossover_unbounded_exact"] == "1216/5"
    assert max(row["seq_len"] for row in short["rows"]) == 128  # no row past the table
    table = run("memory", "-p", "gpt2-small", "--max-positions", "128", "--training").stdout
    assert "never reached" in table and "1216/5" in table
