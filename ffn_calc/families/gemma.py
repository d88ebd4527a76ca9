"""Gemma (`GemmaForCausalLM`): Llama's layout with GeGLU, a tied head and Gemma's class defaults.

Fixed by the architecture: RMSNorm (a [d_model] weight, applied as 1 + weight), two norms per
layer (input_layernorm, post_attention_layernorm), a gated FFN (gate/up/down, no biases),
rotary positions. `attention_bias` puts a bias on Q, K, V and O alike. The class's defaults
differ from Llama's: head_dim 256 and num_key_value_heads 16 when absent (not hidden_size /
heads and heads), the head tied to the token embedding (tie_word_embeddings true).

`hidden_act` (a legacy "gelu" means the tanh approximation, "gelu_pytorch_tanh") picks the
gate's activation; `hidden_activation` is not read by this class. The embedding scaling by
sqrt(hidden_size) is a non-persistent buffer: 0 parameters, no matmul.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import GATED_ACT, LLAMA_NAMING, Reader, decoder
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "GemmaForCausalLM"

# transformers 5.24.0 GemmaConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 28,
    "hidden_size": 3072,
    "num_attention_heads": 16,
    "intermediate_size": 24576,
    "vocab_size": 256000,
}
# Its token embedding takes pad_token_id (class default 0) as padding_idx.
PAD_DEFAULT: int | None = 0


def fields(r: Reader) -> dict[str, Any]:
    return decoder(
        r,
        "gemma",
        n_kv_heads=r.integer("num_key_value_heads", 16),
        head_dim=r.integer("head_dim", 256),
        activation=r.choice("hidden_act", GATED_ACT, "gelu_pytorch_tanh"),
        tie_embeddings=r.boolean("tie_word_embeddings", True),
        attention_bias=r.boolean("attention_bias", False),
    )


def naming(cfg: ModelConfig) -> Naming:
    return LLAMA_NAMING
