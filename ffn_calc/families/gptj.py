"""GPT-J (`GPTJForCausalLM`): a parallel block with one LayerNorm and a biased, untied head.

Fixed by the architecture: one LayerNorm (weight and bias) `ln_1` per layer, read by attention
and the MLP alike (a parallel block), and `ln_f` after the last layer; separate `q_proj`,
`k_proj`, `v_proj` and `out_proj` of [d_model, d_model] without biases; a plain MLP with
biases (`fc_in` [n_inner, n_embd], `fc_out`; n_inner, null: 4 x n_embd); head_dim =
n_embd / n_head, no GQA. The head `lm_head` has a [vocab_size] bias and is untied unless
tie_word_embeddings is true (the bias stays its own). Rotary positions over the first
`rotary_dim` dimensions of each head (partial rotary) hold 0 parameters: the sinusoid table
is a buffer.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import PLAIN_ACT, Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "GPTJForCausalLM"

# transformers 5.24.0 GPTJConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "n_embd": 4096,
    "n_layer": 28,
    "n_head": 16,
    "vocab_size": 50400,
}


def fields(r: Reader) -> dict[str, Any]:
    d = r.req("n_embd")
    return {
        "family": "gptj",
        "architecture": "decoder-only",
        "n_layers": r.req("n_layer"),
        "d_model": d,
        "n_heads": r.req("n_head"),
        "d_ff": r.integer("n_inner", 4 * d),
        "activation": r.choice("activation_function", PLAIN_ACT, "gelu_new"),
        "attention_bias": False,
        "ffn_bias": True,
        "norm": "layernorm",
        "layer_norms": 1,
        "parallel_block": True,
        "positions": "rotary",
        "vocab_size": r.req("vocab_size"),
        "tie_embeddings": r.boolean("tie_word_embeddings", False),
        "lm_head_bias": True,
    }


NAMING = Naming(
    layer="transformer.h.{i}.",
    q="attn.q_proj",
    k="attn.k_proj",
    v="attn.v_proj",
    o="attn.out_proj",
    up="mlp.fc_in",
    down="mlp.fc_out",
    gate="",
    norm_attn="ln_1",
    final_norm="transformer.ln_f",
    tok="transformer.wte",
    prefixes=("transformer.",),
    architecture="decoder-only",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
