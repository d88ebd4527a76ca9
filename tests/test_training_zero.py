"""`memory --training --zero 0|1|2|3 --offload ...`: model states per GPU by ZeRO stage and CPU
offload, against hand-derived cases, the ZeRO paper's worked example and DeepSpeed's own
estimators (their published example output reproduced from ffn-calc's parameter count).

Sources: Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training Trillion
Parameter Models" (arXiv:1910.02054), sec. 5 and Figure 1; deepspeedai/DeepSpeed
deepspeed/runtime/zero/stage_1_and_2.py (estimate_zero2_model_states_mem_needs) and
deepspeed/runtime/zero/stage3.py (estimate_zero3_model_states_mem_needs), and DeepSpeed's
documentation page "Memory Requirements" (docs/code-docs/source/memory.rst: example outputs).
"""

from __future__ import annotations

import json

import pytest
from conftest import run

from ffn_calc.counts import training as tr
from ffn_calc.families.resolve import resolve_model
from ffn_calc.reports.training import largest_layer_params

# t5-3b: d_model 1024, d_kv 128, 32 heads, d_ff 16384, 24 layers per stack (its config.json).
T5_3B = ["-p", "t5-base", "--d-model", "1024", "--d-ff", "16384", "--n-heads", "32",
         "--head-dim", "128", "--n-layers", "24", "--n-decoder-layers", "24"]  # fmt: skip
T5_3B_PARAMS = 2_851_598_336  # `params` of the flags above (DeepSpeed prints "2851M")
T5_3B_LARGEST = 32_128 * 1024  # the shared embedding, 32,899,072 (DeepSpeed prints "32M")
GB = 2**30  # DeepSpeed prints bytes / 2**30 as "GB"


def _json(*args: str) -> dict:  # type: ignore[type-arg]
    r = run("memory", "--training", *args, "--format", "json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)  # type: ignore[no-any-return]


def test_zero_paper_figure_1() -> None:
    """ZeRO paper, Figure 1: Psi = 7.5B, N_d = 64, K = 12 (2 + 2 + 12 bytes): baseline 120 GB,
    P_os 31.4 GB, P_os+g 16.6 GB, P_os+g+p 1.9 GB (2Psi + 2Psi + K Psi / N_d, 2Psi + (2 + K)
    Psi / N_d, (2 + 2 + K) Psi / N_d)."""
    psi, parts = 7_500_000_000, (2, 2, 12)
    got = [tr.zero_states(psi, parts, 64, z, "none", 0).gpu for z in range(4)]
    assert got == [120 * 10**9, 31_406_250_000, 16_640_625_000, 1_875_000_000]
    assert [round(g / 1e9, 1) for g in got] == [120.0, 31.4, 16.6, 1.9]


@pytest.mark.parametrize(
    ("stage", "offload", "want"),
    [
        # P = 1000 params, N = 4, mixed (2, 4, 12); hand-derived per part (weights, grads,
        # optimizer, gather of the 100-parameter largest layer = 2 x 2 x 100, cpu)
        (0, "none", (2000, 4000, 12000, 0, 0)),
        (1, "none", (2000, 4000, 3000, 0, 0)),
        (2, "none", (2000, 1000, 3000, 0, 0)),
        (3, "none", (500, 1000, 3000, 400, 0)),
        (1, "optimizer", (2000, 0, 0, 0, 4000)),  # (4 + 12) x 1000 / 4 on CPU
        (2, "optimizer", (2000, 0, 0, 0, 4000)),
        (3, "optimizer", (500, 0, 0, 400, 4000)),
        (3, "optimizer+params", (0, 0, 0, 400, 4500)),  # + 2 x 1000 / 4
    ],
)
def test_zero_states_by_hand(stage: int, offload: str, want: tuple[int, ...]) -> None:
    s = tr.zero_states(1000, (2, 4, 12), 4, stage, offload, 100)
    assert (s.weights, s.gradients, s.optimizer, s.gather, s.cpu) == want


def test_a_share_rounds_up() -> None:
    """12 x 1001 / 4 = 3003; 12 x 1001 / 8 = 1501.5 -> 1502 bytes."""
    assert tr.zero_states(1001, (2, 4, 12), 8, 1, "none", 0).optimizer == 1502


def test_deepspeed_zero3_published_table() -> None:
    """DeepSpeed's "Memory Requirements" page, ZeRO-3 with a live t5-3b, 1 node x 8 GPUs, per CPU | per GPU in GB:
    71.71 | 0.12 (params and optimizer offloaded, zero_init 1), 127.48 | 0.12 (zero_init 0),
    63.74 | 0.79, 127.48 | 0.79 (optimizer offloaded), 1.47 | 6.10, 127.48 | 6.10 (none);
    from ffn-calc's own total and largest layer, no model instantiated."""
    cfg = resolve_model(preset="t5-base", flags={"d_model": 1024, "d_ff": 16384,
                        "n_heads": 32, "head_dim": 128, "n_layers": 24, "n_decoder_layers": 24})  # fmt: skip
    from ffn_calc.counts.params import total_params

    assert total_params(cfg) == T5_3B_PARAMS
    assert largest_layer_params(cfg) == T5_3B_LARGEST
    rows = []
    for off in ("optimizer+params", "optimizer", "none"):
        for init in (True, False):
            cpu, gpu = tr.deepspeed_zero3(T5_3B_PARAMS, T5_3B_LARGEST, 8, 1, off, init)
            rows.append(f"{cpu / GB:.2f} | {gpu / GB:.2f}")
    assert rows == ["71.71 | 0.12", "127.48 | 0.12", "63.74 | 0.79", "127.48 | 0.79",
                    "1.47 | 6.10", "127.48 | 6.10"]  # fmt: skip


def test_deepspeed_zero2() -> None:
    """The same page, ZeRO-2, t5-3b, 8 GPUs: offload 127.48 | 5.31 GB. Without offload the
    page prints 15.93 GB, from the earlier 4P + 16P / N; the current source counts
    2P + int(18P / N) = 12,119,292,928 bytes (11.29 GB)."""
    cpu, gpu = tr.deepspeed_zero2(T5_3B_PARAMS, 8, cpu_offload=True)
    assert f"{cpu / GB:.2f} | {gpu / GB:.2f}" == "127.48 | 5.31"
    cpu, gpu = tr.deepspeed_zero2(T5_3B_PARAMS, 8)
    assert gpu == 2 * T5_3B_PARAMS + 18 * T5_3B_PARAMS // 8 == 12_119_292_928
    assert f"{(4 * T5_3B_PARAMS + 16 * T5_3B_PARAMS // 8) / GB:.2f}" == "15.93"


@pytest.mark.parametrize("offload", ["none", "optimizer", "optimizer+params"])
def test_stage3_equals_deepspeed_on_the_gpu(offload: str) -> None:
    """--recipe mixed at stage 3 holds exactly what DeepSpeed's ZeRO-3 estimator counts on the
    GPU: 4 x largest + 18P / N, + 2P / N, or 4 x largest alone."""
    r = _json(*T5_3B, "--zero", "3", "--dp", "8", "--offload", offload)
    assert r["largest_layer_params"] == T5_3B_LARGEST
    assert r["model_states_bytes"] == r["deepspeed"]["gpu_bytes"]
    assert r["deepspeed"]["function"] == "estimate_zero3_model_states_mem_needs"


def test_stage3_json_parts() -> None:
    r = _json(*T5_3B, "--zero", "3", "--dp", "8")
    p = T5_3B_PARAMS
    assert (r["weights_bytes"], r["gradients_bytes"], r["optimizer_states_bytes"]) == (
        2 * p // 8, 4 * p // 8, 12 * p // 8,  # 2,851,598,336 is a multiple of 8
    )  # fmt: skip
    assert r["gather_bytes"] == 4 * T5_3B_LARGEST
    assert r["bytes_per_param_exact"] == "9/4"  # 18 / 8
    assert r["total_bytes"] == r["model_states_bytes"] + r["activations_bytes"]


def test_distributed_is_zero1_of_mixed() -> None:
    a = _json("-p", "gpt2-small", "--recipe", "distributed", "--dp", "8")
    b = _json("-p", "gpt2-small", "--zero", "1", "--dp", "8")
    assert a["model_states_bytes"] == b["model_states_bytes"]
    assert a["zero_stage"] == b["zero_stage"] == 1


def test_offload_cpu_bytes() -> None:
    """gpt2-small 124,439,808 params, --zero 2 --dp 4 --offload optimizer: the GPU keeps the
    16-bit weights 2P; CPU (4 + 12) P / 4 per GPU's process."""
    p = 124_439_808  # `params -p gpt2-small`
    r = _json("-p", "gpt2-small", "--zero", "2", "--dp", "4", "--offload", "optimizer")
    assert r["model_states_bytes"] == 2 * p
    assert r["cpu_bytes"] == 16 * p // 4


def test_default_unchanged() -> None:
    """No --zero: the recipe's 18 bytes per parameter, as before."""
    r = _json("-p", "gpt2-small")
    assert r["model_states_bytes"] == 18 * 124_439_808
    assert r["zero_stage"] == 0 and r["offload"] == "none" and r["deepspeed"] is None


def test_moe_experts_are_one_module() -> None:
    """transformers 5 keeps a layer's routed experts in one module (3-D gate_up_proj and
    down_proj): mixtral-8x7b's largest module is 8 x 3 x 4096 x 14336 parameters."""
    assert largest_layer_params(resolve_model(preset="mixtral-8x7b")) == 8 * 3 * 4096 * 14336


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--offload", "optimizer"], "--offload optimizer needs --zero 1, 2 or 3"),
        (["--zero", "2", "--offload", "optimizer+params"], "needs --zero 3"),
        (["--zero", "1", "--recipe", "distributed"], "--recipe mixed --zero 1"),
        (["--dp", "4"], "--dp divides the model states"),
        (["--zero", "4"], "--zero"),
    ],
)
def test_bad_combinations(args: list[str], needle: str) -> None:
    r = run("memory", "--training", "-p", "gpt2-small", *args)
    assert r.exit_code == 2
    assert needle in r.stderr and r.stdout == ""


def test_zero_goes_with_training() -> None:
    r = run("memory", "-p", "gpt2-small", "--zero", "1")
    assert r.exit_code == 2 and "--zero" in r.stderr


def test_api() -> None:
    import ffn_calc

    m = ffn_calc.load("gpt2-small")
    r = ffn_calc.training_memory(m, dp=4, zero=3, offload="optimizer+params")
    assert r.zero_stage == 3 and r.weights_bytes == 0 and r.cpu_bytes == 18 * 124_439_808 // 4


def test_the_docs_example_is_current() -> None:
    """docs/training.md, "ZeRO stages and CPU offload"."""
    from conftest import readme_block, shown

    args = ["memory", "-p", "llama-3-8b", "--training", "--zero", "3", "--dp", "8",
            "--seq-len", "4096", "--recompute", "selective"]  # fmt: skip
    marker = ("`ffn-calc memory --preset llama-3-8b --training --zero 3 --dp 8 --seq-len 4096 "
              "--recompute selective`:")  # fmt: skip
    block = readme_block(marker).split("\n")
    out = shown(args, 120).split("\n")
    assert any(out[i : i + len(block)] == block for i in range(len(out) - len(block) + 1))
    r = _json(*args[1:])
    assert r["largest_layer_params"] == 128_256 * 4096 == 525_336_576
    assert r["model_states_bytes"] == r["deepspeed"]["gpu_bytes"] == 20_169_434_112
