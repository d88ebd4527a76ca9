"""`--hf-config ORG/NAME[@REVISION]`: a config.json from the local Hugging Face cache, offline.

Each test builds a cache in tmp_path with huggingface_hub's layout (blobs, snapshot files that
are symbolic links to them, refs/<name> holding a commit hash) around a real config.json:
tests/data/checkpoints/tiny-llama-gqa.config.json, whose model has 66,096 parameters (the
instantiated LlamaForCausalLM; tests/test_hf.py and tests/data/README.md).
"""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest
from conftest import ROOT, run

import ffn_calc
from ffn_calc.errors import FileError
from ffn_calc.families.hub import RepoRef, cache_folder, parse_repo_id

CONFIG = ROOT / "tests" / "data" / "checkpoints" / "tiny-llama-gqa.config.json"
TINY_TOTAL = 66_096  # the instantiated tiny Llama (see the module docstring)
COMMIT = "0123456789abcdef0123456789abcdef01234567"
OTHER = "89abcdef0123456789abcdef0123456789abcdef"
VARIABLES = ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME")


def cache(
    hub: Path,
    repo: str = "acme/tiny",
    refs: dict[str, str] | None = None,
    snapshots: tuple[str, ...] = (COMMIT,),
    text: str | None = None,
) -> Path:
    """A repo in the cache `hub`, as `hf download REPO config.json` leaves it."""
    folder = hub / ("models--" + repo.replace("/", "--"))
    (folder / "blobs").mkdir(parents=True, exist_ok=True)
    blob = folder / "blobs" / "5f1d0e2a"
    blob.write_text(text if text is not None else CONFIG.read_text(encoding="utf-8"))
    for commit in snapshots:
        (folder / "snapshots" / commit).mkdir(parents=True)
        (folder / "snapshots" / commit / "config.json").symlink_to("../../blobs/5f1d0e2a")
    for name, commit in ({"main": COMMIT} if refs is None else refs).items():
        (folder / "refs" / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / "refs" / name).write_text(commit)
    return folder


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    """No cache variable set, a home of its own, and the working directory in tmp_path."""
    for var in VARIABLES:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    return monkeypatch


def total(*args: str) -> int:
    r = run("params", *args, "-f", "json")
    assert r.exit_code == 0, r.stderr
    return int(r.json()["total_params"])


@pytest.mark.parametrize(
    ("setting", "folder"),
    [
        ({"HF_HUB_CACHE": "a", "HUGGINGFACE_HUB_CACHE": "b", "HF_HOME": "c"}, "a"),
        ({"HUGGINGFACE_HUB_CACHE": "b", "HF_HOME": "c", "XDG_CACHE_HOME": "d"}, "b"),
        ({"HF_HOME": "c", "XDG_CACHE_HOME": "d"}, "c/hub"),
        ({"XDG_CACHE_HOME": "d"}, "d/huggingface/hub"),
        ({}, "home/.cache/huggingface/hub"),
        ({"HF_HUB_CACHE": "", "HF_HOME": "c"}, "c/hub"),  # empty counts as unset
    ],
)
def test_the_cache_folder_follows_huggingface_hub(
    env: pytest.MonkeyPatch, tmp_path: Path, setting: dict[str, str], folder: str
) -> None:
    # The precedence of huggingface_hub.constants: HF_HUB_CACHE, its legacy name
    # HUGGINGFACE_HUB_CACHE, $HF_HOME/hub, $XDG_CACHE_HOME/huggingface/hub, ~/.cache/...
    for var, value in setting.items():
        env.setenv(var, str(tmp_path / value) if value else "")
    cache(tmp_path / folder)
    assert cache_folder()[0] == tmp_path / folder
    assert total("--hf-config", "acme/tiny") == TINY_TOTAL


def test_the_source_names_the_repo_and_the_snapshot(
    env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    env.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    cache(tmp_path / "hub")
    r = run("params", "--hf-config", "acme/tiny", "-f", "json")
    assert r.exit_code == 0, r.stderr
    data = r.json()
    assert data["model"] == "acme/tiny"
    assert data["source"] == (
        "Hugging Face config.json (llama, LlamaForCausalLM): "
        f"acme/tiny@{COMMIT[:12]} (Hugging Face cache)"
    )
    shown = run("import-hf", "acme/tiny")  # import-hf takes a repo id as well
    assert shown.exit_code == 0 and f'source = "{data["source"]}"' in shown.stdout


def test_a_revision_is_a_ref_name_or_a_full_commit(env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    env.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    # main -> the tiny Llama; v2 and refs/pr/1 -> a snapshot with 4 layers instead of 3.
    bigger = CONFIG.read_text(encoding="utf-8").replace(
        '"num_hidden_layers": 3', '"num_hidden_layers": 4'
    )
    assert bigger != CONFIG.read_text(encoding="utf-8")
    folder = cache(tmp_path / "hub")
    (folder / "blobs" / "77aa").write_text(bigger)
    (folder / "snapshots" / OTHER).mkdir()
    (folder / "snapshots" / OTHER / "config.json").symlink_to("../../blobs/77aa")
    (folder / "refs" / "v2").write_text(OTHER + "\n")
    (folder / "refs" / "refs" / "pr").mkdir(parents=True)
    (folder / "refs" / "refs" / "pr" / "1").write_text(OTHER)
    # One more decoder layer of the tiny Llama: 18,912 parameters (66,096 - 4,656 x 2 embedding
    # and head - 48 final norm = 56,736 = 3 x 18,912 per layer; 56,736 / 3 = 18,912).
    per_layer = (TINY_TOTAL - 2 * 4_656 - 48) // 3
    assert total("--hf-config", "acme/tiny@main") == TINY_TOTAL
    assert total("--hf-config", "acme/tiny@v2") == TINY_TOTAL + per_layer
    assert total("--hf-config", "acme/tiny@refs/pr/1") == TINY_TOTAL + per_layer
    assert total("--hf-config", f"acme/tiny@{OTHER}") == TINY_TOTAL + per_layer
    short = run("params", "--hf-config", f"acme/tiny@{OTHER[:7]}")  # a short hash is no ref
    assert short.exit_code == 2 and short.stdout == ""
    assert f"refs/{OTHER[:7]}" in short.stderr


def test_not_cached_exits_2_and_says_how_to_fetch(env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    env.setenv("HF_HOME", str(tmp_path / "hf"))
    r = run("params", "--hf-config", "meta-llama/Llama-3.1-8B")
    assert r.exit_code == 2
    assert r.stdout == ""
    message = " ".join(r.stderr.split())
    assert "'meta-llama/Llama-3.1-8B' is not in the Hugging Face cache" in message
    assert "models--meta-llama--Llama-3.1-8B" in message
    assert str(tmp_path / "hf" / "hub") in "".join(r.stderr.split()) and "HF_HOME" in message
    assert "hf download meta-llama/Llama-3.1-8B config.json" in message
    assert "Traceback" not in r.stderr
    tagged = run("params", "--hf-config", "acme/tiny@v1")
    assert tagged.exit_code == 2 and "--revision v1" in " ".join(tagged.stderr.split())


def test_a_repo_without_refs_main_is_refused_naming_its_snapshots(
    env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    env.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    cache(tmp_path / "hub", refs={}, snapshots=(COMMIT,))
    r = run("params", "--hf-config", "acme/tiny")
    assert r.exit_code == 2 and r.stdout == ""
    assert COMMIT in "".join(r.stderr.split()) and "refs/main" in r.stderr
    assert total("--hf-config", f"acme/tiny@{COMMIT}") == TINY_TOTAL


def test_a_ref_that_holds_no_commit_is_refused(env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    env.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    cache(tmp_path / "hub", refs={"main": "../../../etc"})
    r = run("params", "--hf-config", "acme/tiny")
    assert r.exit_code == 2 and r.stdout == "" and "commit hash" in r.stderr


@pytest.mark.parametrize(
    "text",
    ["acme", "a/b/c", "-acme/tiny", "acme/tiny.", "ac--me/tiny", "acme/ti..ny", "acme/tiny.git",
     "acme/tiny@", "acme/tiny@../x", "acme/tiny@a b", "café/tiny", "a/" + "x" * 97],
)  # fmt: skip
def test_what_is_not_a_repo_id_stays_a_missing_file(env: pytest.MonkeyPatch, text: str) -> None:
    # huggingface_hub's validate_repo_id grammar (ORG required here): not an id, so the
    # existing "does not exist" error of a path.
    assert parse_repo_id(text) is None
    r = run("params", "--hf-config", text)
    assert r.exit_code == 2 and r.stdout == ""
    assert "does not exist" in r.stderr and "Hugging Face cache" not in r.stderr


def test_repo_ids_of_the_hub_grammar_parse() -> None:
    assert parse_repo_id("meta-llama/Llama-3.1-8B") == RepoRef("meta-llama/Llama-3.1-8B", "main")
    assert parse_repo_id("Qwen/Qwen2.5-0.5B@v1.0") == RepoRef("Qwen/Qwen2.5-0.5B", "v1.0")
    assert parse_repo_id("a_/_b@refs/pr/3") == RepoRef("a_/_b", "refs/pr/3")
    assert parse_repo_id("x" * 96 + "/" + "y" * 96) is not None


def test_a_local_path_shadows_a_repo_id(env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    env.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    cache(tmp_path / "hub")
    # ./acme/tiny, a directory holding gpt2's config.json (30,752 parameters: the tiny GPT-2
    # of tests/data/checkpoints), wins over the cached acme/tiny.
    (tmp_path / "acme" / "tiny").mkdir(parents=True)
    gpt2 = ROOT / "tests" / "data" / "checkpoints" / "tiny-gpt2.config.json"
    (tmp_path / "acme" / "tiny" / "config.json").write_text(gpt2.read_text(encoding="utf-8"))
    assert total("--hf-config", "acme/tiny") == 30_752
    # A local directory without config.json is still the local path, and says so.
    (tmp_path / "acme" / "tiny" / "config.json").unlink()
    r = run("params", "--hf-config", "acme/tiny")
    assert r.exit_code == 2 and "holds no config.json" in r.stderr


def test_nothing_touches_the_network(env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a socket was opened")

    env.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    cache(tmp_path / "hub")
    env.setattr(socket, "socket", refuse)
    env.setattr(socket, "create_connection", refuse)
    env.setattr(socket, "getaddrinfo", refuse)
    assert total("--hf-config", "acme/tiny") == TINY_TOTAL
    assert run("params", "--hf-config", "acme/missing").exit_code == 2
    assert ffn_calc.load(hf_config="acme/tiny").name == "acme/tiny"


def test_the_python_api_and_compare_take_a_repo_id(env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    env.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    cache(tmp_path / "hub")
    model = ffn_calc.load(hf_config="acme/tiny")
    assert ffn_calc.params(model).total_params == TINY_TOTAL
    with pytest.raises(FileError, match=re.escape("hf download acme/nope config.json")):
        ffn_calc.load(hf_config="acme/nope")
    r = run("compare", "gpt2-small", "--hf-config", "acme/tiny", "-f", "json")
    assert r.exit_code == 0, r.stderr
    assert "acme/tiny" in r.stdout
    v = run("verify", "--hf-config", "acme/tiny")
    assert v.exit_code == 0, v.stderr


def test_a_budgets_file_names_a_repo_id(env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    env.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    cache(tmp_path / "hub")
    budgets = tmp_path / "ci" / "budgets.toml"
    budgets.parent.mkdir()
    budgets.write_text('[[budget]]\nhf_config = "acme/tiny"\nrequire = ["total_params == 66096"]\n')
    r = run("check", str(budgets), "-f", "json")
    assert r.exit_code == 0, r.stdout + r.stderr
    # A file relative to the budgets file wins (ci/acme/tiny, the tiny GPT-2: 30,752) ...
    (tmp_path / "ci" / "acme" / "tiny").mkdir(parents=True)
    gpt2 = ROOT / "tests" / "data" / "checkpoints" / "tiny-gpt2.config.json"
    (tmp_path / "ci" / "acme" / "tiny" / "config.json").write_text(gpt2.read_text(encoding="utf-8"))
    assert run("check", str(budgets)).exit_code == 1
    # ... but one relative to the working directory does not: there the id is the cache's.
    (tmp_path / "ci" / "acme" / "tiny" / "config.json").rename(tmp_path / "config.json")
    (tmp_path / "ci" / "acme" / "tiny").rmdir()
    (tmp_path / "acme" / "tiny").mkdir(parents=True)
    (tmp_path / "config.json").rename(tmp_path / "acme" / "tiny" / "config.json")
    assert run("check", str(budgets)).exit_code == 0
    missing = budgets.parent / "missing.toml"
    missing.write_text('[[budget]]\nhf_config = "acme/nope"\nrequire = ["total_params > 1"]\n')
    m = run("check", str(missing))
    assert m.exit_code == 2 and m.stdout == "" and "hf download acme/nope config.json" in m.stderr


def test_the_lookup_is_imported_only_when_asked_for() -> None:
    import subprocess
    import sys

    code = (
        "import sys\nfrom ffn_calc.cli import main\n"
        "sys.argv = ['ffn-calc', 'params', '--preset', 'gpt2-small', '--format', 'json']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('ffn_calc.families.hub' in sys.modules, file=sys.stderr)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.stderr.strip().endswith("False")


def test_a_snapshot_whose_blob_is_gone_names_the_link(
    env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    env.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    folder = cache(tmp_path / "hub")
    (folder / "blobs" / "5f1d0e2a").unlink()  # the snapshot's link now points nowhere
    r = run("params", "--hf-config", "acme/tiny")
    assert r.exit_code == 2 and r.stdout == "" and "broken symbolic link" in r.stderr


def test_a_repo_folder_without_snapshots_is_not_cached(
    env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # huggingface_hub leaves models--ORG--NAME with only refs/ or .no_exist/ after a failed fetch.
    env.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    cache(tmp_path / "hub", refs={}, snapshots=())
    r = run("params", "--hf-config", "acme/tiny")
    assert r.exit_code == 2 and r.stdout == ""
    assert "hf download acme/tiny config.json" in " ".join(r.stderr.split())
    cache(tmp_path / "hub", repo="acme/other", snapshots=())  # refs/main, no snapshot
    o = run("params", "--hf-config", "acme/other")
    assert o.exit_code == 2 and f"snapshots/{COMMIT}/config.json" in "".join(o.stderr.split())
