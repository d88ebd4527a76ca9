"""Every field a config.json may leave out takes its class default, torch-free: for every
family in the registry, the config.json with its model_type and architectures only (every
other field left out at once) counts what transformers 5.24.0 instantiates from the
configuration class's defaults, or is refused as tests/data/class_defaults.json says.

The figures in tests/data/class_defaults.json come from transformers 5.24.0 and torch 2.13.0
(the class built on the meta device, sum of parameters(); its `method` says how);
tests/test_oracle_class_defaults.py proves the table against transformers and checks each
family module's DEFAULTS against its configuration class.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, run

from ffn_calc.model.families import REGISTRY

TABLE: dict[str, dict[str, Any]] = json.loads((DATA / "class_defaults.json").read_text())[
    "families"
]


def test_every_family_has_a_row() -> None:
    assert set(TABLE) == set(REGISTRY)


@pytest.mark.parametrize("family", sorted(REGISTRY))
def test_every_field_left_out_at_once(family: str, tmp_path: Path) -> None:
    row = TABLE[family]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(row["config_json"]))
    r = run("params", "--hf-config", str(path), "-f", "json")
    if "refused" in row:  # one message naming what is missing or not counted, exit 2
        assert r.exit_code == 2 and r.stdout == "" and row["refused"] in r.stderr, r.stderr
        assert "Traceback" not in r.stderr
        return
    assert r.exit_code == 0, r.stderr
    counted = r.json()
    if "not_built" in row:  # the class is not built here: its language model's class is
        text = TABLE[row["language_model_as"]]["total_params"]
        assert counted["language_model_params"] == text  # transformers 5.24.0, meta device
        return
    assert counted["total_params"] == row["total_params"]  # transformers 5.24.0, meta device
    assert "absent, so transformers' defaults" in counted["source"]
