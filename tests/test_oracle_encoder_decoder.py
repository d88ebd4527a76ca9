"""Differential tests: the encoder-decoder families (t5, bart) against `transformers`.

Optional: they need torch and transformers (the `oracle` extra) and skip cleanly without them.
Small random config.json files go through ffn-calc's reader (`--hf-config`) and through the
transformers class that the family counts. Parameter counts come from the instantiated model,
tensor names from `named_parameters()`, FLOPs from `torch.utils.flop_counter.FlopCounterMode`
over a real CPU forward pass (eager attention, the cache on), the cache after a prefill, one
decode step and generate() (`check_cache`), checkpoints from `save_pretrained`.

T5: transformers 5 ties the head to `shared` whatever config.json says, while ffn-calc follows
config.json (an untied head where it says tie_word_embeddings false, as T5 v1.1's does). The
model transformers builds is compared with ffn-calc's count under the tie it really applies;
the untied convention is checked apart: exactly vocab_size x d_model more, named in the note.

The family's random tiny configs (`configs`) and the check of one case (`check_case`) run in
the one harness, tests/test_oracle_cases.py, over the cases in tests/oracle_cases.py (random
draws and explicit variants); this module holds them and the family's own tests.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from conftest import DATA  # noqa: E402
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

COVERAGE: list[dict[str, Any]] = json.loads((DATA / "coverage.json").read_text())["cases"]
HF_CLASSES = classes("test_oracle_encoder_decoder")


@st.composite
def t5_configs(draw: Any) -> dict[str, Any]:
    """T5 config.json fields: d_kv free of d_model, ReLU / GELU / gated FFNs, any tie."""
    out: dict[str, Any] = {
        "d_model": draw(st.integers(4, 64)), "d_kv": draw(st.integers(1, 16)),
        "num_heads": draw(st.integers(1, 4)), "d_ff": draw(st.integers(1, 48)),
        "num_layers": draw(st.integers(1, 3)), "vocab_size": draw(st.integers(8, 100)),
        "feed_forward_proj": draw(st.sampled_from(["relu", "gelu", "gated-gelu", "gated-silu"])),
        "relative_attention_num_buckets": draw(st.sampled_from([4, 8, 32])),
    }  # fmt: skip
    if draw(st.booleans()):
        out["num_decoder_layers"] = draw(st.integers(1, 3))
    tie = draw(st.sampled_from([None, True, False]))
    if tie is not None:
        out["tie_word_embeddings"] = tie
    return out


@st.composite
def bart_configs(draw: Any) -> dict[str, Any]:
    """BART config.json fields: heads, layers and FFN width per stack (often unequal), any
    tie, scaled embeddings."""
    d = draw(st.sampled_from([8, 12, 16, 24, 48]))
    heads = [h for h in range(1, 9) if d % h == 0]
    ffn = draw(st.integers(1, 48))
    out: dict[str, Any] = {
        "d_model": d, "encoder_attention_heads": draw(st.sampled_from(heads)),
        "decoder_attention_heads": draw(st.sampled_from(heads)), "encoder_ffn_dim": ffn,
        "decoder_ffn_dim": draw(st.sampled_from([ffn, draw(st.integers(1, 48))])), "encoder_layers": draw(st.integers(1, 3)),
        "decoder_layers": draw(st.integers(1, 3)), "vocab_size": draw(st.integers(8, 100)),
        "max_position_embeddings": draw(st.integers(9, 16)),
        "activation_function": draw(st.sampled_from(["gelu", "relu", "gelu_new", "silu"])),
        "scale_embedding": draw(st.booleans()),
    }  # fmt: skip
    tie = draw(st.sampled_from([None, True, False]))
    if tie is not None:
        out["tie_word_embeddings"] = tie
    return out


def read_hub(family: str, data: dict[str, Any], path: Path) -> ModelConfig:
    """ffn-calc's model of a config.json as the Hub holds it (model_type, architectures, the
    drawn fields), written to `path`."""
    return read({"model_type": family, "architectures": [HF_CLASSES[family][1]], **data}, path)


def build(family: str, data: dict[str, Any]) -> Any:
    """The transformers model for the config.json fields, eager attention, on the CPU."""
    torch.manual_seed(0)
    return build_hf(*HF_CLASSES[family], data).eval()


def as_built(cfg: ModelConfig) -> ModelConfig:
    """The model transformers 5.24 builds: T5's head tied whatever config.json says."""
    if cfg.family == "t5":
        return ModelConfig.model_validate(
            {**cfg.model_dump(), "tie_embeddings": True, "note": None}
        )
    return cfg


def seq2seq_flops(model: Any, ids: Any, target: Any) -> int:
    """FlopCounterMode over one forward: B x S source tokens, B x T target tokens (the cache
    on: the cross-attention keys and values are computed once either way)."""
    return counted_flops(model, input_ids=ids, decoder_input_ids=target, use_cache=True)


def add_separate_head(out: Path) -> None:
    """Rewrite a T5 checkpoint as the released untied ones are: lm_head.weight of its own."""
    from safetensors.torch import load_file, save_file

    file = out / "model.safetensors"
    tensors = load_file(file)
    tensors["lm_head.weight"] = tensors["shared.weight"].clone()
    save_file(tensors, file, metadata={"format": "pt"})


STRATEGIES = {"t5": t5_configs(), "bart": bart_configs()}
# The config.json keys of the FFN widths.
FFN_KEYS = {"t5": ["d_ff"], "bart": ["encoder_ffn_dim", "decoder_ffn_dim"]}


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """The harness's random configs (tests/test_oracle_cases.py), with their model_type."""
    return STRATEGIES[family].map(lambda data: {"model_type": family, **data})


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """One case through the harness (tests/test_oracle_cases.py): S source and T target
    tokens."""
    family = data["model_type"]
    data = {k: v for k, v in data.items() if k not in ("model_type", "architectures")}
    out = tmp
    cfg = read_hub(family, data, out)
    model = build(family, data)
    built = as_built(cfg)
    # (a) parameters, (b) names and shapes of the model transformers builds
    assert sum(p.numel() for p in model.parameters()) == total_params(built)
    assert param_shapes(model) == inventory_names(built)
    # (c) forward FLOPs: encoder over S, decoder over T, cross-attention K/V over S
    vocab = data["vocab_size"]
    ids = token_ids(vocab, batch, s)
    got = seq2seq_flops(model, ids, token_ids(vocab, batch, t))
    assert got == forward_flops(cfg, Workload(batch=batch, seq_len=s, target_len=t))
    # the cache after a prefill, one decode step, generate() (encoder once, start token)
    check_cache(model, cfg, ids)
    # The untied convention: a separate head, vocab_size x d_model more, stated in the note.
    untied = data.get("tie_word_embeddings") is False
    head = data["vocab_size"] * data["d_model"]
    assert total_params(cfg) - total_params(built) == (head if untied and family == "t5" else 0)
    assert (cfg.note is not None and f"{head:,} fewer" in cfg.note) == (untied and family == "t5")
    # (d) save_pretrained, then the checkpoint's header against its config.json
    save(model, out)
    if untied and family == "t5":  # transformers saved its tied head: the separate one lacks
        r = verify(out)
        assert r.exit_code == 1 and r.json()["checkpoint"]["missing"] == ["lm_head.weight"]
        add_separate_head(out)
    checkpoint = check_verifies(out, cfg)
    if family == "bart":
        assert checkpoint["buffers"] == ["final_logits_bias"]
    if family == "bart":  # the decoder's own width, read from its own key
        check_wider_ffn_fails(out, ["decoder_ffn_dim"])
    check_wider_ffn_fails(out, FFN_KEYS[family])


# Presets and the coverage case each reproduces (tests/test_families.py PRESETS).
PRESETS = {
    "t5-base": "google-t5/t5-base",
    "t5-v1.1-base": "google/t5-v1_1-base",
    "bart-base": "facebook/bart-base",
}


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_presets_at_full_size(preset: str) -> None:
    """Each preset against the class built on the meta device from its coverage case's
    config.json: parameters, names and shapes, FLOPs at S = 64 source and T = 16 target tokens."""
    case = next(c for c in COVERAGE if c["name"] == PRESETS[preset])
    family = case["model_type"]
    cfg = resolve_model(preset=preset)
    conf = getattr(transformers, HF_CLASSES[family][0]).from_dict(case["hf_config"])
    conf._attn_implementation = "eager"
    with torch.device("meta"):
        model = getattr(transformers, HF_CLASSES[family][1])(conf).eval()
    assert sum(p.numel() for p in model.parameters()) == total_params(as_built(cfg))
    assert param_shapes(model) == inventory_names(as_built(cfg))
    ids = torch.zeros((1, 64), dtype=torch.long, device="meta")
    target = torch.zeros((1, 16), dtype=torch.long, device="meta")
    got = seq2seq_flops(model, ids, target)
    assert got == forward_flops(cfg, Workload(batch=1, seq_len=64, target_len=16))


def test_t5_untied_config_as_written_back(tmp_path: Path) -> None:
    """A config.json saying tie_word_embeddings false and the one transformers 5 writes back
    from it (tie true, scale_decoder_outputs false) give the same untied count; transformers
    instantiates the tied model, vocab_size x d_model fewer."""
    data = {"d_model": 16, "d_kv": 4, "num_heads": 3, "d_ff": 24, "num_layers": 2,
            "vocab_size": 40, "feed_forward_proj": "gated-gelu", "tie_word_embeddings": False}  # fmt: skip
    hub = read_hub("t5", data, tmp_path / "hub")
    model = build("t5", data)
    save(model, tmp_path / "saved")
    saved = json.loads((tmp_path / "saved" / "config.json").read_text())
    assert saved["tie_word_embeddings"] is True and saved["scale_decoder_outputs"] is False
    again = resolve_model(hf_config=tmp_path / "saved")
    instantiated = sum(p.numel() for p in model.parameters())
    assert total_params(hub) == total_params(again) == instantiated + 40 * 16
    assert again.note == hub.note and "640 fewer" in (hub.note or "")
