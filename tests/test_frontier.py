"""The 2025-26 model types of tests/data/frontier.json: exact totals, or a clean refusal.

Each case is a real-size config.json (the released file as recalled, or the configuration
class's defaults; its `note` says which) with the exact parameter count of the class named in
`architectures` (transformers 5.24.0, torch 2.13.0, meta device): `total_params`,
`active_params` where experts are routed, and `language_model_params` for a multimodal
wrapper (the language model plus its head, a tied head once). For a model type ffn-calc
counts, `params --format json` must give every one of them exactly, read with `--hf-config`
and again through `import-hf` then `--config`; for a type it does not count yet, loading must
refuse cleanly (exit 2, the model type named, nothing on stdout). Hybrid models (token mixers
other than attention) are listed too: they are refused until their mixers are counted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, run

from ffn_calc.model.families import REGISTRY

CASES: list[dict[str, Any]] = json.loads((DATA / "frontier.json").read_text())["cases"]

# What params --format json must give, by key, where the case records it.
KEYS = ("total_params", "active_params", "language_model_params")


def _write(case: dict[str, Any], tmp_path: Path) -> Path:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(case["hf_config"], indent=2))
    return path


def _params(*args: str) -> dict[str, Any]:
    result = run("params", *args, "--format", "json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_frontier_case_is_exact_or_refused(case: dict[str, Any], tmp_path: Path) -> None:
    path = _write(case, tmp_path)
    if case["model_type"] not in REGISTRY:  # not counted yet: refused, with its type named
        result = run("params", "--hf-config", str(path), "--format", "json")
        assert result.exit_code == 2
        assert result.stdout == ""
        assert case["model_type"] in result.stderr
        return
    expected = {k: case[k] for k in KEYS if isinstance(case.get(k), int)}
    assert expected, case["name"]
    out = _params("--hf-config", str(path))
    assert {k: out.get(k) for k in expected} == expected  # frontier.json, this case's figures
    if case.get("active_params") is None and out.get("active_params") is not None:
        assert out["active_params"] == out["total_params"]  # no routed experts: every one active
    imported = run("import-hf", str(path))
    assert imported.exit_code == 0, imported.stderr
    toml = tmp_path / "model.toml"
    toml.write_text(imported.stdout)
    again = _params("--config", str(toml))
    assert {k: again.get(k) for k in expected} == expected  # the same figures via import-hf
