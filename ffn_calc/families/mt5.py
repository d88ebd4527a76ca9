"""mT5 (`MT5ForConditionalGeneration`): T5 v1.1's architecture with a multilingual vocabulary.

The same modules, names and conventions as T5 (ffn_calc.families.t5): no biases, weight-only
RMS norms, per-head width d_kv, one `shared` token embedding, a relative position bias
[relative_attention_num_buckets, num_heads] in the first block's self-attention of each
stack. What differs is data: MT5Config's defaults (feed_forward_proj gated-gelu, a
250,112-token vocabulary, 8 layers of d_model 512).

The head follows config.json, as T5's: the released mT5 checkpoints keep a separate lm_head
(their config.json says tie_word_embeddings false) and the counts follow it; transformers 5
ties mT5's head whatever config.json says (MT5Config drops tie_word_embeddings and sets it
true, and writes back true), so for an untied config.json the model's `note` gives the
difference.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import Reader
from ffn_calc.families.t5 import naming as naming
from ffn_calc.families.t5 import t5_fields

ARCHITECTURE = "MT5ForConditionalGeneration"

# transformers 5.24.0 MT5Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "d_model": 512,
    "num_layers": 8,
    "num_heads": 6,
    "d_kv": 64,
    "d_ff": 1024,
    "vocab_size": 250112,
}


def fields(r: Reader) -> dict[str, Any]:
    return t5_fields(
        r,
        "mt5",
        "mT5",
        act_default="gated-gelu",
        written="which transformers 5 writes back as true",
    )
