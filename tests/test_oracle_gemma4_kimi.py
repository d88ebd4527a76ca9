"""Differential tests: Gemma 4 (text, and with its vision and audio towers) against `transformers`.

Optional, as every oracle test: they need torch and transformers and skip cleanly without
them. Each case is a config.json (some fields absent, so the class defaults apply); ffn-calc
reads it with `--hf-config`, transformers builds Gemma4ForCausalLM or
Gemma4ForConditionalGeneration from the same fields. Checked: parameters (`parameters()`),
names and shapes (`named_parameters()`: the global layers of their own head_dim, the
per-layer inputs, the towers under model.vision_tower. and model.audio_tower. and the
projectors model.embed_vision. / model.embed_audio.), the FLOPs of a text-only forward and of
a forward with images (FlopCounterMode, eager attention: the vision tower's stack over the
padded patches, its patch projection, the pooler's averaging matmul, the projector, and the
soft tokens in the language model's sequence), the cache after a prefill, a decode step and
generate(), and a save_pretrained checkpoint through `ffn-calc verify --checkpoint`.

The images: Gemma4ImageProcessor pads every image's patches to 280 x k^2 (k the pooling
kernel) and marks the padding with position (-1, -1); a square image of 16 k x 16 k patches
gives 256 soft tokens. The tests feed exactly that (k = 2, to stay small).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, run
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from oracle_cases import case, classes  # noqa: E402
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
from ffn_calc.counts.towers import image_flops, image_tokens  # noqa: E402
from ffn_calc.families.resolve import resolve_model  # noqa: E402
from ffn_calc.reports.flops import flops_report  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CLASSES = classes("test_oracle_gemma4_kimi")
IMAGE_TOKEN = 39  # image_token_id of every wrapper case; its vocab is 40


def build(data: dict[str, Any], device: str = "cpu") -> Any:
    fields = {k: v for k, v in data.items() if k != "model_type"}
    return build_hf(*CLASSES[data["model_type"]], fields, device)


# --- random small config.json files -----------------------------------------------------------


@st.composite
def text_configs(draw: Any) -> dict[str, Any]:
    """A tiny Gemma4TextConfig: d_model <= 32, 1-4 layers, the per-layer inputs and the global
    layers' width drawn (or left to the class defaults, 256 and 512, where the width allows)."""
    heads = draw(st.sampled_from([1, 2, 4]))
    layers = draw(st.integers(1, 4))
    out: dict[str, Any] = {
        "model_type": "gemma4_text", "architectures": [CLASSES["gemma4_text"][1]],
        "num_hidden_layers": layers, "num_attention_heads": heads,
        "num_key_value_heads": draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0])),
        "hidden_size": heads * draw(st.integers(1, 8)), "head_dim": draw(st.sampled_from([2, 4])),
        "intermediate_size": draw(st.integers(1, 24)), "vocab_size": 40,
        "max_position_embeddings": 64, "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": 0,
        "global_head_dim": draw(st.sampled_from([2, 4, 6])),
        "hidden_size_per_layer_input": draw(st.sampled_from([0, 1, 3])),
        # at least the vocabulary: generate() feeds back any token id
        "vocab_size_per_layer_input": draw(st.sampled_from([40, 48])),
    }  # fmt: skip
    if draw(st.booleans()):
        types = draw(st.lists(st.sampled_from(["sliding_attention", "full_attention"]),
                              min_size=layers, max_size=layers))  # fmt: skip
        out["layer_types"] = types  # the last is forced to full attention
    maybe(draw, out, "sliding_window", draw(st.integers(1, 8)))
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    maybe(draw, out, "attention_bias", draw(st.booleans()))
    maybe(draw, out, "hidden_activation", draw(st.sampled_from(["gelu_pytorch_tanh", "silu"])))
    return out


@st.composite
def wrapper_configs(draw: Any) -> dict[str, Any]:
    """A tiny Gemma4Config: its text model, a vision tower, an audio tower or none. The vision
    tower's head_dim is at least 4 (its 2-D rotary splits it in two halves, each rotated in
    pairs); its pooling kernel is 2 (with 1, transformers 5.24.0 keeps the padding patches
    instead of the image's: Gemma4VisionPooler returns its padding mask where the model reads
    a mask of the valid ones)."""
    text = draw(text_configs())
    text.pop("architectures")
    heads = draw(st.sampled_from([1, 2]))
    vision: dict[str, Any] = {
        "model_type": "gemma4_vision", "hidden_size": heads * draw(st.integers(1, 4)),
        "num_attention_heads": heads, "num_key_value_heads": heads,
        "head_dim": draw(st.sampled_from([4, 8])), "num_hidden_layers": draw(st.integers(1, 2)),
        "intermediate_size": draw(st.integers(1, 12)), "patch_size": draw(st.integers(1, 2)),
        "pooling_kernel_size": 2, "position_embedding_size": 40,
    }  # fmt: skip
    out: dict[str, Any] = {
        "model_type": "gemma4", "architectures": [CLASSES["gemma4"][1]],
        "text_config": text, "vision_config": vision, **WRAPPER_IDS,
    }  # fmt: skip
    if draw(st.booleans()):
        out["audio_config"] = {
            "model_type": "gemma4_audio", "hidden_size": 8, "num_attention_heads": 2,
            "num_hidden_layers": draw(st.integers(1, 2)), "output_proj_dims": 6,
            "subsampling_conv_channels": [4, draw(st.integers(1, 3))],
            "conv_kernel_size": draw(st.integers(1, 5)),
        }  # fmt: skip
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    return out


# Token ids of a wrapper case (its text vocab is 40): the image token and the others below it.
WRAPPER_IDS: dict[str, Any] = {
    "image_token_id": IMAGE_TOKEN, "audio_token_id": 38, "video_token_id": 37,
    "boi_token_id": 0, "eoi_token_id": 0, "boa_token_id": 0, "eoa_token_index": 0,
}  # fmt: skip


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """The harness's random configs (tests/test_oracle_cases.py)."""
    return text_configs() if family == "gemma4_text" else wrapper_configs()


# --- one case ----------------------------------------------------------------------------------


def images_in(data: dict[str, Any], cfg: Any, count: int) -> dict[str, Any]:
    """pixel_values and image_position_ids of `count` square images as the processor gives
    them: each image's patches (16 k a side) then padding to the tower's tokens."""
    (tower,) = [t for t in cfg.towers if t.name == "vision"]
    p = data["vision_config"]["patch_size"]
    side = tower.image_size[0] // p
    n = tower.tokens
    pos = torch.full((count, n, 2), -1)
    grid = torch.meshgrid(torch.arange(side), torch.arange(side), indexing="xy")
    pos[:, : side * side] = torch.stack(grid, -1).reshape(-1, 2)
    return {"pixel_values": torch.randn(count, n, 3 * p * p), "image_position_ids": pos}


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """Parameters, names, text-only FLOPs and the cache, (a wrapper) FLOPs with one or two
    images per sequence, and the saved checkpoint."""
    torch.manual_seed(0)
    cfg = read(data, tmp)
    model = build(data).eval()
    ids = token_ids(30, batch, s)  # text tokens only: no image or audio placeholder
    check_counts(model, cfg, ids)  # parameters, names, text-only FLOPs, cache and generate()
    if data["model_type"] == "gemma4":
        images = 1 + t % 2
        extra = image_tokens(cfg, images)
        marks = torch.full((batch, extra), IMAGE_TOKEN)
        inputs = images_in(data, cfg, batch * images)
        got = counted_flops(model, input_ids=torch.cat([ids, marks], dim=1), **inputs)
        lm = forward_flops(cfg, Workload(batch=batch, seq_len=s + extra))
        assert got == lm + sum(image_flops(cfg, batch * images).values())
        report = flops_report(cfg, Workload(batch=batch, seq_len=s), images=images)
        assert report.forward_flops == got
    out = save(model, tmp / "ckpt")  # the checkpoint and the config.json save_pretrained writes
    assert total_params(resolve_model(hf_config=out)) == total_params(cfg)
    check_verifies(out, cfg)
    if data["model_type"] == "gemma4_text":
        check_wider_ffn_fails(out, ["intermediate_size"])


# --- the family's own tests ----------------------------------------------------------------


def test_global_layers_and_per_layer_inputs_change_the_counts(tmp_path: Path) -> None:
    """Each Gemma 4 field read changes the count as it should."""
    data = case("gemma4_text global head_dim 6, per-layer inputs 3, last layer forced full")
    cfg = read(data, tmp_path)
    # layer_types [sliding, full, sliding]: the last forced to full, so layers 1 and 2 global.
    assert (cfg.window_layers, cfg.head_size, cfg.global_head_dim) == ([0], 4, 6)
    assert (cfg.per_layer_dim, cfg.per_layer_vocab) == (3, 48)
    narrow = read({**data, "global_head_dim": 4}, tmp_path)
    # Per global layer: Q and O 2 x (8 x 2 x (6 - 4)), K and V 2 x (8 x 1 x 2), q/k norms 2 x 2.
    assert total_params(cfg) - total_params(narrow) == 2 * (2 * 8 * 4 + 2 * 8 * 2 + 2 * 2)
    off = read({**data, "hidden_size_per_layer_input": 0}, tmp_path)
    # Table 48 x (3 x 3), projection 8 x 9, its norm 3; per layer gate and projection 2 x 8 x 3
    # and a norm of 8.
    assert total_params(cfg) - total_params(off) == 48 * 9 + 8 * 9 + 3 + 3 * (2 * 8 * 3 + 8)


@pytest.mark.parametrize(
    ("field", "value"),
    [("num_kv_shared_layers", 1), ("attention_k_eq_v", True), ("enable_moe_block", True)],
)
def test_uncounted_features_are_refused(field: str, value: Any, tmp_path: Path) -> None:
    """A feature not counted yet: exit 2, the field named, nothing on stdout."""
    data = {**case("gemma4_text global head_dim 6, per-layer inputs 3, last layer forced full"),
            field: value}  # fmt: skip
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    result = run("params", "--hf-config", str(path))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert field in result.stderr


def test_no_tower_without_its_config(tmp_path: Path) -> None:
    """Gemma4Config builds no vision or audio tower for an absent config; `{}` gives the
    class's defaults (transformers' Gemma4VisionConfig and Gemma4AudioConfig)."""
    data = {"model_type": "gemma4", "text_config": {"num_hidden_layers": 1}}
    cfg = read(data, tmp_path)
    assert cfg.towers == []
    model = build({**data, "vision_config": {}, "audio_config": {}}, "meta")
    both = read({**data, "vision_config": {}, "audio_config": {}}, tmp_path)
    assert [t.name for t in both.towers] == ["vision", "audio"]
    assert sum(p.numel() for p in model.parameters()) == total_params(both)
    assert param_shapes(model) == inventory_names(both)


def _frontier(name: str) -> dict[str, Any]:
    cases = json.loads((DATA / "frontier.json").read_text())["cases"]
    return next(c for c in cases if c["name"] == name)


def test_real_size_names(tmp_path: Path) -> None:
    """google/gemma-4-e2b-it (tests/data/frontier.json) on the meta device: every tensor's
    name and shape (its forward does not run on the meta device: the masks read a value)."""
    data = _frontier("google/gemma-4-e2b-it")["hf_config"]
    model = build({**data, "model_type": "gemma4"}, "meta")
    cfg = read(data, tmp_path)
    # Golden: frontier.json total_params (transformers 5.24.0, meta device).
    assert total_params(cfg) == 5_554_675_488
    assert sum(p.numel() for p in model.parameters()) == 5_554_675_488
    assert param_shapes(model) == inventory_names(cfg)
