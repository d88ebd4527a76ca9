"""`ffn-calc check BUDGETS.toml`: every budget of a file checked in one process; table, JSON and
JUnit XML; exit 0 when all hold, 1 when one fails, 2 on a bad file (with its line). The
documented example file, GitHub Actions step and pre-commit hook run as written."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest
from conftest import DOC_PAGES, ROOT, readme_block, run, shown

EXAMPLE = ROOT / "examples" / "budgets.toml"
PAGE = DOC_PAGES["docs/budgets.md"]

# gpt2-small: 124,439,808 parameters (README's example; the instantiated GPT2LMHeadModel).
GPT2_TOTAL = 124_439_808


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_example_budgets_file_holds() -> None:
    r = run("check", str(EXAMPLE), "-f", "json")
    assert r.exit_code == 0, r.stderr
    data = r.json()
    assert data["ok"] is True and data["requirements"] == 7 and data["failed"] == 0
    draft, serving = data["budgets"]
    # draft-7b: Llama 2 7B with 8 KV heads and d_ff 12,288: 6,436,425,728 parameters (as
    # `ffn-calc params --config examples/models/draft-7b.toml`; README's sweep example row
    # d_ff 12,288, n_kv_heads 8 of llama-2-7b gives the same 6,436,425,728).
    assert draft["requirements"][0]["value"] == 6_436_425_728
    # Its cache after 32,768 tokens: 2 x 8 KV heads x 128 x 32 layers x 32,768 x 2 bytes = 4 GiB.
    assert draft["requirements"][1]["value"] == 2 * 8 * 128 * 32 * 32768 * 2 == 4 * 2**30
    assert draft["requirements"][3]["metric"] == "forward_flops@4096"
    assert serving["dtype"] == "fp8" and serving["batch"] == 8
    # llama-3-8b in fp8: 8,030,261,248 parameters x 1 byte.
    assert serving["requirements"][0]["value"] == 8_030_261_248


def test_the_documented_example_is_the_file_and_its_output_is_current() -> None:
    block = PAGE[PAGE.index("```toml\n") + len("```toml\n") :]
    block = block[: block.index("\n```")]
    text = EXAMPLE.read_text(encoding="utf-8")
    assert text[text.index("[[budget]]") :].rstrip("\n") == block
    marker = "`ffn-calc check examples/budgets.toml`:"
    assert readme_block(marker) == shown(["check", str(EXAMPLE.relative_to(ROOT))], 100)


def test_a_failing_budget_exits_1_and_marks_the_requirement(tmp_path: Path) -> None:
    f = write(tmp_path / "b.toml", '[[budget]]\npreset = "gpt2-small"\n'
              'require = ["total_params <= 100M", "ffn_share >= 40%", "non_embedding_params < 1e9"]\n')  # fmt: skip
    r = run("check", str(f))
    assert r.exit_code == 1
    rows = {line.split()[0]: line.split()[-1] for line in r.stdout.splitlines() if "_" in line}
    assert rows == {"total_params": "FAILS", "ffn_share": "holds", "non_embedding_params": "holds"}
    assert "1 of 3 requirements failed: exit code 1." in r.stdout
    j = run("check", str(f), "-f", "json")
    assert j.exit_code == 1
    data = j.json()
    assert (data["ok"], data["failed"], data["requirements"]) == (False, 1, 3)
    assert data["budgets"][0]["requirements"][0]["value"] == GPT2_TOTAL


def test_tables_in_the_readers_language(tmp_path: Path) -> None:
    f = write(
        tmp_path / "b.toml",
        '[[budget]]\npreset = "gpt2-small"\nrequire = ["total_params <= 100M"]\n',
    )
    r = run("check", str(f), "--lang", "zh")
    assert r.exit_code == 1
    assert "要件" in r.stdout and "未满足" in r.stdout and "退出码 1" in r.stdout


def test_paths_are_relative_to_the_budgets_file(tmp_path: Path, monkeypatch: Any) -> None:
    write(tmp_path / "repo" / "models" / "tiny.toml",
          'name = "tiny"\nd_model = 128\nn_heads = 4\nd_ff = 512\nn_layers = 2\nvocab_size = 1000\n')  # fmt: skip
    hf = '{"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 2, "vocab_size": 100, "n_positions": 128}'
    write(tmp_path / "repo" / "ckpt" / "config.json", hf)
    f = write(tmp_path / "repo" / "ci" / "budgets.toml",
              '[[budget]]\nconfig = "../models/tiny.toml"\nrequire = ["total_params < 1M"]\n\n'
              '[[budget]]\nhf_config = "../ckpt"\nrequire = ["total_params < 1M"]\n')  # fmt: skip
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    r = run("check", str(f.relative_to(tmp_path).as_posix()).join(["../", ""]), "-f", "json")
    assert r.exit_code == 0, r.stderr
    tiny, gpt = r.json()["budgets"]
    # tiny, a config file's defaults (no biases, an untied head, no position table,
    # LayerNorm): embedding 1,000 x 128 + 2 layers x (4 x 128^2 attention + 2 x 128 x 512 FFN
    # + 2 norms x 2 x 128) + final norm 2 x 128 + head 128 x 1,000 = 650,496 (as
    # `ffn-calc params --config` gives, component by component).
    layer = 4 * 128 * 128 + 2 * 128 * 512 + 2 * 2 * 128
    assert tiny["requirements"][0]["value"] == 1000 * 128 + 2 * layer + 256 + 128 * 1000 == 650_496
    assert tiny["source"] == "config ../models/tiny.toml"
    assert gpt["model"] and gpt["requirements"][0]["holds"] is True


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ('[[budget]]\npreset = "gpt2-small"\nrequire = ["total_params < 1e9",\n  "fnn_share > 0.5"]\n',
         4, ["unknown metric 'fnn_share'", "Did you mean ffn_share", "Metrics: total_params"]),
        ('[[budget]]\npreset = "gpt2-small"\nrequires = ["total_params < 1e9"]\n',
         3, ["unknown key 'requires'", "Did you mean require"]),
        ('[[budget]]\npreset = "gpt2-small"\nrequire = ["total_params < 1e9"]\n\n[[budget]]\n'
         'preset = "gpt2-small"\nbatch = 0\nrequire = ["total_params < 1e9"]\n', 7, ["budget 2", "batch"]),
        ('[[budget]]\npreset = "gpt2-smal"\nrequire = ["total_params < 1e9"]\n', 2, ["gpt2-smal"]),
        ('[[budget]]\nconfig = "missing.toml"\nrequire = ["total_params < 1e9"]\n', 2, ["missing.toml"]),
        ('[[budget]]\npreset = "gpt2-small"\nconfig = "m.toml"\nrequire = ["total_params < 1e9"]\n',
         3, ["name one model"]),
        ('[[budget]]\npreset = "gpt2-small"\nrequire = "total_params < 1e9"\n', 3, ["require is a list"]),
        ('[[budget]]\npreset = "gpt2-small"\ndtype = "fp9"\nrequire = ["total_params < 1e9"]\n',
         3, ["dtype is one of"]),
        ('[[budget]]\npreset = "gpt2-small"\nrequire = ["total_params < 1e9"]\nrequire = []\n',
         4, ["Cannot overwrite a value"]),  # a key twice: the TOML parser's line
        ('[[budget]]\npreset = "gpt2-small"\nrequire = ["total_params < 1e9" \n', None, ["malformed TOML"]),
        ('[[budget]]\npreset = "gpt2-small"\nrequire = ["forward_flops < 1e9"]\n',
         3, ["forward_flops takes a length", "seq_len = S"]),
        # gpt2-small has 1,024 learned positions.
        ('[[budget]]\npreset = "gpt2-small"\nseq_len = 2048\nrequire = ["forward_flops < 1e9"]\n',
         4, ["1,024"]),
        ('[[budget]]\npreset = "gpt2-small"\nrequire = ["total_params <= 7GB"]\n', 3, ["total_params"]),
        ('[limits]\nx = 1\n', 1, ["unknown key 'limits'"]),
        ('# nothing\nname = "x"\n', 2, ["unknown key 'name'"]),
    ],
)  # fmt: skip
def test_a_bad_file_exits_2_naming_the_file_and_line(
    tmp_path: Path, text: str, line: int | None, says: list[str]
) -> None:
    f = write(tmp_path / "budgets.toml", text)
    for fmt in ("table", "json", "junit"):
        r = run("check", str(f), "-f", fmt)
        assert r.exit_code == 2, r.stdout
        assert r.stdout == "" and "Traceback" not in r.stderr
        assert str(f) in r.stderr
        if line is not None:
            assert f"line {line}" in r.stderr, r.stderr
        for s in says:
            assert s in r.stderr, (s, r.stderr)


def test_an_empty_or_missing_file_exits_2(tmp_path: Path) -> None:
    assert run("check", str(tmp_path / "none.toml")).exit_code == 2
    empty = write(tmp_path / "empty.toml", "# no budgets yet\n")
    r = run("check", str(empty))
    assert r.exit_code == 2 and "no budgets" in r.stderr


def _junit(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == "testsuites"
    return root


def test_junit_is_read_by_a_standard_parser_with_the_right_failure_count(tmp_path: Path) -> None:
    f = write(tmp_path / "b.toml",
              '[[budget]]\nname = "small <model> & co"\npreset = "gpt2-small"\n'
              'require = ["total_params <= 100M", "ffn_share > 50%", "total_params > 1M"]\n\n'
              '[[budget]]\npreset = "llama-2-7b"\nrequire = ["total_params <= 7e9"]\n')  # fmt: skip
    r = run("check", str(f), "-f", "junit", "--lang", "ja")
    assert r.exit_code == 1
    root = _junit(r.stdout)
    assert (root.get("tests"), root.get("failures")) == ("4", "2")
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["small <model> & co", "llama-2-7b"]
    assert [(s.get("tests"), s.get("failures")) for s in suites] == [("3", "2"), ("1", "0")]
    cases = root.findall(".//testcase")
    assert [c.get("name") for c in cases] == [
        "total_params <= 100M",
        "ffn_share > 50%",
        "total_params > 1M",
        "total_params <= 7e9",
    ]
    failures = [c.find("failure") for c in cases]
    assert [x is not None for x in failures] == [True, True, False, False]
    # English whatever the language: what CI systems read.
    assert (
        failures[0] is not None
        and failures[0].get("message") == "total_params = 124,439,808 > 100M"
    )
    assert failures[1] is not None and failures[1].get("message") == "ffn_share = 45.5394% <= 50%"
    ok = run("check", str(EXAMPLE), "-f", "junit")
    assert ok.exit_code == 0 and _junit(ok.stdout).get("failures") == "0"


def _yaml_blocks() -> list[str]:
    return re.findall(r"```yaml\n(.*?)\n```", PAGE, re.DOTALL)


def _run_documented(command: str) -> Any:
    """A documented `ffn-calc ...` command run from the repository's root (the examples'
    paths are relative to it), with its stdout redirect left to the caller."""
    words = shlex.split(command.partition(">")[0])
    assert words[0] == "ffn-calc"
    return run(*words[1:])


def test_the_github_actions_step_runs_as_written(monkeypatch: Any) -> None:
    step = _yaml_blocks()[0]
    command = re.search(r"run: (ffn-calc .*)", step)
    assert command is not None
    assert "> budgets.xml" in command.group(1) and "report_paths: budgets.xml" in step
    monkeypatch.chdir(ROOT)
    r = _run_documented(command.group(1))
    assert r.exit_code == 0 and _junit(r.stdout).get("failures") == "0"
    yaml = pytest.importorskip("yaml")
    steps = yaml.safe_load(step)
    assert [s["name"] for s in steps] == ["Model budgets", "Budgets report"]
    assert steps[1]["if"] == "always()"


def test_the_pre_commit_hook_runs_as_written(monkeypatch: Any) -> None:
    hook = _yaml_blocks()[1]
    entry = re.search(r"entry: (.*)", hook)
    assert entry is not None
    monkeypatch.chdir(ROOT)
    assert _run_documented(entry.group(1)).exit_code == 0
    pattern = re.search(r"files: (.*)", hook)
    assert pattern is not None
    for changed in ("examples/budgets.toml", "examples/models/draft-7b.toml"):
        assert re.search(pattern.group(1), changed), changed
    assert not re.search(pattern.group(1), "ffn_calc/cli/app.py")
    yaml = pytest.importorskip("yaml")
    (local,) = yaml.safe_load(hook)["repos"]
    (h,) = local["hooks"]
    assert local["repo"] == "local"
    assert (h["language"], h["pass_filenames"]) == ("system", False)


def test_every_budget_is_checked_in_one_process(tmp_path: Path) -> None:
    many = "".join(
        f'[[budget]]\npreset = "gpt2-small"\nrequire = ["total_params == {GPT2_TOTAL}"]\n\n'
        for _ in range(50)
    )
    r = run("check", str(write(tmp_path / "b.toml", many)), "-f", "json")
    assert r.exit_code == 0 and r.json()["requirements"] == 50


def test_junit_stays_well_formed_with_control_characters_in_a_name(tmp_path: Path) -> None:
    f = write(tmp_path / "b.toml", '[[budget]]\nname = "bell\\u0007 \\u001b[31mred"\n'
              'preset = "gpt2-small"\nrequire = ["total_params <= 1M"]\n')  # fmt: skip
    r = run("check", str(f), "-f", "junit")
    assert r.exit_code == 1
    root = _junit(r.stdout)
    assert root.get("failures") == "1"
    assert root.findall("testsuite")[0].get("name") == "bell? ?[31mred"
