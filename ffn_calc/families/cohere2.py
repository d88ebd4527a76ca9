"""Cohere 2 (`Cohere2ForCausalLM`, Command R7B): Cohere's parallel block, three sliding layers in four.

Fixed by the architecture: Cohere's layer (ffn_calc.families.cohere): one `input_layernorm`
per layer, a LayerNorm with a weight and no bias, read by attention and the SwiGLU MLP in
parallel; the same weight-only LayerNorm after the last layer; no MLP biases;
`attention_bias` (default false) on Q, K, V and O. No q/k norms (the class reads no
use_qk_norm). Class defaults for absent fields: num_key_value_heads = heads, head_dim
hidden_size / heads (a head_dim in config.json wins), a tied head; `logit_scale` multiplies
the logits (0 parameters, no matmul).

Sliding windows: `layer_types`, else every layer but each `sliding_window_pattern`-th (a
config.json field the class still reads, default 4) slides over `sliding_window` tokens
(default 4,096). A mask for the FLOPs (eager attention multiplies the full S x S square); the
cache of a sliding layer keeps its last window - 1 tokens. No parameters: only the sliding
layers take rotary positions, the full layers none (NoPE).
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families import gemma2
from ffn_calc.families.base import LLAMA_NAMING, Reader, decoder
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Cohere2ForCausalLM"

# transformers 5.24.0 Cohere2Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 40,
    "hidden_size": 8192,
    "num_attention_heads": 64,
    "intermediate_size": 22528,
    "vocab_size": 256000,
}
# Its token embedding takes pad_token_id (class default 0) as padding_idx.
PAD_DEFAULT: int | None = 0


def fields(r: Reader) -> dict[str, Any]:
    """Cohere's layer without q/k norms, with Gemma 2's window pattern (every
    `sliding_window_pattern`-th layer full)."""
    every = 4
    if r.data.get("layer_types") is None:  # the class reads the pattern only then
        every = r.integer("sliding_window_pattern", 4) or 4
    return decoder(
        r,
        "cohere2",
        **gemma2.windows(r, every),
        norm="layernorm",
        norm_bias=False,
        layer_norms=1,
        parallel_block=True,
        attention_bias=r.boolean("attention_bias", False),
        tie_embeddings=r.boolean("tie_word_embeddings", True),
    )


def naming(cfg: ModelConfig) -> Naming:
    return LLAMA_NAMING
