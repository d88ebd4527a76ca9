"""Differential tests: GPT-NeoX, Falcon, GPT-BigCode, GPT-J and OPT against `transformers`.

Optional: they need the `oracle` extra and skip cleanly without torch and transformers. Each
case is a small random config.json, read by ffn-calc (`--hf-config`) and built by the
transformers class its `architectures` names: parameters from `parameters()`, tensor names
and shapes from `named_parameters()`, FLOPs from `torch.utils.flop_counter.FlopCounterMode`
over a CPU forward pass with eager attention, the cache after a prefill, one decode step and
generate() against kv_elements, decode_flops and generation_flops (`check_cache`, with the
cache on), checkpoints from `save_pretrained`.

The family's random tiny configs (`configs`) and the check of one case (`check_case`) run in
the one harness, tests/test_oracle_cases.py, over the cases in tests/oracle_cases.py (random
draws and explicit variants); this module holds them and the family's own tests.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from conftest import DATA, run  # noqa: E402
from oracle_cases import EXPLICIT, IDS, case, classes  # noqa: E402
from oracle_support import (  # noqa: E402
    build_hf,
    check_counts,
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

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CLASSES = classes("test_oracle_neox_falcon_bigcode_gptj_opt")
# The config.json key of each family's FFN width.
FFN_KEY = {"gpt_neox": "intermediate_size", "falcon": "ffn_hidden_size", "gpt_bigcode": "n_inner",
           "gptj": "n_inner", "opt": "ffn_dim"}  # fmt: skip


def _heads(draw: Any, head_dims: list[int]) -> tuple[int, int]:
    heads = draw(st.integers(1, 4))
    return heads, heads * draw(st.sampled_from(head_dims))


def _neox(draw: Any) -> dict[str, Any]:
    heads, d = _heads(draw, [4, 8])  # partial rotary over an even share of head_dim
    return {
        "hidden_size": d, "num_attention_heads": heads, "num_hidden_layers": draw(st.integers(1, 3)),
        "intermediate_size": draw(st.integers(1, 48)), "vocab_size": draw(st.integers(8, 100)),
        "attention_bias": draw(st.booleans()), "use_parallel_residual": draw(st.booleans()),
        "tie_word_embeddings": draw(st.booleans()), "max_position_embeddings": 64,
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0,
                            "partial_rotary_factor": draw(st.sampled_from([0.5, 1.0]))},
    }  # fmt: skip


def _falcon(draw: Any) -> dict[str, Any]:
    heads, d = _heads(draw, [4, 8])  # rotary over the whole head_dim: even
    out = {
        "hidden_size": d, "num_attention_heads": heads, "num_hidden_layers": draw(st.integers(1, 3)),
        "vocab_size": draw(st.integers(8, 100)),
        "new_decoder_architecture": draw(st.booleans()), "multi_query": draw(st.booleans()),
        "num_kv_heads": draw(st.sampled_from([k for k in range(1, heads + 1) if heads % k == 0])),
        "parallel_attn": draw(st.booleans()),
        "num_ln_in_parallel_attn": draw(st.sampled_from([None, 1, 2])),
        "bias": draw(st.booleans()), "alibi": draw(st.booleans()),
        "tie_word_embeddings": draw(st.booleans()),
    }  # fmt: skip
    if draw(st.booleans()):
        out["ffn_hidden_size"] = draw(st.integers(1, 48))
    return out


def _bigcode(draw: Any) -> dict[str, Any]:
    heads, d = _heads(draw, [2, 4, 6, 8])
    return {
        "n_embd": d, "n_head": heads, "n_layer": draw(st.integers(1, 3)),
        "n_inner": draw(st.none() | st.integers(1, 48)), "n_positions": 16,
        "vocab_size": draw(st.integers(8, 100)), "multi_query": draw(st.booleans()),
        "tie_word_embeddings": draw(st.booleans()),
    }  # fmt: skip


def _gptj(draw: Any) -> dict[str, Any]:
    heads, d = _heads(draw, [4, 8])
    hd = d // heads
    return {
        "n_embd": d, "n_head": heads, "n_layer": draw(st.integers(1, 3)),
        "n_inner": draw(st.none() | st.integers(1, 48)), "n_positions": 16,
        "rotary_dim": draw(st.sampled_from(list(range(2, hd + 1, 2)))),
        "vocab_size": draw(st.integers(8, 100)), "tie_word_embeddings": draw(st.booleans()),
    }  # fmt: skip


def _opt(draw: Any) -> dict[str, Any]:
    heads, d = _heads(draw, [2, 4, 6, 8])
    return {
        "hidden_size": d, "num_attention_heads": heads, "num_hidden_layers": draw(st.integers(1, 3)),
        "ffn_dim": draw(st.integers(1, 48)), "vocab_size": draw(st.integers(8, 100)),
        "max_position_embeddings": 16, "word_embed_proj_dim": draw(st.none() | st.integers(2, 40)),
        "do_layer_norm_before": draw(st.booleans()),
        "_remove_final_layer_norm": draw(st.booleans()), "enable_bias": draw(st.booleans()),
        "layer_norm_elementwise_affine": draw(st.booleans()),
        "tie_word_embeddings": draw(st.booleans()),
    }  # fmt: skip


DRAW: dict[str, Callable[[Any], dict[str, Any]]] = {
    "gpt_neox": _neox, "falcon": _falcon, "gpt_bigcode": _bigcode, "gptj": _gptj, "opt": _opt,
}  # fmt: skip


# Fields a config.json may leave out: the class default applies (ffn-calc must take the same).
OPTIONAL = {
    "gpt_neox": ["attention_bias", "use_parallel_residual", "tie_word_embeddings"],
    "falcon": ["new_decoder_architecture", "multi_query", "num_kv_heads", "parallel_attn",
               "num_ln_in_parallel_attn", "bias", "alibi", "tie_word_embeddings"],
    "gpt_bigcode": ["n_inner", "multi_query", "tie_word_embeddings"],
    "gptj": ["n_inner", "tie_word_embeddings"],
    "opt": ["word_embed_proj_dim", "do_layer_norm_before", "_remove_final_layer_norm",
            "enable_bias", "layer_norm_elementwise_affine", "tie_word_embeddings"],
}  # fmt: skip


def config_json(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """A small config.json of the family, as the Hub holds one (some fields absent)."""

    @st.composite
    def make(draw: Any) -> dict[str, Any]:
        fields = DRAW[family](draw)
        for key in draw(st.sets(st.sampled_from(OPTIONAL[family]))):
            fields.pop(key, None)
        return {"model_type": family, "architectures": [CLASSES[family][1]], **IDS, **fields}

    return make()


def runs_forward(data: dict[str, Any]) -> bool:
    """False for the Falcon layouts transformers instantiates but cannot run: the forward pass
    reads `ln_attn`/`ln_mlp` exactly with new_decoder_architecture and two parallel norms, and
    splits a multi-head QKV (neither flag) into num_kv_heads heads."""
    if data["model_type"] != "falcon":
        return True
    new_arch = data.get("new_decoder_architecture", False)  # FalconConfig's defaults
    heads = data["num_attention_heads"]
    if not (new_arch or data.get("multi_query", True)) and data.get("num_kv_heads", heads) != heads:
        return False
    lns = data.get("num_ln_in_parallel_attn")
    if lns is None and new_arch:
        lns = 2
    if data.get("parallel_attn", True):
        return bool(new_arch == (lns == 2))
    return not new_arch


def build(data: dict[str, Any], device: str = "cpu") -> Any:
    conf_name, model_name = CLASSES[data["model_type"]]
    fields = {k: v for k, v in data.items() if k not in ("model_type", "architectures")}
    return build_hf(conf_name, model_name, fields, device)


def check(data: dict[str, Any], batch: int, s: int, tmp: Path) -> None:
    """Parameters, names and shapes, FLOPs, and the saved checkpoint of one config.json."""
    torch.manual_seed(0)
    family = data["model_type"]
    cfg = read(data, tmp)
    model = build(data).eval()
    # (a) parameters, (b) names and shapes of the untied tensors, (c) FLOPs of a real forward
    ids = token_ids(data["vocab_size"], batch, s) if runs_forward(data) else None
    check_counts(model, cfg, ids)
    # (d) the saved checkpoint against its own config.json, then with a wrong FFN width
    ckpt = save(model, tmp / "checkpoint")
    check_verifies(ckpt, cfg)
    check_wider_ffn_fails(ckpt, [FFN_KEY[family]], absent=4 * cfg.d_model)


def configs(family: str) -> st.SearchStrategy[dict[str, Any]]:
    """The harness's random configs (tests/test_oracle_cases.py)."""
    return config_json(family)


def check_case(data: dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """One case through the harness (tests/test_oracle_cases.py)."""
    check({"architectures": [CLASSES[data["model_type"]][1]], **data}, batch, s, tmp)


def test_variants_change_the_counts(tmp_path: Path) -> None:
    """The flags read are honoured: each changes the count by the tensors it adds."""

    def delta(label: str, **change: Any) -> int:
        data = case(label)
        return total_params(read({**data, **change}, tmp_path)) - total_params(read(data, tmp_path))

    # GPTNeoXAttention: query_key_value bias [3 x 32] + dense bias [32], 2 layers: 2 x 128.
    neox = "gpt_neox tied, no attention bias, sequential residual"
    assert delta(neox, attention_bias=True) == 256
    # FalconAttention, multi_query: query_key_value [(4 + 2) x 8, 32] instead of
    # [(4 + 2 x 2) x 8, 32] (-512), one input_layernorm instead of ln_attn and ln_mlp (-64);
    # 2 layers: 2 x -576.
    falcon40 = "falcon-40b layout: new decoder, GQA, ln_attn and ln_mlp"
    assert delta(falcon40, new_decoder_architecture=False) == -1152
    # GPTJForCausalLM untied: lm_head.weight [50, 32] of its own; its bias is there either way.
    assert delta("gptj tied head keeps its bias", tie_word_embeddings=False) == 1600
    # OPTDecoder: embed_tokens [50, 16] -> [50, 32] (+800), no project_in [32, 16] and
    # project_out [16, 32] (-1024); the tied head follows the embedding.
    opt350 = "opt-350m layout: narrow embedding, post-LN, no final norm"
    assert delta(opt350, word_embed_proj_dim=32) == -224
    # Pre-LN adds the final_layer_norm after the last layer: weight and bias [32] each.
    assert delta(opt350, do_layer_norm_before=True) == 64
    assert delta(opt350, do_layer_norm_before=True, _remove_final_layer_norm=True) == 0


def test_neox_checkpoint_as_the_hub_holds_it(tmp_path: Path) -> None:
    """Pythia's checkpoints: the head stored as `embed_out`, and per layer the causal-mask
    buffers `attention.bias`, `attention.masked_bias` and `attention.rotary_emb.inv_freq`."""
    from safetensors.torch import load_file, save_file

    data = case("gpt_neox tied, no attention bias, sequential residual")
    data["tie_word_embeddings"] = False
    save(build(data), tmp_path)
    tensors = load_file(tmp_path / "model.safetensors")
    assert "embed_out.weight" in tensors and "lm_head.weight" not in tensors
    for i in range(data["num_hidden_layers"]):
        p = f"gpt_neox.layers.{i}.attention."
        tensors[p + "bias"] = torch.ones(1, 1, 16, 16, dtype=torch.bool).tril()
        tensors[p + "masked_bias"] = torch.tensor(-1e9)
        tensors[p + "rotary_emb.inv_freq"] = torch.ones(4)
    save_file(tensors, tmp_path / "model.safetensors", metadata={"format": "pt"})
    r = verify(tmp_path)
    assert r.exit_code == 0, r.stdout
    ck = r.json()["checkpoint"]
    assert len(ck["buffers"]) == 6 and not ck["unexpected"] and not ck["missing"]
    assert ck["checkpoint_params"] == total_params(read(data, tmp_path))


def test_bigcode_cross_attention_is_refused(tmp_path: Path) -> None:
    data = {**EXPLICIT["gpt_bigcode multi-head, untied"], "add_cross_attention": True}
    text = json.dumps(data, indent=2)
    (tmp_path / "config.json").write_text(text)
    line = text[: text.index('"add_cross_attention"')].count("\n") + 1
    r = run("params", "--hf-config", str(tmp_path / "config.json"))
    assert r.exit_code == 2 and r.stdout == ""
    assert f"line {line}: add_cross_attention = true is not supported" in r.stderr


# --- the real-size configs and the presets on the meta device: names, FLOPs at S = 64 -------

COVERAGE = {
    c["model_type"]: c
    for c in json.loads((DATA / "coverage.json").read_text())["cases"]
    if c["model_type"] in CLASSES
}
PRESETS = {"pythia-1b": "gpt_neox", "falcon-7b": "falcon", "opt-1.3b": "opt", "gpt-j-6b": "gptj"}


# On the meta device the forward passes keep the class's default cache: without one,
# transformers looks for packed sequences in the position ids, which needs their values.


@pytest.mark.parametrize("family", sorted(CLASSES))
def test_real_size_names_and_flops(family: str, tmp_path: Path) -> None:
    data = COVERAGE[family]["hf_config"]
    cfg = read(data, tmp_path)
    model = build(data, "meta")
    # Golden: tests/data/coverage.json total_params (transformers 5.24.0, meta device).
    assert sum(p.numel() for p in model.parameters()) == COVERAGE[family]["total_params"]
    assert total_params(cfg) == COVERAGE[family]["total_params"]
    assert param_shapes(model) == inventory_names(cfg)
    got = counted_flops(model, input_ids=token_ids(8, 1, 64, "meta"))
    assert got == forward_flops(cfg, Workload(batch=1, seq_len=64))


@pytest.mark.parametrize("preset", PRESETS)
def test_presets_are_the_instantiated_models(preset: str) -> None:
    cfg = resolve_model(preset=preset)
    model = build(COVERAGE[PRESETS[preset]]["hf_config"], "meta")
    check_counts(model, cfg, token_ids(8, 1, 64, "meta"))
