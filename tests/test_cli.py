"""The CLI: outputs in every format, and every kind of bad input (exit 2, no traceback)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from conftest import CASES_BY_NAME, DOCS, readme_block, run, shown

from ffn_calc.model.sources import preset_names


def test_params_json_contract() -> None:
    r = run("params", "--preset", "gpt2-small", "--format", "json")
    assert r.exit_code == 0 and r.stderr == ""
    data = r.json()
    # Golden: reference_cases.json gpt2-small total_params (GPT2LMHeadModel on the meta device).
    assert data["total_params"] == 124_439_808 == sum(data["components"].values())
    assert data["active_params"] == 124_439_808
    assert set(data["components"]) == {"embedding", "attention", "ffn", "norm", "lm_head"}
    [layer] = data["layers"]
    assert {k: layer[k] for k in ("stack", "count", "attention", "ffn", "norm", "total")} == {
        "stack": "decoder", "count": 12, "attention": 2_362_368, "ffn": 4_722_432,
        "norm": 3_072, "total": 7_087_872,
    }  # fmt: skip


def _preset_total(name: str) -> int:
    """Golden: reference_cases.json total_params for this preset, or for a family's preset the
    coverage.json case (and override) that tests/test_families.py PRESETS names, or for a
    multimodal preset the frontier.json case that tests/test_towers.py or
    tests/test_multimodal_2.py PRESETS names."""
    if name in CASES_BY_NAME:
        return int(CASES_BY_NAME[name]["total_params"])
    from test_families import BY_NAME, PRESETS
    from test_multimodal_2 import PRESETS as MULTIMODAL
    from test_towers import CASES as FRONTIER
    from test_towers import PRESETS as TOWERS

    wrappers = {**TOWERS, **MULTIMODAL}
    if name in wrappers:  # a multimodal wrapper: its frontier.json case
        return int(FRONTIER[wrappers[name]]["total_params"])
    case, override = PRESETS[name]
    return override or int(BY_NAME[case]["total_params"])


@pytest.mark.parametrize("name", preset_names())
def test_every_preset_through_the_cli(name: str) -> None:
    data = run("params", "-p", name, "-f", "json").json()
    assert data["total_params"] == _preset_total(name)
    assert sum(data["components"].values()) == data["total_params"]


def test_params_table_and_explain() -> None:
    r = run("params", "-p", "gpt2-small", "--explain")
    assert r.exit_code == 0
    assert "W1: d_model x d_ff = 768 x 3,072 = 2,359,296" in r.stdout
    assert "124,439,808" in r.stdout and "7,087,872" in r.stdout


def test_homework_flags() -> None:
    r = run(
        "params",
        "--d-model",
        "4096",
        "--d-ff",
        "16384",
        "--n-heads",
        "32",
        "--n-layers",
        "1",
        "--no-bias",
        "-f",
        "json",
    )
    assert r.json()["layers"][0]["ffn"] == 134_217_728  # 2 x 4096 x 16384


def test_csv_and_markdown() -> None:
    out = run("params", "-p", "bert-base", "-f", "csv").stdout
    rows = list(csv.reader(io.StringIO(out)))
    assert ["total", "109482240", "1.0"] in rows  # reference_cases.json bert-base total_params
    md = run("params", "-p", "bert-base", "-f", "markdown").stdout
    assert "| **total** | **109,482,240** | **100.0%** |" in md


def test_flops_json_and_switches() -> None:
    base = run("flops", "-p", "gpt2-small", "-s", "1024", "-f", "json").json()
    # Golden: reference_cases.json gpt2-small S=1024 forward_flops.
    assert base["forward_flops"] == 291_648_307_200
    assert base["training_flops"] == 3 * 291_648_307_200
    macs = run("flops", "-p", "gpt2-small", "-s", "1024", "--unit", "macs", "-f", "json").json()
    assert 2 * macs["forward_flops"] == base["forward_flops"] and macs["unit"] == "macs"
    nohead = run("flops", "-p", "gpt2-small", "-s", "1024", "--no-lm-head", "-f", "json").json()
    assert nohead["forward_flops"] == 291_648_307_200 - 79_047_426_048
    causal = run("flops", "-p", "gpt2-small", "-s", "1024", "--causal", "-f", "json").json()
    # Causal scores: 12 layers x 2 x 12 heads x 1024 x 1025 x 64 (pairs S(S+1)/2, two matmuls, 2 FLOPs).
    assert causal["components"]["attention_scores"] == 12 * 2 * 12 * 1024 * 1025 * 64
    table = run("flops", "-p", "gpt2-small", "-s", "1024").stdout
    assert "FlopCounterMode" in table and "Kaplan" in table and "PaLM" in table


def test_flops_encoder_decoder() -> None:
    data = run(
        "flops", "-p", "transformer-base", "-s", "64", "-t", "32", "-b", "2", "-f", "json"
    ).json()
    # Golden: reference_cases.json transformer-base B=2 S=64 T=32 (nn.Transformer, math SDPA).
    assert data["forward_flops"] == 11_056_709_632
    assert data["target_len"] == 32


def test_crossover_json_table_and_grid() -> None:
    data = run("crossover", "-p", "llama-3-8b", "--grid", "-f", "json").json()
    assert data["crossover"] == {
        "scores_vs_ffn": 21504,
        "scores_vs_projections": 5120,
        "scores_vs_dense": 26624,
    }
    seq = [row["seq_len"] for row in data["rows"]]
    assert {21504, 5120, 26624} <= set(seq) and seq == sorted(seq)
    # A plain 4x FFN: scores = FFN at S = d_ff (= 4 d_model) in every grid column.
    grid = run("crossover", "-p", "gpt2-small", "--grid", "-f", "json").json()["grid"]
    assert grid["scores_vs_ffn"] == grid["d_ff"] == [4 * d for d in grid["d_models"]]
    out = run("crossover", "-p", "gpt2-small", "--grid").stdout
    assert "3,072" in out and "Share of one layer" in out


def test_presets_and_show() -> None:
    data = run("presets", "-f", "json").json()
    assert {p["name"] for p in data["presets"]} == set(preset_names())
    assert all(p["source"] for p in data["presets"])
    show = run("show", "llama-3-8b", "-f", "json").json()
    assert show["n_kv_heads"] == 8 and show["activation"] == "swiglu"


def test_python_dash_m(tmp_path: Path) -> None:
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "ffn_calc", "params", "-p", "tinyllama-1.1b", "-f", "json"],
                       capture_output=True, text=True, cwd=tmp_path, check=False)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert '"total_params": 1100048384' in r.stdout  # reference_cases.json tinyllama-1.1b


# --- bad input: exit 2, a message naming the problem on stderr, nothing on stdout ---------


def bad(*args: str) -> str:
    r = run(*args)
    assert r.exit_code == 2, (r.stdout, r.stderr)
    assert r.stdout == ""
    assert "Traceback" not in r.stderr
    return r.stderr


def test_unknown_preset_suggests() -> None:
    err = bad("params", "-p", "gpt2-smal")
    assert "unknown preset 'gpt2-smal'" in err and "gpt2-small" in err


def test_bad_files(tmp_path: Path) -> None:
    assert "does not exist" in bad("params", "--config", str(tmp_path / "nope.toml"))
    assert "is a directory" in bad("params", "--config", str(tmp_path))
    (tmp_path / "empty.toml").write_text("  \n")
    assert "is empty" in bad("params", "--config", str(tmp_path / "empty.toml"))
    (tmp_path / "bin.toml").write_bytes(b"\x00\x01\x02binary")
    assert "binary" in bad("params", "--config", str(tmp_path / "bin.toml"))
    (tmp_path / "latin.toml").write_bytes(b"d_model = 1 # caf\xe9\n")
    assert "not UTF-8" in bad("params", "--config", str(tmp_path / "latin.toml"))
    (tmp_path / "broken.toml").write_text("d_model = 768\nn_heads = = 12\n")
    err = bad("params", "--config", str(tmp_path / "broken.toml"))
    assert "malformed TOML" in err and "line 2" in err
    (tmp_path / "broken.json").write_text('{\n  "d_model": 768,\n  "n_heads": }\n')
    err = bad("params", "--config", str(tmp_path / "broken.json"))
    assert "malformed JSON" in err and "line 3" in err
    (tmp_path / "array.json").write_text("[1, 2]")
    assert "found an array" in bad("params", "--config", str(tmp_path / "array.json"))


def test_unreadable_file(tmp_path: Path) -> None:
    import os

    p = tmp_path / "secret.toml"
    p.write_text("d_model = 1\n")
    p.chmod(0)
    if os.access(p, os.R_OK):  # running as root: permissions do not apply
        pytest.skip("file permissions are not enforced for this user")
    assert "cannot read" in bad("params", "--config", str(p))


def write(tmp_path: Path, text: str, name: str = "m.toml") -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


GOOD = "n_layers = 2\nd_model = 64\nn_heads = 4\nd_ff = 256\n"


def test_config_file_errors_name_field_value_and_line(tmp_path: Path) -> None:
    assert run("params", "-c", write(tmp_path, GOOD), "-f", "json").exit_code == 0
    err = bad("params", "-c", write(tmp_path, GOOD + "d_modle = 5\n"))
    assert "line 5" in err and "unknown field 'd_modle'" in err and "did you mean 'd_model'" in err
    err = bad("params", "-c", write(tmp_path, GOOD.replace("d_ff = 256", "d_ff = -3")))
    assert "line 4" in err and "d_ff = -3" in err and "greater than 0" in err
    err = bad("params", "-c", write(tmp_path, GOOD.replace("d_ff = 256", 'd_ff = "256"')))
    assert "d_ff = '256'" in err and "integer" in err
    err = bad("params", "-c", write(tmp_path, GOOD.replace("d_ff = 256", "d_ff = 25.5")))
    assert "d_ff = 25.5" in err
    err = bad("params", "-c", write(tmp_path, GOOD.replace("n_heads = 4", "n_heads = 3")))
    assert "n_heads (3) must divide d_model (64)" in err
    err = bad("params", "-c", write(tmp_path, GOOD + "n_kv_heads = 3\n"))
    assert "n_kv_heads (3) must divide n_heads (4)" in err
    err = bad("params", "-c", write(tmp_path, GOOD + "n_experts = 2\nexperts_per_token = 3\n"))
    assert "experts_per_token (3) cannot exceed n_experts (2)" in err
    err = bad("params", "-c", write(tmp_path, GOOD.replace("d_model = 64\n", "")))
    assert "required field 'd_model' is missing" in err
    err = bad(
        "params",
        "-c",
        write(tmp_path, '{"n_layers": 1, "d_model": 8, "n_heads": 2, "d_ff": 0}', "m.json"),
    )
    assert "line 1" in err and "d_ff = 0" in err


def test_json_config_file_works(tmp_path: Path) -> None:
    p = write(
        tmp_path,
        '{"n_layers": 12, "d_model": 768, "n_heads": 12, "d_ff": 3072, "bias": 1}',
        "m.json",
    )
    assert "unknown field 'bias'" in bad("params", "-c", p)


def test_flag_errors() -> None:
    assert "choose one model source" in bad("params", "-p", "gpt2-small", "--hf-config", "x.json")
    assert "no model given" in bad("params")
    assert "no model given" in bad("params", "--d-model", "64")
    assert "d_model = -8" in bad("params", "--d-model", "-8", "--n-heads", "2")
    assert "must divide" in bad("params", "-p", "gpt2-small", "--n-heads", "7")
    assert "--d-model" in bad("params", "--d-model", "abc", "--n-heads", "2")
    assert "--activation" in bad("params", "-p", "gpt2-small", "--activation", "tanhh")


def test_flops_errors() -> None:
    assert "--seq-len" in bad("flops", "-p", "gpt2-small", "--seq-len", "0")
    assert "--seq-len" in bad("flops", "-p", "gpt2-small", "--seq-len", "ten")
    assert "--seq-len" in bad("flops", "-p", "gpt2-small")
    assert "--target-len applies to encoder-decoder" in bad(
        "flops", "-p", "gpt2-small", "-s", "8", "-t", "4"
    )
    assert "--format" in bad("flops", "-p", "gpt2-small", "-s", "8", "--format", "yaml")


# --- help and the documentation -----------------------------------------------------------


def test_every_command_has_help_and_is_in_the_readme() -> None:
    from ffn_calc.cli import app

    names = [c.name for c in app.registered_commands]
    assert len(names) >= 5
    for name in names:
        r = run(name, "--help")
        assert r.exit_code == 0 and "Usage" in r.stdout
        assert f"ffn-calc {name}" in DOCS, f"the documentation does not show `ffn-calc {name}`"


def test_readme_example_output_is_current() -> None:
    for args, marker in (
        (["params", "--preset", "gpt2-small"], "`ffn-calc params --preset gpt2-small`:"),
        (["crossover", "--preset", "gpt2-small"], "`ffn-calc crossover --preset gpt2-small`:"),
        (["presets"], "`ffn-calc presets`:"),
    ):
        assert readme_block(marker) == shown(args, 120), f"README block after {marker} is stale"
