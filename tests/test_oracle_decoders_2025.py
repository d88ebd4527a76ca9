"""Differential tests: SmolLM3, OLMo 3, Seed-OSS, EXAONE 4 and Cohere 2 against `transformers`.

Optional, as tests/test_torch_oracle.py: they need torch and transformers and skip cleanly
without them. Each case is a config.json as the Hub holds it (some fields absent, so the class
defaults apply: SmolLM3's 4 kv heads and tied head, Seed-OSS's head_dim 128 and 8 kv heads,
EXAONE 4's 32 kv heads, the window patterns of OLMo 3, EXAONE 4 and Cohere 2); ffn-calc reads
it with `--hf-config`, transformers builds the class named in `architectures` from the same
fields. Parameters come from `parameters()`, tensor names from `named_parameters()`, FLOPs
from `torch.utils.flop_counter.FlopCounterMode` over a forward pass with eager attention, the
cache from a prefill with the cache on (a sliding layer keeps window - 1 tokens), checkpoints
from `save_pretrained` through `ffn-calc verify --checkpoint`.

The family's random tiny configs (`configs`) and the check of one case (`check_case`) run in
the one harness, tests/test_oracle_cases.py, over the cases in tests/oracle_cases.py (random
draws and explicit variants); this module holds them and the families' own tests: the flags
that change the count, the real-size configs of tests/data/frontier.json and the presets on
the meta device, and the configs the classes cannot build, which ffn-calc refuses.
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
    check_hub_config,
    maybe,
    read,
    token_ids,
)
from test_oracle_defaults import REFUSED  # noqa: E402
from test_oracle_defaults import test_every_field_left_out as every_field_left_out  # noqa: E402

from ffn_calc.counts.inference import kv_elements  # noqa: E402
from ffn_calc.counts.params import total_params  # noqa: E402
from ffn_calc.families.resolve import resolve_model  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CLASSES = classes("test_oracle_decoders_2025")
FAMILIES = sorted(CLASSES)
# The configuration classes' num_key_value_heads for an absent field (None: the head count).
KV_DEFAULT = {"smollm3": 4, "olmo3": None, "seed_oss": 8, "exaone4": 32, "cohere2": None}
# The families whose layer_types default to a pattern of sliding layers, and its field.
PATTERN = {"exaone4": "sliding_window_pattern", "cohere2": "sliding_window_pattern"}
LAYER_TYPES = ["full_attention", "sliding_attention"]


def build(data: dict[str, Any], device: str = "cpu") -> Any:
    """The class named in `architectures`, built by transformers from the config.json fields."""
    fields = {k: v for k, v in data.items() if k != "model_type"}
    return build_hf(*CLASSES[data["model_type"]], fields, device)


# --- random small config.json files per family ----------------------------------------------


@st.composite
def config_jsons(draw: Any, family: str) -> dict[str, Any]:
    """A tiny config.json: d_model <= 64, <= 5 layers, vocab <= 100, the family's flags and
    windows drawn (a window below the prefill cuts the sliding layers' caches)."""
    kv_default = KV_DEFAULT[family]
    # The class's kv default among the head counts, so an absent field can be drawn.
    heads = draw(st.sampled_from(sorted({1, 2, 3, 4, kv_default or 4})))
    kv = draw(st.sampled_from([k for k in range(1, heads + 1) if heads % k == 0]))
    layers = draw(st.integers(1, 5))
    out: dict[str, Any] = {
        "model_type": family, "architectures": [CLASSES[family][1]],
        "num_hidden_layers": layers, "num_attention_heads": heads,
        "intermediate_size": draw(st.integers(1, 48)), "vocab_size": draw(st.integers(8, 100)),
        "max_position_embeddings": 64, "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None,
    }  # fmt: skip
    if kv_default is not None and heads % kv_default:  # absent would not divide the heads
        out["num_key_value_heads"] = kv
    else:
        maybe(draw, out, "num_key_value_heads", kv)
    head_dim = draw(st.sampled_from([2, 4, 8]))  # rotary needs an even head_dim
    if family == "seed_oss":  # absent: 128; null: hidden_size // heads
        choice = draw(st.sampled_from(["given", "absent", "null"]))
        if choice == "given":
            out |= {"hidden_size": 2 * draw(st.integers(1, 32)), "head_dim": head_dim}
        elif choice == "absent":
            out["hidden_size"] = 2 * draw(st.integers(1, 16))
        else:
            out |= {"hidden_size": heads * head_dim, "head_dim": None}
    elif heads * head_dim <= 64 and draw(st.booleans()):  # absent: hidden_size / heads
        out["hidden_size"] = heads * head_dim
    else:  # given: d_model free of heads x head_dim
        out |= {"hidden_size": 2 * draw(st.integers(1, 32)), "head_dim": head_dim}
    maybe(draw, out, "tie_word_embeddings", draw(st.booleans()))
    if family != "exaone4":  # EXAONE 4 has no biases
        maybe(draw, out, "attention_bias", draw(st.booleans()))
    if family in ("smollm3", "seed_oss"):
        maybe(draw, out, "mlp_bias", draw(st.booleans()))
    if family == "seed_oss":
        maybe(draw, out, "attention_out_bias", draw(st.booleans()))
        maybe(draw, out, "residual_dropout", draw(st.sampled_from([0.0, 0.1])))
    maybe(draw, out, "hidden_act", draw(st.sampled_from(["silu", "gelu"])))
    if family == "cohere2":
        maybe(draw, out, "logit_scale", draw(st.floats(0.01, 1.0)))
    # Windows: a sliding_window of 1 to 8 tokens or the class default; layer_types or the
    # class's pattern.
    if family == "seed_oss":
        return out
    default_window = family != "smollm3"  # SmolLM3Config's sliding_window is None
    if not default_window or draw(st.booleans()):
        maybe(draw, out, "sliding_window", draw(st.integers(1, 8)))
    window = out.get("sliding_window", 4096 if default_window else None)
    if family == "smollm3":
        maybe(draw, out, "use_sliding_window", draw(st.booleans()))
        if draw(st.booleans()):
            flags = st.lists(st.integers(0, 1), min_size=layers, max_size=layers + 1)
            out["no_rope_layers"] = draw(flags)
        else:
            maybe(draw, out, "no_rope_layer_interval", draw(st.integers(1, 3)))
    if family in PATTERN:
        maybe(draw, out, PATTERN[family], draw(st.integers(1, 3)))
    if window is not None and draw(st.booleans()):
        out["layer_types"] = draw(st.lists(st.sampled_from(LAYER_TYPES), min_size=layers,
                                           max_size=layers))  # fmt: skip
    return out


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """The harness's random configs (tests/test_oracle_cases.py)."""
    return config_jsons(family)


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """One case through the harness: parameters, names and shapes, FLOPs, the cache, a
    decode step, generate() and a save_pretrained checkpoint (`check_hub_config`)."""
    check_hub_config(data, build, batch, s, tmp)


# --- the flags and defaults read, each changing the count as it should -----------------------


def test_variants_change_the_counts(tmp_path: Path) -> None:
    smol = case("smollm3 defaults: 4 kv heads, tied, NoPE every 4th layer")
    cfg = read(smol, tmp_path)
    assert (cfg.kv_heads, cfg.head_size, cfg.tie_embeddings) == (4, 4, True)
    # SmolLM3: per layer q, k, v, o 4 x 16 x 16 = 1,024; gate/up/down 3 x 16 x 20 = 960; two
    # norms of 16; 4 layers: 8,064; embedding 40 x 16 = 640 (tied head), final norm 16: 8,720.
    assert total_params(cfg) == 8_720
    # As Llama (LlamaConfig: an untied head, kv heads absent = the heads): the same 8,720 once
    # the head is untied, plus its 640.
    as_llama = read({**smol, "model_type": "llama", "num_key_value_heads": 4}, tmp_path)
    assert total_params(as_llama) == 8_720 + 640
    # The NoPE layers, sliding or not, change no count: the same model without them.
    slides = case("smollm3 NoPE layers slide, biased, untied, GQA, head_dim")
    no_nope = {**slides, "no_rope_layers": [1] * 5, "use_sliding_window": False}
    assert total_params(read(slides, tmp_path)) == total_params(read(no_nope, tmp_path))
    assert read(slides, tmp_path).window_layers == [1, 3]  # the NoPE layers slide
    assert read(no_nope, tmp_path).attention_window is None

    # OLMo 3: OLMo 2's parameters exactly; three layers in four slide (layers 0, 1, 2 of 4).
    olmo = case("olmo3 GQA, head_dim, biased, tied, window 3")
    cfg = read(olmo, tmp_path)
    assert total_params(cfg) == total_params(read({**olmo, "model_type": "olmo2"}, tmp_path))
    assert (cfg.window_layers, cfg.attention_window) == ([0, 1, 2], 3)

    # Seed-OSS: head_dim 128 and 8 kv heads when absent; Q/K/V biases, none on O.
    seed = case("seed_oss defaults: Q/K/V biases, no O bias, head_dim 128, 8 kv heads")
    cfg = read(seed, tmp_path)
    assert (cfg.head_size, cfg.kv_heads, cfg.attention_bias, cfg.out_bias) == (128, 8, True, False)
    # q [1024, 16] + bias 1,024, k and v [1024, 16] + 1,024 each, o [16, 1024]: 4 x 16,384 +
    # 3 x 1,024 = 68,608; FFN 3 x 16 x 12 = 576; two norms 32; embedding and head 2 x 30 x 16
    # = 960; final norm 16: 70,192.
    assert total_params(cfg) == 70_192
    # attention_out_bias adds O's [d_model = 16] bias.
    assert total_params(read({**seed, "attention_out_bias": True}, tmp_path)) == 70_192 + 16
    null = case("seed_oss O bias only, null head_dim, MLP bias, tied")
    assert read(null, tmp_path).head_size == 24 // 4  # null: hidden_size // heads

    # EXAONE 4: OLMo 2's post-norms with Qwen3's [head_dim] q/k norms: OLMo 2's count less its
    # q/k norms over the projections (4 x 6 + 2 x 6) plus two [6] norms, 3 layers.
    exaone = case("exaone4 pattern 2, window 2, GQA, head_dim, tied")
    cfg = read(exaone, tmp_path)
    olmo2 = read({**exaone, "model_type": "olmo2"}, tmp_path)
    assert total_params(olmo2) - total_params(cfg) == 3 * (24 + 12 - 6 - 6)
    assert (cfg.window_layers, cfg.attention_window) == ([0, 2], 2)
    defaults = read(case("exaone4 defaults: 32 kv heads, 3 sliding layers in 4, window 4096"),
                    tmp_path)  # fmt: skip
    assert (defaults.kv_heads, defaults.window_layers, defaults.attention_window) == (
        32, [0, 1, 2], 4096)  # fmt: skip

    # Cohere 2: Cohere's layer without q/k norms (Cohere with use_qk_norm false).
    cohere2 = case("cohere2 pattern 2, window 2, biased, untied, head_dim, GQA")
    cfg = read(cohere2, tmp_path)
    as_cohere = read({**cohere2, "model_type": "cohere", "use_qk_norm": True}, tmp_path)
    # CohereAttention's q_norm [4, 6] and k_norm [2, 6] per layer, 3 layers.
    assert total_params(as_cohere) - total_params(cfg) == 3 * (24 + 12)
    assert (cfg.head_size, cfg.window_layers, cfg.attention_window) == (6, [0, 2], 2)
    # use_qk_norm is not read by Cohere2Config's class: no q/k norms either way.
    assert total_params(read({**cohere2, "use_qk_norm": True}, tmp_path)) == total_params(cfg)


def test_sliding_cache_keeps_window_minus_one(tmp_path: Path) -> None:
    """After a prefill of 5 tokens (batch 1), a sliding layer of window 2 holds 1 token."""
    data = case("cohere2 pattern 2, window 2, biased, untied, head_dim, GQA")
    cfg = read(data, tmp_path)
    # Layers 0 and 2 slide (pattern 2), layer 1 is full: K and V of 2 kv heads x 6 per token;
    # 2 x 12 x (1 + 5 + 1) = 168 elements.
    assert kv_elements(cfg, 1, 5) == 168
    model = build(data).eval()
    with torch.no_grad():
        cache = model(input_ids=token_ids(50, 1, 5), use_cache=True).past_key_values
    assert sum(layer.keys.numel() + layer.values.numel() for layer in cache.layers) == 168


# --- configs the classes cannot build: refused, exit 2 ---------------------------------------


def _refused(data: dict[str, Any], tmp_path: Path) -> str:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data, indent=2))
    r = run("params", "--hf-config", str(path))
    assert r.exit_code == 2 and r.stdout == "" and "Traceback" not in r.stderr, r.stderr
    with pytest.raises((IndexError, TypeError, ValueError, ZeroDivisionError)):
        build(data)  # transformers fails too
    return r.stderr


def test_configs_the_classes_cannot_build_are_refused(tmp_path: Path) -> None:
    smol = case("smollm3 defaults: 4 kv heads, tied, NoPE every 4th layer")
    # Each layer's attention reads its own no_rope_layers entry: 3 for 4 layers fails.
    err = _refused({**smol, "no_rope_layers": [1, 1, 0]}, tmp_path)
    assert "no_rope_layers" in err and "at least 4" in err
    exaone = case("exaone4 defaults: 32 kv heads, 3 sliding layers in 4, window 4096")
    # Exaone4Config: a null sliding_window makes the pattern 0, and (i + 1) % 0 fails.
    err = _refused({**exaone, "sliding_window": None}, tmp_path)
    assert "sliding_window" in err and "layer_types" in err
    # The older string pattern ("LLLG") only beside layer_types: alone, the class fails.
    err = _refused({**exaone, "sliding_window_pattern": "LLLG"}, tmp_path)
    assert "sliding_window_pattern" in err and "expected an integer" in err


# --- the real-size configs and the presets on the meta device: names, FLOPs, cache -----------

FRONTIER = {
    c["model_type"]: c
    for c in json.loads((DATA / "frontier.json").read_text())["cases"]
    if c["model_type"] in CLASSES
}
# The shipped presets: each is the real-size config of its frontier.json case.
PRESET = {"smollm3-3b": "smollm3", "olmo-3-7b": "olmo3"}


@pytest.mark.parametrize("family", FAMILIES)
def test_real_size_names_flops_and_cache(family: str, tmp_path: Path) -> None:
    data = FRONTIER[family]["hf_config"]
    model = build(data, "meta")
    # Golden: tests/data/frontier.json total_params (transformers 5.24.0, meta device).
    assert sum(p.numel() for p in model.parameters()) == FRONTIER[family]["total_params"]
    check_counts(model, read(data, tmp_path), token_ids(8, 1, 64, "meta"))


@pytest.mark.parametrize("preset", sorted(PRESET))
def test_presets_are_the_instantiated_models(preset: str) -> None:
    data = FRONTIER[PRESET[preset]]["hf_config"]
    cfg = resolve_model(preset=preset)
    # Golden: tests/data/frontier.json total_params of the preset's Hub config.
    assert total_params(cfg) == FRONTIER[PRESET[preset]]["total_params"]
    check_counts(build(data, "meta"), cfg, token_ids(8, 1, 64, "meta"))


# The removals transformers instantiates but ffn-calc refuses, each with why (the shared
# table of tests/test_oracle_defaults.py, which its check reads, extended by these cases).
REFUSED.update({
    # Exaone4Config's 32 key/value heads over EXAONE 4.0 32B's 40 query heads: the projections
    # build, the forward cannot (grouped-query attention repeats kv heads n_heads / n_kv_heads
    # times).
    ("LGAI-EXAONE/EXAONE-4.0-32B", "num_key_value_heads"): "n_kv_heads (32) must divide n_heads (40)",
})  # fmt: skip


@pytest.mark.parametrize("family", FAMILIES)
def test_every_field_left_out(family: str, tmp_path: Path) -> None:
    """Each field the family reads from its real config.json, left out: ffn-calc counts what
    the configuration class's default instantiates, or both refuse (tests/test_oracle_defaults.py
    over the frontier.json case)."""
    every_field_left_out(FRONTIER[family], tmp_path)
