"""Bamba (`BambaForCausalLM`): Mamba-2 layers and a few attention layers, a dense SwiGLU MLP in
every layer.

Layer i attends (`self_attn.` q/k/v/o_proj, GQA, `attention_bias` on all four, head_dim
hidden_size / heads floored unless config.json gives head_dim; rotary over half of it, no
parameters) when it is listed in `attn_layer_indices` (absent or empty: no layer attends;
indices past the last layer name no layer); the others run a Mamba-2 mixer at `mamba.`
(Granite 4.0-H's: inner = mamba_expand x hidden_size, mamba_d_head "auto" = inner /
mamba_n_heads, in_proj and out_proj biased when mamba_proj_bias, the conv1d's bias when
mamba_conv_bias, the gated RMSNorm [inner], dt_bias, A_log, D). Every layer has
input_layernorm and pre_ff_layernorm (RMSNorm) and `feed_forward` (gate_proj, up_proj,
down_proj of intermediate_size, biases when mlp_bias); then model.final_layernorm and an
untied head unless tie_word_embeddings. Its token embedding takes pad_token_id (default 0) as
padding index. Class defaults for absent fields: 32 layers 4,096 wide, 32 heads, 8 kv heads,
intermediate_size 14,336, vocab 128,000, 128 Mamba heads, state 256, one group, kernel 4,
expand 2, chunks of 256.

No parameters: partial_rotary_factor (0.5), time_step_limit, z_loss_coefficient,
num_logits_to_keep.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import Reader, check_listed, decoder
from ffn_calc.families.falcon_h1 import NAMING as FALCON_H1_NAMING
from ffn_calc.families.granitemoehybrid import mamba_head_dim
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "BambaForCausalLM"

# transformers 5.24.0 BambaConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 128000,
    "mamba_n_heads": 128,
    "mamba_n_groups": 1,
    "mamba_d_state": 256,
    "mamba_d_conv": 4,
    "mamba_expand": 2,
    "mamba_chunk_size": 256,
}
# Its token embedding takes pad_token_id (class default 0) as padding_idx.
PAD_DEFAULT: int | None = 0


def attention_layers(r: Reader, layers: int) -> set[int]:
    """The layers listed in attn_layer_indices (absent, null or empty: none)."""
    key = "attn_layer_indices"
    value = r.data.get(key)
    if value is None:
        return set()
    if not isinstance(value, list) or any(type(i) is not int for i in value):
        raise ConfigError(
            _("{where}: {field} = {value}: expected a list of layer indices.").format(
                where=r.where(key), field=key, value=shown(value)
            )
        )
    return {i for i in value if 0 <= i < layers}


def fields(r: Reader) -> dict[str, Any]:
    n = check_listed(r, "num_hidden_layers", r.req("num_hidden_layers"))
    d, heads = r.req("hidden_size"), r.req("num_attention_heads")
    kv = r.data.get("num_key_value_heads", DEFAULTS["num_key_value_heads"])
    attends = attention_layers(r, n)
    inner = r.req("mamba_expand") * d
    m_heads = r.req("mamba_n_heads")
    return decoder(
        r,
        "bamba",
        n_layers=n,
        n_kv_heads=heads if kv is None else r.req("num_key_value_heads"),
        head_dim=r.opt("head_dim") or d // heads,
        attention_bias=r.boolean("attention_bias", False),
        ffn_bias=r.boolean("mlp_bias", False),
        layer_mixers=["full" if i in attends else "mamba2" for i in range(n)],
        mamba2={
            "heads": m_heads,
            "head_dim": mamba_head_dim(r, inner, m_heads),
            "state_size": r.req("mamba_d_state"),
            "n_groups": r.req("mamba_n_groups"),
            "conv_kernel": r.req("mamba_d_conv"),
            "chunk_size": r.req("mamba_chunk_size"),
            "inner": inner,
            "proj_bias": r.boolean("mamba_proj_bias", False),
            "conv_bias": r.boolean("mamba_conv_bias", True),
        },
    )


# Falcon-H1's names: feed_forward, pre_ff_layernorm, model.final_layernorm, `mamba.`.
NAMING = FALCON_H1_NAMING


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
