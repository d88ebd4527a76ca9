"""Differential tests: Gemma 4 (text, and with its vision and audio towers) and Kimi K2.5 against
`transformers`.

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

Kimi K2.5 (Kimi_K25ForConditionalGeneration): its DeepSeek-V3 language model as
test_oracle_moe_deepseek checks one (the experts fused in memory, one tensor per expert in the
checkpoint, eager experts for the FLOPs), its MoonViT tower over images of any multiple of
patch x merge pixels (pixel_values as patches, image_grid_thw), the projector per merged token;
its saved checkpoint holds Kimi's original layout, which `verify` does not map yet (checked:
the parameters it holds, not their names).

The images of Gemma 4: Gemma4ImageProcessor pads every image's patches to 280 x k^2 (k the pooling
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
    check_cache,
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
    verify,
)
from test_oracle_moe_deepseek import in_memory  # noqa: E402

from ffn_calc.counts.flops import Workload, forward_flops  # noqa: E402
from ffn_calc.counts.params import active_params, stored_buffers, total_params  # noqa: E402
from ffn_calc.counts.towers import image_flops, image_tokens, sized  # noqa: E402
from ffn_calc.families.resolve import resolve_model  # noqa: E402
from ffn_calc.reports.flops import flops_report  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CLASSES = classes("test_oracle_gemma4_kimi")
IMAGE_TOKEN = 39  # image_token_id of every wrapper case; its vocab is 40


def build(data: dict[str, Any], device: str = "cpu") -> Any:
    """The class named by the case's model_type, eager attention and eager experts (Gemma 4's
    MoE block, Kimi K2.5's DeepSeek-V3 language model: the default grouped_mm kernel hides
    the expert matmuls from FlopCounterMode)."""
    fields = {k: v for k, v in data.items() if k != "model_type"}
    conf_name, model_name = CLASSES[data["model_type"]]
    conf = getattr(transformers, conf_name)(**fields)
    for c in (conf, getattr(conf, "text_config", None), getattr(conf, "vision_config", None)):
        if c is not None:
            c._attn_implementation = "eager"
            c._experts_implementation = "eager"
    with torch.device(device):
        return getattr(transformers, model_name)(conf)


# --- random small config.json files -----------------------------------------------------------


@st.composite
def text_configs(draw: Any) -> dict[str, Any]:
    """A tiny Gemma4TextConfig: d_model <= 32, 1-4 layers, the per-layer inputs and the global
    layers' width drawn (or left to the class defaults, 256 and 512, where the width allows),
    the KV-shared layers with or without their double-wide MLP, the MoE block or not."""
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
    if draw(st.booleans()):  # the full-attention layers without v_proj
        out["attention_k_eq_v"] = True
        maybe(draw, out, "num_global_key_value_heads",
              draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0])))  # fmt: skip
    types = out.get("layer_types") or gemma4_types(layers)
    types = [*types[:-1], "full_attention"]
    # KV-shared layers: each type before them (kv_sharing_modes); with per-layer inputs only
    # (without them, transformers 5.24.0's generate() fails in _maybe_slice_kv_shared_inputs).
    shareable = [k for k in range(1, layers) if set(types[: layers - k]) == set(types)]
    if shareable and out["hidden_size_per_layer_input"]:
        maybe(draw, out, "num_kv_shared_layers", draw(st.sampled_from(shareable)))
        maybe(draw, out, "use_double_wide_mlp", draw(st.booleans()))  # the shared layers' MLP x 2
    if draw(st.booleans()):  # the MoE block beside the MLP
        experts = draw(st.integers(1, 6))
        out.update(enable_moe_block=True, num_experts=experts,
                   top_k_experts=draw(st.integers(1, experts)),
                   moe_intermediate_size=draw(st.integers(1, 8)))  # fmt: skip
    return out


def gemma4_types(layers: int) -> list[str]:
    """Gemma4TextConfig's default layer_types: five sliding layers in six."""
    return ["sliding_attention" if (i + 1) % 6 else "full_attention" for i in range(layers)]


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


@st.composite
def kimi_configs(draw: Any) -> dict[str, Any]:
    """A tiny Kimi_K25Config: a DeepSeek-V3 language model (kimi_k2 or deepseek_v3 as its
    model_type), a MoonViT tower of 1-2 layers, the projector's width its hidden_size. The
    language model keeps a low-rank Q (as Kimi K2 does): with q_lora_rank null,
    save_pretrained in transformers 5.24.0 applies the vision tower's rotary permutation to
    the language model's q_proj and fails. At least one shared expert (with none,
    DeepseekV3MoE builds empty [0, d] shared-expert tensors)."""
    heads = draw(st.integers(1, 4))
    text: dict[str, Any] = {
        "model_type": draw(st.sampled_from(["kimi_k2", "deepseek_v3"])),
        "num_hidden_layers": draw(st.integers(1, 3)), "num_attention_heads": heads,
        "num_key_value_heads": heads, "hidden_size": draw(st.integers(2, 32)),
        "intermediate_size": draw(st.integers(1, 24)), "moe_intermediate_size": draw(st.integers(1, 8)),
        "n_routed_experts": draw(st.integers(2, 6)), "num_experts_per_tok": 1,
        "n_shared_experts": draw(st.integers(1, 2)), "first_k_dense_replace": draw(st.integers(0, 2)),
        "kv_lora_rank": draw(st.integers(1, 8)), "q_lora_rank": draw(st.sampled_from([4, 8])),
        "qk_nope_head_dim": draw(st.integers(1, 4)), "qk_rope_head_dim": 2,
        "v_head_dim": draw(st.integers(1, 4)), "n_group": 1, "topk_group": 1, "vocab_size": 40,
        "max_position_embeddings": 64, "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None,
    }  # fmt: skip
    vh = draw(st.sampled_from([1, 2]))
    d = vh * draw(st.sampled_from([4, 8]))  # 2-D rotary: head_dim a multiple of 4
    vision = {
        "hidden_size": d, "num_attention_heads": vh, "num_hidden_layers": draw(st.integers(1, 2)),
        "intermediate_size": draw(st.integers(1, 12)), "patch_size": draw(st.integers(1, 3)),
        # transformers resamples the grid as a square of pos_emb_height a side
        "pos_emb_height": (side := draw(st.integers(2, 6))), "pos_emb_width": side,
    }  # fmt: skip
    out: dict[str, Any] = {
        "model_type": "kimi_k25", "architectures": [CLASSES["kimi_k25"][1]],
        "text_config": text, "vision_config": vision, "projection_hidden_size": d,
        "image_token_id": IMAGE_TOKEN, "video_token_id": 38, "vision_start_token_id": 0,
        "vision_end_token_id": 0,
    }  # fmt: skip
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    return out


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """The harness's random configs (tests/test_oracle_cases.py)."""
    return {"gemma4_text": text_configs, "gemma4": wrapper_configs, "kimi_k25": kimi_configs}[
        family
    ]()


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


def check_kimi(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """Kimi K2.5: parameters, names (the experts fused in memory, one tensor each in the
    checkpoint), text-only FLOPs and the cache, FLOPs with images of a size drawn from `t`
    (the tower takes any multiple of patch x merge), and the saved checkpoint."""
    torch.manual_seed(0)
    cfg = read(data, tmp)
    model = build(data).eval()
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg)
    assert param_shapes(model) == in_memory(cfg)
    ids = token_ids(30, batch, s)
    assert counted_flops(model, input_ids=ids) == forward_flops(cfg, Workload(batch, s))
    check_cache(model, cfg, ids)
    images = 1 + t % 2
    (tower,) = cfg.towers
    assert tower.grid is not None
    step = tower.grid.multiple
    h, w = step * (1 + t % 3), step * (1 + t % 2)
    sized_cfg = sized(cfg, h, w, "--image-size")
    p = tower.grid.patch
    patches = (h // p) * (w // p)
    pixels = torch.randn(batch * images * patches, 3, p, p)
    thw = torch.tensor([[1, h // p, w // p]] * (batch * images))
    extra = image_tokens(sized_cfg, images)
    marks = torch.full((batch, extra), IMAGE_TOKEN)
    got = counted_flops(
        model, input_ids=torch.cat([ids, marks], dim=1), pixel_values=pixels, image_grid_thw=thw
    )
    lm = forward_flops(sized_cfg, Workload(batch=batch, seq_len=s + extra))
    assert got == lm + sum(image_flops(sized_cfg, batch * images).values())
    report = flops_report(cfg, Workload(batch=batch, seq_len=s), images=images, image_size=(h, w))
    assert report.forward_flops == got
    # The checkpoint: save_pretrained writes Kimi's original layout (transformers'
    # conversion_mapping "kimi_k25" reversed: `blocks` for `layers` everywhere, the vision
    # tower's q, k, v fused in one `wqkv`, norm0/norm1, mlp.fc0/fc1, wo, mm_projector.proj.0/2).
    # ffn-calc's verify does not map that layout (a stated gap): its tensors hold exactly the
    # parameters counted, but their names are not matched.
    out = save(model, tmp / "ckpt")
    assert total_params(resolve_model(hf_config=out)) == total_params(cfg)
    r = verify(out)
    assert r.exit_code == 1
    report = r.json()["checkpoint"]
    assert report["checkpoint_params"] == total_params(cfg)
    assert len(report["buffers"]) == stored_buffers(cfg) // cfg.n_experts  # one per MoE layer
    assert any(".wqkv." in name for name in report["unexpected"])


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """Parameters, names, text-only FLOPs and the cache, (a wrapper) FLOPs with one or two
    images per sequence, and the saved checkpoint."""
    if data["model_type"] == "kimi_k25":
        check_kimi(data, batch, s, t, tmp)
        return
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
    if data["model_type"] == "gemma4_text":  # with the MoE block, the experts' width too
        moe = ["moe_intermediate_size"] if data.get("enable_moe_block") else []
        check_wider_ffn_fails(out, ["intermediate_size", *moe])


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


def test_kv_shared_layers(tmp_path: Path) -> None:
    """num_kv_shared_layers: the last layers reuse the keys and values of the last earlier
    layer of their type (Gemma4TextConfig.kv_sharing_modes): no k_proj, v_proj, k_norm,
    nothing cached; generate()'s prefill runs them over the last position only."""
    data = case("gemma4_text 2 KV-shared layers of 5, per-layer inputs 2")
    cfg = read(data, tmp_path)
    assert (cfg.kv_shared_layers, cfg.kv_shared_prefill_last) == ([3, 4], True)
    own = read({**data, "num_kv_shared_layers": 0}, tmp_path)
    # Layer 3 (sliding, head_dim 4, 1 KV head) and layer 4 (full, global head_dim 6): K and V
    # [1 x hd, 8] each and k_norm [hd] (Gemma4TextAttention without them when shared).
    assert total_params(own) - total_params(cfg) == (2 * 8 * 4 + 4) + (2 * 8 * 6 + 6)


def test_every_layer_shared_is_refused(tmp_path: Path) -> None:
    """Sharing with nothing to share from (no layer of any type computes K, V): exit 2, the
    field named, nothing on stdout."""
    data = {**case("gemma4_text global head_dim 6, per-layer inputs 3, last layer forced full"),
            "num_kv_shared_layers": 3}  # fmt: skip
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    result = run("params", "--hf-config", str(path))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "num_kv_shared_layers" in result.stderr


def test_double_wide_mlp(tmp_path: Path) -> None:
    """use_double_wide_mlp: the KV-shared layers' MLP is 2 x intermediate_size wide
    (Gemma4TextMLP: config.intermediate_size * 2 where kv_sharing_modes is "reuse"), the
    other layers' as before; without shared layers it changes nothing."""
    data = case("gemma4_text double-wide MLP in 2 KV-shared layers of 5, keys as values")
    cfg = read(data, tmp_path)
    assert (cfg.kv_shared_layers, cfg.d_ff, cfg.kv_shared_d_ff) == ([3, 4], 12, 24)
    narrow = read({**data, "use_double_wide_mlp": False}, tmp_path)
    # Layers 3 and 4: gate, up and down of 24 in place of 12 (d_model 8): 2 x 3 x 8 x 12.
    assert total_params(cfg) - total_params(narrow) == 2 * 3 * 8 * 12
    w = Workload(batch=1, seq_len=4)
    # The same as FLOPs: 2 x B x S x 3 x d_model x 12 more in each of the two layers.
    assert forward_flops(cfg, w) - forward_flops(narrow, w) == 2 * (2 * 4 * 3 * 8 * 12)
    unshared = {**data, "num_kv_shared_layers": 0}
    assert total_params(read(unshared, tmp_path)) == total_params(
        read({**unshared, "use_double_wide_mlp": False}, tmp_path)
    )
    out = run("params", "--hf-config", str(tmp_path / "config.json"), "-f", "json")
    assert out.exit_code == 0


def test_moe_block(tmp_path: Path) -> None:
    """enable_moe_block: beside the MLP of intermediate_size (every token passes it, as a
    shared expert), num_experts fused experts of moe_intermediate_size, top_k_experts per
    token; the router's projection and its two scales; three more norms per layer."""
    data = case("gemma4_text MoE block: 5 experts of width 3, top 2, beside an MLP of 12")
    cfg = read(data, tmp_path)
    assert (cfg.n_experts, cfg.experts_per_token, cfg.d_ff) == (5, 2, 3)
    assert (cfg.shared_expert_d_ff, cfg.layer_norms) == (12, 7)
    dense = read({**data, "enable_moe_block": False}, tmp_path)
    # Per layer (d_model 8, 5 experts of 3): router.proj [5, 8], router.scale [8],
    # router.per_expert_scale [5], experts 5 x (gate_up [6, 8] + down [8, 3]), three norms
    # [8]: 40 + 8 + 5 + 360 + 24 = 437, over 3 layers.
    assert total_params(cfg) - total_params(dense) == 3 * 437
    # Active: the 3 idle experts of 3 x 8 x 3 = 72 each, in every layer.
    assert total_params(cfg) - active_params(cfg) == 3 * 3 * 72
    w = Workload(batch=2, seq_len=4)
    # Per layer and token: the router 8 x 5 and two experts 2 x 3 x 8 x 3 (multiply-adds).
    assert forward_flops(cfg, w) - forward_flops(dense, w) == 3 * 2 * 2 * 4 * (40 + 144)
    names = inventory_names(cfg)
    assert names["model.layers.0.experts.gate_up_proj"] == (5, 6, 8)
    assert names["model.layers.2.router.per_expert_scale"] == (5,)
    assert names["model.layers.1.mlp.down_proj.weight"] == (8, 12)


@pytest.mark.parametrize("missing", ["num_experts", "top_k_experts", "moe_intermediate_size"])
def test_moe_block_without_its_sizes_is_refused(missing: str, tmp_path: Path) -> None:
    """enable_moe_block without a size the class has no default for (Gemma4TextConfig's
    num_experts, top_k_experts, moe_intermediate_size are None): exit 2, the field named,
    nothing on stdout."""
    data = case("gemma4_text MoE block: 5 experts of width 3, top 2, beside an MLP of 12")
    path = tmp_path / "config.json"
    path.write_text(json.dumps({k: v for k, v in data.items() if k != missing}))
    result = run("params", "--hf-config", str(path))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert missing in result.stderr


def test_keys_as_values(tmp_path: Path) -> None:
    """attention_k_eq_v: the full-attention layers have no v_proj (their keys serve as values,
    Gemma4TextAttention.use_alternative_attention) and num_global_key_value_heads heads; the
    sliding layers keep theirs; the cache still holds keys and values apart."""
    data = case("gemma4_text keys as values, 2 global KV heads, biased")
    cfg = read(data, tmp_path)
    assert (cfg.keys_as_values, cfg.global_kv_heads) == ("global", 2)
    plain = read({**data, "attention_k_eq_v": False}, tmp_path)
    one = {k: v for k, v in data.items() if k != "num_global_key_value_heads"}
    one_head = read(one, tmp_path)
    # Layers 1 and 2 (full, head_dim 6, 1 KV head): without k_eq_v K and V [6, 8] + bias 6
    # each, with it K only (num_global_key_value_heads is read only with k_eq_v).
    assert total_params(plain) - total_params(one_head) == 2 * (6 * 8 + 6)
    # With num_global_key_value_heads 2: K [2 x 6, 8] + bias 12 instead of [6, 8] + 6.
    assert total_params(cfg) - total_params(one_head) == 2 * ((12 * 8 + 12) - (6 * 8 + 6))
    every = read({**data, "layer_types": ["full_attention"] * 3}, tmp_path)
    assert every.keys_as_values == "all"
    result = run("memory", "--hf-config", str(tmp_path / "config.json"), "--training",
                 "--seq-len", "4")  # fmt: skip
    assert result.exit_code == 2 and result.stdout == ""


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


def test_real_size_moe_names(tmp_path: Path) -> None:
    """google/gemma-4-26B-A4B-it (tests/data/gemma4_moe.json) on the meta device: every
    tensor's name and shape, the totals and the active parameters (the MoE block)."""
    (golden,) = json.loads((DATA / "gemma4_moe.json").read_text())["cases"]
    data = golden["hf_config"]
    model = build(data, "meta")
    cfg = read(data, tmp_path)
    # Golden: gemma4_moe.json (transformers 5.24.0 Gemma4ForConditionalGeneration, meta).
    assert sum(p.numel() for p in model.parameters()) == golden["total_params"] == 25_805_933_872
    assert total_params(cfg) == golden["total_params"]
    assert param_shapes(model) == inventory_names(cfg)
    out = run("params", "--hf-config", str(tmp_path / "config.json"), "-f", "json").json()
    assert out["language_model_params"] == golden["language_model_params"] == 25_233_141_760
    assert out["active_params"] == golden["active_params"] == 4_395_322_672


def test_kimi_k25_reads_kimi_k2_and_ties_at_the_top(tmp_path: Path) -> None:
    """text_config's model_type kimi_k2 is read as deepseek_v3 (as Kimi_K25Config does), and
    the head is tied by the top-level tie_word_embeddings (default true)."""
    data = case("kimi_k25 kimi_k2 text, 2 x 2 merge, tied by default")
    cfg = read(data, tmp_path)
    assert cfg.tie_embeddings and cfg.attention == "mla"
    untied = read({**data, "tie_word_embeddings": False}, tmp_path)
    # lm_head [vocab 40, d_model 32] of its own.
    assert total_params(untied) - total_params(cfg) == 40 * 32
    model = build({**data, "tie_word_embeddings": False}, "meta")
    assert sum(p.numel() for p in model.parameters()) == total_params(untied)


def test_kimi_k25_reconstructed_real_size(tmp_path: Path) -> None:
    """moonshotai/Kimi-K2.5 as reconstructed in tests/data/coverage.json, on the meta device:
    the counts and every tensor's name and shape."""
    cases = json.loads((DATA / "coverage.json").read_text())["cases"]
    golden = next(c for c in cases if c["model_type"] == "kimi_k25")
    cfg = read(golden["hf_config"], tmp_path)
    # Golden: coverage.json (transformers 5.24.0 Kimi_K25ForConditionalGeneration, meta).
    assert total_params(cfg) == golden["total_params"] == 1_026_879_353_328
    model = build({**golden["hf_config"], "model_type": "kimi_k25"}, "meta")
    assert param_shapes(model) == in_memory(cfg)
    out = run("params", "--hf-config", str(tmp_path / "config.json"), "-f", "json").json()
    assert out["language_model_params"] == golden["language_model_params"]
    assert out["active_params"] == golden["active_params"]
