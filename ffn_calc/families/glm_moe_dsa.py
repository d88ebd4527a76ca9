"""GLM-5 (`GlmMoeDsaForCausalLM`): DeepSeek-V3.2's architecture under GLM's sizes.

Fixed by the architecture: the same modules, names and conventions as DeepSeek-V3.2 (see
ffn_calc.families.deepseek_v32): multi-head latent attention with a low-rank query (a null
`q_lora_rank` is refused), a lightning indexer in every layer (`self_attn.indexer.wq_b`,
`wk`, `k_norm` with weight and bias, `weights_proj`), dense SwiGLU MLPs in the layers
`mlp_layer_types` marks "dense" (else the first `first_k_dense_replace`, default 3), then
routed experts with one shared expert, the `mlp.gate.e_score_correction_bias` buffer; no
`use_qk_norm` or partial rotary as GLM-4.5 has. The indexer's rotary is interleaved (no
count changes).

`indexer_types` ("full" / "shared" per layer; or index_topk_pattern, or index_topk_freq with
index_skip_topk_offset) lets a "shared" layer reuse the previous full layer's top-k and build
no indexer of its own. The class default makes every layer "full", as GLM-5 is; a config with
a "shared" layer is refused for now (its indexer-free layers are not counted).
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import Reader
from ffn_calc.families.deepseek_v3 import NAMING
from ffn_calc.families.deepseek_v32 import sparse_mla_moe
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "GlmMoeDsaForCausalLM"

# transformers 5.24.0 GlmMoeDsaConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 78,
    "hidden_size": 6144,
    "num_attention_heads": 64,
    "intermediate_size": 12288,
    "vocab_size": 154880,
    "moe_intermediate_size": 2048,
    "qk_nope_head_dim": 192,
    "qk_rope_head_dim": 64,
    "kv_lora_rank": 512,
    "q_lora_rank": 2048,
    "v_head_dim": 256,
    "n_routed_experts": 256,
    "num_experts_per_tok": 8,
    "index_n_heads": 32,
    "index_head_dim": 128,
    "index_topk": 2048,
}
# Its token embedding takes pad_token_id (class default None) as padding_idx.
PAD_DEFAULT: int | None = None


def indexer_types(r: Reader, n: int) -> tuple[str, list[Any]]:
    """Each layer's indexer mode as GlmMoeDsaConfig.__post_init__ derives it, with the field
    that set it: indexer_types, else index_topk_pattern ("F" / "S" or a list), else
    index_topk_freq (default 1) and index_skip_topk_offset (default 2)."""
    for key in ("indexer_types", "index_topk_pattern"):
        value = r.data.get(key)
        if value is not None:
            if isinstance(value, str) and key == "index_topk_pattern":
                return key, [{"F": "full", "S": "shared"}.get(c, c) for c in value]
            return key, value if isinstance(value, list) else [value]
    freq = r.data.get("index_topk_freq", 1)
    offset = r.data.get("index_skip_topk_offset", 2)
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in (freq, offset)):
        return "index_topk_freq", [freq, offset]
    freq = max(freq, 1)
    return "index_topk_freq", [
        "full" if max(i - offset + 1, 0) % freq == 0 else "shared" for i in range(min(n, 10**6))
    ]


def fields(r: Reader) -> dict[str, Any]:
    out = sparse_mla_moe(r, "glm_moe_dsa", ARCHITECTURE)
    key, types = indexer_types(r, out["n_layers"])
    if any(t != "full" for t in types):
        raise ConfigError(
            _(
                "{where}: {field} = {value}: layers that reuse another layer's top-k "
                '("shared", no indexer of their own) are not supported yet; every layer must '
                'be "full".'
            ).format(where=r.where(key), field=key, value=shown(r.data.get(key)))
        )
    return out


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
