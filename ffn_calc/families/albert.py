"""ALBERT (`AlbertForMaskedLM`): a narrow factorized embedding and layers shared across depth.

Fixed by the architecture: the token, position and token-type tables and the embedding
LayerNorm are all embedding_size (e) wide; `embedding_hidden_mapping_in` [hidden, e] with
bias maps them to hidden_size once. Post-LN layers (attention.query/key/value/dense with
biases, attention.LayerNorm after attention, a plain FFN `ffn` [intermediate, hidden] /
`ffn_output` with biases, `full_layer_layer_norm` after it; no final norm). Cross-layer
sharing: num_hidden_groups groups of inner_group_num layers hold parameters
(`albert.encoder.albert_layer_groups.{g}.albert_layers.{j}`); the forward applies a group
num_hidden_layers times (group int(i / (num_hidden_layers / num_hidden_groups)) at step i),
so num_hidden_layers x inner_group_num layers run (FLOPs) while num_hidden_groups x
inner_group_num hold parameters. No pooler. The head `predictions`: dense hidden -> e with
bias, the activation, LayerNorm(e), the decoder [vocab_size, e] tied to the word embeddings,
and a [vocab_size] bias `predictions.bias` that state_dicts also hold as
`predictions.decoder.bias`; with tie_word_embeddings false transformers ties neither, and
the decoder keeps its own weight and bias beside `predictions.bias`.

Not supported: more groups than num_hidden_layers (groups that never run). No parameters and
no matmuls: the dropouts.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import PLAIN_ACT, Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "AlbertForMaskedLM"

# transformers 5.24.0 AlbertConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 12,
    "hidden_size": 4096,
    "num_attention_heads": 64,
    "intermediate_size": 16384,
    "embedding_size": 128,
    "max_position_embeddings": 512,
    "vocab_size": 30000,
}
# Its token embedding takes pad_token_id (class default 0) as padding_idx.
PAD_DEFAULT: int | None = 0

NOTE = (
    "Counts AlbertForMaskedLM: no pooler, and the masked-LM head (dense hidden_size -> "
    "embedding_size with bias, LayerNorm(embedding_size), a [vocab_size] bias; the decoder "
    "tied to the word embeddings). For albert-base-v2 that is 11,221,680; the often-quoted "
    "11,683,584 is AlbertModel with its pooler (768 x 768 + 768) and no head."
)


def fields(r: Reader) -> dict[str, Any]:
    layers, groups = r.req("num_hidden_layers"), r.integer("num_hidden_groups", 1)
    inner = r.integer("inner_group_num", 1)
    assert groups is not None and inner is not None
    if groups > layers:
        raise ConfigError(
            _(
                "{where}: num_hidden_groups = {groups} exceeds num_hidden_layers = {layers}: "
                "groups past it never run; not supported."
            ).format(where=r.where("num_hidden_groups"), groups=groups, layers=layers)
        )
    tied = r.boolean("tie_word_embeddings", True)
    return {
        "family": "albert",
        "architecture": "encoder-only",
        "n_layers": layers * inner,
        "unique_layers": groups * inner if groups < layers else None,
        "layers_per_group": inner if inner > 1 else None,
        "d_model": r.req("hidden_size"),
        "n_heads": r.req("num_attention_heads"),
        "d_ff": r.req("intermediate_size"),
        "activation": r.choice("hidden_act", PLAIN_ACT, "gelu_new"),
        "attention_bias": True,
        "ffn_bias": True,
        "norm": "layernorm",
        "final_norm": False,
        "embedding_norm": True,
        "positions": "learned",
        "max_positions": r.req("max_position_embeddings"),
        "vocab_size": r.req("vocab_size"),
        "type_vocab_size": r.integer("type_vocab_size", 2),
        "embedding_dim": r.req("embedding_size"),
        "embedding_projection": "all",
        "embedding_projection_bias": True,
        "pooler": False,
        "lm_head": True,
        "lm_head_transform": True,
        "lm_head_bias": True,
        "tie_embeddings": tied,
        "lm_head_projection_bias": not tied,
        "note": NOTE,
    }


NAMING = Naming(
    layer="albert.encoder.albert_layer_groups.{g}.albert_layers.{j}.",
    q="attention.query",
    k="attention.key",
    v="attention.value",
    o="attention.dense",
    up="ffn",
    down="ffn_output",
    gate="ffn_gate",
    norm_attn="attention.LayerNorm",
    norm_ffn="full_layer_layer_norm",
    final_norm="albert.encoder.norm",
    tok="albert.embeddings.word_embeddings",
    pos="albert.embeddings.position_embeddings",
    types="albert.embeddings.token_type_embeddings",
    emb_norm="albert.embeddings.LayerNorm",
    proj_in="albert.encoder.embedding_hidden_mapping_in",
    head_dense="predictions.dense",
    head_norm="predictions.LayerNorm",
    lm_head="predictions.decoder",
    lm_head_bias="predictions.bias",
    aliases={"predictions.decoder.bias": "predictions.bias"},
    prefixes=("albert.",),
    architecture="encoder-only",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
