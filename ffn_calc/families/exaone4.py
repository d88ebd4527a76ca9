"""EXAONE 4 (`Exaone4ForCausalLM`): OLMo 2's post-norms, [head_dim] q/k norms, local and global layers.

Fixed by the architecture: two RMSNorms of [d_model] per layer, both after their block
(post_attention_layernorm, post_feedforward_layernorm; no input norm), as OLMo 2; an RMSNorm of
[head_dim] on the queries and one on the keys (self_attn.q_norm / k_norm, shared by every
head), as Qwen3; a gated FFN; no biases anywhere (the class reads no attention_bias). Class
defaults for absent fields: num_key_value_heads 32, head_dim hidden_size / heads (the class
reads a head_dim when config.json has one), an untied head.

Sliding windows: `layer_types`, else every layer but each `sliding_window_pattern`-th
(default 4) slides over `sliding_window` tokens (default 4,096). A mask for the FLOPs (eager
attention multiplies the full S x S square); the cache of a sliding layer keeps its last
window - 1 tokens. No parameters: with a sliding window, the global layers take no rotary
positions (NoPE); rotary positions have no parameters either way.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families import olmo2
from ffn_calc.families.base import (
    Reader,
    check_listed,
    decoder,
    layer_types,
    window_fields,
)
from ffn_calc.families.tensor_names import Naming
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Exaone4ForCausalLM"

# transformers 5.24.0 Exaone4Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 32,
    "intermediate_size": 16384,
    "vocab_size": 102400,
}
# Its token embedding takes pad_token_id (class default None) as padding_idx.
PAD_DEFAULT: int | None = None


def windows(r: Reader) -> dict[str, Any]:
    """`layer_types`, else Exaone4Config's pattern: every layer but each
    `sliding_window_pattern`-th slides (read only then: config.json files may hold the older
    string form, "LLLG", beside their layer_types)."""
    layers = check_listed(r, "num_hidden_layers", r.req("num_hidden_layers"))
    if r.data.get("layer_types") is not None:
        types = layer_types(r, layers, [])
    else:
        if "sliding_window" in r.data and r.data["sliding_window"] is None:
            # Exaone4Config then sets the pattern to 0 and divides by it.
            raise ConfigError(
                _(
                    "{where}: sliding_window = null without layer_types: {architecture} "
                    "cannot make the pattern of local layers (it divides by a "
                    "sliding_window_pattern of 0); give layer_types."
                ).format(where=r.where("sliding_window"), architecture=ARCHITECTURE)
            )
        every = r.integer("sliding_window_pattern", 4) or 4
        types = [
            "sliding_attention" if (i + 1) % every else "full_attention" for i in range(layers)
        ]
    return window_fields(r, types, "sliding_attention", "sliding_window", 4096)


def fields(r: Reader) -> dict[str, Any]:
    return decoder(r, "exaone4", **windows(r), qk_norm="head")


def naming(cfg: ModelConfig) -> Naming:
    return olmo2.NAMING
