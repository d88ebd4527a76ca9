"""DistilBERT (`DistilBertForMaskedLM`): BERT's layer, halved, with its own names; no token types.

Fixed by the architecture: post-LN layers (q_lin/k_lin/v_lin/out_lin [dim, dim] with biases,
`sa_layer_norm` after attention, a plain FFN ffn.lin1 [hidden_dim, dim] / ffn.lin2 with biases,
`output_layer_norm` after it; LayerNorms with weight and bias; no final norm); token and
position embeddings (no token types) and a LayerNorm; head_dim = dim / n_heads. The
position table is an nn.Embedding [max_position_embeddings, dim], a parameter, even with
sinusoidal_pos_embds (which fills it with fixed values): counted either way. No pooler. The
head: vocab_transform [dim, dim] with bias, the activation, vocab_layer_norm, then
vocab_projector [vocab_size, dim] with its [vocab_size] bias, its weight tied to the word
embeddings unless tie_word_embeddings is false.

No parameters and no matmuls: sinusoidal_pos_embds, the dropouts.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import PLAIN_ACT, Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "DistilBertForMaskedLM"

# transformers 5.24.0 DistilBertConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "n_layers": 6,
    "dim": 768,
    "n_heads": 12,
    "hidden_dim": 3072,
    "max_position_embeddings": 512,
    "vocab_size": 30522,
}
# Its token embedding takes pad_token_id (class default 0) as padding_idx.
PAD_DEFAULT: int | None = 0


def fields(r: Reader) -> dict[str, Any]:
    return {
        "family": "distilbert",
        "architecture": "encoder-only",
        "n_layers": r.req("n_layers"),
        "d_model": r.req("dim"),
        "n_heads": r.req("n_heads"),
        "d_ff": r.req("hidden_dim"),
        "activation": r.choice("activation", PLAIN_ACT, "gelu"),
        "attention_bias": True,
        "ffn_bias": True,
        "norm": "layernorm",
        "final_norm": False,
        "embedding_norm": True,
        "positions": "learned",
        "max_positions": r.req("max_position_embeddings"),
        "vocab_size": r.req("vocab_size"),
        "pooler": False,
        "lm_head": True,
        "lm_head_transform": True,
        "lm_head_bias": True,
        "tie_embeddings": r.boolean("tie_word_embeddings", True),
    }


NAMING = Naming(
    layer="distilbert.transformer.layer.{i}.",
    q="attention.q_lin",
    k="attention.k_lin",
    v="attention.v_lin",
    o="attention.out_lin",
    up="ffn.lin1",
    down="ffn.lin2",
    gate="ffn.gate",
    norm_attn="sa_layer_norm",
    norm_ffn="output_layer_norm",
    final_norm="distilbert.transformer.norm",
    tok="distilbert.embeddings.word_embeddings",
    pos="distilbert.embeddings.position_embeddings",
    emb_norm="distilbert.embeddings.LayerNorm",
    head_dense="vocab_transform",
    head_norm="vocab_layer_norm",
    lm_head="vocab_projector",
    lm_head_bias="vocab_projector.bias",
    prefixes=("distilbert.",),
    architecture="encoder-only",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
