"""Differential tests: Gemma 3n (gemma3n_text, gemma3n) against `transformers`.

Optional, as tests/test_torch_oracle.py: they need torch and transformers and skip cleanly
without them. gemma3n_text is checked whole (Gemma3nForCausalLM): parameters, tensor names,
FLOPs of a forward pass (FlopCounterMode, eager attention), the cache after a prefill (the
KV-shared layers cache nothing), a decode step, generate(), and a save_pretrained checkpoint
through `ffn-calc verify --checkpoint`.

Gemma3nForConditionalGeneration builds its vision tower through timm, which the oracle
environment does not have: its cases check every other part against the class that builds
it (the language model against Gemma3nForCausalLM on text_config, the audio tower against
Gemma3nAudioEncoder, the embedders against Gemma3nMultimodalEmbedder), by count and by name
under the wrapper's prefixes; the vision tower is not counted (ffn-calc says so), and the
real-size case's language model equals tests/data/frontier.json.
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
    build_hf,
    check_counts,
    check_verifies,
    counted_flops,
    inventory_names,
    param_shapes,
    read,
    save,
    token_ids,
    verify,
)

from ffn_calc.counts.flops import Workload, forward_flops  # noqa: E402
from ffn_calc.counts.inference import kv_elements  # noqa: E402
from ffn_calc.counts.params import components, total_params  # noqa: E402
from ffn_calc.counts.towers import language_model_params  # noqa: E402
from ffn_calc.families.resolve import resolve_model  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CLASSES = classes("test_oracle_gemma3n")
G3N = transformers.models.gemma3n.modeling_gemma3n


def build_text(data: dict[str, Any], device: str = "cpu") -> Any:
    fields = {k: v for k, v in data.items() if k != "model_type"}
    return build_hf(*CLASSES["gemma3n_text"], fields, device)


# --- random small config.json files ---------------------------------------------------------


@st.composite
def text_jsons(draw: Any) -> dict[str, Any]:
    """A tiny Gemma3nTextConfig: <= 5 layers of sliding and full attention, AltUp streams,
    LAuReL rank, per-layer inputs and KV-shared layers (each type before them, as the config
    requires) drawn."""
    layers = draw(st.integers(1, 5))
    types = draw(st.lists(st.sampled_from(["sliding_attention", "full_attention"]),
                          min_size=layers, max_size=layers))  # fmt: skip
    shareable = [k for k in range(layers) if set(types[: layers - k]) == set(types)]
    heads = draw(st.sampled_from([1, 2, 4]))
    out: dict[str, Any] = {
        "model_type": "gemma3n_text", "architectures": ["Gemma3nForCausalLM"],
        "num_hidden_layers": layers, "layer_types": types,
        "num_kv_shared_layers": draw(st.sampled_from(shareable)),
        "num_attention_heads": heads,
        "num_key_value_heads": draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0])),
        "hidden_size": heads * draw(st.integers(1, 4)), "head_dim": draw(st.sampled_from([2, 4])),
        "intermediate_size": draw(st.integers(1, 24)), "vocab_size": draw(st.integers(8, 60)),
        "vocab_size_per_layer_input": draw(st.integers(1, 60)),
        "hidden_size_per_layer_input": draw(st.integers(1, 5)),
        "altup_num_inputs": draw(st.integers(1, 4)), "laurel_rank": draw(st.integers(1, 5)),
        "sliding_window": draw(st.integers(1, 6)),
        "tie_word_embeddings": draw(st.booleans()), "attention_bias": draw(st.booleans()),
        "activation_sparsity_pattern": draw(st.lists(st.sampled_from([0.0, 0.95]),
                                                     min_size=layers, max_size=layers)),
        "max_position_embeddings": 64, "bos_token_id": 0, "eos_token_id": 0,
        "pad_token_id": None,
    }  # fmt: skip
    return out


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """The harness's random configs (tests/test_oracle_cases.py)."""
    if family == "gemma3n":
        return text_jsons().map(lambda t: wrapper_json(t, case_audio()))
    return text_jsons()


def case_audio() -> dict[str, Any]:
    return dict(case("gemma3n tiny text and audio, vision embedder")["audio_config"])


def wrapper_json(text: dict[str, Any], audio: dict[str, Any]) -> dict[str, Any]:
    return {
        "model_type": "gemma3n", "audio_soft_tokens_per_image": 3, "text_config": text,
        "audio_config": audio,
        "vision_config": {"model_type": "gemma3n_vision", "hidden_size": 6, "vocab_size": 5},
    }  # fmt: skip


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    if data["model_type"] == "gemma3n":
        check_wrapper(data, tmp)
    else:
        check_text(data, batch, s, tmp)


def check_text(data: dict[str, Any], batch: int, s: int, tmp: Path) -> None:
    """Parameters, names, FLOPs, the cache (check_counts), and the checkpoint save_pretrained
    writes through verify; one FFN wider in config.json fails on the shapes."""
    torch.manual_seed(0)
    cfg = read(data, tmp)
    model = build_text(data).eval()
    check_counts(model, cfg, token_ids(data["vocab_size"], batch, s))
    out = save(model, tmp / "ckpt")
    assert total_params(resolve_model(hf_config=out)) == total_params(cfg)
    check_verifies(out, cfg)
    config = out / "config.json"
    saved = json.loads(config.read_text())
    saved["intermediate_size"] = [w + 1 for w in saved["intermediate_size"]]  # a list per layer
    config.write_text(json.dumps(saved))
    r = verify(out)
    assert r.exit_code == 1
    assert r.json()["checkpoint"]["shape_mismatches"]


def prefixed(module: Any, prefix: str) -> dict[str, tuple[int, ...]]:
    return {prefix + k: v for k, v in param_shapes(module).items()}


def check_wrapper(data: dict[str, Any], tmp: Path) -> None:
    """Every part but the timm vision tower against the class that builds it: the language
    model (Gemma3nForCausalLM on text_config, renamed under model.language_model.), the audio
    tower (Gemma3nAudioEncoder), the embedders (Gemma3nMultimodalEmbedder)."""
    cfg = read(data, tmp)
    text_conf = transformers.Gemma3nTextConfig(
        **{k: v for k, v in data["text_config"].items() if k != "model_type"}
    )
    audio_conf = transformers.Gemma3nAudioConfig(
        **{k: v for k, v in data["audio_config"].items() if k != "model_type"}
    )
    vision = {k: v for k, v in data["vision_config"].items() if k != "model_type"}
    vision_conf = transformers.Gemma3nVisionConfig(**vision, label_names=["a", "b"])
    with torch.device("meta"):
        text = transformers.Gemma3nForCausalLM(text_conf)
        audio = G3N.Gemma3nAudioEncoder(audio_conf)
        embed_vision = G3N.Gemma3nMultimodalEmbedder(vision_conf, text_conf)
        embed_audio = G3N.Gemma3nMultimodalEmbedder(audio_conf, text_conf)
    n = {m: sum(p.numel() for p in m.parameters()) for m in (text.model, audio, embed_vision)}
    # The wrapper ties its head as its own tie_word_embeddings says (default true), whatever
    # text_config's says.
    tied = data.get("tie_word_embeddings", True)
    head = 0 if tied else text.lm_head.weight.numel()
    comps = components(cfg)
    assert language_model_params(cfg, total_params(cfg)) == n[text.model] + head
    assert comps["audio"] == n[audio]
    assert comps["projector"] == n[embed_vision] + sum(p.numel() for p in embed_audio.parameters())
    assert total_params(cfg) == n[text.model] + head + n[audio] + comps["projector"]
    names = {k.replace("model.", "model.language_model.", 1): v
             for k, v in param_shapes(text).items() if not k.startswith("lm_head")}  # fmt: skip
    if not tied:
        names["lm_head.weight"] = tuple(text.lm_head.weight.shape)
    names |= prefixed(audio, "model.audio_tower.")
    names |= prefixed(embed_vision, "model.embed_vision.")
    names |= prefixed(embed_audio, "model.embed_audio.")
    assert inventory_names(cfg) == names


# --- explicit checks ---------------------------------------------------------------------------


def test_kv_shared_layers_cache_nothing(tmp_path: Path) -> None:
    """The case's two KV-shared layers (2 and 3) reuse layers 0 and 1: after a prefill the
    cache holds 2 layers, the model without sharing 4 (transformers' DynamicCache numel)."""
    data = case("gemma3n_text AltUp, LAuReL, per-layer inputs, 2 KV-shared layers, sparse FFN")
    cfg = read(data, tmp_path)
    assert cfg.kv_shared_layers == [2, 3]
    model = build_text(data).eval()
    ids = token_ids(40, 1, 5)
    with torch.no_grad():
        cache = model(input_ids=ids, use_cache=True).cache
    from oracle_support import cache_numel

    # Layer 0 slides over 3 tokens (keeps 2), layer 1 is full (5): 2 x 1 kv head x 4 x (2 + 5).
    assert cache_numel(cache) == kv_elements(cfg, 1, 5) == 2 * 4 * (2 + 5)
    unshared = read({**data, "num_kv_shared_layers": 0}, tmp_path / "b")
    assert kv_elements(unshared, 1, 5) == 2 * kv_elements(cfg, 1, 5)
    # The shared layers have no k_proj, v_proj or k_norm: 2 x (2 x 4 x 8 + 4) fewer.
    assert total_params(unshared) - total_params(cfg) == 2 * (2 * 4 * 8 + 4)


def test_frontier_language_model(tmp_path: Path) -> None:
    """google/gemma-3n-E4B-it (tests/data/frontier.json): Gemma3nForCausalLM on its text_config
    on the meta device has the case's language_model_params, the names ffn-calc lists, and the
    FLOPs of a forward pass at S = 64 (FlopCounterMode, eager)."""
    frontier = json.loads((DATA / "frontier.json").read_text())["cases"]
    (entry,) = [c for c in frontier if c["model_type"] == "gemma3n"]
    text = {**entry["hf_config"]["text_config"], "model_type": "gemma3n_text"}
    model = build_text(text, "meta")
    expected = entry["language_model_params"]  # frontier.json, transformers 5.24.0 meta device
    assert sum(p.numel() for p in model.parameters()) == expected
    cfg = read(text, tmp_path)
    assert total_params(cfg) == expected
    assert param_shapes(model) == inventory_names(cfg)
    flops = counted_flops(model, input_ids=token_ids(8, 1, 64, "meta"))
    assert flops == forward_flops(cfg, Workload(1, 64))
    wrapper = read(entry["hf_config"], tmp_path / "w")
    assert language_model_params(wrapper, total_params(wrapper)) == expected


def test_images_refused_vision_not_counted(tmp_path: Path) -> None:
    """The timm vision tower is not counted: --images is refused naming it, and params says
    so in its note and in the config's not_counted."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps(case("gemma3n tiny text and audio, vision embedder")))
    r = run("flops", "--hf-config", str(path), "--seq-len", "4", "--images", "1")
    assert r.exit_code == 2 and r.stdout == ""
    assert "mobilenetv5_300m_enc" in r.stderr
    out = run("params", "--hf-config", str(path), "--format", "json")
    assert out.exit_code == 0
    assert "vision tower" in out.json()["note"]
    (part,) = read(json.loads(path.read_text()), tmp_path / "r").not_counted
    assert (part.name, part.prefix) == ("vision tower (timm mobilenetv5_300m_enc)",
                                        "model.vision_tower.")  # fmt: skip


def test_released_checkpoints_verify(tmp_path: Path) -> None:
    """A checkpoint may hold what the model drops on load (the KV-shared layers' k_proj,
    v_proj and k_norm: Gemma3nTextModel's _keys_to_ignore_on_load_unexpected) and, for the
    wrapper, the timm vision tower: `verify --checkpoint` lists them as not compared, still
    exit 0; any other stray tensor still fails."""
    from safetensors.torch import save_file

    data = case("gemma3n_text AltUp, LAuReL, per-layer inputs, 2 KV-shared layers, sparse FFN")
    model = build_text(data).eval()
    out = save(model, tmp_path / "text")
    state = {k: v.contiguous() for k, v in model.state_dict().items() if k != "lm_head.weight"}
    extra = {f"model.layers.{i}.self_attn.{n}": torch.zeros(s)
             for i in (2, 3) for n, s in (("k_proj.weight", (4, 8)), ("v_proj.weight", (4, 8)),
                                          ("k_norm.weight", (4,)))}  # fmt: skip
    save_file({**state, **extra}, str(out / "model.safetensors"), metadata={"format": "pt"})
    r = verify(out)
    assert r.exit_code == 0, r.stdout
    assert sorted(r.json()["checkpoint"]["not_counted"]) == sorted(extra)
    save_file({**state, "model.layers.1.self_attn.extra.weight": torch.zeros(2)},
              str(out / "model.safetensors"), metadata={"format": "pt"})  # fmt: skip
    assert verify(out).exit_code == 1

    wrapper = case("gemma3n tiny text and audio, vision embedder")
    cfg = read(wrapper, tmp_path / "w")
    names = inventory_names(cfg)
    vision = {"model.vision_tower.timm_model.conv_stem.conv.weight": torch.zeros(3, 3)}
    tensors = {k: torch.zeros(v) for k, v in names.items()} | vision
    ckpt = tmp_path / "w" / "ckpt"
    ckpt.mkdir()
    (ckpt / "config.json").write_text(json.dumps(wrapper))
    save_file(tensors, str(ckpt / "model.safetensors"), metadata={"format": "pt"})
    r = verify(ckpt)
    assert r.exit_code == 0, r.stdout
    assert r.json()["checkpoint"]["not_counted"] == list(vision)
    assert r.json()["checkpoint"]["checkpoint_params"] == total_params(cfg)
