"""Differential tests: more multimodal wrappers (Mistral 3 with its Pixtral tower; Idefics3
and SmolVLM with their SigLIP-like tower and pixel-shuffle connector; Llama 4 with its vision
model) against `transformers`.

Optional, as every oracle test: they need torch and transformers and skip cleanly without
them. Each case is a config.json of the wrapper (text_config, vision_config and the wrapper's
own fields, some absent so the class defaults apply); ffn-calc reads it with `--hf-config`,
transformers builds the wrapper class from the same fields. Checked: parameters
(`parameters()`), names and shapes (`named_parameters()`), the FLOPs of a text-only forward
(the language model alone) and of a forward with `pixel_values` (FlopCounterMode, eager
attention: the tower's stack, its patch convolution, the projector and the image's tokens in
the language model's sequence), the language model's cache after a prefill, and a
save_pretrained checkpoint through `ffn-calc verify --checkpoint`.

Mistral 3: Pixtral takes images of any size up to its image_size; each case runs images of
a size drawn below it (`flops --image-size`), all the batch's images packed into one
sequence through the tower; each image's merged tokens are image placeholders in the
language model's sequence, and its [IMG_BREAK] / [IMG_END] tokens (one per row of merged
tokens) are ordinary tokens there. Idefics3 / SmolVLM: images (tiles) of the configured
size, pixel_values [batch, images, C, H, W], each giving patches / scale_factor^2 image
tokens. Llama 4: eager attention and eager experts, whose every expert runs over every token
(zero-weighted): FlopCounterMode counts ffn-calc's routed FLOPs plus that surplus.
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
from ffn_calc.counts.towers import image_flops, image_tokens, sized  # noqa: E402
from ffn_calc.families.resolve import resolve_model  # noqa: E402
from ffn_calc.reports.flops import flops_report  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CLASSES = classes("test_oracle_multimodal_2")


def build(data: dict[str, Any], device: str = "cpu") -> Any:
    fields = {k: v for k, v in data.items() if k != "model_type"}
    return build_hf(*CLASSES[data["model_type"]], fields, device)


def text_config(draw: Any, model_type: str) -> dict[str, Any]:
    vocab = draw(st.integers(8, 60))
    heads = draw(st.sampled_from([1, 2, 4]))
    return {
        "model_type": model_type,
        "num_hidden_layers": draw(st.integers(1, 2)), "num_attention_heads": heads,
        "num_key_value_heads": draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0])),
        "hidden_size": heads * draw(st.integers(1, 8)), "head_dim": draw(st.sampled_from([2, 4])),
        "intermediate_size": draw(st.integers(1, 32)), "vocab_size": vocab,
        "max_position_embeddings": 256, "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None,
    }  # fmt: skip


@st.composite
def config_jsons(draw: Any, family: str) -> dict[str, Any]:
    if family in ("idefics3", "smolvlm"):
        return draw(idefics3_jsons(family))
    if family == "llama4":
        return draw(llama4_jsons(family))
    text = text_config(draw, "mistral")
    maybe(draw, text, "sliding_window", draw(st.sampled_from([None, 3])))
    heads = draw(st.sampled_from([1, 2]))  # head_dim 4 or 8: the axial rotary needs 4 | it
    patch = draw(st.integers(1, 3))
    vision: dict[str, Any] = {
        "model_type": "pixtral", "hidden_size": heads * draw(st.sampled_from([4, 8])),
        "num_attention_heads": heads, "num_hidden_layers": draw(st.integers(1, 2)),
        "intermediate_size": draw(st.integers(1, 24)), "patch_size": patch,
        "image_size": patch * draw(st.integers(2, 6)),
    }  # fmt: skip
    maybe(draw, vision, "num_channels", draw(st.integers(1, 3)))
    maybe(draw, vision, "hidden_act", draw(st.sampled_from(["gelu", "silu"])))
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "image_token_index": text["vocab_size"] - 1, "text_config": text, "vision_config": vision,
        "spatial_merge_size": draw(st.sampled_from([1, 2])),
    }  # fmt: skip
    maybe(draw, out, "multimodal_projector_bias", draw(st.booleans()))
    maybe(draw, out, "projector_hidden_act", draw(st.sampled_from(["gelu", "silu"])))
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    maybe(draw, text, "tie_word_embeddings", draw(st.booleans()))  # not read by Mistral 3
    return out


@st.composite
def idefics3_jsons(draw: Any, family: str) -> dict[str, Any]:
    text = text_config(draw, "llama")
    heads = draw(st.sampled_from([1, 2, 4]))
    patch = draw(st.integers(1, 3))
    scale = draw(st.sampled_from([1, 2]))
    vision: dict[str, Any] = {
        "model_type": f"{family}_vision", "hidden_size": heads * draw(st.integers(1, 8)),
        "num_attention_heads": heads, "num_hidden_layers": draw(st.integers(1, 2)),
        "intermediate_size": draw(st.integers(1, 24)), "patch_size": patch,
        "image_size": patch * scale * draw(st.integers(1, 2)) + draw(st.integers(0, patch - 1)),
    }  # fmt: skip
    maybe(draw, vision, "num_channels", draw(st.integers(1, 3)))
    maybe(draw, vision, "hidden_act", draw(st.sampled_from(["gelu_pytorch_tanh", "gelu"])))
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "image_token_id": text["vocab_size"] - 1, "text_config": text, "vision_config": vision,
    }  # fmt: skip
    if scale != 2 or draw(st.booleans()):
        out["scale_factor"] = scale
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    maybe(draw, text, "tie_word_embeddings", draw(st.booleans()))  # not read: the top level's
    return out


@st.composite
def llama4_jsons(draw: Any, family: str) -> dict[str, Any]:
    """Llama 4: a tiny MoE text model, a vision model whose sizes let an image run (the
    shuffled width 4 x hidden is the adapter's intermediate_size; projector_input_dim,
    projector_output_dim and vision_output_dim one width)."""
    text = text_config(draw, "llama4_text")
    experts = draw(st.integers(1, 3))
    text.update(num_local_experts=experts, num_experts_per_tok=draw(st.integers(1, experts)),
                intermediate_size_mlp=draw(st.integers(1, 24)))  # fmt: skip
    maybe(draw, text, "interleave_moe_layer_step", draw(st.integers(1, 2)))
    maybe(draw, text, "tie_word_embeddings", draw(st.booleans()))
    heads = draw(st.sampled_from([1, 2]))
    d = heads * draw(st.sampled_from([4, 8]))
    patch = draw(st.integers(1, 3))
    out_dim = draw(st.integers(1, 12))
    vision: dict[str, Any] = {
        "hidden_size": d, "num_attention_heads": heads, "num_hidden_layers": draw(st.integers(1, 2)),
        "intermediate_size": 4 * d, "patch_size": patch,
        "image_size": patch * draw(st.sampled_from([2, 4])),
        "projector_input_dim": out_dim, "projector_output_dim": out_dim,
        "vision_output_dim": out_dim,
    }  # fmt: skip
    maybe(draw, vision, "num_channels", draw(st.integers(1, 3)))
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "image_token_index": text["vocab_size"] - 1, "text_config": text, "vision_config": vision,
    }  # fmt: skip
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))  # not read
    return out


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """The harness's random configs (tests/test_oracle_cases.py)."""
    return config_jsons(family)


def image_size(data: dict[str, Any], t: int) -> tuple[int, int]:
    """An image size the case's tower takes, below its maximum: whole merged blocks, and
    not square where the maximum leaves room (t picks it)."""
    v = data["vision_config"]
    block = v["patch_size"] * data.get("spatial_merge_size", 2)
    top = v["image_size"] // block
    return block * max(1, top - t % 2), block * top


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """Parameters, names, text-only FLOPs and the cache, FLOPs with one or two images per
    sequence of a size the tower takes, and the saved checkpoint."""
    if data["model_type"] in ("idefics3", "smolvlm"):
        check_idefics3(data, batch, s, t, tmp)
        return
    if data["model_type"] == "llama4":
        check_llama4(data, batch, s, t, tmp)
        return
    torch.manual_seed(0)
    cfg = read(data, tmp)
    model = build(data).eval()
    marker = int(data["image_token_index"])
    ids = token_ids(marker, batch, s)  # text tokens only: no image placeholder
    check_counts(model, cfg, ids)  # parameters, names, text-only FLOPs, cache and generate()
    (tower,) = cfg.towers
    size = image_size(data, t)
    if tower.cut(*size)[1] == 0:  # the merger leaves no token: no image runs
        return
    images = 1 + t % 2
    at = sized(cfg, *size, "--image-size")
    (sized_tower,) = at.towers
    _, merged, extra = sized_tower.cut(*size)
    assert extra == sized_tower.output_tokens == image_tokens(at, 1)
    if batch * images * merged == 1:
        # transformers 5.24.0 cannot run a single image token in all: Mistral3Model's
        # get_image_features splits image_features.squeeze(0), which then drops the token's row.
        images = 2
    channels = data["vision_config"].get("num_channels", 3)
    pixels = torch.randn(batch * images, channels, *size)
    # Each image: its merged tokens as placeholders, then one [IMG_BREAK]/[IMG_END] per row
    # (ordinary tokens of the language model; token 0 stands for them).
    per_image = [marker] * merged + [0] * (extra - merged)
    marks = torch.tensor([per_image * images] * batch)
    with_images = torch.cat([ids, marks], dim=1)
    got = counted_flops(
        model, input_ids=with_images, pixel_values=pixels,
        image_sizes=torch.tensor([list(size)] * (batch * images)),
    )  # fmt: skip
    lm = forward_flops(cfg, Workload(batch=batch, seq_len=s + images * extra))
    assert got == lm + sum(image_flops(at, batch * images).values())
    report = flops_report(cfg, Workload(batch=batch, seq_len=s), images=images, image_size=size)
    assert report.forward_flops == got
    # The checkpoint and the config.json that save_pretrained writes.
    out = save(model, tmp / "ckpt")
    assert total_params(resolve_model(hf_config=out)) == total_params(cfg)
    check_verifies(out, cfg)


def check_idefics3(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    torch.manual_seed(0)
    cfg = read(data, tmp)
    model = build(data).eval()
    marker = int(data["image_token_id"])
    ids = token_ids(marker, batch, s)
    check_counts(model, cfg, ids)
    images = 1 + t % 2
    (tower,) = cfg.towers
    assert tower.image_size is not None
    channels = data["vision_config"].get("num_channels", 3)
    pixels = torch.randn(batch, images, channels, *tower.image_size)
    extra = image_tokens(cfg, images)
    marks = torch.full((batch, extra), marker)
    got = counted_flops(model, input_ids=torch.cat([ids, marks], dim=1), pixel_values=pixels)
    lm = forward_flops(cfg, Workload(batch=batch, seq_len=s + extra))
    assert got == lm + sum(image_flops(cfg, batch * images).values())
    report = flops_report(cfg, Workload(batch=batch, seq_len=s), images=images)
    assert report.forward_flops == got
    out = save(model, tmp / "ckpt")
    assert total_params(resolve_model(hf_config=out)) == total_params(cfg)
    check_verifies(out, cfg)


def build_eager_experts(data: dict[str, Any]) -> Any:
    conf_name, model_name = CLASSES[data["model_type"]]
    fields = {k: v for k, v in data.items() if k != "model_type"}
    conf = getattr(transformers, conf_name)(**fields)
    conf._attn_implementation = "eager"
    conf.text_config._attn_implementation = "eager"
    conf.vision_config._attn_implementation = "eager"
    conf._experts_implementation = "eager"
    conf.text_config._experts_implementation = "eager"
    return getattr(transformers, model_name)(conf)


def dense_expert_surplus(cfg: Any, batch: int, s: int) -> int:
    """Llama 4's eager experts run every token through the n_experts - experts_per_token
    experts it is not routed to: 3 matmuls of d_model x d_ff each, in every MoE layer."""
    idle = cfg.n_experts - cfg.experts_per_token
    return cfg.moe_layers(cfg.n_layers) * 2 * batch * s * idle * 3 * cfg.d_model * cfg.d_ff


def llama4_flops(model: Any, **inputs: Any) -> int:
    """FlopCounterMode over the forward, which ends in transformers 5.24.0's AttributeError
    after the last matmul (`image_outputs` of the text model's output)."""
    from torch.utils.flop_counter import FlopCounterMode

    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        try:
            model(**inputs)
        except AttributeError as exc:
            if "image_outputs" not in str(exc):
                raise
    return int(counter.get_total_flops())


def check_llama4(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    from oracle_support import check_cache

    torch.manual_seed(0)
    cfg = read(data, tmp)
    model = build_eager_experts(data).eval()
    marker = int(data["image_token_index"])
    ids = token_ids(marker, batch, s)
    check_counts(model, cfg, None)  # parameters, names
    # Llama4ForConditionalGeneration.forward fails in transformers 5.24.0 once every matmul is
    # done (its output reads `image_outputs` from the text model's output, which has none): the
    # FLOPs are counted up to there (llama4_flops), the cache on the text model (a
    # Llama4ForCausalLM), whose cache it is.
    got = llama4_flops(model, input_ids=ids)
    assert got == forward_flops(cfg, Workload(batch=batch, seq_len=s)) + dense_expert_surplus(
        cfg, batch, s
    )
    check_cache(model.language_model, cfg, ids, surplus=dense_expert_surplus(cfg, 1, 1))
    images = 1 + t % 2
    (tower,) = cfg.towers
    assert tower.image_size is not None
    channels = data["vision_config"].get("num_channels", 3)
    pixels = torch.randn(batch * images, channels, *tower.image_size)
    extra = image_tokens(cfg, images)
    marks = torch.full((batch, extra), marker)
    with_images = torch.cat([ids, marks], dim=1)
    got = llama4_flops(model, input_ids=with_images, pixel_values=pixels)
    lm = forward_flops(cfg, Workload(batch=batch, seq_len=s + extra))
    surplus = dense_expert_surplus(cfg, batch, s + extra)
    assert got == lm + surplus + sum(image_flops(cfg, batch * images).values())
    report = flops_report(cfg, Workload(batch=batch, seq_len=s), images=images)
    assert report.forward_flops + surplus == got
    out = save(model, tmp / "ckpt")
    assert total_params(resolve_model(hf_config=out)) == total_params(cfg)
    check_verifies(out, cfg)


@pytest.mark.parametrize("family", sorted(CLASSES))
def test_absent_sub_configs_take_the_class_defaults(family: str, tmp_path: Path) -> None:
    """No vision_config and no text_config: the wrapper's own sizes for both (Mistral3Config:
    a 1024-wide Pixtral of 24 layers, patches of 14, images up to 1540; a 5120-wide Mistral of
    40 layers). Parameters and names on the meta device."""
    data = {"model_type": family, "architectures": [CLASSES[family][1]]}
    cfg = read(data, tmp_path)
    model = build(data, "meta")
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg)
    assert param_shapes(model) == inventory_names(cfg)


def test_mistral3_ties_by_the_top_level_only(tmp_path: Path) -> None:
    """Mistral3Config reads tie_word_embeddings at the top level (default true) and not
    text_config's: an untied text_config still builds a tied head."""
    data = case("mistral3 Pixtral, merge 2, projector biases")
    text = {**data["text_config"], "tie_word_embeddings": False}
    tied = read({**data, "text_config": text}, tmp_path)
    untied = read({**data, "text_config": text, "tie_word_embeddings": False}, tmp_path)
    # the head [vocab 40, d_text 8] counts once more when untied
    assert total_params(untied) - total_params(tied) == 40 * 8
    model = build({**data, "text_config": text}, "meta")
    assert sum(p.numel() for p in model.parameters()) == total_params(tied)


def test_pixtral_tokens_follow_the_image_size(tmp_path: Path) -> None:
    """An H x W image: (H // p) x (W // p) patches through the tower, merged 2 x 2, plus one
    [IMG_BREAK]/[IMG_END] per row of merged tokens in the language model."""
    cfg = read(case("mistral3 Pixtral, merge 2, projector biases"), tmp_path)
    (tower,) = cfg.towers
    # patch 2, image_size 12: 6 x 6 patches, 3 x 3 merged, 3 row tokens
    assert (tower.tokens, tower.output_tokens) == (36, 12)
    # 8 x 12 pixels: 4 x 6 patches, 2 x 3 merged, 2 rows
    assert tower.cut(8, 12) == (24, 6, 8)
