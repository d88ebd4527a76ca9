"""Qwen2 (`Qwen2ForCausalLM`): Llama's layout with biases on Q, K and V only (none on O)."""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import LLAMA_NAMING, Reader, decoder, qwen_windows
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Qwen2ForCausalLM"

# transformers 5.24.0 Qwen2Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 32,
    "intermediate_size": 22016,
    "vocab_size": 151936,
}
# Its token embedding takes pad_token_id (class default None) as padding_idx.
PAD_DEFAULT: int | None = None


def fields(r: Reader) -> dict[str, Any]:
    return decoder(r, "qwen2", **qwen_windows(r), attention_bias=True, attention_out_bias=False)


def naming(cfg: ModelConfig) -> Naming:
    return LLAMA_NAMING
