"""OLMo 3 (`Olmo3ForCausalLM`): OLMo 2's layer, three sliding-window layers in four.

Fixed by the architecture: OLMo 2's layer (ffn_calc.families.olmo2): two RMSNorms of
[d_model] per layer, both after their block (post_attention_layernorm,
post_feedforward_layernorm; no input norm), an RMSNorm of [n_heads x head_dim] on the queries
and one of [n_kv_heads x head_dim] on the keys, a gated FFN without biases, rotary positions;
`attention_bias` (default false) on Q, K, V and O alike. Class defaults for absent fields: as
OLMo 2 (num_key_value_heads = heads, head_dim = hidden_size / heads unless config.json has
one, an untied head).

Sliding windows: `layer_types`, else every layer but each fourth slides over `sliding_window`
tokens (default 4,096). A mask for the FLOPs (eager attention multiplies the full S x S
square); the cache of a sliding layer keeps its last window - 1 tokens. No parameters: the
separate rotary bases of sliding and full layers.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families import gemma2, olmo2
from ffn_calc.families.base import Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Olmo3ForCausalLM"

# transformers 5.24.0 Olmo3Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = dict(olmo2.DEFAULTS)
# Its token embedding takes pad_token_id (class default 1) as padding_idx.
PAD_DEFAULT: int | None = 1


def fields(r: Reader) -> dict[str, Any]:
    """OLMo 2's fields, with Olmo3Config's window pattern (every = 4, as Gemma 2's layer_types
    default with a step of 4)."""
    return {**olmo2.fields(r), **gemma2.windows(r, 4), "family": "olmo3"}


def naming(cfg: ModelConfig) -> Naming:
    return olmo2.NAMING
