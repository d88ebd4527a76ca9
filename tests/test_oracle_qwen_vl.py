"""Differential tests: the Qwen vision-language wrappers (Qwen2.5-VL, Qwen3-VL, Qwen3-VL-MoE)
against `transformers`.

Optional, as every oracle test: they need torch and transformers and skip cleanly without
them. Each case is a config.json (text_config, vision_config; Qwen2.5-VL's also flat, as the
Hub holds it); ffn-calc reads it with `--hf-config`, transformers builds the class named in
`architectures` from the same fields, with eager attention (and eager experts). Checked:
parameters (`parameters()`), names and shapes (`named_parameters()`), FLOPs from
`torch.utils.flop_counter.FlopCounterMode` over a text-only forward and over a forward with
images (`pixel_values`, `image_grid_thw`: the windowed and full attention of the vision
blocks, the patch Conv3d, the mergers, the language model over text and image tokens), the
language model's cache after a prefill, a decode step and generate(), and the checkpoint
`save_pretrained` writes (`ffn-calc verify --checkpoint`).

The family's random tiny configs (`configs`) and the check of one case (`check_case`) run in
the one harness, tests/test_oracle_cases.py, over the cases in tests/oracle_cases.py.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from conftest import DATA, run  # noqa: E402
from oracle_cases import case, classes  # noqa: E402
from oracle_support import (  # noqa: E402
    check_cache,
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
from ffn_calc.counts.params import active_params, total_params  # noqa: E402
from ffn_calc.counts.towers import image_flops, sized  # noqa: E402
from ffn_calc.errors import UsageError  # noqa: E402
from ffn_calc.families.resolve import resolve_model  # noqa: E402
from ffn_calc.model.config import ModelConfig  # noqa: E402
from ffn_calc.reference.instantiate import instantiate  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CLASSES = classes("test_oracle_qwen_vl")
FAMILIES = sorted(CLASSES)
# Special token ids at the top of each tiny vocabulary (the class defaults are ~151,655).
SPECIAL = ("image_token_id", "video_token_id", "vision_start_token_id", "vision_end_token_id")


def build(data: dict[str, Any], device: str = "cpu") -> Any:
    """The class named in `architectures`, built from the config.json fields with eager
    attention (the wrapper's and every sub-config's) and eager experts."""
    conf_name, model_name = CLASSES[data["model_type"]]
    fields = {k: v for k, v in data.items() if k not in ("model_type", "architectures")}
    conf = getattr(transformers, conf_name)(**fields)
    for c in (conf, conf.text_config, conf.vision_config):
        c._attn_implementation = "eager"
        c._experts_implementation = "eager"
    with torch.device(device):
        return getattr(transformers, model_name)(conf)


def text_of(data: dict[str, Any]) -> dict[str, Any]:
    """The language model's fields: text_config, or Qwen2.5-VL's flat top level."""
    return data.get("text_config") or data


def images_input(model: Any, images: int, h: int, w: int, text: int) -> dict[str, Any]:
    """One sequence of `images` images of h x w pixels, each after a vision-start token, then
    text tokens up to `images` + `text` text tokens in all: the processor's pixel_values
    (patches x C t p p), image_grid_thw, input_ids with one image token per merged patch,
    mm_token_type_ids (1 on the image tokens)."""
    conf = model.config
    v = conf.vision_config
    p, m, t = v.patch_size, v.spatial_merge_size, v.temporal_patch_size
    gh, gw = h // p, w // p
    tokens = gh * gw // (m * m)
    vocab = conf.text_config.vocab_size
    ids: list[int] = []
    kinds: list[int] = []
    for _ in range(images):  # consecutive images need a text token between them
        ids += [conf.vision_start_token_id] + [conf.image_token_id] * tokens
        kinds += [0] + [1] * tokens
    ids += torch.randint(0, vocab - len(SPECIAL), (text,)).tolist()
    kinds += [0] * text
    return {
        "input_ids": torch.tensor([ids]),
        "pixel_values": torch.randn(images * gh * gw, v.in_channels * t * p * p),
        "image_grid_thw": torch.tensor([[1, gh, gw]] * images),
        "mm_token_type_ids": torch.tensor([kinds], dtype=torch.int),
    }


def image_flops_cli(tmp: Path, images: int, h: int, w: int, text: int) -> int:
    """`ffn-calc flops --hf-config ... --images N --image-size HxW --seq-len S` on the
    config.json in `tmp` (S: the text tokens), the forward FLOPs in its JSON."""
    r = run(
        "flops", "--hf-config", str(tmp / "config.json"), "--images", str(images),
        "--image-size", f"{h}x{w}", "--seq-len", str(text), "--format", "json",
    )  # fmt: skip
    assert r.exit_code == 0, r.stderr
    return int(r.json()["forward_flops"])


# --- random small config.json files per family ----------------------------------------------


def _sections(head_dim: int) -> list[int]:
    """An mrope_section over head_dim / 2 rotary frequencies (t, h, w)."""
    half = head_dim // 2
    return [half - 2 * (half // 3), half // 3, half // 3]


@st.composite
def text_configs(draw: Any, family: str) -> dict[str, Any]:
    """A tiny text_config: d_model <= 48, <= 2 layers, vocab <= 80, the family's flags."""
    heads = draw(st.sampled_from([1, 2, 4]))
    kv = draw(st.sampled_from([k for k in range(1, heads + 1) if heads % k == 0]))
    head_dim = draw(st.sampled_from([2, 4, 6, 8]))  # rotary needs an even head_dim
    out: dict[str, Any] = {
        "num_hidden_layers": draw(st.integers(1, 2)), "num_attention_heads": heads,
        "num_key_value_heads": kv, "intermediate_size": draw(st.integers(1, 24)),
        "vocab_size": draw(st.integers(12, 80)), "max_position_embeddings": 64,
        "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None,
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0,
                            "mrope_section": _sections(head_dim)},
    }  # fmt: skip
    if family == "qwen2_5_vl":  # head_dim is hidden_size / heads
        out["hidden_size"] = heads * head_dim
        if draw(st.booleans()):  # a sliding-window mask from max_window_layers on
            out |= {"use_sliding_window": True, "sliding_window": draw(st.integers(1, 8)),
                    "max_window_layers": draw(st.integers(0, 2))}  # fmt: skip
    else:
        out |= {"hidden_size": 2 * draw(st.integers(1, 24)), "head_dim": head_dim}
        out["rope_parameters"]["mrope_interleaved"] = True
        maybe(draw, out, "attention_bias", draw(st.booleans()))
    if family == "qwen3_vl_moe":
        experts = draw(st.integers(1, 4))
        out[draw(st.sampled_from(["num_experts", "num_local_experts"]))] = experts
        out |= {"num_experts_per_tok": draw(st.integers(1, experts)),
                "moe_intermediate_size": draw(st.integers(1, 16))}  # fmt: skip
        maybe(draw, out, "decoder_sparse_step", draw(st.integers(1, 2)))
        maybe(draw, out, "mlp_only_layers", draw(st.lists(st.integers(0, 2), max_size=1)))
    return out


@st.composite
def vision_configs(draw: Any, family: str, out_hidden: int) -> dict[str, Any]:
    """A tiny vision_config: width <= 16, 1 or 2 blocks, patches of 2 to 4 pixels."""
    heads = draw(st.sampled_from([1, 2]))
    depth = draw(st.integers(1, 2))
    patch, merge = draw(st.integers(2, 4)), draw(st.integers(1, 2))
    out: dict[str, Any] = {
        "depth": depth, "num_heads": heads,
        "hidden_size": heads * draw(st.sampled_from([4, 8])),  # 2-D rotary: head_dim % 4 == 0
        "intermediate_size": draw(st.integers(1, 24)), "patch_size": patch,
        "spatial_merge_size": merge, "temporal_patch_size": draw(st.integers(1, 2)),
        "in_channels": draw(st.integers(1, 3)), "out_hidden_size": out_hidden,
    }  # fmt: skip
    if family == "qwen2_5_vl":
        out["window_size"] = patch * merge * draw(st.integers(1, 3)) + draw(st.integers(0, 1))
        maybe(draw, out, "fullatt_block_indexes", draw(st.lists(st.integers(0, 2), max_size=2)))
        maybe(draw, out, "hidden_act", draw(st.sampled_from(["silu", "gelu"])))
    else:
        out["num_position_embeddings"] = draw(st.sampled_from([4, 9, 16]))
        out["deepstack_visual_indexes"] = draw(st.lists(st.integers(0, 2), max_size=2))
        maybe(draw, out, "hidden_act", draw(st.sampled_from(["gelu_pytorch_tanh", "gelu"])))
    return out


@st.composite
def config_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny wrapper config.json: text_config (Qwen2.5-VL: sometimes flat at the top level,
    as the Hub's), vision_config, the special tokens at the top of the vocabulary."""
    text = draw(text_configs(family))
    vocab = text["vocab_size"]
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        **{key: vocab - 1 - i for i, key in enumerate(SPECIAL)},
        "vision_config": draw(vision_configs(family, text["hidden_size"])),
    }  # fmt: skip
    if family == "qwen2_5_vl" and draw(st.booleans()):
        out |= text  # flat, as the Hub's config.json files
    else:
        out["text_config"] = text
    tie = draw(st.sampled_from([None, False, True]))
    if tie is not None:
        out["tie_word_embeddings"] = tie
    if family == "qwen2_5_vl" and "text_config" in out:  # text_config's true ties as well
        maybe(draw, out["text_config"], "tie_word_embeddings", draw(st.booleans()))
    return out


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """The harness's random configs (tests/test_oracle_cases.py)."""
    return config_jsons(family)


# --- one case: parameters, names, FLOPs, the cache, the checkpoint --------------------------


def moe_active(model: Any) -> int:
    """The total less, in every MoE layer, (experts - top-k) x one expert, from the model."""
    out = sum(p.numel() for p in model.parameters())
    top_k = getattr(model.config.text_config, "num_experts_per_tok", 0)
    for layer in model.model.language_model.layers:
        experts = getattr(layer.mlp, "experts", None)
        if experts is not None:
            one = experts.gate_up_proj[0].numel() + experts.down_proj[0].numel()
            out -= (experts.num_experts - top_k) * one
    return int(out)


def check(data: dict[str, Any], batch: int, s: int, tmp: Path) -> None:
    """Parameters (total, language model, active), names and shapes, FLOPs text-only and
    with images, the language model's cache, and a save_pretrained checkpoint verified."""
    torch.manual_seed(0)
    cfg = read(data, tmp)
    model = build(data).eval()
    total = sum(p.numel() for p in model.parameters())
    assert total == total_params(cfg)
    assert moe_active(model) == active_params(cfg)
    language = sum(
        p.numel() for n, p in model.named_parameters()
        if ".language_model." in n or n.startswith("lm_head")
    )  # fmt: skip
    params = run("params", "--hf-config", str(tmp / "config.json"), "-f", "json").json()
    assert params["language_model_params"] == language
    assert param_shapes(model) == inventory_names(cfg)
    # Text only: the language model alone.
    vocab = text_of(data)["vocab_size"] - len(SPECIAL)
    ids = token_ids(vocab, batch, s)
    assert counted_flops(model, input_ids=ids) == forward_flops(cfg, Workload(batch, s))
    check_cache(model, cfg, ids)
    # With images: each image's tokens through the vision blocks (windows and whole images),
    # the Conv3d, the mergers; the language model over the image and text tokens.
    grid = cfg.towers[0].grid
    assert grid is not None
    for images, a, b in ((1, 1, 1), (2, 2, 3), (1, 3, 2)):
        check_images(model, cfg, images, grid.multiple * a, grid.multiple * b, 3, tmp)
    # The checkpoint save_pretrained writes (Qwen2.5-VL: its legacy names) and its config.json.
    out = save(model, tmp / "ckpt")
    assert total_params(resolve_model(hf_config=out)) == total_params(cfg)
    check_verifies(out, cfg)


def check_images(
    model: Any, cfg: ModelConfig, images: int, h: int, w: int, text: int, tmp: Path
) -> None:
    """FlopCounterMode over a forward pass with `images` images of h x w pixels and `text`
    text tokens equals the language model over the whole sequence plus the images' FLOPs,
    and `flops --images --image-size` (a tower whose windows hold no merged token refuses:
    transformers cannot run it)."""
    try:
        at = sized(cfg, h, w, "--image-size")
    except UsageError:
        grid = cfg.towers[0].grid
        assert grid is not None and grid.window == 0 and grid.window_layers
        return
    inputs = images_input(model, images, h, w, text)
    s = inputs["input_ids"].shape[1]
    assert s == images * (1 + at.towers[0].output_tokens) + text
    expected = forward_flops(cfg, Workload(1, s)) + sum(image_flops(at, images).values())
    assert counted_flops(model, **inputs) == expected
    # The inventory's matmuls (tensors --explain, verify) add up to the same.
    inventory = instantiate(at, 1, s, images=images)
    assert sum(2 * m.m * m.k * m.n * m.times for m in inventory.matmuls) == expected
    # The command line: the vision-start tokens are text tokens.
    assert image_flops_cli(tmp, images, h, w, images + text) == expected


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """One case through the harness (tests/test_oracle_cases.py)."""
    check(data, batch, s, tmp)


# --- the family's own tests -----------------------------------------------------------------


def _config(tmp: Path, label: str) -> str:
    path = tmp / "config.json"
    path.write_text(json.dumps(case(label)))
    return str(path)


def test_image_size_is_required_and_a_multiple(tmp_path: Path) -> None:
    """A Qwen tower takes images of any size whose sides are multiples of patch x merge:
    --images needs --image-size, and a size off the multiple is refused with the nearest."""
    path = _config(
        tmp_path, "qwen3_vl deepstack repeated and past the blocks, biased, null kv heads"
    )
    r = run("flops", "--hf-config", path, "-s", "4", "--images", "1")
    assert r.exit_code == 2 and r.stdout == ""
    assert "--image-size" in r.stderr and "multiples of 4 pixels" in r.stderr
    r = run("flops", "--hf-config", path, "-s", "4", "--images", "1", "--image-size", "10x8")
    assert r.exit_code == 2 and r.stdout == ""
    # patch 2 x merge 2: 10 rounds to 8 (as the processor's smart_resize rounds), 8 stays.
    assert "--image-size 10x8" in r.stderr and "say 8x8" in r.stderr
    assert run("flops", "--hf-config", path, "-s", "4", "--images", "1",
               "--image-size", "8x12").exit_code == 0  # fmt: skip


def test_windows_smaller_than_a_merged_token_refuse_images(tmp_path: Path) -> None:
    """window_size below patch x merge: transformers' window index divides by zero, so an
    image cannot run; the parameters still count (the class instantiates)."""
    data = case("qwen2_5_vl flat text fields (the Hub's), ragged windows, tied")
    data["vision_config"] = {**data["vision_config"], "window_size": 3}  # patch 2 x merge 2
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    assert run("params", "--hf-config", str(path)).exit_code == 0
    r = run("flops", "--hf-config", str(path), "-s", "4", "--images", "1", "--image-size", "8x8")
    assert r.exit_code == 2 and r.stdout == "" and "window_size" in r.stderr


def test_windowed_layers_split_in_the_tower_table(tmp_path: Path) -> None:
    """The tower's layers by kind: its full-attention blocks and its windowed ones, whose
    scores run over each window (an 8x12 image at patch 2, merge 2: 2 x 3 merged tokens, in
    windows of 2 x 2: one of 4 merged tokens and one of 2, i.e. 16 and 8 tokens)."""
    path = _config(tmp_path, "qwen2_5_vl flat text fields (the Hub's), ragged windows, tied")
    r = run("flops", "--hf-config", path, "-s", "4", "--images", "1", "--image-size", "8x12",
            "-f", "json")  # fmt: skip
    (tower,) = r.json()["towers"]
    kinds = [(x["kind"], x["count"]) for x in tower["layers"]]
    assert kinds == [("full attention", 1), ("chunked attention over 16 tokens", 1)]
    full, windowed = tower["layers"]
    # Golden: QK^T and AV, 2 x n_heads 2 x head_dim 8 x (24^2 tokens) vs (16^2 + 8^2).
    assert full["attention_scores"] == 2 * 2 * 2 * 8 * 24 * 24
    assert windowed["attention_scores"] == 2 * 2 * 2 * 8 * (16 * 16 + 8 * 8)
    assert tower["flops"] == sum(x["count"] * x["total"] for x in tower["layers"]) + 2 * 24 * (
        16 * 3 * 2 * 2 * 2
    )  # + the Conv3d: 24 patches x d 16 x C 3 x t 2 x p 2 x p 2


# --- the real-size configs and the presets on the meta device: names, text FLOPs at S = 64 ----

FRONTIER = {c["name"]: c for c in json.loads((DATA / "frontier.json").read_text())["cases"]}
COVERAGE = {c["name"]: c for c in json.loads((DATA / "coverage.json").read_text())["cases"]}
REAL = {
    "Qwen/Qwen2.5-VL-7B-Instruct": ("qwen2.5-vl-7b", FRONTIER),
    "Qwen/Qwen3-VL-8B-Instruct": ("qwen3-vl-8b", FRONTIER),
    "Qwen/Qwen3-VL-30B-A3B-Instruct": (None, COVERAGE),
}


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_size_names_and_flops(name: str, tmp_path: Path) -> None:
    preset, source = REAL[name]
    data = source[name]["hf_config"]
    model = build(data, "meta")
    names = param_shapes(model)
    # Golden: frontier.json / coverage.json total_params (transformers 5.24.0, meta device).
    assert sum(p.numel() for p in model.parameters()) == source[name]["total_params"]
    configs = [read(data, tmp_path)]
    if preset is not None:
        configs.append(resolve_model(preset=preset))
    moe = data["model_type"] == "qwen3_vl_moe"  # routing cannot run on the meta device
    flops = None if moe else counted_flops(model, input_ids=token_ids(8, 1, 64, "meta"))
    for cfg in configs:
        assert total_params(cfg) == source[name]["total_params"]
        assert names == inventory_names(cfg)
        if flops is not None:
            assert flops == forward_flops(cfg, Workload(1, 64))
