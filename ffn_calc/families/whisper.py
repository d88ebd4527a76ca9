"""Whisper (`WhisperForConditionalGeneration`): a speech encoder-decoder.

Fixed by the architecture: pre-LN layers with LayerNorms (weight and bias) named
self_attn_layer_norm and final_layer_norm (the decoder adds encoder_attn_layer_norm before
cross-attention) and one more after each stack (`model.{stack}.layer_norm`); biases on Q, V,
out_proj, fc1 and fc2 but none on k_proj (ModelConfig.attention_k_bias false); the head
`proj_out` (no bias) tied to the decoder's token table `model.decoder.embed_tokens` unless
`tie_word_embeddings` is false. The encoder has no token table: a convolutional front end
reads num_mel_bins features per frame, conv1 (num_mel_bins -> d_model, kernel 3, padding 1)
and conv2 (d_model -> d_model, kernel 3, stride 2, padding 1), both with biases
(ModelConfig.conv_in_channels, conv_kernel, conv_strides). Each stack has a position table
of its own: the encoder's `embed_positions` [max_source_positions, d_model] holds fixed
sinusoids, but transformers keeps it as an nn.Embedding, a parameter (requires_grad false,
counted by parameters() all the same; ModelConfig.source_positions); the decoder's
[max_target_positions, d_model] is learned.

Lengths: the encoder runs over S positions from 2 S mel frames (conv2 halves them);
transformers' WhisperEncoder takes exactly max_source_positions positions (3,000 frames,
30 s of audio, for 1,500), so the real model's source length is S = max_source_positions.
The decoder takes at most max_target_positions tokens.

No parameters and no matmuls: `scale_embedding` (sqrt(d_model)), the GELUs after the
convolutions. Each stack has its own layer count, FFN width and heads, as BART's (ffn_calc.families.bart.stacks);
every head is d_model / heads wide, and both head counts must divide d_model. d_model must be
even (the encoder's sinusoids pair sines and cosines).
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families import bart
from ffn_calc.families.base import PLAIN_ACT, Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "WhisperForConditionalGeneration"

# transformers 5.24.0 WhisperConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "d_model": 384,
    "encoder_layers": 4,
    "decoder_layers": 4,
    "encoder_attention_heads": 6,
    "decoder_attention_heads": 6,
    "encoder_ffn_dim": 1536,
    "decoder_ffn_dim": 1536,
    "max_source_positions": 1500,
    "max_target_positions": 448,
    "num_mel_bins": 80,
    "vocab_size": 51865,
}
# The decoder's token embedding takes pad_token_id (class default 50256) as padding_idx.
PAD_DEFAULT: int | None = 50256


def fields(r: Reader) -> dict[str, Any]:
    sizes = bart.stacks(r)
    if (d := sizes["d_model"]) % 2:  # sinusoids(max_source_positions, d_model) refuses an odd width
        raise ConfigError(
            _(
                "{where}: d_model = {d_model} must be even: Whisper's encoder positions are "
                "sinusoids in pairs."
            ).format(where=r.where("d_model"), d_model=d)
        )
    return {
        "family": "whisper",
        "architecture": "encoder-decoder",
        **sizes,
        "activation": r.choice("activation_function", PLAIN_ACT, "gelu"),
        "attention_bias": True,
        "attention_k_bias": False,
        "ffn_bias": True,
        "norm": "layernorm",
        "final_norm": True,
        "positions": "learned",
        "max_positions": r.req("max_target_positions"),
        "separate_position_tables": True,
        "source_positions": r.req("max_source_positions"),
        "conv_in_channels": r.req("num_mel_bins"),
        "conv_kernel": 3,
        "conv_strides": [1, 2],
        "vocab_size": r.req("vocab_size"),
        "shared_embeddings": True,
        "tie_embeddings": r.boolean("tie_word_embeddings", True),
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
    tok="model.decoder.embed_tokens",
    lm_head="proj_out",
    pos="model.{stack}.embed_positions",
    conv="model.encoder.conv{n}",
    prefixes=("model.",),
    architecture="encoder-decoder",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
