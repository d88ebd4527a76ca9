"""The Python API: the same reports as the CLI's JSON, the same errors, cheap to import, typed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, run

import ffn_calc

ROOT = Path(__file__).parent.parent


def cli_json(*args: str) -> Any:
    r = run(*args, "--format", "json")
    assert r.exit_code == 0, r.stderr
    return r.json()


def dumped(report: Any) -> Any:
    """The report as `--format json` writes it (JSON round trip: ints stay ints)."""
    return json.loads(report.model_dump_json())


@pytest.mark.parametrize("preset", ["gpt2-small", "llama-2-7b", "t5-base", "deepseek-v3"])
def test_reports_equal_the_cli_json(preset: str) -> None:
    m = ffn_calc.load(preset=preset)
    p = ["--preset", preset]
    assert dumped(ffn_calc.params(m)) == cli_json("params", *p)
    assert dumped(ffn_calc.flops(m, seq_len=1024, batch=2)) == cli_json(
        "flops", *p, "--seq-len", "1024", "--batch", "2"
    )
    assert dumped(ffn_calc.flops(m, seq_len=64, causal=True, unit="macs", lm_head=False)) == (
        cli_json("flops", *p, "-s", "64", "--causal", "--unit", "macs", "--no-lm-head")
    )
    assert dumped(ffn_calc.crossover(m)) == cli_json("crossover", *p)
    if m.architecture == "decoder-only":  # the crossover describes a decoder layer
        assert dumped(ffn_calc.crossover(m, causal=True, grid=True)) == cli_json(
            "crossover", *p, "--causal", "--grid"
        )
    assert dumped(ffn_calc.memory(m, dtype="fp8")) == cli_json("memory", *p, "--dtype", "fp8")
    assert dumped(ffn_calc.training_memory(m, seq_len=1024, tp=2, recompute="selective")) == (
        cli_json("memory", *p, "--training", "--seq-len", "1024", "--tp", "2",
                 "--recompute", "selective")
    )  # fmt: skip
    if m.has_decoder:
        assert dumped(ffn_calc.kv(m, context=1024, batch=3)) == cli_json(
            "kv", *p, "--context", "1024", "--batch", "3"
        )
        assert dumped(ffn_calc.decode(m, context=1000)) == cli_json(
            "flops", *p, "--decode", "--context", "1000"
        )
        assert dumped(ffn_calc.generate(m, prompt=100, new=20)) == cli_json(
            "flops", *p, "--seq-len", "100", "--generate", "20"
        )
        assert dumped(ffn_calc.decode_crossover(m, batch=8)) == cli_json(
            "crossover", *p, "--decode", "--batch", "8"
        )
        assert dumped(ffn_calc.memory(m, gpu_memory="80GB", context=1024)) == cli_json(
            "memory", *p, "--gpu-memory", "80GB", "--context", "1024"
        )


def test_compare_and_every_model_source(tmp_path: Path) -> None:
    hf = DATA / "checkpoints" / "tiny-llama-gqa.config.json"
    toml = tmp_path / "m.toml"
    toml.write_text("n_layers = 2\nd_model = 64\nn_heads = 4\nd_ff = 256\nvocab_size = 100\n")
    models = [
        ffn_calc.load(preset="gpt2-small"),
        ffn_calc.load(config=toml),
        ffn_calc.load(hf_config=str(hf)),
    ]
    assert dumped(ffn_calc.compare(models, seq_len=512)) == cli_json(
        "compare", "gpt2-small", "--config", str(toml), "--hf-config", str(hf), "-s", "512"
    )
    # Fields alone start where the size flags start (one layer, d_ff = 4 d_model, biases).
    alone = ffn_calc.load(d_model=512, n_heads=8)
    assert dumped(ffn_calc.params(alone)) == cli_json(
        "params", "--d-model", "512", "--n-heads", "8"
    )
    # Fields over a source: ModelConfig names, as in config files.
    wide = ffn_calc.load(preset="llama-2-7b", d_ff=14336, n_kv_heads=8)
    assert (wide.d_ff, wide.n_kv_heads, wide.name) == (
        14336,
        8,
        "llama-2-7b (d_ff=14336, n_kv_heads=8)",
    )


def test_golden_figures() -> None:
    # GPT-2 small: 124,439,808 parameters (transformers GPT2LMHeadModel, tied head; the
    # reference set's gpt2 case); Llama-2-7B: 6,738,415,616 (LlamaForCausalLM).
    assert ffn_calc.params(ffn_calc.load(preset="gpt2-small")).total_params == 124_439_808
    assert ffn_calc.params(ffn_calc.load(preset="llama-2-7b")).total_params == 6_738_415_616


def cli_error(*args: str) -> str:
    r = run(*args)
    assert r.exit_code == 2 and r.stdout == ""
    return r.stderr.strip().removeprefix("Error: ")


def test_errors_are_the_cli_messages(tmp_path: Path) -> None:
    with pytest.raises(ffn_calc.ConfigError) as e:
        ffn_calc.load(preset="gpt2-smal")
    assert str(e.value) == cli_error("params", "--preset", "gpt2-smal")
    bad = tmp_path / "bad.toml"
    bad.write_text("n_layers = 2\nd_model = 60\nn_heads = 7\nd_ff = 10\n")
    with pytest.raises(ffn_calc.ConfigError) as e:
        ffn_calc.load(config=bad)
    assert str(e.value) == cli_error("params", "--config", str(bad))
    with pytest.raises(ffn_calc.FileError) as f:
        ffn_calc.load(config=tmp_path / "missing.toml")
    assert str(f.value) == cli_error("params", "--config", str(tmp_path / "missing.toml"))
    m = ffn_calc.load(preset="bert-base")
    with pytest.raises(ffn_calc.UsageError) as u:
        ffn_calc.kv(m, context=10)
    assert str(u.value) == cli_error("kv", "--preset", "bert-base", "--context", "10")
    with pytest.raises(ffn_calc.UsageError) as u:
        ffn_calc.flops(m, seq_len=8, target_len=4)
    assert str(u.value) == cli_error("flops", "--preset", "bert-base", "-s", "8", "-t", "4")
    # Every error is an FfnCalcError, and what the CLI would refuse the API refuses too.
    for call in (
        lambda: ffn_calc.flops(m, seq_len=0),
        lambda: ffn_calc.flops(m, seq_len=2**40 + 1),
        lambda: ffn_calc.flops(m, seq_len=True),  # a bool is not a length
        lambda: ffn_calc.flops(m, seq_len=8, unit="bogus"),
        lambda: ffn_calc.kv(ffn_calc.load(preset="gpt2-small"), context=8, dtype="fp64"),
        lambda: ffn_calc.memory(m, gpu_memory=[80]),  # type: ignore[arg-type]
        lambda: ffn_calc.params("gpt2-small"),  # type: ignore[arg-type]
        lambda: ffn_calc.compare([]),
        lambda: ffn_calc.load(),
        lambda: ffn_calc.load(d_model="x", n_heads=2),
        lambda: ffn_calc.load(preset="gpt2-small", d_ff=0),
        lambda: ffn_calc.training_memory(m, recompute="some"),
    ):
        with pytest.raises(ffn_calc.FfnCalcError):
            call()


def test_notebook_display_is_the_markdown_tables() -> None:
    m = ffn_calc.load(preset="gpt2-small")
    assert (
        ffn_calc.params(m)._repr_markdown_()
        == run("params", "--preset", "gpt2-small", "--format", "markdown").stdout
    )
    assert (
        ffn_calc.kv(m, context=1024)._repr_markdown_()
        == run("kv", "--preset", "gpt2-small", "--context", "1024", "--format", "markdown").stdout
    )


def test_import_is_cheap() -> None:
    code = (
        "import sys, ffn_calc\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'rich', 'typer')"
        " or m.startswith('ffn_calc.')))\n"
        "ffn_calc.load\n"
        "print('rich' in sys.modules, 'typer' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["[]", "False False"]


def test_public_names() -> None:
    assert set(ffn_calc.__all__) <= set(dir(ffn_calc))
    for name in ffn_calc.__all__:
        assert getattr(ffn_calc, name) is not None
    assert isinstance(ffn_calc.__version__, str)
    with pytest.raises(AttributeError):
        ffn_calc.nothing  # noqa: B018
    assert (ROOT / "ffn_calc" / "py.typed").is_file()


@pytest.mark.skipif(shutil.which("mypy") is None and not Path(sys.executable).with_name("mypy").exists(), reason="mypy is in the dev extra")  # fmt: skip
def test_usage_example_type_checks_strictly() -> None:
    mypy = Path(sys.executable).with_name("mypy")
    r = subprocess.run(
        [str(mypy) if mypy.exists() else "mypy", "--strict", "--no-incremental",
         str(ROOT / "tests" / "api_usage.py")],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr


def test_usage_example_runs() -> None:
    r = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "api_usage.py")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    assert "124,439,808" in r.stdout
