"""Differential tests: RoBERTa, DistilBERT and ALBERT (the masked-LM classes) against `transformers`.

Optional: they need the `oracle` extra and skip cleanly without torch and transformers. Each
case is a small random config.json, read by ffn-calc (`--hf-config`) and built by the
transformers class its `architectures` names: parameters from `parameters()`, tensor names
and shapes from `named_parameters()`, FLOPs from `torch.utils.flop_counter.FlopCounterMode`
over a CPU forward pass with eager attention, checkpoints from `save_pretrained`.

The family's random tiny configs (`configs`) and the check of one case (`check_case`) run in
the one harness, tests/test_oracle_cases.py, over the cases in tests/oracle_cases.py (random
draws and explicit variants); this module holds them and the family's own tests.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from oracle_cases import MAX_S, classes  # noqa: E402
from oracle_support import (  # noqa: E402
    build_hf,
    check_counts,
    check_verifies,
    check_wider_ffn_fails,
    read,
    save,
    token_ids,
)

from ffn_calc.families.resolve import resolve_model  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CLASSES = classes("test_oracle_masked_lm")
# The config.json key of each family's FFN width.
FFN_KEY = {
    "roberta": "intermediate_size",
    "distilbert": "hidden_dim",
    "albert": "intermediate_size",
}


def _heads(draw: Any) -> tuple[int, int]:
    heads = draw(st.integers(1, 4))
    return heads, heads * draw(st.sampled_from([2, 4, 6, 8]))


def _roberta(draw: Any) -> dict[str, Any]:
    heads, d = _heads(draw)
    return {
        "hidden_size": d, "num_attention_heads": heads, "num_hidden_layers": draw(st.integers(1, 3)),
        "intermediate_size": draw(st.integers(1, 48)), "vocab_size": draw(st.integers(8, 100)),
        "max_position_embeddings": MAX_S + 2 + draw(st.integers(0, 8)),
        "type_vocab_size": draw(st.integers(1, 3)), "is_decoder": draw(st.booleans()),
        "hidden_act": draw(st.sampled_from(["gelu", "relu", "gelu_new"])),
        "tie_word_embeddings": draw(st.booleans()), "pad_token_id": 1,
    }  # fmt: skip


def _distilbert(draw: Any) -> dict[str, Any]:
    heads, d = _heads(draw)
    return {
        "dim": d, "n_heads": heads, "n_layers": draw(st.integers(1, 3)),
        "hidden_dim": draw(st.integers(1, 48)), "vocab_size": draw(st.integers(8, 100)),
        "max_position_embeddings": MAX_S + draw(st.integers(0, 8)),
        "sinusoidal_pos_embds": draw(st.booleans()),
        "activation": draw(st.sampled_from(["gelu", "relu"])),
        "tie_word_embeddings": draw(st.booleans()), "pad_token_id": 0,
    }  # fmt: skip


def _albert(draw: Any) -> dict[str, Any]:
    heads, d = _heads(draw)
    layers = draw(st.integers(1, 3))
    return {
        "hidden_size": d, "num_attention_heads": heads, "num_hidden_layers": layers,
        "num_hidden_groups": draw(st.integers(1, layers)),
        "inner_group_num": draw(st.integers(1, 2)),
        "embedding_size": draw(st.sampled_from([2, 5, 16, d])),
        "intermediate_size": draw(st.integers(1, 48)), "vocab_size": draw(st.integers(8, 100)),
        "max_position_embeddings": MAX_S + draw(st.integers(0, 8)),
        "type_vocab_size": draw(st.integers(1, 3)),
        "hidden_act": draw(st.sampled_from(["gelu_new", "gelu", "relu"])),
        "tie_word_embeddings": draw(st.booleans()), "pad_token_id": 0,
    }  # fmt: skip


DRAW: dict[str, Callable[[Any], dict[str, Any]]] = {
    "roberta": _roberta, "distilbert": _distilbert, "albert": _albert,
}  # fmt: skip


def config_json(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """A small config.json of the family, as the Hub holds one."""

    @st.composite
    def make(draw: Any) -> dict[str, Any]:
        fields = DRAW[family](draw)
        return {"model_type": family, "architectures": [CLASSES[family][1]], **fields}

    return make()


def build(data: dict[str, Any], device: str = "cpu") -> Any:
    conf_name, model_name = CLASSES[data["model_type"]]
    fields = {k: v for k, v in data.items() if k not in ("model_type", "architectures")}
    return build_hf(conf_name, model_name, fields, device)


def check_against_transformers(data: dict[str, Any], batch: int, s: int, tmp: Path) -> None:
    """(a) parameters, (b) names and shapes, (c) FLOPs, (d) the saved checkpoint."""
    family = data["model_type"]
    torch.manual_seed(0)
    cfg = read(data, tmp / family)
    model = build(data).eval()
    check_counts(model, cfg, token_ids(data["vocab_size"], batch, s))
    ckpt = save(model, tmp / f"{family}-ckpt")
    check_verifies(ckpt, cfg)
    check_wider_ffn_fails(ckpt, [FFN_KEY[family]])


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """The harness's random configs (tests/test_oracle_cases.py)."""
    return config_json(family)


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """One case through the harness (tests/test_oracle_cases.py)."""
    check_against_transformers(data, batch, s, tmp)


@pytest.mark.parametrize("preset", ["roberta-base", "distilbert-base", "albert-base-v2"])
def test_presets_at_full_size(preset: str, tmp_path: Path) -> None:
    # The shipped presets against the class built on the meta device from the Hub config.json
    # the preset cites (tests/data/coverage.json), names and shapes included.
    name = {"roberta-base": "FacebookAI/roberta-base",
            "distilbert-base": "distilbert/distilbert-base-uncased",
            "albert-base-v2": "albert/albert-base-v2"}[preset]  # fmt: skip
    cases = json.loads((Path(__file__).parent / "data" / "coverage.json").read_text())["cases"]
    data = next(c for c in cases if c["name"] == name)["hf_config"]
    cfg = resolve_model(preset=preset)
    check_counts(build(data, "meta"), cfg, None)  # parameters, names and shapes
