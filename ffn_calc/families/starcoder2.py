"""StarCoder2 (`Starcoder2ForCausalLM`): LayerNorm, biases everywhere, a plain MLP, rotary.

Fixed by the architecture: LayerNorm with weight and bias before attention, before the MLP
and after the last layer; a plain two-matrix MLP (`c_fc` [d_ff, d_model], `c_proj`
[d_model, d_ff]) with `hidden_act` (default gelu_pytorch_tanh); rotary positions and the
sliding window (0 parameters). `use_bias` (default true) puts a bias on Q, K, V, O, c_fc and
c_proj alike. `num_key_value_heads` defaults to 2 in transformers (not to the head count),
and the head is tied to the token embedding unless tie_word_embeddings is false.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, PLAIN_ACT, Reader, decoder, every_layer_window
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Starcoder2ForCausalLM"

# transformers 5.24.0 Starcoder2Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 30,
    "hidden_size": 3072,
    "num_attention_heads": 24,
    "intermediate_size": 12288,
    "vocab_size": 49152,
}
# Its token embedding takes pad_token_id (class default None) as padding_idx.
PAD_DEFAULT: int | None = None


def fields(r: Reader) -> dict[str, Any]:
    bias = r.boolean("use_bias", True)
    return decoder(
        r,
        "starcoder2",
        **every_layer_window(r),
        n_kv_heads=r.integer("num_key_value_heads", 2),
        activation=r.choice("hidden_act", PLAIN_ACT, "gelu_pytorch_tanh"),
        norm="layernorm",
        attention_bias=bias,
        ffn_bias=bias,
        tie_embeddings=r.boolean("tie_word_embeddings", True),
    )


NAMING = replace(LLAMA_NAMING, up="mlp.c_fc", down="mlp.c_proj", gate="")


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
