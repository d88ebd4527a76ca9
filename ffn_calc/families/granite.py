"""Granite (`GraniteForCausalLM`): Llama's layout and parameters, with scalar multipliers.

Fixed by the architecture: as Llama (RMSNorm, rotary, SwiGLU gate/up/down, GQA;
`attention_bias` on Q, K, V and O, `mlp_bias` on the three MLP matrices). The
embedding, residual and attention multipliers and the logits scaling are scalars from the
config, not parameters: 0 parameters and no matmul. The head is untied unless
tie_word_embeddings says otherwise (granite-3.0-2b's config.json ties it).
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, Reader, decoder
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "GraniteForCausalLM"

# transformers 5.24.0 GraniteConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "intermediate_size": 11008,
    "vocab_size": 32000,
}
# Its token embedding takes pad_token_id (class default None) as padding_idx.
PAD_DEFAULT: int | None = None


def fields(r: Reader) -> dict[str, Any]:
    return decoder(
        r,
        "granite",
        attention_bias=r.boolean("attention_bias", False),
        ffn_bias=r.boolean("mlp_bias", False),
    )


def naming(cfg: ModelConfig) -> Naming:
    return LLAMA_NAMING
