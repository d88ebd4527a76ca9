"""DeepSeek-V4 (`DeepseekV4ForCausalLM`): compressed attention, hyper-connections, hash-routed experts.

Fixed by the architecture (transformers 5.24.0, its deepseek_v4 modeling code), d = hidden_size,
h = num_attention_heads, hd = head_dim, n = hc_mult, E = n_routed_experts, f =
moe_intermediate_size:
- `model.embed_tokens` [vocab, d]; `lm_head` [vocab, d] (tied only with tie_word_embeddings);
  `model.norm` [d]; `model.hc_head`: hc_fn [n, n d], hc_base [n], hc_scale [1].
- Every layer: RMSNorms `input_layernorm` and `post_attention_layernorm` [d]; two
  hyper-connections `attn_hc` and `ffn_hc`, each fn [(2 + n) n, n d], base [(2 + n) n],
  scale [3] (the residual is n streams of d; each block reads a weighted sum of them and
  writes back through post and comb weights; Sinkhorn iterations have no parameters).
- Attention, in every layer: `q_a_proj` [q_lora_rank, d], `q_a_norm` [q_lora_rank],
  `q_b_proj` [h hd, q_lora_rank] (then an RMSNorm without weight), `kv_proj` [hd, d] and
  `kv_norm` [hd]: one key head that is also the value (num_key_value_heads is not read);
  `o_a_proj` [o_groups x o_lora_rank, h hd / o_groups] applied per group (a batched matmul),
  `o_b_proj` [d, o_groups x o_lora_rank]; `sinks` [h]. No biases (attention_bias unread).
- `layer_types` (absent: two heavily compressed layers, then alternating heavily compressed
  and compressed sparse from the third; legacy `compress_ratios` 0 / 4 / 128 per layer)
  gives each layer's compressor: none for "sliding_attention"; for
  "heavily_compressed_attention" `self_attn.compressor` kv_proj and gate_proj [hd, d],
  position_bias [m', hd], kv_norm [hd]; for "compressed_sparse_attention" the same at 2 hd
  (position_bias [m, 2 hd]) and `compressor.indexer`: kv_proj and gate_proj [2 c, d],
  position_bias [m, 2 c], kv_norm [c], q_b_proj [n_I c, q_lora_rank],
  `scorer.weights_proj` [n_I, d] (c = index_head_dim, n_I = index_n_heads; m and m' from
  `compress_rates`, legacy compress_rate_csa / compress_rate_hca).
- Every layer's FFN is a MoE: router `mlp.gate.weight` [E, d] (no bias), fused experts
  `mlp.experts.gate_up_proj` [E, 2 f, d] and `down_proj` [E, d, f] (no biases), and one
  shared SwiGLU MLP `mlp.shared_experts` of width f whatever n_shared_experts says (the class
  reads intermediate_size, which maps to moe_intermediate_size), with biases when mlp_bias.
- Buffers, not parameters: `mlp.gate.e_score_correction_bias` [E] in a top-k layer,
  `mlp.gate.tid2eid` [vocab, num_experts_per_tok] (int64) in a hash-routed layer
  (`mlp_layer_types` "hash_moe"; absent: the first 3, legacy `num_hash_layers`); checkpoints
  store both (`checkpoint_elements`); rotary inv_freq buffers are not saved.
- Not built: the `num_nextn_predict_layers` multi-token-prediction layers (`mtp.*`, ignored
  on load). No parameters: the rotary embeddings (partial, qk_rope_head_dim), the top-k of
  the indexer (index_topk), the swiglu clamp, routed_scaling_factor.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import (
    GATED_ACT,
    LLAMA_NAMING,
    Reader,
    check_listed,
    decoder,
)
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "DeepseekV4ForCausalLM"

# transformers 5.24.0 DeepseekV4Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 43,
    "hidden_size": 4096,
    "num_attention_heads": 64,
    "head_dim": 512,
    "q_lora_rank": 1024,
    "moe_intermediate_size": 2048,
    "vocab_size": 129280,
    "n_routed_experts": 256,
    "num_experts_per_tok": 6,
    "sliding_window": 128,
    "hc_mult": 4,
    "o_groups": 8,
    "o_lora_rank": 1024,
    "index_n_heads": 64,
    "index_head_dim": 128,
}
# Its token embedding takes pad_token_id (class default None) as padding_idx.
PAD_DEFAULT: int | None = None

CSA, HCA, SLIDING = (
    "compressed_sparse_attention",
    "heavily_compressed_attention",
    "sliding_attention",
)
# DeepseekV4Config: legacy per-layer compress_ratios -> layer types.
RATIO_TYPES = {0: SLIDING, 4: CSA, 128: HCA}
COMPRESS_RATES = {CSA: 4, HCA: 128}  # default_compress_rates
HASH_LAYERS = 3  # default_num_hash_layers

NOTE = (
    "DeepseekV4ForCausalLM: one key head that is also the value, so the cache's keys and "
    "values are one tensor, counted twice as transformers' cache lists them; the compressed "
    "entries, the compressors' buffers and the indexer's keys that the cache also keeps are "
    "not counted in the KV cache. e_score_correction_bias [n_routed_experts] (top-k layers) and "
    "tid2eid [vocab_size, num_experts_per_tok] (hash-routed layers) are buffers: not "
    "parameters; checkpoint_elements counts them."
)


def _bad(r: Reader, key: str, value: Any, expected: str) -> ConfigError:
    return ConfigError(
        _("{where}: {field} = {value}: expected {expected}.").format(
            where=r.where(key), field=key, value=shown(value), expected=expected
        )
    )


def _types(
    r: Reader, key: str, layers: int, allowed: tuple[str, ...], default: list[str]
) -> list[str]:
    """A per-layer list of type names (at least one per layer; the class keeps the first
    num_hidden_layers), or `default` when absent."""
    value = r.data.get(key)
    if value is None:
        return default
    if (
        not isinstance(value, list)
        or len(value) < layers
        or not all(isinstance(x, str) and x in allowed for x in value)
    ):
        raise _bad(r, key, value, _("one of {choices} per layer ({layers})").format(
            choices=", ".join(allowed), layers=layers))  # fmt: skip
    return value[:layers]


def layer_types(r: Reader, layers: int) -> list[str]:
    """Each layer's attention type: layer_types, else legacy compress_ratios, else two heavily
    compressed layers and then heavily compressed / compressed sparse alternating."""
    ratios = r.data.get("compress_ratios")
    if r.data.get("layer_types") is None and ratios is not None:
        if (
            not isinstance(ratios, list)
            or len(ratios) < layers
            or not all(type(x) is int and x in RATIO_TYPES for x in ratios)
        ):
            raise _bad(r, "compress_ratios", ratios, _("0, 4 or 128 per layer ({layers})").format(
                layers=layers))  # fmt: skip
        return [RATIO_TYPES[x] for x in ratios[:layers]]
    interleave = [CSA if i % 2 else HCA for i in range(max(layers - 2, 0))]
    default = [HCA] * min(layers, 2) + interleave
    return _types(r, "layer_types", layers, (SLIDING, CSA, HCA), default)


def compress_rate(r: Reader, kind: str, legacy: str) -> int:
    """A compressor's tokens per entry: legacy compress_rate_csa / _hca, else compress_rates."""
    if r.data.get(legacy) is not None:
        return r.req(legacy)
    rates = r.data.get("compress_rates")
    if rates is None:
        return COMPRESS_RATES[kind]
    value = rates.get(kind) if isinstance(rates, dict) else None
    if type(value) is not int or value <= 0:
        raise _bad(r, "compress_rates", rates, _("a positive integer for {kind}").format(kind=kind))
    return value


def hash_layers(r: Reader, layers: int) -> list[int]:
    """The hash-routed layers: mlp_layer_types' "hash_moe", else the first num_hash_layers."""
    if r.data.get("mlp_layer_types") is None:
        k = r.index("num_hash_layers", HASH_LAYERS)
        return list(range(min(layers, k)))
    types = _types(r, "mlp_layer_types", layers, ("hash_moe", "moe"), [])
    return [i for i, t in enumerate(types) if t == "hash_moe"]


def fields(r: Reader) -> dict[str, Any]:
    n = check_listed(r, "num_hidden_layers", r.req("num_hidden_layers"))
    types = layer_types(r, n)
    csa = [i for i, t in enumerate(types) if t == CSA]
    hca = [i for i, t in enumerate(types) if t == HCA]
    f = r.req("moe_intermediate_size")
    out = decoder(
        r,
        "deepseek_v4",
        n_layers=n,
        n_kv_heads=1,
        head_dim=r.req("head_dim"),
        d_ff=f,
        activation=r.choice("hidden_act", GATED_ACT, "silu"),
        ffn_bias=r.boolean("mlp_bias", False),
        expert_bias=False,
        attention="compressed",
        q_lora_rank=r.req("q_lora_rank"),
        o_groups=r.req("o_groups"),
        o_lora_rank=r.req("o_lora_rank"),
        attention_sinks=True,
        attention_window=r.req("sliding_window"),
        csa_layers=csa,
        hca_layers=hca,
        hc_streams=r.req("hc_mult"),
        n_experts=r.req("n_routed_experts"),
        experts_per_token=r.req("num_experts_per_tok"),
        shared_expert_d_ff=f,
        router_score_bias="buffer",
        note=NOTE,
    )
    if csa:
        out |= {
            "csa_rate": compress_rate(r, CSA, "compress_rate_csa"),
            "index_heads": r.req("index_n_heads"),
            "index_head_dim": r.req("index_head_dim"),
        }
    if hca:
        out["hca_rate"] = compress_rate(r, HCA, "compress_rate_hca")
    out["hash_layers"] = hash_layers(r, n)
    return out


# The names save_pretrained writes (transformers' deepseek_v4 conversion renames them back
# on load: `attn.wq_a` -> `self_attn.q_a_proj`, `ffn.experts.{e}.w1` / `w3` -> one fused
# `mlp.experts.gate_up_proj`, `hc_attn_fn` -> `attn_hc.fn`, ...); the Hub files hold the same
# names without `model.` (and `embed.weight`, `hc_head_fn`).
NAMING = replace(
    LLAMA_NAMING,
    norm_attn="attn_norm",
    norm_ffn="ffn_norm",
    lm_head="head",
    sinks="attn.attn_sink",
    mla_q_a="attn.wq_a",
    mla_q_a_norm="attn.q_norm",
    mla_q_b="attn.wq_b",
    kv_proj="attn.wkv",
    kv_norm="attn.norm",
    o_a="attn.wo_a",
    o_b="attn.wo_b",
    compressor="attn.compressor.",
    indexer="attn.indexer.",
    indexer_compressor="attn.indexer.compressor.",
    comp_kv="wkv",
    comp_gate="wgate",
    comp_bias="ape",
    comp_norm="norm",
    index_q_b="wq_b",
    index_weights="weights_proj",
    attn_hc="hc_attn_",
    ffn_hc="hc_ffn_",
    router="ffn.gate",
    expert="ffn.experts.{e}.",
    expert_gate="w1",
    expert_up="w3",
    expert_down="w2",
    shared_expert="ffn.shared_experts.",
    shared_gate="w1",
    shared_up="w3",
    shared_down="w2",
    renames={"embed.": "model.embed_tokens.", "hc_head_": "model.hc_head.hc_"},
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
