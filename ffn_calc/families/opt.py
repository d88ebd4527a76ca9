"""OPT (`OPTForCausalLM`): learned positions with 2 extra rows, optional narrow embedding.

Fixed by the architecture: separate `q_proj`, `k_proj`, `v_proj`, `out_proj` of
[d_model, d_model]; a plain MLP (`fc1` [ffn_dim, d_model], `fc2`); `enable_bias` (default true)
puts a bias on all six; head_dim = hidden_size / heads, no GQA. Learned positions with
max_position_embeddings + 2 rows (OPT offsets position ids by 2). LayerNorm (weight and bias)
`self_attn_layer_norm` and `final_layer_norm` in every layer, before attention and the MLP
(`do_layer_norm_before`, default true) or after them; a final `final_layer_norm` after the last
layer only when `do_layer_norm_before` and not `_remove_final_layer_norm`. With
`layer_norm_elementwise_affine` false every LayerNorm holds no parameters, counted as no
norms. With `word_embed_proj_dim` (default hidden_size) narrower or wider than hidden_size the
token embedding is [vocab_size, word_embed_proj_dim], `project_in` maps it to hidden_size and
`project_out` maps back before the head (both without bias). The head [vocab_size,
word_embed_proj_dim] is tied to the token embedding unless tie_word_embeddings is false.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import PLAIN_ACT, Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "OPTForCausalLM"

# transformers 5.24.0 OPTConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 12,
    "hidden_size": 768,
    "num_attention_heads": 12,
    "ffn_dim": 3072,
    "max_position_embeddings": 2048,
    "vocab_size": 50272,
}
# Its token embedding takes pad_token_id (class default 1) as padding_idx.
PAD_DEFAULT: int | None = 1

NO_AFFINE = (
    "layer_norm_elementwise_affine is false: the LayerNorms hold no parameters and are not "
    "listed (norms are not counted in FLOPs)."
)


def fields(r: Reader) -> dict[str, Any]:
    d = r.req("hidden_size")
    width = r.integer("word_embed_proj_dim", d)
    bias = r.boolean("enable_bias", True)
    pre_ln = r.boolean("do_layer_norm_before", True)
    final = pre_ln and not r.boolean("_remove_final_layer_norm", False)
    affine = r.boolean("layer_norm_elementwise_affine", True)
    return {
        "family": "opt",
        "architecture": "decoder-only",
        "n_layers": r.req("num_hidden_layers"),
        "d_model": d,
        "n_heads": r.req("num_attention_heads"),
        "d_ff": r.req("ffn_dim"),
        "activation": r.choice("activation_function", PLAIN_ACT, "relu"),
        "attention_bias": bias,
        "ffn_bias": bias,
        "norm": "layernorm",
        "layer_norms": None if affine else 0,
        "final_norm": final and affine,
        "note": None if affine else NO_AFFINE,
        "positions": "learned",
        "max_positions": r.req("max_position_embeddings") + 2,
        "position_offset": 2,  # OPTLearnedPositionalEmbedding: ids offset by 2
        "vocab_size": r.req("vocab_size"),
        "embedding_dim": None if width == d else width,
        "tie_embeddings": r.boolean("tie_word_embeddings", True),
    }


NAMING = Naming(
    layer="model.decoder.layers.{i}.",
    q="self_attn.q_proj",
    k="self_attn.k_proj",
    v="self_attn.v_proj",
    o="self_attn.out_proj",
    up="fc1",
    down="fc2",
    gate="",
    norm_attn="self_attn_layer_norm",
    norm_ffn="final_layer_norm",
    final_norm="model.decoder.final_layer_norm",
    tok="model.decoder.embed_tokens",
    pos="model.decoder.embed_positions",
    proj_in="model.decoder.project_in",
    proj_out="model.decoder.project_out",
    prefixes=("model.",),
    architecture="decoder-only",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
