"""Mamba-2 (`Mamba2ForCausalLM`): a stack of Mamba-2 (SSD) blocks, no attention, no FFN.

Each block: an RMSNorm [d_model] (`norm`) and the mixer (`mixer.in_proj`, `mixer.conv1d`,
`mixer.dt_bias`, `mixer.A_log`, `mixer.D`, the gated `mixer.norm` [inner], `mixer.out_proj`);
inner = expand x hidden_size (int). `backbone.embeddings`, `backbone.norm_f`, an untied
`lm_head` by default. config.json files may write `time_step_limit: [0.0, Infinity]`: it
shapes no tensor and is read as JSON allows, not refused.

The attention and FFN fields of ModelConfig stand in only (n_heads = num_heads, d_ff =
inner): every layer is `layer_mixers` "mamba2" and in `ffn_free_layers`.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Mamba2ForCausalLM"

# transformers 5.24.0 Mamba2Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 64,
    "hidden_size": 4096,
    "num_heads": 128,
    "head_dim": 64,
    "state_size": 128,
    "vocab_size": 32768,
}


def fields(r: Reader) -> dict[str, Any]:
    d, n = r.req("hidden_size"), r.req("num_hidden_layers")
    expand = r.integer("expand", 2)
    assert expand is not None
    inner = expand * d
    heads = r.req("num_heads")
    mamba2 = {
        "heads": heads,
        "head_dim": r.req("head_dim"),
        "state_size": r.req("state_size"),
        "n_groups": r.integer("n_groups", 8),
        "conv_kernel": r.integer("conv_kernel", 4),
        "chunk_size": r.integer("chunk_size", 256),
        "inner": inner,
        "proj_bias": r.boolean("use_bias", False),
        "conv_bias": r.boolean("use_conv_bias", True),
    }
    return {
        "family": "mamba2",
        "architecture": "decoder-only",
        "n_layers": n,
        "d_model": d,
        "n_heads": heads,
        "head_dim": mamba2["head_dim"],
        "d_ff": inner,
        "norm": "rmsnorm",
        "positions": "none",
        "layer_norms": 1,
        "vocab_size": r.req("vocab_size"),
        "tie_embeddings": r.boolean("tie_word_embeddings", False),
        "layer_mixers": ["mamba2"] * n,
        "ffn_free_layers": list(range(n)),
        "mamba2": mamba2,
    }


NAMING = Naming(
    layer="backbone.layers.{i}.",
    q="",
    k="",
    v="",
    o="",
    up="",
    down="",
    gate="",
    norm_attn="norm",
    final_norm="backbone.norm_f",
    tok="backbone.embeddings",
    prefixes=("backbone.",),
    architecture="decoder-only",
    mixer="mixer.",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
