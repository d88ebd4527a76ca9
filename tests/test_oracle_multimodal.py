"""Differential tests: multimodal wrappers (Gemma 3 with images, LLaVA) against `transformers`.

Optional, as every oracle test: they need torch and transformers and skip cleanly without
them. Each case is a config.json of the wrapper (text_config, vision_config and the wrapper's
own fields, some absent so the class defaults apply); ffn-calc reads it with `--hf-config`,
transformers builds Gemma3ForConditionalGeneration or LlavaForConditionalGeneration from the
same fields. Checked: parameters (`parameters()`), names and shapes (`named_parameters()`: the
language model under model.language_model., the tower under model.vision_tower. with its
family's names, the projector), the FLOPs of a text-only forward (the language model alone)
and of a forward with `pixel_values` of the configured size (FlopCounterMode, eager
attention: the tower's stack, its patch convolution, the projector, and the image tokens in
the language model's sequence), the cache after a prefill, a decode step and generate() (the
language model's), and a save_pretrained checkpoint through `ffn-calc verify --checkpoint`.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from oracle_cases import case, classes  # noqa: E402
from oracle_support import (  # noqa: E402
    build_hf,
    check_counts,
    check_verifies,
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

CLASSES = classes("test_oracle_multimodal")


def build(data: dict[str, Any], device: str = "cpu") -> Any:
    fields = {k: v for k, v in data.items() if k != "model_type"}
    return build_hf(*CLASSES[data["model_type"]], fields, device)


def image_token(data: dict[str, Any]) -> int:
    key = "image_token_index"
    return int(data[key])


# --- random small config.json files -----------------------------------------------------------


@st.composite
def vision_configs(draw: Any, kind: str) -> dict[str, Any]:
    """A tiny vision tower: width <= 32, 1-2 layers, images of 2-4 patches a side."""
    heads = draw(st.sampled_from([1, 2, 4]))
    patch = draw(st.integers(1, 3))
    side = draw(st.sampled_from([2, 4]))
    out: dict[str, Any] = {
        "model_type": kind, "hidden_size": heads * draw(st.integers(1, 8)),
        "num_attention_heads": heads, "num_hidden_layers": draw(st.integers(1, 2)),
        "intermediate_size": draw(st.integers(1, 24)), "patch_size": patch,
        "image_size": patch * side + draw(st.integers(0, patch - 1)),
    }  # fmt: skip
    maybe(draw, out, "num_channels", draw(st.integers(1, 3)))
    if kind == "siglip_vision_model":
        maybe(draw, out, "vision_use_head", draw(st.booleans()))
    return out


@st.composite
def config_jsons(draw: Any, family: str) -> dict[str, Any]:
    vocab = draw(st.integers(8, 60))
    heads = draw(st.sampled_from([1, 2, 4]))
    text: dict[str, Any] = {
        "num_hidden_layers": draw(st.integers(1, 2)), "num_attention_heads": heads,
        "num_key_value_heads": draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0])),
        "hidden_size": heads * draw(st.integers(1, 8)), "head_dim": draw(st.sampled_from([2, 4])),
        "intermediate_size": draw(st.integers(1, 32)), "vocab_size": vocab,
        "max_position_embeddings": 128, "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None,
    }  # fmt: skip
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "image_token_index": vocab - 1, "text_config": text,
    }  # fmt: skip
    if family == "gemma3":
        text["model_type"] = "gemma3_text"
        maybe(draw, text, "sliding_window", draw(st.integers(1, 8)))
        vision = draw(vision_configs("siglip_vision_model"))
        side = vision["image_size"] // vision["patch_size"]
        per_side = draw(st.sampled_from([k for k in (1, 2, 4) if side % k == 0]))
        out["mm_tokens_per_image"] = per_side * per_side
        out["boi_token_index"] = out["eoi_token_index"] = 0
    else:
        text["model_type"] = "llama"
        vision = draw(vision_configs("clip_vision_model"))
        maybe(
            draw, out, "vision_feature_select_strategy", draw(st.sampled_from(["default", "full"]))
        )
        maybe(draw, out, "multimodal_projector_bias", draw(st.booleans()))
        maybe(draw, out, "vision_feature_layer", draw(st.sampled_from([-1, -2, [-2, -1]])))
        maybe(draw, out, "projector_hidden_act", draw(st.sampled_from(["gelu", "silu"])))
    out["vision_config"] = vision
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    return out


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """The harness's random configs (tests/test_oracle_cases.py)."""
    return config_jsons(family)


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """Parameters, names, text-only FLOPs and the cache, FLOPs with one or two images per
    sequence, and the saved checkpoint."""
    torch.manual_seed(0)
    cfg = read(data, tmp)
    model = build(data).eval()
    vocab = data["text_config"]["vocab_size"]
    ids = token_ids(image_token(data), batch, s)  # text tokens only: no image placeholder
    check_counts(model, cfg, ids)  # parameters, names, text-only FLOPs, cache and generate()
    # With images: `images` images per sequence, their tokens after the text.
    images = 1 + t % 2
    (tower,) = cfg.towers
    assert tower.image_size is not None
    h, w = tower.image_size
    channels = data["vision_config"].get("num_channels", 3)
    pixels = torch.randn(batch * images, channels, h, w)
    extra = image_tokens(cfg, images)
    marks = torch.full((batch, extra), image_token(data))
    with_images = torch.cat([ids, marks], dim=1)
    got = counted_flops(model, input_ids=with_images, pixel_values=pixels)
    lm = forward_flops(cfg, Workload(batch=batch, seq_len=s + extra))
    assert got == lm + sum(image_flops(cfg, batch * images).values())
    report = flops_report(cfg, Workload(batch=batch, seq_len=s), images=images)
    assert report.forward_flops == got
    assert vocab > image_token(data)
    # The checkpoint and the config.json that save_pretrained writes.
    out = save(model, tmp / "ckpt")
    assert total_params(resolve_model(hf_config=out)) == total_params(cfg)
    check_verifies(out, cfg)


@pytest.mark.parametrize("family", sorted(CLASSES))
def test_absent_sub_configs_take_the_class_defaults(family: str, tmp_path: Path) -> None:
    """No vision_config: LlavaConfig's own CLIP sizes (1024 wide, 24 layers, 336 pixels in
    patches of 14), Gemma3Config's SiglipVisionConfig defaults (with its pooling head); no
    text_config: the text class's defaults. Parameters and names on the meta device."""
    data = {"model_type": family, "architectures": [CLASSES[family][1]]}
    cfg = read(data, tmp_path)
    model = build(data, "meta")
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg)
    assert param_shapes(model) == inventory_names(cfg)
    (tower,) = cfg.towers
    if family == "llava":
        assert (tower.stack.d_model, tower.stack.n_layers, tower.tokens) == (1024, 24, 577)


def test_variants_change_the_counts(tmp_path: Path) -> None:
    """Each wrapper field read changes the count as it should."""
    data = case("llava CLIP, full strategy, two feature layers, no projector bias")
    cfg = read(data, tmp_path)
    (tower,) = cfg.towers
    # full: every token of the 2 x 2 patches and the class token reaches the language model
    assert (tower.tokens, tower.output_tokens) == (5, 5)
    biased = read({**data, "multimodal_projector_bias": True}, tmp_path)
    assert total_params(biased) - total_params(cfg) == 8 + 8  # linear_1 and linear_2 biases [8]
    one = read({**data, "vision_feature_layer": -2}, tmp_path)
    # linear_1 [8, 2 x 8] for two feature layers, [8, 8] for one
    assert total_params(cfg) - total_params(one) == 8 * 8
