"""Hostile input: bounded reads, exact numbers, huge sizes, output errors, usage details.

Every case ends in exit 0 with correct output, or exit 2 with one message on stderr that
names the problem and nothing on stdout; never a traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from ffn_calc.files import MAX_FILE_BYTES
from ffn_calc.model.config import MAX_SIZE

SMALL = "d_model = 64\nn_heads = 4\nn_layers = 1\nd_ff = 256\n"
M = str(MAX_SIZE)


def bad(cli: Any, *args: str) -> str:
    """Run, expect exit 2 with a message and an empty stdout; return the message."""
    r = cli(*args)
    assert r.exit_code == 2, (args, r.exit_code, r.stdout, r.stderr)
    assert r.stdout == ""
    assert r.stderr.startswith("Error: ") or "Usage:" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    return str(r.stderr)


# --- item 4: JSON input ----------------------------------------------------------------------


def test_json_duplicate_key_names_key_and_line(cli: Any, tmp_path: Path) -> None:
    f = tmp_path / "dup.json"
    f.write_text(
        '{\n "d_model": 64,\n "n_heads": 4,\n "d_model": 65,\n "n_layers": 1, "d_ff": 256}'
    )
    msg = bad(cli, "params", "-c", str(f))
    assert "duplicate key 'd_model'" in msg and "line 4" in msg


def test_hf_config_duplicate_key(cli: Any, tmp_path: Path) -> None:
    f = tmp_path / "config.json"
    f.write_text('{"model_type": "gpt2",\n"model_type": "llama"}')
    assert "duplicate key 'model_type'" in bad(cli, "params", "--hf-config", str(f))


@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_byte_order_mark_is_accepted(cli: Any, tmp_path: Path, suffix: str) -> None:
    text = (
        '{"d_model": 64, "n_heads": 4, "n_layers": 1, "d_ff": 256}' if suffix == ".json" else SMALL
    )
    f = tmp_path / f"bom{suffix}"
    f.write_bytes(b"\xef\xbb\xbf" + text.encode())
    r = cli("params", "-c", str(f), "-f", "json")
    assert r.exit_code == 0, r.stderr
    # 1 layer, d=64, d_ff=256, GELU, LayerNorm, no biases by default in a config file:
    # attention 4 x 64 x 64 = 16,384; FFN 2 x 64 x 256 = 32,768; norms 3 x 128 = 384.
    assert r.json()["total_params"] == 16384 + 32768 + 384


@pytest.mark.parametrize("value", ['["llama"]', "7", "true", '{"a": 1}', "null"])
def test_model_type_not_a_string(cli: Any, tmp_path: Path, value: str) -> None:
    f = tmp_path / "config.json"
    f.write_text(f'{{"model_type": {value}, "hidden_size": 64}}')
    msg = bad(cli, "params", "--hf-config", str(f))
    assert "model_type" in msg


# --- item 5: bounded reads -------------------------------------------------------------------


def test_device_is_refused(cli: Any) -> None:
    assert "not a regular file" in bad(cli, "params", "-c", "/dev/zero")
    assert "not a regular file" in bad(cli, "params", "--hf-config", "/dev/zero")
    assert "not a regular file" in bad(cli, "exercise", "list", "--exercises", "/dev/zero")


def test_fifo_without_writer_does_not_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    r = subprocess.run(
        [sys.executable, "-m", "ffn_calc", "params", "-c", str(fifo)],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert r.returncode == 2 and r.stdout == ""
    assert "named pipe that no program wrote to" in r.stderr


def test_pipe_with_a_writer_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w") as fh:
            fh.write(SMALL)

    t = threading.Thread(target=write)
    t.start()
    r = subprocess.run(
        [sys.executable, "-m", "ffn_calc", "params", "-c", str(fifo), "-f", "json"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    t.join(timeout=30)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["total_params"] == 16384 + 32768 + 384  # as in the byte-order-mark test
    assert data["model"] == "custom"  # a pipe has no file name to show


def test_process_substitution_name_is_not_a_descriptor_number() -> None:
    r = subprocess.run(
        ["bash", "-c", f"{sys.executable} -m ffn_calc params -c <(printf '{SMALL}') -f json"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["model"] == "custom"


def test_oversized_file_is_refused(cli: Any, tmp_path: Path) -> None:
    f = tmp_path / "huge.toml"
    with f.open("wb") as fh:
        fh.write(SMALL.encode())
        fh.write(b"#" * (MAX_FILE_BYTES + 1))
    msg = bad(cli, "params", "-c", str(f))
    assert "larger than 16 MiB" in msg


def test_symlink_loop_has_its_own_message(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    assert "symbolic link loop" in bad(cli, "params", "-c", str(tmp_path / "a"))
    assert "symbolic link loop" in bad(cli, "params", "--hf-config", str(tmp_path / "a"))


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("deep.toml", "a = " + "[" * 100_000 + "]" * 100_000),
        ("deep.json", "[" * 100_000 + "]" * 100_000),
        ("deep2.json", '{"a": ' * 5000 + "1" + "}" * 5000),
        ("digits.toml", "d_model = " + "9" * 5000),
        ("digits.json", '{"d_model": ' + "9" * 5000 + "}"),
    ],
)
def test_deep_nesting_and_long_integers(cli: Any, tmp_path: Path, name: str, text: str) -> None:
    f = tmp_path / name
    f.write_text(text)
    msg = bad(cli, "params", "-c", str(f))
    assert "nested" in msg or "thousands of digits" in msg
    assert len(msg) < 400  # the input is never echoed


def test_value_quoted_in_a_message_is_short(cli: Any, tmp_path: Path) -> None:
    f = tmp_path / "c.json"
    f.write_text('{"d_model": "' + "x" * 100_000 + '", "n_heads": 4, "n_layers": 1, "d_ff": 8}')
    assert len(bad(cli, "params", "-c", str(f))) < 400
    f.write_text('{"d_model": ' + "[" * 40 + "]" * 40 + ', "n_heads": 4, "n_layers": 1}')
    assert len(bad(cli, "params", "-c", str(f))) < 400


# --- item 6: huge but valid sizes -------------------------------------------------------------


def test_sizes_past_the_bound_exit_2_naming_it(cli: Any, tmp_path: Path) -> None:
    big = str(MAX_SIZE + 1)
    assert "2^40" in bad(cli, "params", "--d-model", big, "--n-heads", "1")
    assert "1099511627776" in bad(cli, "flops", "-p", "gpt2-small", "-s", big)
    f = tmp_path / "config.json"
    f.write_text(json.dumps({"model_type": "gpt2", "n_embd": 10**30, "n_layer": 1, "n_head": 1,
                             "n_positions": 8, "vocab_size": 8}))  # fmt: skip
    assert "2^40" in bad(cli, "params", "--hf-config", str(f))


def _at_the_bound(*extra: str) -> list[str]:
    return ["--d-model", M, "--d-ff", M, "--n-heads", "1", "--n-layers", M, "--vocab-size", M,
            "--n-experts", M, "--experts-per-token", M, *extra]  # fmt: skip


@pytest.mark.parametrize(
    "args",
    [
        ["params", *_at_the_bound()],
        ["flops", *_at_the_bound("-s", M, "-b", M)],
        ["crossover", *_at_the_bound("--grid")],
        ["compare", "gpt2-small"],
    ],
)
@pytest.mark.parametrize("fmt", ["json", "table", "csv", "markdown"])
def test_every_format_at_the_bound(cli: Any, args: list[str], fmt: str) -> None:
    r = cli(*args, "-f", fmt)
    assert r.exit_code == 0, r.stderr
    assert r.stdout


def test_flops_at_the_bound_are_exact(cli: Any) -> None:
    d = MAX_SIZE
    r = cli("flops", *_at_the_bound("-s", M, "-b", M), "-f", "json")
    data = r.json()
    # LM head alone: 2 x B x S x d_model x vocab = 2 d^4 (every size at the bound d = 2^40).
    assert data["components"]["lm_head"] == 2 * d**4
    assert data["forward_flops"] == sum(data["components"].values())
    tokens = d * d
    assert Fraction(data["flops_per_token_exact"]) == Fraction(data["forward_flops"], tokens)


@pytest.mark.parametrize("mult", ["inf", "nan", "1e308", "-1", "0"])
def test_swiglu_multiplier_bounds(cli: Any, mult: str) -> None:
    bad(cli, "swiglu-size", "--d-model", "4096", "--ffn-dim-multiplier", mult)


def test_swiglu_exact_at_large_width(cli: Any) -> None:
    r = cli("swiglu-size", "--d-model", str(2**36), "-f", "json")
    # int(2 x 4 x 2^36 / 3) = 183,251,937,962 rounded up to a multiple of 256 = 183,251,938,048.
    assert r.json()["llama_d_ff"] == 183251938048


# --- item 7: exact numbers in JSON --------------------------------------------------------------


def test_flops_per_token_is_an_exact_int(cli: Any) -> None:
    data = cli("flops", "-p", "gpt2-small", "-s", "1024", "-f", "json").json()
    # forward 291,648,307,200 FLOPs (tests/data/reference_cases.json) / 1024 tokens:
    assert data["flops_per_token"] == 284812800 and isinstance(data["flops_per_token"], int)
    assert data["flops_per_token_exact"] == "284812800"


def test_flops_per_token_fraction_when_not_whole(cli: Any) -> None:
    # An encoder-decoder model counts S + T tokens: 1 + 2 = 3 here.
    data = cli("flops", "-p", "transformer-base", "-s", "1", "-t", "2", "-f", "json").json()
    exact = Fraction(data["flops_per_token_exact"])
    assert exact == Fraction(data["forward_flops"], 3) and exact.denominator == 3
    assert isinstance(data["flops_per_token"], float)


def test_crossover_rows_carry_exact_values(cli: Any) -> None:
    data = cli("crossover", "-p", "gpt2-small", "--causal", "-f", "json").json()
    for row in data["rows"]:
        for key in ("seq_len", "attention_projections", "attention_scores", "ffn"):
            assert Fraction(row["exact"][key]) == Fraction(row[key]) or isinstance(row[key], float)
            if isinstance(row[key], int):
                assert row["exact"][key] == str(row[key])


def test_compare_flops_per_token_exact(cli: Any) -> None:
    m = cli("compare", "gpt2-small", "-f", "json").json()["models"][0]
    assert m["flops_per_token"] == 284812800 and m["flops_per_token_exact"] == "284812800"


# --- item 8: activations ------------------------------------------------------------------------


@pytest.mark.parametrize("x", ["inf", "-inf", "nan"])
def test_activations_non_finite_x(cli: Any, x: str) -> None:
    assert "finite" in bad(cli, "activations", "--x", x)


def test_activations_huge_finite_x(cli: Any) -> None:
    rows = cli("activations", "--x", "1e308", "--x", "-1e308", "-f", "json").json()["rows"]
    big, small = rows
    # Limits: every activation is x for large positive x (slope 1), 0 for large negative x.
    assert big["relu"] == big["gelu"] == big["gelu_tanh"] == big["silu"] == 1e308
    assert big["d_gelu"] == big["d_gelu_tanh"] == big["d_silu"] == 1.0
    assert small["gelu"] == small["gelu_tanh"] == small["silu"] == 0.0
    assert small["d_gelu_tanh"] == 0.0


# --- item 10: output errors ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [["params", "-p", "gpt2-small"], ["params", "-p", "gpt2-small", "-f", "json"],
     ["presets", "-f", "csv"], ["exercise", "show", "ffn-4096"],
     ["import-hf", "tests/data/checkpoints/tiny-gpt2.config.json"]],
)  # fmt: skip
def test_full_disk(args: list[str]) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    with open("/dev/full", "w") as full:
        r = subprocess.run(
            [sys.executable, "-m", "ffn_calc", *args],
            stdout=full, stderr=subprocess.PIPE, text=True, timeout=60,
            cwd=Path(__file__).parent.parent,
        )  # fmt: skip
    assert r.returncode == 74, r.stderr
    assert r.stderr.strip().count("\n") == 0 and "No space left" in r.stderr


def test_closed_pipe_is_quiet() -> None:
    r = subprocess.run(
        ["bash", "-c", f"{sys.executable} -m ffn_calc crossover -p gpt2-small | head -c 10"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert r.stdout and r.stderr == ""


# --- item 11: usage ------------------------------------------------------------------------------


def test_version(cli: Any) -> None:
    from importlib.metadata import version

    r = cli("--version")
    assert r.exit_code == 0 and r.stdout.strip() == f"ffn-calc {version('ffn-calc')}"


def test_completion_options_on_the_full_app(cli: Any) -> None:
    r = cli("--help")
    assert "--install-completion" in r.stdout and "--show-completion" in r.stdout


@pytest.mark.parametrize(
    "command",
    ["params", "flops", "crossover", "tensors", "verify", "compare", "activations",
     "swiglu-size", "presets", "show", "import-hf", "exercise check", "exercise list"],
)  # fmt: skip
def test_help_metavars_are_not_python_types(cli: Any, command: str) -> None:
    out = cli(*command.split(), "--help").stdout
    for python_type in ("<bool>", "<str>", "<int", "<float>", "<path>", "<list", "list["):
        assert python_type not in out, (command, python_type)


def test_help_metavars_name_the_kind(cli: Any) -> None:
    out = cli("flops", "--help").stdout
    assert "FILE" in out and "PATH" in out and "INTEGER" in out and "NAME" in out


def test_preset_takes_a_name_not_a_path(cli: Any) -> None:
    assert "use --config" in bad(cli, "params", "--preset", "presets/gpt2-small.toml").lower()
    assert "use --config" in bad(cli, "params", "--preset", "mine.json").lower()


@pytest.mark.parametrize("name", ["", "   "])
def test_empty_preset_name(cli: Any, name: str) -> None:
    assert "preset name is empty" in bad(cli, "params", "--preset", name)


def test_odd_preset_names(cli: Any) -> None:
    assert "unknown preset" in bad(cli, "params", "--preset", "x" * 5000)
    assert "unknown preset" in bad(cli, "params", "--preset", "..")
    assert "unknown preset" in bad(cli, "params", "--preset", "a\x00b")


@pytest.mark.parametrize("fmt", ["toml", "json"])
def test_import_hf_format_round_trip(cli: Any, tmp_path: Path, fmt: str) -> None:
    src = "tests/data/checkpoints/tiny-llama-gqa.config.json"
    out = cli("import-hf", src, "--format", fmt)
    assert out.exit_code == 0, out.stderr
    f = tmp_path / f"model.{fmt}"
    f.write_text(out.stdout)
    a = cli("params", "--hf-config", src, "-f", "json").json()
    b = cli("params", "-c", str(f), "-f", "json").json()
    assert a["total_params"] == b["total_params"] and a["components"] == b["components"]


def test_import_hf_rejects_table_format(cli: Any) -> None:
    bad(cli, "import-hf", "tests/data/checkpoints/tiny-gpt2.config.json", "-f", "csv")


def test_closed_stdout_exits_74() -> None:
    r = subprocess.run(
        ["bash", "-c", f"{sys.executable} -m ffn_calc params -p gpt2-small >&-"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert r.returncode == 74 and "standard output is closed" in r.stderr
    assert "Traceback" not in r.stderr


def test_numbers_longer_than_the_terminal_are_never_cut() -> None:
    # 2 x ... at S = 2^40: a 31-digit FLOP count on a 40-column terminal (JSON: exact).
    args = ["compare", "deepseek-v3", "llama-2-7b", "-s", str(MAX_SIZE)]  # no position table
    exact = run_json_flops(args)
    r = subprocess.run(
        [sys.executable, "-m", "ffn_calc", *args], capture_output=True, text=True, timeout=60,
        env={**os.environ, "COLUMNS": "40"},
    )  # fmt: skip
    assert f"{exact:,}" in r.stdout


def run_json_flops(args: list[str]) -> int:
    r = subprocess.run(
        [sys.executable, "-m", "ffn_calc", *args, "-f", "json"], capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    return int(json.loads(r.stdout)["models"][0]["forward_flops"])


def test_control_characters_in_file_names_are_not_printed(tmp_path: Path) -> None:
    f = tmp_path / "odd\x1b[31m.toml"
    f.write_text(SMALL)
    r = subprocess.run(
        [sys.executable, "-m", "ffn_calc", "params", "-c", str(f)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert r.returncode == 0 and "\x1b" not in r.stdout and "odd?[31m" in r.stdout


def test_layer_types_must_name_attention_types(cli: Any, tmp_path: Path) -> None:
    case = next(
        c for c in json.loads((Path(__file__).parent / "data" / "coverage.json").read_text())["cases"]
        if c["model_type"] == "gemma2"
    )  # fmt: skip
    cfg = {**case["hf_config"], "layer_types": ["bogus"] * case["hf_config"]["num_hidden_layers"]}
    f = tmp_path / "config.json"
    f.write_text(json.dumps(cfg))
    assert "layer_types" in bad(cli, "params", "--hf-config", str(f))


def test_architectures_naming_another_class_is_said(cli: Any, tmp_path: Path) -> None:
    case = next(
        c for c in json.loads((Path(__file__).parent / "data" / "coverage.json").read_text())["cases"]
        if c["model_type"] == "roberta"
    )  # fmt: skip
    f = tmp_path / "config.json"
    f.write_text(json.dumps({**case["hf_config"], "architectures": ["RobertaModel"]}))
    data = cli("params", "--hf-config", str(f), "-f", "json").json()
    assert "RobertaModel" in data["note"] and "RobertaForMaskedLM" in data["note"]


def test_a_path_the_system_refuses_is_a_clear_error() -> None:
    """A name longer than the system allows (ENAMETOOLONG from stat) exits 2, no traceback."""
    from conftest import run

    long = "a" * 5000
    for args in (["params", "--hf-config", long], ["params", "--config", long],
                 ["verify", "--preset", "gpt2-small", "--checkpoint", long]):  # fmt: skip
        r = run(*args)
        assert r.exit_code == 2 and r.stdout == "" and "too long" in r.stderr, (args, r.stderr)
