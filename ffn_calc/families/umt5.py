"""UMT5 (`UMT5ForConditionalGeneration`): mT5 with a relative position bias in every layer.

The same modules, names and conventions as T5 (ffn_calc.families.t5), with MT5's defaults
(UMT5Config: feed_forward_proj gated-gelu, a 250,112-token vocabulary, 8 layers of d_model
512). What differs is data: every self-attention of both stacks holds its own relative
position bias [relative_attention_num_buckets, num_heads]
(`{stack}.block.{i}.layer.0.SelfAttention.relative_attention_bias`,
ModelConfig.relative_attention_per_layer), not only the first block's; cross-attention has
none.

The head follows config.json, as T5's: tied unless tie_word_embeddings (or
scale_decoder_outputs, which UMT5Config writes back from it) is false; transformers 5 always
ties UMT5's head, so for an untied config.json the model's `note` gives the difference.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import Reader
from ffn_calc.families.t5 import naming as naming
from ffn_calc.families.t5 import t5_fields

ARCHITECTURE = "UMT5ForConditionalGeneration"

# transformers 5.24.0 UMT5Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "d_model": 512,
    "num_layers": 8,
    "num_heads": 6,
    "d_kv": 64,
    "d_ff": 1024,
    "vocab_size": 250112,
}


def fields(r: Reader) -> dict[str, Any]:
    return t5_fields(r, "umt5", "UMT5", act_default="gated-gelu", per_layer=True)
