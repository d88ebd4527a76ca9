"""OLMo 2 (`Olmo2ForCausalLM`): post-norms only, q/k RMSNorms over the whole projection width.

Fixed by the architecture: two RMSNorms of [d_model] per layer, both after their block
(post_attention_layernorm, post_feedforward_layernorm; no input norm), an RMSNorm of
[n_heads x head_dim] on the queries and one of [n_kv_heads x head_dim] on the keys (before the
split into heads), a gated FFN without biases, rotary positions; `attention_bias` (default
false) puts a bias on Q, K, V and O alike. Absent fields: num_key_value_heads = heads, head_dim
= hidden_size / heads (the class reads a head_dim when the config.json has one), an untied
head.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, Reader, decoder
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Olmo2ForCausalLM"

# transformers 5.24.0 Olmo2Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "intermediate_size": 11008,
    "vocab_size": 50304,
}
# Its token embedding takes pad_token_id (class default 1) as padding_idx.
PAD_DEFAULT: int | None = 1

NAMING = replace(
    LLAMA_NAMING, norm_attn="post_attention_layernorm", norm_ffn="post_feedforward_layernorm"
)


def fields(r: Reader) -> dict[str, Any]:
    return decoder(r, "olmo2", attention_bias=r.boolean("attention_bias", False), qk_norm="full")


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
