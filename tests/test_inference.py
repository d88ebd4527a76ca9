"""The KV cache and one decode step: reference figures, windows, errors.

Golden figures: the project's reference set (transformers 5.24, eager attention, batch 1,
L = 512 cached tokens): gpt2-small KV cache 9,437,184 elements and one decode step
265,975,296 FLOPs; llama-3-8b 33,554,432 elements (67,108,864 bytes in bf16) and
15,278,276,608 FLOPs.
"""

from __future__ import annotations

from conftest import run

from ffn_calc.config import ModelConfig
from ffn_calc.flop_counts import Workload, forward_flops
from ffn_calc.inference import decode_flops, kv_elements
from ffn_calc.presets import resolve_model


def test_reference_figures() -> None:
    g = run("kv", "-p", "gpt2-small", "-L", "512", "-f", "json").json()
    assert g["kv_elements"] == 9_437_184 and g["kv_bytes"] == 2 * 9_437_184
    d = run("flops", "-p", "gpt2-small", "--decode", "-L", "512", "-f", "json").json()
    assert d["decode_flops"] == 265_975_296
    assert sum(d["components"].values()) == d["decode_flops"]
    # One forward pass over 512 tokens (model(input_ids): the LM head at every position).
    assert forward_flops(resolve_model(preset="gpt2-small"), Workload(1, 512)) == 136_160_477_184
    llama = run("kv", "-p", "llama-3-8b", "-L", "512", "-f", "json").json()
    assert (llama["kv_elements"], llama["kv_bytes"]) == (33_554_432, 67_108_864)
    step = run("flops", "-p", "llama-3-8b", "--decode", "-L", "512", "-f", "json").json()
    assert step["decode_flops"] == 15_278_276_608


def test_linear_in_batch_and_dtypes() -> None:
    cfg = resolve_model(preset="llama-3-8b")
    assert kv_elements(cfg, 3, 100) == 3 * kv_elements(cfg, 1, 100)
    assert decode_flops(cfg, 4, 100) == 4 * decode_flops(cfg, 1, 100)
    for dtype, per in (("fp32", 4), ("fp16", 2), ("fp8", 1), ("int8", 1)):
        data = run("kv", "-p", "llama-3-8b", "-L", "512", "--dtype", dtype, "-f", "json").json()
        assert data["kv_bytes"] == per * 33_554_432
    odd = run("kv", "--d-model", "8", "--n-heads", "1", "-L", "1", "--dtype", "int4", "-f", "json")
    assert odd.json()["kv_bytes"] == 8  # 16 elements x 1/2 byte


def test_sliding_window_layers_keep_window_minus_one_tokens() -> None:
    # gpt-oss-20b: 12 sliding layers (128 tokens) keep 127 after a long prefill, 12 full ones
    # keep all; per token and layer 2 x 8 kv heads x 64 = 1,024 elements.
    data = run("kv", "-p", "gpt-oss-20b", "-L", "4096", "-f", "json").json()
    kinds = {x["kind"]: (x["count"], x["cached_tokens"]) for x in data["layers"]}
    assert kinds == {
        "full attention": (12, 4096),
        "sliding-window attention over 128 tokens": (12, 127),
    }
    assert data["kv_elements"] == 12 * 1024 * (4096 + 127)
    short = run("kv", "-p", "gpt-oss-20b", "-L", "100", "-f", "json").json()
    assert short["kv_elements"] == 24 * 1024 * 100


def test_mla_caches_the_latent_and_the_rotary_key() -> None:
    # DeepSeek-V3: 61 layers x (kv_lora_rank 512 + qk_rope_head_dim 64) per token.
    data = run("kv", "-p", "deepseek-v3", "-L", "1000", "-f", "json").json()
    assert data["kv_elements"] == 61 * 576 * 1000


def test_encoder_decoder_adds_the_cross_attention_cache() -> None:
    # t5-base: 12 decoder layers, 12 heads x d_kv 64: 1,536 elements per token and layer.
    data = run("kv", "-p", "t5-base", "-L", "10", "--source-len", "30", "-f", "json").json()
    assert data["kv_elements"] == 12 * 1536 * (10 + 30)


def test_bad_options_exit_2() -> None:
    for args, words in (
        (["kv", "-p", "bert-base", "-L", "5"], "encoder-only"),
        (["kv", "-p", "gpt2-small", "-L", "5", "--source-len", "3"], "--source-len"),
        (["kv", "-p", "gpt2-small", "-L", "0"], "--context"),
        (["kv", "-p", "gpt2-small", "-L", "5", "--dtype", "fp4"], "--dtype"),
        (["flops", "-p", "gpt2-small", "--decode"], "--context"),
        (["flops", "-p", "gpt2-small", "-L", "5"], "--decode"),
        (["flops", "-p", "gpt2-small"], "--seq-len"),
    ):
        r = run(*args)
        assert r.exit_code == 2 and r.stdout == "" and words in r.stderr, (args, r.stderr)


def test_huge_values_stay_exact() -> None:
    big = 2**40
    cfg = ModelConfig(n_layers=big, d_model=big, n_heads=1, d_ff=1)
    assert kv_elements(cfg, big, big) == big * big * 2 * big * big


def test_generation_is_the_prefill_and_the_steps() -> None:
    cfg = resolve_model(preset="gpt2-small")
    data = run("flops", "-p", "gpt2-small", "-s", "512", "--generate", "3", "-f", "json").json()
    # The prefill as generate() runs it (96,713,958,912: forward_flops at S = 512 less the LM
    # head over the 511 positions before the last, 511 x 2 x 768 x 50,257) and 2 steps at
    # L = 512, 513.
    assert data["generation_flops"] == 96_713_958_912 + decode_flops(cfg, 1, 512) + decode_flops(
        cfg, 1, 513
    )
    # Across a sliding window's bend, the closed sum equals the steps one by one.
    oss = resolve_model(preset="gpt-oss-20b")
    from ffn_calc.inference import generation_flops, prefill_flops

    steps = sum(decode_flops(oss, 2, c) for c in range(100, 100 + 299))
    assert generation_flops(oss, 2, 100, 300) == prefill_flops(oss, 2, 100) + steps


def test_decode_crossovers() -> None:
    # gpt2-small, one layer, batch 1: scores 2 x 12 x (L + 1) x 128 = 3,072 (L + 1) FLOPs
    # against the FFN's 2 x 2 x 768 x 3,072 = 9,437,184 and the projections' 4,718,592.
    data = run("crossover", "-p", "gpt2-small", "--decode", "-f", "json").json()
    assert data["flops_exact"] == {"scores_vs_ffn": "3071", "scores_vs_projections": "1535",
                                   "scores_vs_dense": "4607"}  # fmt: skip
    marked = {tuple(r["marks"]): r["seq_len"] for r in data["rows"] if r["marks"]}
    assert marked == {("scores = projections",): 1535, ("scores = FFN",): 3071,
                      ("scores = projections + FFN",): 4607}  # fmt: skip
    table = run("crossover", "-p", "gpt2-small", "--decode")
    assert table.exit_code == 0 and "as the context L grows" in table.stdout
    # Bytes: 1,536 cached elements per token against the MLP's 4,722,432 weights (biases in).
    assert data["bytes_context_exact"] == "6149/2"
    big = run("crossover", "-p", "llama-3-8b", "--decode", "-b", "8", "-f", "json").json()
    assert big["bytes_context"] == 176_160_768 // (8 * 2048)  # 3 x 4096 x 14336 / (8 x 2 x 8 x 128)
    # DeepSeek-V3's reference re-expands the cached latent at every step: its projections
    # grow faster than its scores, which never overtake them.
    mla = run("crossover", "-p", "deepseek-v3", "--decode", "-f", "json").json()
    assert mla["flops"]["scores_vs_projections"] is None


def test_memory_and_fit() -> None:
    data = run("memory", "-p", "llama-3-8b", "--gpu-memory", "24GB", "--context", "8192",
               "-f", "json").json()  # fmt: skip
    assert data["weights_bytes"] == 2 * 8_030_261_248
    free = 24 * 10**9 - 2 * 8_030_261_248
    per_token = 2 * 32 * 2048  # bytes of cache per token in bf16
    assert data["max_context"] == free // per_token
    assert data["max_batch"] == free // (per_token * 8192)
    gib = run("memory", "-p", "gpt2-small", "--gpu-memory", "1GiB", "-f", "json").json()
    assert gib["gpu_memory_bytes"] == 2**30
    for bad in ("lots", "80XB", "0GB"):
        r = run("memory", "-p", "gpt2-small", "--gpu-memory", bad)
        assert r.exit_code == 2 and "--gpu-memory" in r.stderr and r.stdout == ""
