"""BART (`BartForConditionalGeneration`): post-LN encoder-decoder with learned positions.

Fixed by the architecture: biases on every projection (Q, K, V, out_proj, fc1, fc2) and
LayerNorms with weight and bias; post-LN layers with self_attn_layer_norm and
final_layer_norm (the decoder adds encoder_attn_layer_norm after cross-attention), no norm
after the last layer; per stack a learned position table of max_position_embeddings + 2 rows
(positions are offset by 2) and a layernorm_embedding; one token table `model.shared`, which
`model.encoder.embed_tokens` and `model.decoder.embed_tokens` alias, and the lm_head tied to
it. With `tie_word_embeddings` false transformers unties all three: the encoder, the decoder
and the head each get their own [vocab_size, d_model] table and `model.shared` stays, unused.

Not parameters: `final_logits_bias` [1, vocab_size], a buffer that checkpoints keep. No
parameters and no matmuls: `scale_embedding` (sqrt(d_model)), the position offset.
Each stack has its own layer count, FFN width and heads (`encoder_layers`,
`encoder_ffn_dim`, `encoder_attention_heads` and the decoder's; ModelConfig.n_decoder_layers,
decoder_d_ff, decoder_n_heads where they differ). Every head is d_model / heads wide, so the
heads change no parameter, FLOP or cache count (projections and scores depend on d_model
only), but they do change the stored attention probabilities; both must divide d_model.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import PLAIN_ACT, Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "BartForConditionalGeneration"

# transformers 5.24.0 BartConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "d_model": 1024,
    "encoder_layers": 12,
    "decoder_layers": 12,
    "encoder_attention_heads": 16,
    "decoder_attention_heads": 16,
    "encoder_ffn_dim": 4096,
    "decoder_ffn_dim": 4096,
    "max_position_embeddings": 1024,
    "vocab_size": 50265,
}
# Its token embedding takes pad_token_id (class default 1) as padding_idx.
PAD_DEFAULT: int | None = 1


def stacks(r: Reader) -> dict[str, Any]:
    """d_model, the FFN widths and the head counts of BART's encoder-decoder fields, which
    Whisper shares: each stack its own FFN width (encoder_ffn_dim, decoder_ffn_dim) and heads
    (encoder_attention_heads, decoder_attention_heads), which must divide d_model
    (BartAttention and WhisperAttention: head_dim = d_model / heads); the decoder's only where
    they differ from the encoder's."""
    d = r.req("d_model")
    for key in ("encoder_attention_heads", "decoder_attention_heads"):
        if d % (heads := r.req(key)):
            raise ConfigError(
                _("{where}: {field} = {heads} must divide d_model = {d_model}.").format(
                    where=r.where(key), field=key, heads=heads, d_model=d
                )
            )
    ffn, heads = r.req("encoder_ffn_dim"), r.req("encoder_attention_heads")
    dec_ffn, dec_heads = r.req("decoder_ffn_dim"), r.req("decoder_attention_heads")
    return {
        "d_model": d,
        "n_heads": heads,
        "d_ff": ffn,
        "n_layers": r.req("encoder_layers"),
        "n_decoder_layers": r.req("decoder_layers"),
        **({"decoder_d_ff": dec_ffn} if dec_ffn != ffn else {}),
        **({"decoder_n_heads": dec_heads} if dec_heads != heads else {}),
    }


def fields(r: Reader) -> dict[str, Any]:
    tied = r.boolean("tie_word_embeddings", True)
    return {
        "family": "bart",
        "architecture": "encoder-decoder",
        **stacks(r),
        "activation": r.choice("activation_function", PLAIN_ACT, "gelu"),
        "attention_bias": True,
        "ffn_bias": True,
        "norm": "layernorm",
        "final_norm": False,
        "embedding_norm": True,
        "positions": "learned",
        # BartLearnedPositionalEmbedding: max_position_embeddings + 2 rows (offset 2).
        "max_positions": r.req("max_position_embeddings") + 2,
        "position_offset": 2,
        "separate_position_tables": True,
        "vocab_size": r.req("vocab_size"),
        "shared_embeddings": True,
        "tie_embeddings": tied,
        "stack_embeddings": not tied,
    }


NAMING = Naming(
    layer="model.{stack}.layers.{i}.",
    q="self_attn.q_proj",
    k="self_attn.k_proj",
    v="self_attn.v_proj",
    o="self_attn.out_proj",
    up="fc1",
    down="fc2",
    gate="fc_gate",
    norms={2: ("self_attn_layer_norm", "final_layer_norm")},
    cross_q="encoder_attn.q_proj",
    cross_k="encoder_attn.k_proj",
    cross_v="encoder_attn.v_proj",
    cross_o="encoder_attn.out_proj",
    norm_cross="encoder_attn_layer_norm",
    final_norm="model.{stack}.layer_norm",
    tok="model.shared",
    lm_head="lm_head",
    pos="model.{stack}.embed_positions",
    emb_norm="model.{stack}.layernorm_embedding",
    stack_tok="model.{stack}.embed_tokens",
    aliases={
        "model.encoder.embed_tokens.weight": "model.shared.weight",
        "model.decoder.embed_tokens.weight": "model.shared.weight",
    },
    prefixes=("model.",),
    architecture="encoder-decoder",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
