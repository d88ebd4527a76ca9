"""Training memory: model states by recipe and Korthikanti et al.'s activations, generalised.

Golden figures: Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
Transformer Models" (arXiv:2205.05198), sec. 4.1 and Table 2 (16-bit activations, bytes per
layer), and the issue's worked figures: a GPT-3-like layer (h 12288, a 96, s 2048, b 1) stores
2048 x 12288 x (34 + 5 x 96 x 2048 / 12288) = 2,868,903,936 bytes; llama-2-7b's model states
at 18 bytes per parameter are 6,738,415,616 x 18 = 121,291,481,088 bytes.
"""

from __future__ import annotations

from conftest import run

from ffn_calc.counts.training import Parallel, layer_bytes, score_crossover
from ffn_calc.model.config import ModelConfig

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


# --- term by term: shared experts, dense layers, cross-attention, no head, no logits -------
# Korthikanti et al. sec. 4.1 per FFN: its input 2sbh, the dropout mask sbh and, per hidden
# unit, 8 bytes for a gated FFN (gate, up, act, product: 2 each). A MoE layer keeps them for
# the k experts a token uses and for the shared expert every token passes.


def _ffn_per_layer(s: int, h: int, hidden_units: int) -> int:
    return 2 * s * h + s * h + 8 * s * hidden_units


def _kinds(data: dict) -> dict[str, dict]:
    return {k["kind"]: k for k in data["layer_kinds"]}


def test_moe_layers_keep_the_shared_expert() -> None:
    # qwen1.5-moe-a2.7b: h 2048, k 4 experts of d_ff 1408, a shared expert of 5632; s 2048.
    data = run("memory", "-p", "qwen1.5-moe-a2.7b", "--training", "-f", "json").json()
    terms = {t["name"]: t["bytes"] for t in data["activation_terms"]}
    assert (
        terms["hidden"] == 8 * 2048 * 4 * 1408 and terms["shared expert hidden"] == 8 * 2048 * 5632
    )
    assert data["activation_components"]["ffn"] == 24 * _ffn_per_layer(2048, 2048, 4 * 1408 + 5632)
    # llama-4-scout-text: k 1 of d_ff 8192 and a shared expert of 8192: half its FFN activations.
    scout = run("memory", "-p", "llama-4-scout-text", "--training", "-f", "json").json()
    terms = {t["name"]: t["bytes"] for t in scout["activation_terms"]}
    assert terms["hidden"] == terms["shared expert hidden"] == 8 * 2048 * 8192
    assert scout["activation_components"]["ffn"] == 48 * _ffn_per_layer(2048, 5120, 2 * 8192)


def test_dense_layers_of_a_moe_model_at_their_width() -> None:
    # deepseek-v2-lite: layer 0 dense at dense_d_ff 10944; 26 MoE layers of k 6 x 1408 and a
    # shared expert of 2816 (2 x 1408); h 2048, s 2048.
    data = run("memory", "-p", "deepseek-v2-lite", "--training", "-f", "json").json()
    kinds = _kinds(data)
    assert (kinds["dense FFN"]["count"], kinds["MoE"]["count"]) == (1, 26)
    dense = {t["name"]: t["bytes"] for t in kinds["dense FFN"]["terms"]}
    assert dense["hidden"] == 8 * 2048 * 10944 and "shared expert hidden" not in dense
    assert (
        data["activation_components"]["ffn"]
        == (_ffn_per_layer(2048, 2048, 10944) + 26 * _ffn_per_layer(2048, 2048, 6 * 1408 + 2816))
        == 5_317_328_896
    )


def test_no_lm_head_no_logits() -> None:
    # bert-base (BertModel: no LM head), s = 512 (its table): 12 post-LN layers of
    # sbh(34 + 5as/h) = 512 x 768 x (34 + 5 x 12 x 512 / 768) = 29,097,984 bytes, the embedding
    # dropout mask sbh and the embedding LayerNorm's input 2sbh; no 4sbv, no head input.
    data = run("memory", "-p", "bert-base", "--training", "-f", "json").json()
    assert data["seq_len"] == 512 and data["logits_bytes"] == 0
    assert "logits" not in data["activation_components"]
    assert data["activations_per_layer_bytes"] == 512 * 768 * 74 == 29_097_984
    assert data["activations_bytes"] == 12 * 29_097_984 + 512 * 768 + 2 * 512 * 768
    # gpt2-small keeps them: its head's input 2sbh and fp32 logits 4sbv at s 1024.
    gpt2 = run("memory", "-p", "gpt2-small", "--training", "-f", "json").json()
    assert gpt2["logits_bytes"] == 2 * 1024 * 768 + 4 * 1024 * 50257


def test_encoder_decoder_cross_attention() -> None:
    # bart-base at s = 1024 (its table), h 768, a 12: an encoder layer sbh(34 + 5as/h), a
    # decoder layer adds the cross-attention's 11sbh + 5as^2b and a third norm's 2sbh:
    # sbh(47 + 10as/h). K and V read the encoder's output, stored once (2sbh).
    data = run("memory", "-p", "bart-base", "--training", "-f", "json").json()
    kinds = {k["stack"]: k for k in data["layer_kinds"]}
    sbh, r = 1024 * 768, 5 * 12 * 1024 // 768
    assert kinds["encoder"]["bytes"] == sbh * (34 + r) and not kinds["encoder"]["cross_attention"]
    assert kinds["decoder"]["bytes"] == sbh * (47 + 2 * r) and kinds["decoder"]["cross_attention"]
