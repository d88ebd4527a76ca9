"""GPT-BigCode (`GPTBigCodeForCausalLM`): GPT-2's layout with Linear layers and multi-query K/V.

Fixed by the architecture: LayerNorm (weight and bias) `ln_1` before attention, `ln_2` before
the MLP, `ln_f` after the last layer; learned positions (`wpe`, n_positions rows); biases on
every projection; Q, K and V in one fused `c_attn`, an `nn.Linear` (weight [out, in], unlike
GPT-2's Conv1D) of [d_model + 2 x kv x head_dim, d_model], run as one matmul, where kv is 1
with `multi_query` (default true) and the head count without it; a plain MLP (`c_fc`,
`c_proj`; n_inner, null: 4 x n_embd). The head is tied to the token embedding unless
tie_word_embeddings is false. Cross-attention (`add_cross_attention`) is not supported.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import PLAIN_ACT, Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "GPTBigCodeForCausalLM"

# transformers 5.24.0 GPTBigCodeConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "n_embd": 768,
    "n_head": 12,
    "n_layer": 12,
    "n_positions": 1024,
    "vocab_size": 50257,
}


def fields(r: Reader) -> dict[str, Any]:
    if r.boolean("add_cross_attention", False):
        raise ConfigError(
            _(
                "{where}: add_cross_attention = true is not supported (cross-attention into an "
                "encoder's states); ffn-calc counts decoder-only GPT-BigCode."
            ).format(where=r.where("add_cross_attention"))
        )
    d, heads = r.req("n_embd"), r.req("n_head")
    return {
        "family": "gpt_bigcode",
        "architecture": "decoder-only",
        "n_layers": r.req("n_layer"),
        "d_model": d,
        "n_heads": heads,
        "n_kv_heads": 1 if r.boolean("multi_query", True) else heads,
        "d_ff": r.integer("n_inner", 4 * d),
        "activation": r.choice("activation_function", PLAIN_ACT, "gelu_pytorch_tanh"),
        "attention_bias": True,
        "ffn_bias": True,
        "norm": "layernorm",
        "positions": "learned",
        "max_positions": r.req("n_positions"),
        "vocab_size": r.req("vocab_size"),
        "tie_embeddings": r.boolean("tie_word_embeddings", True),
    }


NAMING = Naming(
    layer="transformer.h.{i}.",
    q="",
    k="",
    v="",
    fused_qkv="attn.c_attn",
    o="attn.c_proj",
    up="mlp.c_fc",
    down="mlp.c_proj",
    gate="",
    norm_attn="ln_1",
    norm_ffn="ln_2",
    final_norm="transformer.ln_f",
    tok="transformer.wte",
    pos="transformer.wpe",
    prefixes=("transformer.",),
    architecture="decoder-only",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
