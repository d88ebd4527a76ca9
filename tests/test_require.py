"""`--require EXPR` on params, flops, kv and memory: the sweep's grammar and metrics, counted
exactly on the model at the command's length, batch and dtype; exit 1 with each failed
requirement on stderr, the output otherwise unchanged; exit 2 on a bad requirement."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import pytest
from conftest import ROOT, run

# llama-2-7b: 6,738,415,616 parameters (Touvron et al. 2023; the instantiated
# LlamaForCausalLM, tests/data/reference_cases.json).
LLAMA2_TOTAL = 6_738_415_616


def test_a_passing_requirement_changes_nothing_but_adds_the_json_key() -> None:
    plain = run("params", "-p", "llama-2-7b")
    checked = run("params", "-p", "llama-2-7b", "--require", "total_params<=7e9")
    assert checked.exit_code == 0 and checked.stderr == ""
    assert checked.stdout == plain.stdout  # the table is the same
    plain_json = run("params", "-p", "llama-2-7b", "-f", "json")
    got = run("params", "-p", "llama-2-7b", "-f", "json", "--require", "total_params<=7e9")
    assert got.exit_code == 0
    data = got.json()
    assert list(data) == [*plain_json.json(), "requirements"]  # every key, in its order
    assert {k: v for k, v in data.items() if k != "requirements"} == plain_json.json()
    assert data["requirements"] == [
        {
            "requirement": "total_params<=7e9",
            "metric": "total_params",
            "op": "<=",
            "limit": "7e9",
            "limit_exact": "7000000000",
            "value": LLAMA2_TOTAL,
            "value_exact": str(LLAMA2_TOTAL),
            "holds": True,
        }
    ]
    assert "requirements" not in plain_json.json()


def test_a_failing_requirement_exits_1_with_the_value_and_the_limit() -> None:
    plain = run("params", "-p", "llama-2-7b")
    r = run("params", "-p", "llama-2-7b", "--require", "total_params<=6.7e9",
            "--require", "ffn_share>=60%")  # fmt: skip
    assert r.exit_code == 1
    assert r.stdout == plain.stdout
    assert r.stderr.splitlines() == [
        "Requirement failed: total_params = 6,738,415,616 > 6.7e9 (--require total_params<=6.7e9)."
    ]
    j = run("params", "-p", "llama-2-7b", "-f", "json", "--require", "total_params<=6.7e9")
    assert j.exit_code == 1 and j.json()["requirements"][0]["holds"] is False


def test_every_failed_requirement_is_listed_in_the_readers_language() -> None:
    r = run("params", "-p", "gpt2-small", "--lang", "ja",
            "--require", "total_params<100M", "--require", "ffn_share>50%")  # fmt: skip
    assert r.exit_code == 1
    lines = r.stderr.splitlines()
    # gpt2-small: 124,439,808 parameters, FFN 56,669,184 of them (README's example).
    assert lines == [
        "要件を満たさない：total_params = 124,439,808 >= 100M（--require total_params<100M）。",  # noqa: RUF001
        "要件を満たさない：ffn_share = 45.5394% <= 50%（--require ffn_share>50%）。",  # noqa: RUF001
    ]


def test_a_share_is_compared_exactly() -> None:
    # llama-2-7b's FFN share: 32 layers x 3 x 4096 x 11008 / 6,738,415,616 = 1056768/1645121.
    share = Fraction(32 * 3 * 4096 * 11008, LLAMA2_TOTAL)
    assert share == Fraction(1056768, 1645121)
    exact = f"{share.numerator}/{share.denominator}"
    assert run("params", "-p", "llama-2-7b", "--require", f"ffn_share>={exact}").exit_code == 0
    assert run("params", "-p", "llama-2-7b", "--require", f"ffn_share=={exact}").exit_code == 0
    assert run("params", "-p", "llama-2-7b", "--require", f"ffn_share>{exact}").exit_code == 1
    # The float 0.6423649081131418 is not the share: == it fails, as it should.
    assert (
        run("params", "-p", "llama-2-7b", "--require", f"ffn_share=={float(share)!r}").exit_code
        == 1
    )


def test_a_length_metric_without_at_takes_the_commands_length() -> None:
    r = run("flops", "-p", "gpt2-small", "-s", "512", "-b", "3", "-f", "json",
            "--require", "forward_flops<=1T", "--require", "training_flops@1024>0")  # fmt: skip
    assert r.exit_code == 0
    data = r.json()
    req = data["requirements"]
    assert req[0]["metric"] == "forward_flops@512"
    assert req[0]["value"] == data["forward_flops"]  # the report's own figure, batch 3
    assert req[1]["metric"] == "training_flops@1024"  # its own length
    one = run("flops", "-p", "gpt2-small", "-s", "1024", "-b", "3", "-f", "json").json()
    assert req[1]["value"] == one["training_flops"]


@pytest.mark.parametrize("dtype", ["bf16", "fp8", "int4", "fp32"])
def test_kv_bytes_follow_the_commands_batch_and_dtype(dtype: str) -> None:
    r = run("kv", "-p", "gemma-2-9b", "--context", "5000", "--batch", "3", "--dtype", dtype,
            "-f", "json", "--require", "kv_bytes<=1TB", "--require", "kv_elements>0")  # fmt: skip
    assert r.exit_code == 0
    data = r.json()
    assert [q["metric"] for q in data["requirements"]] == ["kv_bytes@5000", "kv_elements@5000"]
    assert data["requirements"][0]["value"] == data["kv_bytes"]
    assert data["requirements"][1]["value"] == data["kv_elements"]


@pytest.mark.parametrize("dtype", ["bf16", "int4", "fp32"])
def test_weights_bytes_follow_the_dtype_int4_packed_per_tensor(dtype: str) -> None:
    # An odd width: int4 rounds each odd-sized tensor up on its own, as `memory` does.
    flags = ["--d-model", "63", "--n-heads", "7", "--vocab-size", "101", "--n-layers", "2"]
    r = run("memory", *flags, "--dtype", dtype, "-f", "json", "--require", "weights_bytes<1GB")
    assert r.exit_code == 0
    data = r.json()
    assert data["requirements"][0]["value"] == data["weights_bytes"]


def test_decode_requirement_takes_the_decode_context_and_batch() -> None:
    r = run("flops", "-p", "llama-3-8b", "--decode", "--context", "4096", "-b", "2", "-f", "json",
            "--require", "decode_flops<1T")  # fmt: skip
    assert r.exit_code == 0
    data = r.json()
    assert data["requirements"][0]["metric"] == "decode_flops@4096"
    assert data["requirements"][0]["value"] == data["decode_flops"]


def test_memory_context_and_gpu_memory() -> None:
    r = run("memory", "-p", "llama-3-8b", "--gpu-memory", "24GB", "--context", "8192",
            "--require", "kv_bytes@8192<=1.1GB", "--require", "kv_bytes<2GB", "-f", "json")  # fmt: skip
    assert r.exit_code == 0
    # llama-3-8b's cache after 8,192 tokens: 1,073,741,824 bytes (README's kv example).
    assert [q["value"] for q in r.json()["requirements"]] == [1_073_741_824, 1_073_741_824]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["params", "-p", "gpt2-small", "--require", "total_parms<1e9"],
         ["--require: unknown metric 'total_parms'", "Did you mean total_params", "Metrics:"]),
        (["params", "-p", "gpt2-small", "--require", "foo<1"], ["unknown metric 'foo'", "decode_flops"]),
        (["params", "-p", "gpt2-small", "--require", "total_params 1e9"], ["--require", "METRIC OP NUMBER"]),
        (["params", "-p", "gpt2-small", "--require", "total_params<=7GB"], ["--require", "total_params"]),
        (["params", "-p", "gpt2-small", "--require", "forward_flops<1T"],
         ["forward_flops takes a length: write forward_flops@2048"]),
        # a decode step has no --seq-len to give: only forward_flops@N answers
        (["flops", "-p", "gpt2-small", "--decode", "-L", "9", "--require", "forward_flops<1T"],
         ["write forward_flops@2048.\n"]),
        (["flops", "-p", "gpt2-small", "--require", "kv_bytes<1T"], ["write kv_bytes@2048.\n"]),
        # --training refuses --context: only kv_bytes@N answers there
        (["memory", "-p", "gpt2-small", "--training", "--require", "kv_bytes<1T"],
         ["write kv_bytes@2048.\n"]),
        (["kv", "-p", "gpt2-small", "-L", "100", "--require", "forward_flops<1T"], ["forward_flops@2048"]),
        (["flops", "-p", "gpt2-small", "-s", "100", "--causal", "--require", "forward_flops<1T"],
         ["--causal with --require forward_flops@100"]),
        (["flops", "-p", "gpt2-small", "-s", "100", "--no-lm-head", "--require", "training_flops<1T"],
         ["--no-lm-head"]),
        (["kv", "-p", "t5-base", "-L", "100", "--source-len", "50", "--require", "kv_bytes<1T"],
         ["--source-len"]),
        # gpt2-small has 1,024 learned positions.
        (["params", "-p", "gpt2-small", "--require", "forward_flops@2048<1T"], ["1,024"]),
    ],
)  # fmt: skip
def test_a_bad_requirement_exits_2_with_nothing_on_stdout(args: list[str], says: list[str]) -> None:
    r = run(*args)
    assert r.exit_code == 2, r.stderr
    assert r.stdout == ""
    assert "Traceback" not in r.stderr
    for s in says:
        assert s in r.stderr, (s, r.stderr)


def test_a_flops_option_is_refused_only_with_a_flop_requirement() -> None:
    r = run("flops", "-p", "gpt2-small", "-s", "100", "--causal", "--require", "total_params<1e9")
    assert r.exit_code == 0


def test_sweep_where_messages_still_name_where() -> None:
    r = run("sweep", "-p", "gpt2-small", "--vary", "n_layers=1:2", "--where", "total_params 1")
    assert r.exit_code == 2 and "--where 'total_params 1': write METRIC OP NUMBER" in r.stderr


def _modules(args: list[str]) -> list[str]:
    code = (
        "import sys, io, contextlib\n"
        "from ffn_calc.cli import main\n"
        f"sys.argv = ['ffn-calc', *{args!r}]\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n        main()\n    except SystemExit:\n        pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('ffn_calc.sweeps')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True).stdout  # fmt: skip
    loaded: list[str] = json.loads(out.replace("'", '"'))
    return loaded


def test_without_require_no_command_loads_the_sweep_machinery() -> None:
    for args in (["params", "-p", "gpt2-small"], ["kv", "-p", "gpt2-small", "-L", "10"],
                 ["flops", "-p", "gpt2-small", "-s", "10", "-f", "json"]):  # fmt: skip
        assert _modules(args) == [], args
    assert "ffn_calc.sweeps.require" in _modules(
        ["params", "-p", "gpt2-small", "--require", "total_params>0"]
    )
