"""Differential test: a config.json that leaves out every field takes every class default.

Optional, as every oracle test: without torch and transformers (the `oracle` extra) it skips.
For every family in the registry, the config.json {"model_type": ..., "architectures": [the
class ffn-calc counts]} (every other field left out, all at once) is read

- by transformers: the family's configuration class (its ORACLE row) with no arguments, as
  `from_dict` reads that file, the model class instantiated on the meta device, its
  parameters summed;
- by ffn-calc: `params --hf-config` on the same file.

Both count the same, or the refusal is one of REFUSED, each with why. The figures are stored
in tests/data/class_defaults.json, which tests/test_class_defaults.py checks without torch;
this module proves that table against transformers (and rewrites it when run as a script:
`python tests/test_oracle_class_defaults.py`).

One field at a time, over real config.json files, is tests/test_oracle_defaults.py; each
DEFAULTS table of the family modules against its class's attributes is checked here too.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, run

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from oracle_cases import ORACLE  # noqa: E402

from ffn_calc.families import family_module  # noqa: E402
from ffn_calc.model.families import REGISTRY  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

TABLE = DATA / "class_defaults.json"

# model_type -> why ffn-calc refuses the class's defaults (a phrase of its message).
REFUSED: dict[str, str] = {
    # DeepseekV2Config's num_experts_per_tok defaults to None: the model builds, routing
    # cannot (torch.topk needs a k): a required field.
    "deepseek_v2": "required field 'num_experts_per_tok'",
    # Glm4MoeConfig has no head_dim and 96 heads over hidden_size 4,096: Glm4MoeAttention
    # floors the head width (42); ffn-calc takes heads that divide the width or a head_dim.
    "glm4_moe": "n_heads (96) must divide d_model (4096)",
    # HunYuanDenseV1Config and HunYuanMoEV1Config default head_dim to None: transformers
    # fails too (its rotary embedding raises None ** float).
    "hunyuan_v1_dense": "required field 'head_dim'",
    "hunyuan_v1_moe": "required field 'head_dim'",
    # Lfm2MoeConfig has no default layer pattern (layer_types None): transformers fails too.
    "lfm2_moe": "layer_types = null",
}

# model_type -> why transformers cannot build the class here, and the family whose class
# defaults its language model takes: ffn-calc's language_model_params is checked against it.
NOT_BUILT_HERE: dict[str, tuple[str, str]] = {
    # Gemma3nForConditionalGeneration builds its vision tower through timm (not an extra here).
    "gemma3n": ("its vision tower needs timm", "gemma3n_text"),
}


def hub_file(family: str) -> dict[str, Any]:
    """The config.json with every field left out: its model_type and architectures only."""
    module = family_module(family)
    assert module is not None
    return {"model_type": family, "architectures": [module.ARCHITECTURE]}


def instantiated(family: str) -> int | str:
    """Parameters of the class ffn-calc counts, built from the configuration class's defaults
    on the meta device, or the error transformers raises."""
    oracle = ORACLE[family]
    assert oracle.config is not None
    try:
        conf = getattr(transformers, oracle.config).from_dict(hub_file(family))
        with torch.device("meta"):
            model = getattr(transformers, hub_file(family)["architectures"][0])(conf)
    except Exception as exc:  # any refusal of transformers
        return f"{type(exc).__name__}: {exc}"
    return sum(p.numel() for p in model.parameters())


def row(family: str) -> dict[str, Any]:
    """One family's line of the table: the class's count, or its refusal."""
    hf = instantiated(family)
    out: dict[str, Any] = {"config_json": hub_file(family)}
    if isinstance(hf, int):
        out["total_params"] = hf
    else:
        out["transformers_error"] = hf.splitlines()[0][:200]
    if family in REFUSED:
        out["refused"] = REFUSED[family]
    if family in NOT_BUILT_HERE:
        out["not_built"], out["language_model_as"] = NOT_BUILT_HERE[family]
        out.pop("transformers_error", None)
    return out


def table() -> dict[str, Any]:
    return {
        "method": "transformers 5.24.0, torch 2.13.0: the configuration class of each family "
        "with no arguments (from_dict of config_json), the class in architectures built on the "
        "meta device, sum(p.numel() for p in model.parameters()); transformers_error where "
        "it fails; refused: the phrase of ffn-calc's refusal (tests/test_oracle_class_defaults.py)",
        "families": {family: row(family) for family in sorted(REGISTRY)},
    }


@pytest.mark.parametrize("family", sorted(REGISTRY))
def test_every_field_left_out_at_once(family: str, tmp_path: Path) -> None:
    stored = json.loads(TABLE.read_text())["families"][family]
    assert stored == row(family)  # the stored table is transformers' own
    path = tmp_path / "config.json"
    path.write_text(json.dumps(hub_file(family)))
    r = run("params", "--hf-config", str(path), "-f", "json")
    if family in REFUSED:
        assert r.exit_code == 2 and r.stdout == "" and REFUSED[family] in r.stderr, r.stderr
        return
    assert r.exit_code == 0, r.stderr
    if family in NOT_BUILT_HERE:  # the language model, against its own class's defaults
        text = row(NOT_BUILT_HERE[family][1])["total_params"]
        assert r.json()["language_model_params"] == text
        return
    assert r.json()["total_params"] == stored["total_params"]


@pytest.mark.parametrize("family", sorted(REGISTRY))
def test_defaults_tables_are_the_class_defaults(family: str) -> None:
    """Each size a family module's DEFAULTS gives is the configuration class's attribute (of
    its text config, for a wrapper whose DEFAULTS are the language model's)."""
    module = family_module(family)
    conf = getattr(transformers, ORACLE[family].config)()
    for key, value in getattr(module, "DEFAULTS", {}).items():
        owner = conf if hasattr(conf, key) else conf.get_text_config()
        have = getattr(owner, key)
        if isinstance(have, list) and not isinstance(value, list):  # one per layer, all equal
            have = have[0] if len(set(have)) == 1 else have
        assert have == value, (family, key)


def test_refusals_are_current() -> None:
    assert set(REFUSED) <= set(REGISTRY)


if __name__ == "__main__":
    TABLE.write_text(json.dumps(table(), indent=1) + "\n")
