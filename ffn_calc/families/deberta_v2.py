"""DeBERTa-v2 and v3 (`DebertaV2ForMaskedLM`, model_type deberta-v2): a post-LN encoder with
disentangled attention over relative positions.

Fixed by the architecture: BERT's layers under `deberta.encoder.layer.{i}` (query_proj,
key_proj, value_proj and attention.output.dense with biases, attention.output.LayerNorm, a
plain intermediate/output FFN with biases, output.LayerNorm; no final norm); the token
embedding, a learned position table only under position_biased_input (default true; DeBERTa-v3
sets it false), token types only when type_vocab_size > 0 (default 0), then the embedding
LayerNorm. The legacy masked-LM head `cls.predictions` (legacy, default true): transform.dense
[hidden, hidden] with bias, the activation, transform.LayerNorm, the decoder [vocab_size,
hidden] tied to the word embeddings, and a [vocab_size] bias `cls.predictions.bias` that
state_dicts also hold as `cls.predictions.decoder.bias`; with tie_word_embeddings false
transformers ties neither (the decoder keeps its own weight and bias, as RoBERTa's).

Relative attention (relative_attention, default false): one table
`deberta.encoder.rel_embeddings` [2 x span, hidden], span = position_buckets when above 0,
else max_relative_positions (below 1: max_position_embeddings), and under norm_rel_ebd
"layer_norm" a LayerNorm `deberta.encoder.LayerNorm` over it, applied once per forward pass
(built, and counted, even without relative attention, when it is never applied).
pos_att_type lists the disentangled scores: c2p (content to position: the queries against the
projected table, [S, head_dim] x [head_dim, 2 span] per batch element and head) and p2c
(position to content: the keys against it); each is a matmul of 2 x B x n_heads x S x
(2 span) x head_dim FLOPs, counted with the attention scores (the gathers that pick each
pair's relative bucket are no matmuls). Every layer projects the whole table, once per forward
pass whatever the batch: with its own query_proj and key_proj under share_att_key (both, even
with no score kind), else with a pos_key_proj (c2p) and a pos_query_proj (p2c) of its own,
[hidden, hidden] with biases: 2 x (2 span) x hidden x hidden FLOPs each per layer, an
attention-projection term outside the per-layer line (it does not grow with S).

Not supported (transformers fails on it): position_buckets 1 with relative attention (its
log buckets divide by position_buckets // 2). Not supported: legacy false (the DebertaV2OnlyMLMHead layout), embedding_size other than
hidden_size (embed_proj), conv_kernel_size (the convolution of DeBERTa-v2-xlarge and larger),
attention_head_size x heads other than hidden_size.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import PLAIN_ACT, Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "DebertaV2ForMaskedLM"

# transformers 5.24.0 DebertaV2Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 24,
    "hidden_size": 1536,
    "num_attention_heads": 24,
    "intermediate_size": 6144,
    "max_position_embeddings": 512,
    "vocab_size": 128100,
}
# Its token embedding takes pad_token_id (class default 0) as padding_idx.
PAD_DEFAULT: int | None = 0


def _refuse(r: Reader, key: str, why: str) -> ConfigError:
    return ConfigError(
        _("{where}: {field} = {value}: {why}; ffn-calc does not count it.").format(
            where=r.where(key), field=key, value=shown(r.data.get(key)), why=why
        )
    )


def _signed(r: Reader, key: str, default: int) -> int:
    """An integer that may be 0 or negative (transformers reads below 1 as "unset")."""
    value = r.data.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(
            _("{where}: {field} = {value}: expected an integer, found {type}.").format(
                where=r.where(key), field=key, value=shown(value), type=type(value).__name__
            )
        )
    return value


def _score_kinds(r: Reader) -> set[str]:
    """pos_att_type: a list of names or a "p2c|c2p" string (DebertaV2Config's __post_init__);
    only c2p and p2c change the model."""
    value = r.data.get("pos_att_type")
    if value is None:
        return set()
    if isinstance(value, str):
        value = [x.strip() for x in value.lower().split("|")]
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise ConfigError(
            _("{where}: {field} = {value}: expected a list such as {example}.").format(
                where=r.where("pos_att_type"),
                field="pos_att_type",
                value=shown(value),
                example='["p2c", "c2p"]',
            )
        )
    return {x for x in value if x in ("c2p", "p2c")}


def fields(r: Reader) -> dict[str, Any]:
    d, heads = r.req("hidden_size"), r.req("num_attention_heads")
    if not r.boolean("legacy", True):
        raise _refuse(r, "legacy", _("the DebertaV2OnlyMLMHead layout"))
    if r.data.get("embedding_size") not in (None, d):
        raise _refuse(r, "embedding_size", _("an embedding narrower or wider than hidden_size"))
    if _signed(r, "conv_kernel_size", 0) > 0:
        raise _refuse(r, "conv_kernel_size", _("a convolution after the first layer"))
    size = r.data.get("attention_head_size")
    if size is not None and (not isinstance(size, int) or size * heads != d):
        raise _refuse(r, "attention_head_size", _("heads x head size other than hidden_size"))
    tied = r.boolean("tie_word_embeddings", True)
    max_positions = r.req("max_position_embeddings")
    out: dict[str, Any] = {}
    if r.boolean("position_biased_input", True):
        out |= {"positions": "learned", "max_positions": max_positions}
    else:
        out["positions"] = "none"
    if r.boolean("relative_attention", False):
        span = _signed(r, "max_relative_positions", -1)
        if span < 1:
            span = max_positions
        buckets = _signed(r, "position_buckets", -1)
        if buckets == 1:  # make_log_bucket_position divides by position_buckets // 2
            raise _refuse(
                r, "position_buckets", _("transformers divides by position_buckets // 2 = 0")
            )
        if buckets > 0:
            span = buckets
        kinds = _score_kinds(r)
        out |= {
            "relative_position_rows": 2 * span,
            "c2p_attention": "c2p" in kinds,
            "p2c_attention": "p2c" in kinds,
            "shared_position_projections": r.boolean("share_att_key", False),
        }
    # The encoder builds this LayerNorm even without relative attention (then unused).
    norms = [x.strip() for x in r.string("norm_rel_ebd", "none").lower().split("|")]
    out["relative_position_norm"] = "layer_norm" in norms
    return {
        "family": "deberta-v2",
        "architecture": "encoder-only",
        "n_layers": r.req("num_hidden_layers"),
        "d_model": d,
        "n_heads": heads,
        "d_ff": r.req("intermediate_size"),
        "activation": r.choice("hidden_act", PLAIN_ACT, "gelu"),
        "attention_bias": True,
        "ffn_bias": True,
        "norm": "layernorm",
        "final_norm": False,
        "embedding_norm": True,
        "vocab_size": r.req("vocab_size"),
        "type_vocab_size": r.index("type_vocab_size", 0),
        "pooler": False,
        "lm_head": True,
        "lm_head_transform": True,
        "lm_head_bias": True,
        "tie_embeddings": tied,
        "lm_head_projection_bias": not tied,
        **out,
    }


NAMING = Naming(
    layer="deberta.encoder.layer.{i}.",
    q="attention.self.query_proj",
    k="attention.self.key_proj",
    v="attention.self.value_proj",
    o="attention.output.dense",
    up="intermediate.dense",
    down="output.dense",
    gate="intermediate.gate",
    norm_attn="attention.output.LayerNorm",
    norm_ffn="output.LayerNorm",
    final_norm="deberta.encoder.norm",
    tok="deberta.embeddings.word_embeddings",
    pos="deberta.embeddings.position_embeddings",
    types="deberta.embeddings.token_type_embeddings",
    emb_norm="deberta.embeddings.LayerNorm",
    rel_embeddings="deberta.encoder.rel_embeddings",
    rel_norm="deberta.encoder.LayerNorm",
    pos_key_proj="attention.self.pos_key_proj",
    pos_query_proj="attention.self.pos_query_proj",
    head_dense="cls.predictions.transform.dense",
    head_norm="cls.predictions.transform.LayerNorm",
    lm_head="cls.predictions.decoder",
    lm_head_bias="cls.predictions.bias",
    aliases={"cls.predictions.decoder.bias": "cls.predictions.bias"},
    prefixes=("deberta.",),
    architecture="encoder-only",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
