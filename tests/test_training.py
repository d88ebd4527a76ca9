"""Training memory: model states by recipe and Korthikanti et al.'s activations, generalised.

Golden figures: Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
Transformer Models" (arXiv:2205.05198), sec. 4.1 and Table 2 (16-bit activations, bytes per
layer), and the issue's worked figures: a GPT-3-like layer (h 12288, a 96, s 2048, b 1) stores
2048 x 12288 x (34 + 5 x 96 x 2048 / 12288) = 2,868,903,936 bytes; llama-2-7b's model states
at 18 bytes per parameter are 6,738,415,616 x 18 = 121,291,481,088 bytes.
"""

from __future__ import annotations

from conftest import run

from ffn_calc.config import ModelConfig
from ffn_calc.training import Parallel, layer_bytes, score_crossover

GPT3 = ModelConfig(n_layers=1, d_model=12288, n_heads=96, d_ff=4 * 12288)
S, B, H, A = 2048, 1, 12288, 96


def test_the_papers_layer_and_table_2() -> None:
    assert layer_bytes(GPT3, S, B, Parallel()) == 2_868_903_936
    for t in (2, 4, 8):
        # Table 2: tensor parallel sbh(10 + 24/t + 5as/(ht)); + sequence parallel
        # sbh(34/t + 5as/(ht)); + selective recomputation drops 5as/(ht); full: 2sbh.
        assert (
            layer_bytes(GPT3, S, B, Parallel(tp=t))
            == S * B * H * 10 + (S * B * H * 24 + 5 * A * S * S * B) // t
        )
        assert (
            layer_bytes(GPT3, S, B, Parallel(tp=t, sequence_parallel=True))
            == (S * B * H * 34 + 5 * A * S * S * B) // t
        )
        assert (
            layer_bytes(GPT3, S, B, Parallel(tp=t, recompute="selective"))
            == S * B * H * 10 + S * B * H * 24 // t
        )
        assert (
            layer_bytes(GPT3, S, B, Parallel(tp=t, sequence_parallel=True, recompute="selective"))
            == S * B * H * 34 // t
        )
    assert layer_bytes(GPT3, S, B, Parallel(recompute="full")) == 2 * S * B * H


def test_gpt_crossover_is_19h_over_5a() -> None:
    # The scores' 5as^2b reaches the MLP's 19sbh at s = 19h / (5a): 12288 x 19 / 480 = 486.4.
    n, d = score_crossover(GPT3)
    assert n * 480 == 19 * 12288 * d


def test_model_states_by_recipe() -> None:
    data = run("memory", "-p", "llama-2-7b", "--training", "-f", "json").json()
    assert data["model_states_bytes"] == 121_291_481_088
    fp32 = run("memory", "-p", "llama-2-7b", "--training", "--recipe", "fp32", "-f", "json").json()
    assert fp32["model_states_bytes"] == 16 * 6_738_415_616
    dist = run("memory", "-p", "llama-2-7b", "--training", "--recipe", "distributed", "--dp",
               "8", "-f", "json").json()  # fmt: skip
    assert dist["model_states_bytes"] == 6_738_415_616 * (6 * 8 + 12) // 8  # 6 + 12 / DP


def test_gated_ffn_and_gqa_terms() -> None:
    # llama-3-8b: K and V over 8 KV heads x 128; a gated FFN keeps 8sbf.
    data = run("memory", "-p", "llama-3-8b", "--training", "-s", "1024", "-f", "json").json()
    terms = {t["name"]: t["bytes"] for t in data["activation_terms"]}
    assert terms["K"] == 2 * 1024 * 8 * 128 and terms["hidden"] == 8 * 1024 * 14336


def test_fit_and_bad_options() -> None:
    data = run(
        "memory", "-p", "gpt2-small", "--training", "--gpu-memory", "80GB", "-f", "json"
    ).json()
    per_sample = data["activations_bytes"]  # micro-batch 1
    assert data["max_micro_batch"] == (80 * 10**9 - data["model_states_bytes"]) // per_sample
    for args, word in ((["--tp", "5"], "--tp"), (["--recipe", "adam"], "--recipe"),
                       (["-s", "0"], "--seq-len")):  # fmt: skip
        r = run("memory", "-p", "gpt2-small", "--training", *args)
        assert r.exit_code == 2 and word in r.stderr and r.stdout == ""


def test_explain_lists_each_term() -> None:
    r = run("memory", "-p", "gpt2-small", "--training", "--explain")
    assert r.exit_code == 0 and "softmax output: 2as^2b" in r.stdout
    assert "softmax output" not in run("memory", "-p", "gpt2-small", "--training").stdout
