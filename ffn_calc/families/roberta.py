"""RoBERTa (`RobertaForMaskedLM`): BERT's encoder under `roberta.`, no pooler, a masked-LM head.

Fixed by the architecture: post-LN layers as BERT's (query/key/value and attention.output.dense
with biases, LayerNorm with weight and bias after attention and after the FFN, a plain
intermediate/output FFN with biases, no final norm); token, learned position
(max_position_embeddings rows: 514 for roberta-base, whose position ids start after the
padding index) and token-type embeddings, then a LayerNorm; no pooler (the masked-LM class
builds RobertaModel without one). The head `lm_head`: dense [hidden, hidden] with bias, GELU,
layer_norm, then the decoder [vocab_size, hidden], tied to the word embeddings, and a
[vocab_size] bias `lm_head.bias` that state_dicts also hold as `lm_head.decoder.bias`. With
tie_word_embeddings false transformers ties neither: the decoder has its own weight and its
own [vocab_size] bias, beside `lm_head.bias` (which the forward then leaves unused).

Not supported: add_cross_attention (cross-attention in every layer of a decoder). No
parameters and no matmuls: is_decoder (a causal mask), the padding offset of position ids.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import PLAIN_ACT, Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "RobertaForMaskedLM"

# transformers 5.24.0 RobertaConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 12,
    "hidden_size": 768,
    "num_attention_heads": 12,
    "intermediate_size": 3072,
    "max_position_embeddings": 512,
    "vocab_size": 50265,
}
# Its token embedding takes pad_token_id (class default 1) as padding_idx.
PAD_DEFAULT: int | None = 1


def fields(r: Reader) -> dict[str, Any]:
    return masked_lm_fields(r, "roberta", ARCHITECTURE)


def masked_lm_fields(r: Reader, family: str, architecture: str) -> dict[str, Any]:
    """The fields of a RoBERTa-shaped masked-LM class (RoBERTa, XLM-RoBERTa)."""
    if "add_cross_attention" in r.data and r.boolean("add_cross_attention", False):
        raise ConfigError(
            _(
                "{where}: add_cross_attention = true adds cross-attention to every layer "
                "(a decoder); ffn-calc counts {architecture} without it."
            ).format(where=r.where("add_cross_attention"), architecture=architecture)
        )
    tied = r.boolean("tie_word_embeddings", True)
    return {
        "family": family,
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
        # position ids start after the padding index: padding_idx + 1 rows come first
        "position_offset": _padding_index(r) + 1,
        "type_vocab_size": r.integer("type_vocab_size", 2),
        "pooler": False,
        "lm_head": True,
        "lm_head_transform": True,
        "lm_head_bias": True,
        "tie_embeddings": tied,
        "lm_head_projection_bias": not tied,
    }


def _padding_index(r: Reader) -> int:
    """RobertaEmbeddings' padding_idx: pad_token_id (1 unless set)."""
    pad = r.data.get("pad_token_id")
    return pad if isinstance(pad, int) and not isinstance(pad, bool) and pad >= 0 else 1


NAMING = Naming(
    layer="roberta.encoder.layer.{i}.",
    q="attention.self.query",
    k="attention.self.key",
    v="attention.self.value",
    o="attention.output.dense",
    up="intermediate.dense",
    down="output.dense",
    gate="intermediate.gate",
    norm_attn="attention.output.LayerNorm",
    norm_ffn="output.LayerNorm",
    final_norm="roberta.encoder.norm",
    tok="roberta.embeddings.word_embeddings",
    pos="roberta.embeddings.position_embeddings",
    types="roberta.embeddings.token_type_embeddings",
    emb_norm="roberta.embeddings.LayerNorm",
    head_dense="lm_head.dense",
    head_norm="lm_head.layer_norm",
    lm_head="lm_head.decoder",
    lm_head_bias="lm_head.bias",
    aliases={"lm_head.decoder.bias": "lm_head.bias"},
    prefixes=("roberta.",),
    architecture="encoder-only",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
