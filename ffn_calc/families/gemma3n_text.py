"""Gemma 3n text (`Gemma3nForCausalLM`): Gemma 3's layer with AltUp, LAuReL, per-layer inputs
and layers that reuse earlier keys and values.

Fixed by the architecture: four RMSNorms of [d_model] per layer (as Gemma 2), q_norm and
k_norm over head_dim (v_norm has no weight), a gated FFN without biases, rotary positions;
`attention_bias` on Q, K, V and O alike. Beyond that layer, as data (layer_parts): AltUp
(altup: correct_output_scale [d], correction_coefs [n, n], prediction_coefs [n^2, n],
modality_router [n, d], router_norm [d]; n = altup_num_inputs) and LAuReL (laurel: linear_left
[r, d], linear_right [d, r], post_laurel_norm [d]; r = laurel_rank). Outside the layers
(model_parts): n - 1 altup_projections and altup_unembed_projections of [d, d] each. The
per-layer inputs are Gemma 4's (ModelConfig.per_layer_dim = hidden_size_per_layer_input,
per_layer_vocab = vocab_size_per_layer_input): the table embed_tokens_per_layer
[vocab_size_per_layer_input, n_layers x p], per_layer_model_projection [n_layers x p, d],
per_layer_projection_norm [p]; in each layer per_layer_input_gate [p, d], per_layer_projection
[d, p], post_per_layer_input_norm [d]. The last num_kv_shared_layers layers
(kv_shared_layers) reuse the keys and values of the last earlier layer of their attention
type: no k_proj, v_proj or k_norm, nothing cached.

Multiply-adds per token through the parts (FlopCounterMode, eager): modality_router twice
(predict and correct), prediction_coefs and the prediction itself ([d, n] x [n, n] per token),
correction_coefs, LAuReL's two matmuls; outside the layers the 2 (n - 1) AltUp projections.
No matmuls: the scalings, soft-capping, the Gaussian top-k of activation_sparsity_pattern (a
mean and a deviation), the magnitude matching of the AltUp streams.

Class defaults (Gemma3nTextConfig, transformers 5.24.0) for absent fields: the E4B sizes.
intermediate_size may be one width per layer: ffn-calc counts equal widths only.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families import gemma2
from ffn_calc.families.base import (
    GATED_ACT,
    Reader,
    check_listed,
    check_padding,
    decoder,
    layer_types,
    window_fields,
)
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.limits import MAX_SIZE
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import Part

ARCHITECTURE = "Gemma3nForCausalLM"

# transformers 5.24.0 Gemma3nTextConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 35,
    "hidden_size": 2048,
    "num_attention_heads": 8,
    "intermediate_size": 16384,
    "vocab_size": 262400,
    "vocab_size_per_layer_input": 262144,
    "hidden_size_per_layer_input": 256,
    "altup_num_inputs": 4,
    "laurel_rank": 64,
}
# The most AltUp streams ffn-calc lists (their projections are listed one by one).
MAX_STREAMS = 1024
# Its token tables take pad_token_id (class default 0) as padding_idx.
PAD_DEFAULT: int | None = 0


def width(r: Reader, layers: int) -> int:
    """intermediate_size: one width, or one per layer (Gemma3nTextConfig takes either); the
    per-layer list must give every layer the same width (ffn-calc's d_ff is one width)."""
    value = r.data.get("intermediate_size")
    if not isinstance(value, list):
        return r.req("intermediate_size")
    ok = all(isinstance(x, int) and not isinstance(x, bool) and 0 < x <= MAX_SIZE for x in value)
    if not ok or len(value) != layers:
        raise ConfigError(
            _("{where}: {field} = {value}: expected a positive integer per layer ({layers}).").format(
                where=r.where("intermediate_size"), field="intermediate_size",
                value=shown(value), layers=layers,
            )
        )  # fmt: skip
    if len(set(value)) > 1:
        raise ConfigError(
            _(
                "{where}: {field}: layers of different FFN widths are not supported; ffn-calc "
                "counts one width for every layer."
            ).format(where=r.where("intermediate_size"), field="intermediate_size")
        )
    return int(value[0])


def shared_layers(r: Reader, types: list[str], default: int = 15) -> list[int]:
    """The last num_kv_shared_layers layers (Gemma 3n's default 15, Gemma 4's 0): each reuses
    the keys and values of the last earlier layer of its type, which must exist for every type
    (the config's kv_sharing_modes refuses a model where it does not)."""
    layers = len(types)
    k = r.index("num_kv_shared_layers", default)
    if not k:
        return []
    first = layers - k
    if first <= 0 or set(types[:first]) != set(types):
        raise ConfigError(
            _(
                "{where}: num_kv_shared_layers = {value}: the layers before the shared ones "
                "must include one of every attention type ({types}) to share keys and values "
                "from."
            ).format(
                where=r.where("num_kv_shared_layers"), value=k, types=", ".join(sorted(set(types)))
            )
        )
    return list(range(first, layers))


def fields(r: Reader, prefix: str = "model.") -> dict[str, Any]:
    """The language model; its model_parts named under `prefix` (the text model's)."""
    layers = check_listed(r, "num_hidden_layers", r.req("num_hidden_layers"))
    pattern = ["full_attention" if (i + 1) % 5 == 0 else "sliding_attention" for i in range(layers)]
    types = layer_types(r, layers, pattern)
    out = decoder(
        r,
        "gemma3n_text",
        **window_fields(r, types, "sliding_attention", "sliding_window", 512),
        n_kv_heads=r.integer("num_key_value_heads", 2),
        head_dim=r.integer("head_dim", 256),
        d_ff=width(r, layers),
        activation=r.choice("hidden_activation", GATED_ACT, "gelu_pytorch_tanh"),
        tie_embeddings=r.boolean("tie_word_embeddings", True),
        attention_bias=r.boolean("attention_bias", False),
        layer_norms=4,
        qk_norm="head",
    )
    d, h = out["d_model"], out["n_heads"]
    if d % h:  # Gemma3nTextConfig.validate_architecture
        raise ConfigError(
            _(
                "{where}: hidden_size = {d} is not a multiple of num_attention_heads = {h}, "
                "which Gemma3nTextConfig requires."
            ).format(where=r.where("hidden_size"), d=d, h=h)
        )
    n, rank = r.req("altup_num_inputs"), r.req("laurel_rank")
    if n > MAX_STREAMS:  # each stream but the first has two [d, d] projections of its own
        raise ConfigError(
            _("{where}: altup_num_inputs = {value}: at most {limit} AltUp streams.").format(
                where=r.where("altup_num_inputs"), value=n, limit=MAX_STREAMS
            )
        )
    p, vp = r.req("hidden_size_per_layer_input"), r.req("vocab_size_per_layer_input")
    check_padding(r, vp, PAD_DEFAULT)  # the per-layer table takes the same padding index
    # Their multiply-adds are per token (`per`), through every layer or once.
    out["layer_parts"] = per_token(layer_parts(d, n, rank))
    out["model_parts"] = per_token(model_parts(prefix, d, n))
    out["per_layer_dim"] = p  # the per-layer inputs, as Gemma 4's
    if vp != out["vocab_size"]:
        out["per_layer_vocab"] = vp
    out["kv_shared_layers"] = shared_layers(r, types)
    return out


def per_token(parts: list[Part]) -> list[Part]:
    return [x.model_copy(update={"per": "token"}) for x in parts]


def layer_parts(d: int, n: int, rank: int) -> list[Part]:
    """AltUp and LAuReL of one layer, with the multiply-adds one token costs through each (the
    prediction's [d, n] x [n, n] with prediction_coefs)."""
    return [
        Part(name="altup.correct_output_scale", group="norm", shape=[d]),
        Part(name="altup.correction_coefs.weight", group="ffn", shape=[n, n], macs=n * n),
        Part(name="altup.prediction_coefs.weight", group="ffn", shape=[n * n, n],
             macs=n * n * n + d * n * n),
        Part(name="altup.modality_router.weight", group="ffn", shape=[n, d], macs=2 * d * n),
        Part(name="altup.router_norm.weight", group="norm", shape=[d]),
        Part(name="laurel.linear_left.weight", group="ffn", shape=[rank, d], macs=d * rank),
        Part(name="laurel.linear_right.weight", group="ffn", shape=[d, rank], macs=rank * d),
        Part(name="laurel.post_laurel_norm.weight", group="norm", shape=[d]),
    ]  # fmt: skip


def model_parts(prefix: str, d: int, n: int) -> list[Part]:
    """The AltUp stream projections (n - 1 each way)."""
    out: list[Part] = []
    for table in ("altup_projections", "altup_unembed_projections"):
        out += [
            Part(name=f"{prefix}{table}.{k}.weight", group="embedding", shape=[d, d], macs=d * d)
            for k in range(n - 1)
        ]
    return out


# Gemma 2's names, and the per-layer inputs' tables under the base model (as Gemma 4's).
NAMING = replace(
    gemma2.NAMING,
    per_layer_table="model.embed_tokens_per_layer",
    per_layer_projection="model.per_layer_model_projection",
    per_layer_projection_norm="model.per_layer_projection_norm",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING  # q_norm / k_norm: Naming's self_attn.q_norm / k_norm
