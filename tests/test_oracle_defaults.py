"""Differential test: every field a family reads from config.json, left out, takes the class
default, as transformers 5.24.0 does.

Optional, as every oracle test: without torch and transformers (the `oracle` extra) it skips.
For every real config.json in tests/data (reference_cases.json and coverage.json: every
registered family) and every field that family's `fields(r)` reads from it, the field is
removed and the config read twice:

- by transformers: the configuration class's `from_dict` (as `from_pretrained` reads a
  config.json), the model class of the family's ORACLE row instantiated on the meta device,
  its parameters summed;
- by ffn-calc: `params --hf-config` on the same file.

Either both count and the counts are equal (the source line names the default taken), or
transformers fails and ffn-calc refuses (exit 2, nothing on stdout) naming the removed field.
REFUSED lists the few removals transformers instantiates but ffn-calc refuses, each with why.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from conftest import CASES, DATA, run

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from oracle_cases import ORACLE  # noqa: E402

from ffn_calc.families import family_module  # noqa: E402
from ffn_calc.families.base import Reader  # noqa: E402
from ffn_calc.families.resolve import resolve_model  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

REAL: list[dict[str, Any]] = [c for c in CASES if "hf_config" in c] + json.loads(
    (DATA / "coverage.json").read_text()
)["cases"]

# (case, field) -> why ffn-calc refuses a model transformers instantiates without that field.
REFUSED: dict[tuple[str, str], str] = {
    # NemotronHConfig's 8 routed experts under Nemotron 3 Super's 22 per token: the modules
    # build, the routing cannot run (top-22 of 8).
    ("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16", "n_routed_experts"): (
        "experts_per_token (22) cannot exceed n_experts (8)"
    ),
    # Qwen2Config's hidden_size 4,096 over Qwen2.5-0.5B's 14 heads: Qwen2Attention floors the
    # head width (292); ffn-calc takes heads that divide the width or an explicit head_dim.
    ("Qwen/Qwen2.5-0.5B", "hidden_size"): "n_heads (14) must divide d_model (4096)",
    # Qwen2Config's 32 key/value heads over 14 query heads: the projections build, the forward
    # cannot (grouped-query attention repeats kv heads n_heads / n_kv_heads times).
    ("Qwen/Qwen2.5-0.5B", "num_key_value_heads"): "n_kv_heads (32) must divide n_heads (14)",
    # AlbertConfig's hidden_size 4,096 over albert-base-v2's 12 heads: AlbertAttention floors.
    ("albert/albert-base-v2", "hidden_size"): "n_heads (12) must divide d_model (4096)",
    # Glm4MoeConfig has no head_dim: the attention floors hidden_size / heads (4096 / 96).
    ("zai-org/GLM-4.5-Air", "head_dim"): "set head_dim to use heads that do not divide it",
    # DeepseekV2Config's num_experts_per_tok defaults to None: the model builds, but routing
    # needs it (no class default: a required field).
    ("deepseek-ai/DeepSeek-V2-Lite", "num_experts_per_tok"): "required field",
    # HunYuanMoEV1Config's one expert under Hunyuan-A13B's top-8: the model builds, routing
    # cannot (torch.topk of 8 over 1 expert).
    ("tencent/Hunyuan-A13B-Instruct", "num_experts"): "experts_per_token (8) cannot exceed",
}


class Spy(dict):  # type: ignore[type-arg]
    """A config.json's fields that records every key read."""

    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__(data)
        self.seen: list[str] = []

    def _saw(self, key: Any) -> None:
        if key not in self.seen:
            self.seen.append(key)

    def get(self, key: Any, default: Any = None) -> Any:
        self._saw(key)
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        self._saw(key)
        return super().__contains__(key)

    def __getitem__(self, key: Any) -> Any:
        self._saw(key)
        return super().__getitem__(key)


def keys_read(data: dict[str, Any]) -> list[str]:
    """The config.json fields the family's `fields(r)` reads, in order."""
    module = family_module(data["model_type"])
    assert module is not None
    spy = Spy(data)
    reader = Reader(spy, "config.json", "")
    reader.class_defaults = getattr(module, "DEFAULTS", {})
    module.fields(reader)
    return [k for k in spy.seen if k in data]


def instantiated(data: dict[str, Any]) -> int | str:
    """Parameters of the family's transformers class built from `data` on the meta device, or
    the error transformers raises."""
    oracle = ORACLE[data["model_type"]]
    assert oracle.config is not None
    try:
        conf = getattr(transformers, oracle.config).from_dict(dict(data))
        with torch.device("meta"):
            model = getattr(transformers, oracle.model)(conf)
    except Exception as exc:  # any refusal of transformers
        return f"{type(exc).__name__}: {exc}"
    return sum(p.numel() for p in model.parameters())


def gap(path: Path) -> int:
    """Where ffn-calc follows config.json and transformers does not (coverage.json's
    params_note for T5 v1.1, mT5, UMT5): transformers 5 ties the head of T5 and its relatives
    whatever config.json says, so an untied one counts vocab_size x d_model more (the model's
    note gives the difference)."""
    cfg = resolve_model(hf_config=path)
    t5_like = cfg.family in ("t5", "mt5", "umt5")
    return cfg.vocab_size * cfg.d_model if t5_like and not cfg.tie_embeddings else 0


@pytest.mark.parametrize("case", REAL, ids=lambda c: c["name"])
def test_every_field_left_out(case: dict[str, Any], tmp_path: Path) -> None:
    data = case["hf_config"]
    module = family_module(data["model_type"])
    defaults = getattr(module, "DEFAULTS", {})
    path = tmp_path / "config.json"
    refused = set()
    for key in keys_read(data):
        without = {k: v for k, v in data.items() if k != key}
        path.write_text(json.dumps(without, indent=2))
        hf = instantiated(without)
        r = run("params", "--hf-config", str(path), "-f", "json")
        label = f"{case['name']} without {key}: transformers {hf}; ffn-calc {r.stderr or 'counts'}"
        if r.exit_code == 0:
            counted = r.json()
            assert isinstance(hf, int), label  # transformers refuses: so must ffn-calc
            assert counted["total_params"] == hf + gap(path), label
            if key in defaults:  # the default taken is named in the model's source (its own or,
                # for a field with an alias such as num_local_experts, the alias's)
                assert "absent, so transformers' defaults: " in counted["source"], label
            continue
        assert r.exit_code == 2 and r.stdout == "" and "Traceback" not in r.stderr, label
        assert key in r.stderr, label  # the refusal names the field left out
        if isinstance(hf, int):
            reason = REFUSED.get((case["name"], key))
            assert reason is not None and reason in r.stderr, label
            refused.add(key)
    assert refused == {k for (name, k) in REFUSED if name == case["name"]}  # none stale
