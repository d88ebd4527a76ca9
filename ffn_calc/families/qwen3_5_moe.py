"""Qwen3.5-MoE (`Qwen3_5MoeForConditionalGeneration`): a Qwen3.5-MoE hybrid language model
(gated DeltaNet and gated attention layers, MoE with a gated shared expert in every layer; see
qwen3_5_moe_text) beside Qwen3.5's vision tower (see qwen3_5_vision).

The language model (`model.language_model.`, Qwen3_5MoeTextConfig, read from text_config;
absent, the class's defaults). The head is `lm_head`, tied only when the top-level
tie_word_embeddings is true (default false; text_config's is not read). Experts: fused in
memory, one by one in the checkpoints save_pretrained writes (as qwen3_5_moe_text).

No parameters: mrope sections, the special token ids, the router's auxiliary loss, the
released checkpoints' multi-token-prediction weights (`mtp.*`).
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families import qwen3_5_moe_text, qwen3_5_vision, qwen_vl
from ffn_calc.families.base import Reader, check_padding
from ffn_calc.families.tensor_names import Naming
from ffn_calc.families.wrappers import wrapped
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Qwen3_5MoeForConditionalGeneration"

# The wrapper reads no size of its own.
DEFAULTS: dict[str, int | None] = {}


def fields(r: Reader) -> dict[str, Any]:
    t = qwen_vl.text_reader(r, qwen3_5_moe_text.DEFAULTS)
    tie = r.boolean("tie_word_embeddings", False)
    out = qwen3_5_moe_text.text_fields(t, "qwen3_5_moe", ARCHITECTURE, tie=tie)
    check_padding(t, out["vocab_size"], None)
    qwen_vl.note_defaults(r, t)
    out["towers"] = [qwen_vl.vision_tower(r, qwen3_5_vision)]
    return out


NAMING = wrapped(qwen3_5_moe_text.NAMING, qwen_vl.LANGUAGE_MODEL)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
