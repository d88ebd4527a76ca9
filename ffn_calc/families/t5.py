"""T5 (`T5ForConditionalGeneration`): the original T5 (ReLU FFN) and T5 v1.1 (gated GELU).

Fixed by the architecture: an encoder and a decoder stack of pre-norm blocks; no biases
anywhere; weight-only RMS norms (T5LayerNorm) before each sub-layer and one after each
stack (`final_layer_norm`); per-head width d_kv, so the attention width n_heads x d_kv may
differ from d_model; no position table, but a relative position bias
[relative_attention_num_buckets, num_heads] in the first block's self-attention of each
stack; one `shared` token embedding, which `encoder.embed_tokens` and
`decoder.embed_tokens` alias. The FFN follows `feed_forward_proj`: `relu` (or another plain
activation) is DenseReluDense wi/wo, `gated-gelu` (v1.1) is wi_0 (gate), wi_1 (up) and wo;
`is_gated_act` and `dense_act_fn`, which T5Config derives from it, win when config.json holds
them (T5Config sets them from config.json after deriving its own), so a config.json without
feed_forward_proj but with is_gated_act true is gated.
Decoder blocks hold cross-attention at layer.1 (EncDecAttention) and the FFN at layer.2.

The head follows config.json: tied to `shared` unless `tie_word_embeddings` is false, or
`scale_decoder_outputs` is false (how transformers 5 writes back a config.json that said
false). transformers 5 itself always ties T5's head (T5Config forces tie_word_embeddings =
true), so for an untied config.json the model's `note` gives the difference.

No parameters and no matmuls: the relative position bias (an embedding lookup added to the
scores), the decoder-output scaling by d_model^-0.5 of a tied head, the unscaled scores.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.errors import ConfigError
from ffn_calc.families.base import GATED_ACT, PLAIN_ACT, Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.files import shown
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "T5ForConditionalGeneration"

# transformers 5.24.0 T5Config's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {
    "d_model": 512,
    "num_layers": 6,
    "num_heads": 8,
    "d_kv": 64,
    "d_ff": 2048,
    "vocab_size": 32128,
}


def _activation(r: Reader, default: str = "relu") -> str:
    """`feed_forward_proj` (`default` where absent: relu for T5, gated-gelu for mT5 and
    UMT5): `ACT` (plain) or `gated-ACT` (gated), as T5Config splits it;
    `is_gated_act` and `dense_act_fn`, which T5Config derives from it, win when config.json
    holds them (T5Config sets the fields it does not declare after deriving its own)."""
    proj = r.string("feed_forward_proj", default)
    kind, _sep, act = proj.rpartition("-")
    field, value = "feed_forward_proj", proj
    if r.data.get("is_gated_act") is not None:
        kind = "gated" if r.boolean("is_gated_act", False) else ""
    if r.data.get("dense_act_fn") is not None:
        act = r.string("dense_act_fn", act)
        field, value = "dense_act_fn", act
    table = GATED_ACT if kind == "gated" else PLAIN_ACT if not kind else {}
    if act not in table:
        supported = (
            sorted(table)
            if field == "dense_act_fn"
            else [*sorted(PLAIN_ACT), *(f"gated-{a}" for a in sorted(GATED_ACT))]
        )
        raise ConfigError(
            _("{where}: {field} = {value} is not supported; use one of {choices}.").format(
                where=r.where(field),
                field=field,
                value=shown(value),
                choices=", ".join(supported),
            )
        )
    return table[act]


def fields(r: Reader) -> dict[str, Any]:
    return t5_fields(r, "t5", "T5")


def t5_fields(
    r: Reader,
    family: str,
    label: str,
    *,
    act_default: str = "relu",
    per_layer: bool = False,
    written: str = "which transformers 5 writes back as scale_decoder_outputs false",
) -> dict[str, Any]:
    """The fields of T5 and its relatives (mT5, UMT5): `family` and its `label` in the note,
    the feed_forward_proj its configuration class takes by default, and whether every
    self-attention layer holds a relative position bias (UMT5) or only the first of each
    stack; `written`: how transformers 5 writes back an untied config.json (the note)."""
    d, v, layers = r.req("d_model"), r.req("vocab_size"), r.req("num_layers")
    tied = r.boolean("tie_word_embeddings", True)
    if "scale_decoder_outputs" in r.data:  # false: written back from a tie_word_embeddings false
        tied = r.boolean("scale_decoder_outputs", True) and tied
    note = None
    if not tied:
        note = (
            f"config.json keeps a separate lm_head (tie_word_embeddings false, {written}), "
            "as the released "
            "checkpoint does, and the counts follow it; transformers 5 ties T5's "
            "head to the shared embedding whatever config.json says and instantiates "
            f"{v * d:,} fewer parameters (vocab_size x d_model = {v:,} x {d:,})."
        )
    return {
        "family": family,
        "architecture": "encoder-decoder",
        "n_layers": layers,
        "n_decoder_layers": r.integer("num_decoder_layers", layers),
        "d_model": d,
        "n_heads": r.req("num_heads"),
        "head_dim": r.req("d_kv"),
        "d_ff": r.req("d_ff"),
        "activation": _activation(r, act_default),
        "attention_bias": False,
        "ffn_bias": False,
        "norm": "rmsnorm",
        "final_norm": True,
        "positions": "none",
        "vocab_size": v,
        "shared_embeddings": True,
        "tie_embeddings": tied,
        "relative_attention_buckets": r.integer("relative_attention_num_buckets", 32),
        **({"relative_attention_per_layer": True} if per_layer else {}),
        "note": note,
    }


def _naming(gated: bool) -> Naming:
    def ffn(block: int) -> dict[str, Any]:
        p = f"layer.{block}.DenseReluDense."
        return {"up": p + ("wi_1" if gated else "wi"), "gate": p + "wi_0", "down": p + "wo"}

    return Naming(
        layer="{stack}.block.{i}.",
        q="layer.0.SelfAttention.q",
        k="layer.0.SelfAttention.k",
        v="layer.0.SelfAttention.v",
        o="layer.0.SelfAttention.o",
        **ffn(1),
        norms={2: ("layer.0.layer_norm", "layer.1.layer_norm")},
        cross_q="layer.1.EncDecAttention.q",
        cross_k="layer.1.EncDecAttention.k",
        cross_v="layer.1.EncDecAttention.v",
        cross_o="layer.1.EncDecAttention.o",
        norm_cross="layer.1.layer_norm",
        rel_bias="layer.0.SelfAttention.relative_attention_bias",
        final_norm="{stack}.final_layer_norm",
        tok="shared",
        lm_head="lm_head",
        aliases={
            "encoder.embed_tokens.weight": "shared.weight",
            "decoder.embed_tokens.weight": "shared.weight",
        },
        decoder={"norms": {2: ("layer.0.layer_norm", "layer.2.layer_norm")}, **ffn(2)},
        architecture="encoder-decoder",
    )


NAMING, GATED_NAMING = _naming(False), _naming(True)


def naming(cfg: ModelConfig) -> Naming:
    return GATED_NAMING if cfg.gated else NAMING
