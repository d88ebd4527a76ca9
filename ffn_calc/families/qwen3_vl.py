"""Qwen3-VL (`Qwen3VLForConditionalGeneration`): a Qwen3 language model beside a vision tower
with a learned position table, a merger and deepstack mergers.

The language model (`model.language_model.`, Qwen3VLTextConfig, read from text_config; absent,
the class's defaults): Qwen3's layout, an RMSNorm of [head_dim] on the queries and one on the
keys (q_norm, k_norm), two RMSNorms per layer, SwiGLU without biases, `attention_bias`
(default false) on Q, K, V and O alike; class defaults for absent fields: head_dim 128,
num_key_value_heads 32 (null: the heads). No sliding window (the class reads none). The head
is `lm_head`, tied only when the top-level tie_word_embeddings is true (text_config's is not
read). The deepstack mergers' tokens are added to the hidden states after the first layers
(adds: no FLOPs).

The vision tower (`model.visual.`): see qwen3_vl_vision.

No parameters: mrope sections, the special token ids.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families import qwen3_vl_vision, qwen_vl
from ffn_calc.families.base import Reader, check_padding, decoder, kv_heads
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Qwen3VLForConditionalGeneration"

# transformers 5.24.0 Qwen3VLTextConfig's defaults for the sizes text_config may leave out.
TEXT_DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 32,
    "intermediate_size": 22016,
    "vocab_size": 151936,
}
# The wrapper reads no size of its own.
DEFAULTS: dict[str, int | None] = {}


def fields(r: Reader) -> dict[str, Any]:
    t = qwen_vl.text_reader(r, TEXT_DEFAULTS)
    heads = t.req("num_attention_heads")
    out = decoder(
        t,
        "qwen3_vl",
        n_heads=heads,
        n_kv_heads=kv_heads(t, heads),
        head_dim=t.integer("head_dim", 128),
        attention_bias=t.boolean("attention_bias", False),
        qk_norm="head",
        tie_embeddings=r.boolean("tie_word_embeddings", False),
    )
    check_padding(t, out["vocab_size"], None)
    qwen_vl.note_defaults(r, t)
    out["towers"] = [qwen_vl.vision_tower(r, qwen3_vl_vision)]
    return out


def naming(cfg: ModelConfig) -> Naming:
    return qwen_vl.TEXT_NAMING
