"""ERNIE 4.5 (`Ernie4_5ForCausalLM`): the dense ERNIE 4.5 models, Llama's layout.

Fixed by the architecture: Llama's pre-norm layer (RMSNorm `input_layernorm` and
`post_attention_layernorm`), rotary positions (interleaved, no parameters), GQA, a SwiGLU
MLP. `use_bias` (class default false) puts a bias on Q, K, V and O and on the MLP's gate, up
and down projections; never on the head (unlike ERNIE 4.5 MoE's `lm_head.bias`, see
ernie4_5_moe). The head is tied unless `tie_word_embeddings` is false. Class defaults for
absent fields: head_dim 128 (null: hidden_size / heads), num_key_value_heads 2 (null: the
heads), pad_token_id 0.

The class has no sliding window; transformers' cache still reads a `sliding_window` (or
`layer_types`) that a config.json carries, so ffn-calc does too (see minimax_m2).
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, Reader, decoder, every_layer_window
from ffn_calc.families.ministral3 import head_dim
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Ernie4_5ForCausalLM"

# transformers 5.24.0 Ernie4_5Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 18,
    "hidden_size": 1024,
    "num_attention_heads": 16,
    "num_key_value_heads": 2,
    "intermediate_size": 3072,
    "vocab_size": 103424,
}
# Its token embedding takes pad_token_id (class default 0) as padding_idx.
PAD_DEFAULT: int | None = 0


def fields(r: Reader) -> dict[str, Any]:
    bias = r.boolean("use_bias", False)
    return decoder(
        r,
        "ernie4_5",
        **every_layer_window(r),
        head_dim=head_dim(r, 128),
        tie_embeddings=r.boolean("tie_word_embeddings", True),
        attention_bias=bias,
        attention_out_bias=bias,
        ffn_bias=bias,
    )


def naming(cfg: ModelConfig) -> Naming:
    return LLAMA_NAMING
