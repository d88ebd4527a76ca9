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

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from conftest import DATA  # noqa: E402
from oracle_cases import MAX_T, classes  # noqa: E402
from oracle_support import (  # noqa: E402
    build_hf,
    cache_numel,
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
from ffn_calc.counts.inference import decode_flops, kv_elements  # noqa: E402
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


@st.composite
def whisper_configs(draw: Any) -> dict[str, Any]:
    """Whisper config.json fields: an even width, heads, depth and FFN width per stack, mel bins, a
    decoder table long enough for T and one decode step, any tie. max_source_positions is the
    case's S (`check_case`): the encoder takes exactly that many positions."""
    d = draw(st.sampled_from([8, 12, 16, 24, 32]))
    heads = [h for h in range(1, 9) if d % h == 0]
    ffn = draw(st.integers(1, 40))
    out: dict[str, Any] = {
        "d_model": d, "encoder_attention_heads": draw(st.sampled_from(heads)),
        "decoder_attention_heads": draw(st.sampled_from(heads)), "encoder_ffn_dim": ffn,
        "decoder_ffn_dim": draw(st.sampled_from([ffn, draw(st.integers(1, 40))])), "encoder_layers": draw(st.integers(1, 3)),
        "decoder_layers": draw(st.integers(1, 3)), "vocab_size": draw(st.integers(8, 80)),
        "num_mel_bins": draw(st.integers(1, 10)),
        "max_target_positions": draw(st.integers(MAX_T + 1, MAX_T + 6)),
        "activation_function": draw(st.sampled_from(["gelu", "relu", "gelu_new", "silu"])),
        "scale_embedding": draw(st.booleans()),
    }  # fmt: skip
    tie = draw(st.sampled_from([None, True, False]))
    if tie is not None:
        out["tie_word_embeddings"] = tie
    return out


STRATEGIES: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "mt5": mt5_configs(),
    "umt5": mt5_configs(),
    "whisper": whisper_configs(),
}
# Token ids inside every tiny vocabulary (WhisperConfig's defaults, 50256 and 50257, are not).
WHISPER_IDS: dict[str, Any] = {
    "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0, "decoder_start_token_id": 1,
    "begin_suppress_tokens": None,
}  # fmt: skip


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


def mel(data: dict[str, Any], batch: int) -> Any:
    """Random log-mel input features [B, num_mel_bins, 2 x max_source_positions]: the one
    length WhisperEncoder takes (conv2's stride 2 halves it to max_source_positions)."""
    return torch.randn(batch, data["num_mel_bins"], 2 * data["max_source_positions"])


def check_whisper(data: dict[str, Any], batch: int, s: int, t: int, out: Path) -> None:
    """Whisper with an encoder of S positions (2 S mel frames) and T target tokens."""
    data = {**WHISPER_IDS, **data, "max_source_positions": s}
    cfg = read_hub("whisper", data, out / "hub")
    model = build("whisper", data)
    # (a) parameters (the encoder's frozen sinusoidal table among them), (b) names and shapes
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg)
    assert param_shapes(model) == inventory_names(cfg)
    assert not model.model.encoder.embed_positions.weight.requires_grad
    assert "model.encoder.layers.0.self_attn.k_proj.bias" not in param_shapes(model)
    # (c) forward FLOPs: conv1 over 2 S frames, conv2 and the encoder over S, decoder over T
    feats = mel(data, batch)
    target = token_ids(data["vocab_size"], batch, t)
    got = counted_flops(model, input_features=feats, decoder_input_ids=target)
    assert got == forward_flops(cfg, Workload(batch=batch, seq_len=s, target_len=t))
    # the cache after a prefill of T target tokens (the decoder's self-attention over T, the
    # cross-attention over the encoder's S positions), then one decode step with it
    with torch.no_grad():
        prefill = model(input_features=feats, decoder_input_ids=target, use_cache=True)
        cache = prefill.past_key_values
        assert isinstance(cache, transformers.EncoderDecoderCache)
        assert cache_numel(cache) == kv_elements(cfg, batch, t, s)
        step = counted_flops(
            model, encoder_outputs=(prefill.encoder_last_hidden_state,),
            decoder_input_ids=target[:, -1:], past_key_values=cache, use_cache=True,
        )  # fmt: skip
    assert step == decode_flops(cfg, batch, t, s)
    # (d) save_pretrained, then the checkpoint's header against its config.json
    save(model, out / "ckpt")
    checkpoint = check_verifies(out / "ckpt", cfg)
    assert not checkpoint["missing"] and not checkpoint["shape_mismatches"]
    check_wider_ffn_fails(out / "ckpt", ["decoder_ffn_dim"])  # the decoder's own width
    check_wider_ffn_fails(out / "ckpt", ["encoder_ffn_dim", "decoder_ffn_dim"])


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """One case through the harness (tests/test_oracle_cases.py): S source positions (mT5,
    UMT5: tokens; Whisper: the encoder's positions, 2 S mel frames) and T target tokens."""
    family = data["model_type"]
    data = {k: v for k, v in data.items() if k not in ("model_type", "architectures")}
    if family == "whisper":
        check_whisper(data, batch, s, t, tmp)
    else:
        check_t5_like(family, data, batch, s, t, tmp)


COVERAGE: list[dict[str, Any]] = json.loads((DATA / "coverage.json").read_text())["cases"]


def meta_model(case: dict[str, Any]) -> Any:
    """The class of the case's family built from its config.json on the meta device."""
    conf = getattr(transformers, HF_CLASSES[case["model_type"]][0]).from_dict(case["hf_config"])
    conf._attn_implementation = "eager"
    with torch.device("meta"):
        return getattr(transformers, HF_CLASSES[case["model_type"]][1])(conf).eval()


def test_whisper_large_v3_preset_at_full_size() -> None:
    """The preset against WhisperForConditionalGeneration built on the meta device from
    openai/whisper-large-v3's config.json: parameters, names and shapes, FLOPs of 3,000 mel
    frames (S = 1,500) and T = 16 target tokens, the cache after that prefill and one step."""
    case = next(c for c in COVERAGE if c["name"] == "openai/whisper-large-v3")
    cfg = resolve_model(preset="whisper-large-v3")
    model = meta_model(case)
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg) == 1_543_490_560
    assert param_shapes(model) == inventory_names(cfg)
    feats = torch.zeros((1, 128, 3000), device="meta")
    target = torch.zeros((1, 16), dtype=torch.long, device="meta")
    with torch.no_grad():
        got = counted_flops(model, input_features=feats, decoder_input_ids=target)
        assert got == forward_flops(cfg, Workload(batch=1, seq_len=1500, target_len=16))
        prefill = model(input_features=feats, decoder_input_ids=target, use_cache=True)
        cache = prefill.past_key_values
        assert cache_numel(cache) == kv_elements(cfg, 1, 16, 1500)
        step = counted_flops(
            model, encoder_outputs=(prefill.encoder_last_hidden_state,),
            decoder_input_ids=target[:, -1:], past_key_values=cache, use_cache=True,
        )  # fmt: skip
    assert step == decode_flops(cfg, 1, 16, 1500)


@pytest.mark.parametrize("name", ["google/mt5-base", "google/umt5-base"])
def test_t5_like_golden_at_full_size(name: str, tmp_path: Path) -> None:
    """The released mT5 / UMT5 config.json (untied) against the class on the meta device:
    the tied model it builds, names and shapes, FLOPs at S = 64 and T = 16."""
    case = next(c for c in COVERAGE if c["name"] == name)
    (tmp_path / "config.json").write_text(json.dumps(case["hf_config"]))
    cfg = resolve_model(hf_config=tmp_path / "config.json")
    model = meta_model(case)
    head = cfg.vocab_size * cfg.d_model if cfg.vocab_size else 0
    assert total_params(cfg) == case["total_params"]
    assert (
        sum(p.numel() for p in model.parameters())
        == total_params(tied(cfg))
        == (case["total_params"] - head)
    )
    assert param_shapes(model) == inventory_names(tied(cfg))
    ids = torch.zeros((1, 64), dtype=torch.long, device="meta")
    target = torch.zeros((1, 16), dtype=torch.long, device="meta")
    got = counted_flops(model, input_ids=ids, decoder_input_ids=target)
    assert got == forward_flops(cfg, Workload(batch=1, seq_len=64, target_len=16))
