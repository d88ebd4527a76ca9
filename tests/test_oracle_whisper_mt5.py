"""Differential tests: mT5, UMT5 and Whisper (encoder-decoder families) against `transformers`.

Optional: they need torch and transformers (the `oracle` extra) and skip cleanly without them.
Small random config.json files go through ffn-calc's reader (`--hf-config`) and through the
transformers class that the family counts: parameters from `parameters()`, names and shapes
from `named_parameters()`, FLOPs from `torch.utils.flop_counter.FlopCounterMode` over a CPU
forward pass (eager attention), the cache after a prefill and one decode step, and the
checkpoint `save_pretrained` writes through `ffn-calc verify --checkpoint`.

mT5 and UMT5: transformers 5 ties the head to `shared` whatever config.json says, while
ffn-calc follows config.json (an untied head where it says tie_word_embeddings false, as the
released checkpoints do); as for T5, the model transformers builds is compared under the tie
it applies and the untied convention is checked apart (vocab_size x d_model more, in the
note). UMT5 holds a relative position bias in every self-attention layer.

The family's random tiny configs (`configs`) and the check of one case (`check_case`) run in
the one harness, tests/test_oracle_cases.py, over the cases in tests/oracle_cases.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from oracle_cases import classes  # noqa: E402
from oracle_support import (  # noqa: E402
    build_hf,
    check_cache,
    check_verifies,
    check_wider_ffn_fails,
    counted_flops,
    inventory_names,
    param_shapes,
    read,
    save,
    token_ids,
    verify,
)

from ffn_calc.counts.flops import Workload, forward_flops  # noqa: E402
from ffn_calc.counts.params import total_params  # noqa: E402
from ffn_calc.families.resolve import resolve_model  # noqa: E402
from ffn_calc.model.config import ModelConfig  # noqa: E402

transformers.logging.set_verbosity_error()
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

HF_CLASSES = classes("test_oracle_whisper_mt5")
T5_LIKE = ("mt5", "umt5")


@st.composite
def mt5_configs(draw: Any) -> dict[str, Any]:
    """mT5 / UMT5 config.json fields: d_kv free of d_model, FFN kinds (absent: gated-gelu, the
    class default), decoder depth, any tie."""
    out: dict[str, Any] = {
        "d_model": draw(st.integers(4, 48)), "d_kv": draw(st.integers(1, 12)),
        "num_heads": draw(st.integers(1, 4)), "d_ff": draw(st.integers(1, 40)),
        "num_layers": draw(st.integers(1, 3)), "vocab_size": draw(st.integers(8, 80)),
        "relative_attention_num_buckets": draw(st.sampled_from([4, 8, 32])),
    }  # fmt: skip
    proj = draw(st.sampled_from([None, "relu", "gated-gelu", "gated-silu"]))
    if proj is not None:
        out["feed_forward_proj"] = proj
    if draw(st.booleans()):
        out["num_decoder_layers"] = draw(st.integers(1, 3))
    tie = draw(st.sampled_from([None, True, False]))
    if tie is not None:
        out["tie_word_embeddings"] = tie
    return out


STRATEGIES: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "mt5": mt5_configs(),
    "umt5": mt5_configs(),
}


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """The harness's random configs (tests/test_oracle_cases.py), with their model_type."""
    return STRATEGIES[family].map(lambda data: {"model_type": family, **data})


def read_hub(family: str, data: dict[str, Any], path: Path) -> ModelConfig:
    """ffn-calc's model of a config.json as the Hub holds it (model_type, architectures)."""
    return read({"model_type": family, "architectures": [HF_CLASSES[family][1]], **data}, path)


def build(family: str, data: dict[str, Any]) -> Any:
    """The transformers model for the config.json fields, eager attention, on the CPU."""
    torch.manual_seed(0)
    return build_hf(*HF_CLASSES[family], data).eval()


def tied(cfg: ModelConfig) -> ModelConfig:
    """The model transformers 5.24 builds of a T5-like config.json: its head always tied."""
    return ModelConfig.model_validate({**cfg.model_dump(), "tie_embeddings": True, "note": None})


def add_separate_head(out: Path) -> None:
    """Rewrite a checkpoint as the released untied ones are: lm_head.weight of its own."""
    from safetensors.torch import load_file, save_file

    file = out / "model.safetensors"
    tensors = load_file(file)
    tensors["lm_head.weight"] = tensors["shared.weight"].clone()
    save_file(tensors, file, metadata={"format": "pt"})


def check_t5_like(family: str, data: dict[str, Any], batch: int, s: int, t: int, out: Path) -> None:
    cfg = read_hub(family, data, out / "hub")
    model = build(family, data)
    built = tied(cfg)
    # (a) parameters, (b) names and shapes of the model transformers builds
    assert sum(p.numel() for p in model.parameters()) == total_params(built)
    assert param_shapes(model) == inventory_names(built)
    # UMT5: a relative position bias in every self-attention layer of both stacks
    bias = sum(1 for n in param_shapes(model) if n.endswith("relative_attention_bias.weight"))
    layers = cfg.encoder_layers + cfg.decoder_layers
    assert bias == (layers if family == "umt5" else 2)
    # (c) forward FLOPs: encoder over S, decoder over T, cross-attention K/V over S
    vocab = data["vocab_size"]
    ids = token_ids(vocab, batch, s)
    got = counted_flops(model, input_ids=ids, decoder_input_ids=token_ids(vocab, batch, t))
    assert got == forward_flops(cfg, Workload(batch=batch, seq_len=s, target_len=t))
    # the cache after a prefill, one decode step, generate() (encoder once, start token)
    check_cache(model, cfg, ids)
    # The untied convention: a separate head, vocab_size x d_model more, stated in the note.
    untied = data.get("tie_word_embeddings") is False
    head = data["vocab_size"] * data["d_model"]
    assert total_params(cfg) - total_params(built) == (head if untied else 0)
    assert (cfg.note is not None and f"{head:,} fewer" in cfg.note) == untied
    # (d) save_pretrained, then the checkpoint's header against the config.json it wrote:
    # UMT5 writes an untie back (scale_decoder_outputs false), mT5 does not (tie true).
    save(model, out / "ckpt")
    saved = resolve_model(hf_config=out / "ckpt")
    assert saved.tie_embeddings == (not untied or family == "mt5")
    if not saved.tie_embeddings:  # transformers saved its tied head: the separate one lacks
        r = verify(out / "ckpt")
        assert r.exit_code == 1 and r.json()["checkpoint"]["missing"] == ["lm_head.weight"]
        add_separate_head(out / "ckpt")
    check_verifies(out / "ckpt", saved)
    check_wider_ffn_fails(out / "ckpt", ["d_ff"])


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """One case through the harness (tests/test_oracle_cases.py): S source and T target
    positions."""
    family = data["model_type"]
    data = {k: v for k, v in data.items() if k not in ("model_type", "architectures")}
    check_t5_like(family, data, batch, s, t, tmp)
