"""Differential tests: RoBERTa, DistilBERT and ALBERT (the masked-LM classes) against `transformers`.

Optional: they need the `oracle` extra and skip cleanly without torch and transformers. Each
case is a small random config.json, read by ffn-calc (`--hf-config`) and built by the
transformers class its `architectures` names: parameters from `parameters()`, tensor names
and shapes from `named_parameters()`, FLOPs from `torch.utils.flop_counter.FlopCounterMode`
over a CPU forward pass with eager attention, checkpoints from `save_pretrained`.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from oracle_support import (  # noqa: E402
    build_hf,
    check_counts,
    check_verifies,
    check_wider_ffn_fails,
    read,
    save,
    token_ids,
)

from ffn_calc.presets import resolve_model  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

# model_type -> (config class, model class, the config.json key of the FFN width)
CLASSES = {
    "roberta": ("RobertaConfig", "RobertaForMaskedLM", "intermediate_size"),
    "distilbert": ("DistilBertConfig", "DistilBertForMaskedLM", "hidden_dim"),
    "albert": ("AlbertConfig", "AlbertForMaskedLM", "intermediate_size"),
}
MAX_S = 9  # the longest forward pass; RoBERTa's positions start after its padding index (1)


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
    conf_name, model_name, _ = CLASSES[data["model_type"]]
    fields = {k: v for k, v in data.items() if k not in ("model_type", "architectures")}
    return build_hf(conf_name, model_name, fields, device)


def check_against_transformers(
    data: dict[str, Any], batch: int, s: int, tmp: pytest.TempPathFactory
) -> None:
    """(a) parameters, (b) names and shapes, (c) FLOPs, (d) the saved checkpoint."""
    family = data["model_type"]
    torch.manual_seed(0)
    cfg = read(data, tmp.mktemp(family))
    model = build(data).eval()
    check_counts(model, cfg, token_ids(data["vocab_size"], batch, s))
    ckpt = save(model, tmp.mktemp(f"{family}-ckpt"))
    check_verifies(ckpt, cfg)
    check_wider_ffn_fails(ckpt, [CLASSES[family][2]])


@pytest.mark.parametrize("family", sorted(CLASSES))
def test_random_configs_against_transformers(
    family: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    @settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=config_json(family), batch=st.integers(1, 2), s=st.integers(1, MAX_S))
    def check(data: dict[str, Any], batch: int, s: int) -> None:
        check_against_transformers(data, batch, s, tmp_path_factory)

    check()


# Layouts the random draws may miss: ALBERT's groups of several layers, applied unevenly
# (3 steps over 2 groups: group 0 twice, group 1 once), and every head untied.
EXPLICIT = {
    "albert 2 groups of 2, 3 steps, untied": {
        "model_type": "albert", "architectures": ["AlbertForMaskedLM"], "hidden_size": 16,
        "num_attention_heads": 2, "num_hidden_layers": 3, "num_hidden_groups": 2,
        "inner_group_num": 2, "embedding_size": 4, "intermediate_size": 24, "vocab_size": 30,
        "max_position_embeddings": 16, "tie_word_embeddings": False, "pad_token_id": 0,
    },
    "roberta untied": {
        "model_type": "roberta", "architectures": ["RobertaForMaskedLM"], "hidden_size": 16,
        "num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 24,
        "vocab_size": 30, "max_position_embeddings": 16, "type_vocab_size": 1,
        "tie_word_embeddings": False, "pad_token_id": 1,
    },
    "distilbert untied, sinusoidal": {
        "model_type": "distilbert", "architectures": ["DistilBertForMaskedLM"], "dim": 16,
        "n_heads": 2, "n_layers": 2, "hidden_dim": 24, "vocab_size": 30,
        "max_position_embeddings": 16, "sinusoidal_pos_embds": True,
        "tie_word_embeddings": False, "pad_token_id": 0,
    },
}  # fmt: skip


@pytest.mark.parametrize("label", EXPLICIT)
def test_explicit_layouts(label: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    check_against_transformers(EXPLICIT[label], 2, 5, tmp_path_factory)


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
