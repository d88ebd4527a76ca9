"""BERT (`BertModel` with its pooler, no MLM head): post-LN, learned positions, token types."""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import PLAIN_ACT, Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "BertModel"

# transformers 5.24.0 BertConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 12,
    "hidden_size": 768,
    "num_attention_heads": 12,
    "intermediate_size": 3072,
    "max_position_embeddings": 512,
    "vocab_size": 30522,
}
# Its token embedding takes pad_token_id (class default 0) as padding_idx.
PAD_DEFAULT: int | None = 0


def fields(r: Reader) -> dict[str, Any]:
    return {
        "family": "bert",
        "architecture": "encoder-only",
        "n_layers": r.req("num_hidden_layers"),
        "d_model": r.req("hidden_size"),
        "n_heads": r.req("num_attention_heads"),
        "d_ff": r.req("intermediate_size"),
        "activation": r.choice("hidden_act", PLAIN_ACT, "gelu"),
        "attention_bias": True,
        "ffn_bias": True,
        "norm": "layernorm",
        "final_norm": False,
        "embedding_norm": True,
        "positions": "learned",
        "max_positions": r.req("max_position_embeddings"),
        "vocab_size": r.req("vocab_size"),
        "type_vocab_size": r.integer("type_vocab_size", 2),
        "lm_head": False,
        "pooler": True,
    }


NAMING = Naming(
    layer="encoder.layer.{i}.",
    q="attention.self.query",
    k="attention.self.key",
    v="attention.self.value",
    o="attention.output.dense",
    up="intermediate.dense",
    down="output.dense",
    gate="intermediate.gate",
    norm_attn="attention.output.LayerNorm",
    norm_ffn="output.LayerNorm",
    final_norm="encoder.norm",
    tok="embeddings.word_embeddings",
    pos="embeddings.position_embeddings",
    types="embeddings.token_type_embeddings",
    emb_norm="embeddings.LayerNorm",
    pooler="pooler.dense",
    prefixes=("bert.",),
    architecture="encoder-only",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
