"""The KV cache and one decode step: reference figures, windows, errors.

Golden figures: the project's reference set (transformers 5.24, eager attention, batch 1,
L = 512 cached tokens): gpt2-small KV cache 9,437,184 elements and one decode step
265,975,296 FLOPs; llama-3-8b 33,554,432 elements (67,108,864 bytes in bf16) and
15,278,276,608 FLOPs.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run

from ffn_calc.counts.flops import Workload, forward_flops
from ffn_calc.counts.inference import decode_flops, kv_elements
from ffn_calc.families.resolve import resolve_model
from ffn_calc.model.config import ModelConfig


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
    from ffn_calc.counts.inference import generation_flops, prefill_flops

    steps = sum(decode_flops(oss, 2, c) for c in range(100, 100 + 299))
    assert generation_flops(oss, 2, 100, 300) == prefill_flops(oss, 2, 100) + steps


def test_decode_crossovers() -> None:
    # gpt2-small, one layer, batch 1: scores 2 x 12 x (L + 1) x 128 = 3,072 (L + 1) FLOPs
    # against the FFN's 2 x 2 x 768 x 3,072 = 9,437,184 and the projections' 4,718,592:
    # L = 3,071 and 1,535, both past its 1,024 learned positions (L + 1 <= 1,024), so never
    # reached; `unbounded` keeps the formula's values.
    data = run("crossover", "-p", "gpt2-small", "--decode", "-f", "json").json()
    assert data["flops"] == dict.fromkeys(("scores_vs_ffn", "scores_vs_projections", "scores_vs_dense"))  # fmt: skip
    assert data["unbounded_exact"] == {"scores_vs_ffn": "3071", "scores_vs_projections": "1535",
                                       "scores_vs_dense": "4607", "bytes_context": "6149/2"}  # fmt: skip
    assert set(data["never"].values()) == {"positions"} and data["max_context"] == 1023
    assert not any(r["marks"] for r in data["rows"]) and data["rows"][-1]["seq_len"] == 1023
    # llama-2-7b (rotary: no table): 2 x 32 x (L + 1) x 256 = 16,384 (L + 1) against the FFN's
    # 3 x 2 x 4,096 x 11,008 = 270,532,608 and the projections' 4 x 2 x 4,096^2 = 134,217,728.
    data = run("crossover", "-p", "llama-2-7b", "--decode", "-f", "json").json()
    assert data["flops_exact"] == {"scores_vs_ffn": "16511", "scores_vs_projections": "8191",
                                   "scores_vs_dense": "24703"}  # fmt: skip
    marked = {tuple(r["marks"]): r["seq_len"] for r in data["rows"] if r["marks"]}
    assert marked == {("scores = projections",): 8191, ("scores = FFN",): 16511,
                      ("scores = projections + FFN",): 24703}  # fmt: skip
    assert data["never"] == {} and data["unbounded"] == {}
    table = run("crossover", "-p", "gpt2-small", "--decode")
    assert table.exit_code == 0 and "as the context L grows" in table.stdout
    # Bytes: 1,536 cached elements per token against the MLP's 4,722,432 weights (biases in).
    assert data["bytes_context_exact"] == "16512"  # 3 x 4096 x 11008 / (2 x 32 x 128)
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


# --- generate(): the prefill as generate() runs it; the cache the reference really holds ------


def test_generate_runs_the_lm_head_at_the_last_prompt_position_only() -> None:
    # gpt2-small, a 512-token prompt and 2 new tokens. generate() passes logits_to_keep=1, so
    # the prefill is the forward pass (136,160,477,184) less the LM head over the 511 positions
    # before the last: 511 x 2 x 768 x 50,257 = 39,446,518,272, giving 96,713,958,912; then one
    # decode step with 512 tokens cached (265,975,296): 96,979,934,208 in all (counting the head
    # at every prompt position gave 136,426,452,480, 40.7% more).
    data = run("flops", "-p", "gpt2-small", "-s", "512", "--generate", "2", "-f", "json").json()
    assert data["prefill_flops"] == 96_713_958_912
    assert data["decode_flops"] == 265_975_296
    assert data["generation_flops"] == 96_979_934_208
    assert "logits_to_keep=1" in data["convention"]
    # llama-3-8b, 2,048 + 2: the forward pass at S = 2,048 (32,938,104,193,024) less 2,047 x
    # 2 x 4,096 x 128,256 (2,150,727,942,144), plus one step at L = 2,048 (16,083,582,976).
    llama = run("flops", "-p", "llama-3-8b", "-s", "2048", "--generate", "2", "-f", "json").json()
    assert llama["prefill_flops"] == 32_938_104_193_024 - 2_150_727_942_144
    assert llama["generation_flops"] == 30_803_459_833_856


def test_generate_prefill_keeps_every_position_before_the_head() -> None:
    from ffn_calc.counts.inference import prefill_flops

    # OPT's narrow embedding: project_out runs inside the decoder at every position, the head
    # over the last one only (2 x B x (S - 1) x embedding_dim 16 x vocab 50 fewer FLOPs).
    opt = ModelConfig(family="opt", n_layers=2, d_model=32, n_heads=4, d_ff=40, vocab_size=50,
                      embedding_dim=16, positions="learned", max_positions=64)  # fmt: skip
    assert prefill_flops(opt, 2, 7) == forward_flops(opt, Workload(2, 7)) - 2 * 2 * 6 * 16 * 50
    # An encoder-decoder model: the encoder over the prompt, the decoder over its start token.
    t5 = resolve_model(preset="t5-base")
    assert prefill_flops(t5, 1, 100) == forward_flops(t5, Workload(1, 100, target_len=1))


FALCON_40B = {  # tiiuae/falcon-40b config.json (the fields ffn-calc reads)
    "model_type": "falcon", "architectures": ["FalconForCausalLM"], "hidden_size": 8192,
    "num_attention_heads": 128, "num_kv_heads": 8, "num_hidden_layers": 60, "vocab_size": 65024,
    "new_decoder_architecture": True, "multi_query": True, "parallel_attn": True, "bias": False,
    "alibi": False,
}  # fmt: skip


def test_falcon_new_architecture_caches_every_query_head(tmp_path: Path) -> None:
    # FalconAttention (new_decoder_architecture) broadcasts K and V to all 128 query heads
    # before it caches them: 60 layers x 2 x 128 x head_dim 64 x 2,048 tokens = 2,013,265,920
    # elements, 16 x the 125,829,120 of 8 KV heads.
    path = tmp_path / "config.json"
    path.write_text(json.dumps(FALCON_40B))
    kv = run("kv", "--hf-config", str(path), "-L", "2048", "-f", "json").json()
    assert kv["kv_elements"] == 60 * 2 * 128 * 64 * 2048 == 2_013_265_920
    cross = run("crossover", "--hf-config", str(path), "--decode", "-f", "json").json()
    assert cross["kv_elements_per_token"] == 2 * 128 * 64
    # The scores run over every query head either way: the decode step is unchanged.
    cfg = resolve_model(hf_config=path)
    assert cfg.cache_broadcast_kv and cfg.cache_kv_heads == 128 and cfg.kv_heads == 8
    grouped = cfg.model_copy(update={"cache_broadcast_kv": False})
    assert decode_flops(cfg, 1, 2048) == decode_flops(grouped, 1, 2048)
    assert kv_elements(grouped, 1, 2048) == 125_829_120
    # Falcon-7B (multi-query, the old architecture) caches its one KV head.
    assert not resolve_model(preset="falcon-7b").cache_broadcast_kv
