"""Differential tests: XLM-RoBERTa, ModernBERT and DeBERTa-v2 (masked-LM encoders) against
`transformers`.

Optional: they need the `oracle` extra and skip cleanly without torch and transformers. Each
case is a small config.json as the Hub holds one (fields left out take the class defaults),
read by ffn-calc (`--hf-config`) and built by the class its `architectures` names: parameters
from `parameters()`, tensor names and shapes from `named_parameters()`, FLOPs from
`torch.utils.flop_counter.FlopCounterMode` over a CPU forward pass with eager attention, and
the checkpoint `save_pretrained` writes through `ffn-calc verify --checkpoint`. Encoders keep
no KV cache.

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

from conftest import DATA  # noqa: E402
from oracle_cases import MAX_S, case, classes  # noqa: E402
from oracle_support import (  # noqa: E402
    build_hf,
    check_counts,
    check_verifies,
    check_wider_ffn_fails,
    counted_flops,
    inventory_names,
    maybe,
    param_shapes,
    read,
    save,
    token_ids,
)

from ffn_calc.counts.flops import Workload, forward_flops  # noqa: E402
from ffn_calc.counts.params import total_params  # noqa: E402
from ffn_calc.families.resolve import resolve_model  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CLASSES = classes("test_oracle_encoders_2025")
FAMILIES = sorted(CLASSES)


def _heads(draw: Any) -> tuple[int, int]:
    heads = draw(st.integers(1, 4))
    return heads, heads * draw(st.sampled_from([2, 4, 6, 8]))


def _xlm_roberta(draw: Any) -> dict[str, Any]:
    heads, d = _heads(draw)
    out = {
        "hidden_size": d, "num_attention_heads": heads, "num_hidden_layers": draw(st.integers(1, 3)),
        "intermediate_size": draw(st.integers(1, 48)), "vocab_size": draw(st.integers(8, 100)),
        "max_position_embeddings": MAX_S + 2 + draw(st.integers(0, 8)), "pad_token_id": 1,
    }  # fmt: skip
    maybe(draw, out, "type_vocab_size", draw(st.integers(1, 3)))
    maybe(draw, out, "hidden_act", draw(st.sampled_from(["gelu", "relu", "gelu_new"])))
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    maybe(draw, out, "is_decoder", draw(st.booleans()))
    return out


def _modernbert(draw: Any) -> dict[str, Any]:
    heads = draw(st.integers(1, 4))
    d = heads * draw(st.sampled_from([2, 4, 6, 8]))  # rotary needs an even head width
    out = {
        "hidden_size": d, "num_attention_heads": heads, "num_hidden_layers": draw(st.integers(1, 4)),
        "intermediate_size": draw(st.integers(1, 48)), "vocab_size": draw(st.integers(8, 100)),
        "max_position_embeddings": 64, "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0,
        "cls_token_id": 0, "sep_token_id": 0,
    }  # fmt: skip
    for key in ("attention_bias", "mlp_bias", "norm_bias", "classifier_bias", "decoder_bias",
                "tie_word_embeddings"):  # fmt: skip
        maybe(draw, out, key, draw(st.booleans()))
    maybe(draw, out, "global_attn_every_n_layers", draw(st.integers(1, 3)))
    maybe(draw, out, "local_attention", draw(st.integers(1, 8)))
    maybe(draw, out, "hidden_activation", draw(st.sampled_from(["gelu", "silu", "gelu_new"])))
    return out


def _deberta_v2(draw: Any) -> dict[str, Any]:
    heads, d = _heads(draw)
    out = {
        "hidden_size": d, "num_attention_heads": heads, "num_hidden_layers": draw(st.integers(1, 3)),
        "intermediate_size": draw(st.integers(1, 48)), "vocab_size": draw(st.integers(8, 100)),
        "max_position_embeddings": MAX_S + draw(st.integers(0, 8)), "pad_token_id": 0,
    }  # fmt: skip
    maybe(draw, out, "relative_attention", draw(st.booleans()))
    # (1 fails in transformers and is refused: test_deberta_refuses_what_transformers_cannot_run)
    maybe(draw, out, "position_buckets", draw(st.sampled_from([-1, 0, 2, 3, 8])))
    maybe(draw, out, "max_relative_positions", draw(st.sampled_from([-1, 2, 5, 12])))
    kinds = st.sampled_from(["p2c|c2p", "c2p", ["c2p"], ["p2c"], ["p2c", "c2p"], [], None])
    maybe(draw, out, "pos_att_type", draw(kinds))
    maybe(draw, out, "share_att_key", draw(st.booleans()))
    maybe(draw, out, "norm_rel_ebd", draw(st.sampled_from(["none", "layer_norm"])))
    maybe(draw, out, "position_biased_input", draw(st.booleans()))
    maybe(draw, out, "type_vocab_size", draw(st.integers(0, 2)))
    maybe(draw, out, "hidden_act", draw(st.sampled_from(["gelu", "relu", "gelu_new"])))
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    return out


DRAW: dict[str, Callable[[Any], dict[str, Any]]] = {
    "xlm-roberta": _xlm_roberta,
    "modernbert": _modernbert,
    "deberta-v2": _deberta_v2,
}


def config_json(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """A small config.json of the family, as the Hub holds one."""

    @st.composite
    def make(draw: Any) -> dict[str, Any]:
        fields = DRAW[family](draw)
        return {"model_type": family, "architectures": [CLASSES[family][1]], **fields}

    return make()


def build(data: dict[str, Any], device: str = "cpu") -> Any:
    """The class `architectures` names, from the config.json fields. Its parameters need no
    gradient: FlopCounterMode's module tracker fails on DeBERTa under no_grad when a layer
    receives the relative table, a parameter, as an argument ("Expected gradient function
    to be set"); no count depends on it."""
    conf_name, model_name = CLASSES[data["model_type"]]
    fields = {k: v for k, v in data.items() if k not in ("model_type", "architectures")}
    return build_hf(conf_name, model_name, fields, device).requires_grad_(False)


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """The harness's random configs (tests/test_oracle_cases.py)."""
    return config_json(family)


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """(a) parameters, (b) names and shapes, (c) FLOPs, (d) the saved checkpoint, which
    `verify` accepts and which fails once the FFN is one wider in its config.json."""
    family = data["model_type"]
    torch.manual_seed(0)
    cfg = read(data, tmp / family)
    model = build(data).eval()
    check_counts(model, cfg, token_ids(data["vocab_size"], batch, s))
    ckpt = save(model, tmp / f"{family}-ckpt")
    assert total_params(resolve_model(hf_config=ckpt)) == total_params(cfg)
    check_verifies(ckpt, cfg)
    check_wider_ffn_fails(ckpt, ["intermediate_size"])


# --- the family's own tests ----------------------------------------------------------------


def test_xlm_roberta_lists_the_tied_table_under_the_head(tmp_path: Path) -> None:
    """XLMRobertaForMaskedLM registers lm_head first: named_parameters() names the shared table
    lm_head.decoder.weight; save_pretrained writes roberta.embeddings.word_embeddings.weight,
    which verify takes for it."""
    data = case("xlm-roberta tied, class defaults")
    cfg = read(data, tmp_path)
    model = build(data)
    names = param_shapes(model)
    assert "lm_head.decoder.weight" in names
    assert "roberta.embeddings.word_embeddings.weight" not in names
    assert names == inventory_names(cfg)
    ckpt = save(model, tmp_path / "ckpt")
    report = check_verifies(ckpt, cfg)
    assert report["missing"] == [] and report["tied_copies"] == []
    # As RoBERTa in every count: the same config.json read as roberta gives the same figures.
    as_roberta = read({**data, "model_type": "roberta"}, tmp_path / "roberta")
    assert total_params(cfg) == total_params(as_roberta)
    w = Workload(batch=2, seq_len=5)
    assert forward_flops(cfg, w) == forward_flops(as_roberta, w)


# --- the real-size configs on the meta device: parameters, names, FLOPs at S = 64 ----------

FRONTIER = {
    c["model_type"]: c
    for c in json.loads((DATA / "frontier.json").read_text())["cases"]
    if c["model_type"] in CLASSES
}
PRESET = {
    "xlm-roberta": "xlm-roberta-base",
    "modernbert": "modernbert-base",
    "deberta-v2": "deberta-v3-base",
}


@pytest.mark.parametrize("family", sorted(FRONTIER))
def test_real_size_names_and_flops(family: str, tmp_path: Path) -> None:
    data = FRONTIER[family]["hf_config"]
    model = build(data, "meta").eval()
    ids = token_ids(8, 1, 64, "meta")
    # DeBERTa without a mask reads the ids for padding (.item(), which meta tensors refuse);
    # ModernBERT with one reads the mask instead.
    mask = {"attention_mask": torch.ones_like(ids)} if family == "deberta-v2" else {}
    flops = counted_flops(model, input_ids=ids, **mask)
    # Golden: tests/data/frontier.json total_params (transformers 5.24.0, meta device).
    assert sum(p.numel() for p in model.parameters()) == FRONTIER[family]["total_params"]
    configs = [read(data, tmp_path)]
    if family in PRESET:
        configs.append(resolve_model(preset=PRESET[family]))
    for cfg in configs:
        assert total_params(cfg) == FRONTIER[family]["total_params"]
        assert param_shapes(model) == inventory_names(cfg)
        assert flops == forward_flops(cfg, Workload(1, 64))


@pytest.mark.parametrize("family", sorted(FRONTIER))
def test_every_field_left_out_takes_the_class_default(family: str, tmp_path: Path) -> None:
    """As tests/test_oracle_defaults.py over coverage.json: each field the family's `fields`
    reads, left out of the real-size config.json, counts as the configuration class's default
    instantiates (transformers 5.24.0, meta device)."""
    from test_oracle_defaults import instantiated, keys_read

    data = FRONTIER[family]["hf_config"]
    path = tmp_path / "config.json"
    for key in keys_read(data):
        without = {k: v for k, v in data.items() if k != key}
        path.write_text(json.dumps(without, indent=2))
        expected = instantiated(without)
        assert isinstance(expected, int), (key, expected)
        assert total_params(resolve_model(hf_config=path)) == expected, key


def test_modernbert_window_as_transformers_masks_it(tmp_path: Path) -> None:
    """attention_window is the number of keys transformers' bidirectional sliding-window mask
    lets a query far from the ends see."""
    from transformers.masking_utils import sliding_window_bidirectional_overlay

    for local in (1, 2, 7, 128):
        conf = transformers.ModernBertConfig(local_attention=local)
        inside = sliding_window_bidirectional_overlay(conf.sliding_window)
        seen = sum(bool(inside(0, 0, 500, kv)) for kv in range(1000))
        data = {**case("modernbert defaults: global every 3rd layer, no biases, tied"),
                "local_attention": local}  # fmt: skip
        assert read(data, tmp_path / str(local)).attention_window == seen


def test_deberta_refusals_are_what_transformers_cannot_run(tmp_path: Path) -> None:
    """position_buckets 1: transformers builds the model but its forward divides by
    position_buckets // 2; ffn-calc refuses the file (tests/test_encoders_2025.py)."""
    data = {**case("deberta-v2 v3 layout: buckets, shared keys, c2p and p2c, normed table, "
                   "no positions"), "position_buckets": 1}  # fmt: skip
    model = build(data)
    with pytest.raises(ZeroDivisionError):
        model(input_ids=token_ids(data["vocab_size"], 1, 4))
