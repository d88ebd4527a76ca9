"""Closed-form parameter counts, per layer kind and per component.

Conventions (stated once): a tensor's parameters are the product of its shape; tied weights
count once (a tied output head adds 0); non-parameter buffers (causal masks, rotary inv_freq)
are not parameters; LayerNorm has a weight and a bias of d_model each, RMSNorm a weight only;
sinusoidal and rotary positions have no parameters. Components are those of the JSON
contract: embedding, attention, ffn, norm, lm_head, pooler.
"""

from __future__ import annotations

from dataclasses import dataclass

from ffn_calc.config import ModelConfig
from ffn_calc.terms import Term, term, total


@dataclass(frozen=True)
class LayerCount:
    """One layer kind: its terms (grouped attention / ffn / norm) and how many there are."""

    stack: str  # "encoder" | "decoder"
    count: int
    terms: list[Term]

    def group(self, name: str) -> int:
        return total(self.terms, name)

    @property
    def total(self) -> int:
        return total(self.terms)


def _norm_terms(cfg: ModelConfig, group: str, name: str) -> list[Term]:
    if cfg.norm == "layernorm":
        return [term(group, name, "2 x d_model (weight, bias)", 2, cfg.d_model)]
    return [term(group, name, "d_model (weight)", cfg.d_model)]


def attention_terms(cfg: ModelConfig, prefix: str = "") -> list[Term]:
    """Q, K, V, O weights and biases of one attention block."""
    d, q, kv = cfg.d_model, cfg.q_dim, cfg.kv_dim
    g = "attention"
    out = [
        term(g, f"{prefix}Q", "d_model x (n_heads x head_dim)", d, q),
        term(g, f"{prefix}K", "d_model x (n_kv_heads x head_dim)", d, kv),
        term(g, f"{prefix}V", "d_model x (n_kv_heads x head_dim)", d, kv),
        term(g, f"{prefix}O", "(n_heads x head_dim) x d_model", q, d),
    ]
    if cfg.attention_bias:
        out += [
            term(g, f"{prefix}b_Q", "n_heads x head_dim", q),
            term(g, f"{prefix}b_K", "n_kv_heads x head_dim", kv),
            term(g, f"{prefix}b_V", "n_kv_heads x head_dim", kv),
        ]
    if cfg.out_bias:
        out.append(term(g, f"{prefix}b_O", "d_model", d))
    return out


def ffn_terms(cfg: ModelConfig) -> list[Term]:
    """The FFN of one layer: W1/W2 (plain) or gate/up/down (gated); MoE: experts + router."""
    d, f, g = cfg.d_model, cfg.d_ff, "ffn"
    if cfg.n_experts is not None:
        e = cfg.n_experts
        out = [term(g, "router", "d_model x n_experts", d, e)]
        if cfg.router_bias:
            out.append(term(g, "b_router", "n_experts", e))
        mats = 3 if cfg.gated else 2
        out.append(term(g, "experts", f"n_experts x {mats} x d_model x d_ff", e, mats, d, f))
        if cfg.ffn_bias:
            biases = (2 * f + d) if cfg.gated else (f + d)
            out.append(term(g, "expert biases", "n_experts x (biases of one expert)", e, biases))
        return out
    if cfg.gated:
        out = [
            term(g, "W_gate", "d_model x d_ff", d, f),
            term(g, "W_up", "d_model x d_ff", d, f),
            term(g, "W_down", "d_ff x d_model", f, d),
        ]
        if cfg.ffn_bias:
            out += [
                term(g, "b_gate", "d_ff", f),
                term(g, "b_up", "d_ff", f),
                term(g, "b_down", "d_model", d),
            ]
        return out
    out = [term(g, "W1", "d_model x d_ff", d, f), term(g, "W2", "d_ff x d_model", f, d)]
    if cfg.ffn_bias:
        out += [term(g, "b1", "d_ff", f), term(g, "b2", "d_model", d)]
    return out


def expert_params(cfg: ModelConfig) -> int:
    """Parameters of one expert (0 for a dense model)."""
    if cfg.n_experts is None:
        return 0
    mats = 3 if cfg.gated else 2
    biases = ((2 * cfg.d_ff + cfg.d_model) if cfg.gated else (cfg.d_ff + cfg.d_model)) * (
        cfg.ffn_bias
    )
    return mats * cfg.d_model * cfg.d_ff + biases


def layer_counts(cfg: ModelConfig) -> list[LayerCount]:
    """One entry per layer kind: encoder layers, decoder layers (with cross-attention)."""
    layers: list[LayerCount] = []
    if cfg.has_encoder:
        terms = attention_terms(cfg) + ffn_terms(cfg)
        terms += _norm_terms(cfg, "norm", "norm_attn") + _norm_terms(cfg, "norm", "norm_ffn")
        layers.append(LayerCount("encoder", cfg.encoder_layers, terms))
    if cfg.has_decoder:
        terms = attention_terms(cfg)
        norms = _norm_terms(cfg, "norm", "norm_attn")
        if cfg.architecture == "encoder-decoder":
            terms += attention_terms(cfg, prefix="cross ")
            norms += _norm_terms(cfg, "norm", "norm_cross")
        terms += ffn_terms(cfg) + norms + _norm_terms(cfg, "norm", "norm_ffn")
        layers.append(LayerCount("decoder", cfg.decoder_layers, terms))
    return layers


def model_terms(cfg: ModelConfig) -> list[Term]:
    """Terms outside the layers: embeddings, final and embedding norms, head, pooler."""
    d, out = cfg.d_model, []
    if cfg.vocab_size is not None:
        out.append(term("embedding", "token embedding", "vocab_size x d_model", cfg.vocab_size, d))
        if cfg.architecture == "encoder-decoder" and not cfg.shared_embeddings:
            out.append(
                term(
                    "embedding", "target token embedding", "vocab_size x d_model", cfg.vocab_size, d
                )
            )
    if cfg.positions == "learned" and cfg.max_positions is not None:
        out.append(
            term("embedding", "position embedding", "max_positions x d_model", cfg.max_positions, d)
        )
    if cfg.type_vocab_size:
        out.append(
            term(
                "embedding",
                "token-type embedding",
                "type_vocab_size x d_model",
                cfg.type_vocab_size,
                d,
            )
        )
    if cfg.embedding_norm:
        out += _norm_terms(cfg, "norm", "embedding norm")
    if cfg.final_norm:
        for stack in ("encoder", "decoder"):
            if (cfg.encoder_layers if stack == "encoder" else cfg.decoder_layers) > 0:
                out += _norm_terms(cfg, "norm", f"final {stack} norm")
    if cfg.has_lm_head and cfg.vocab_size is not None:
        if cfg.tie_embeddings:
            out.append(term("lm_head", "lm_head (tied to the token embedding)", "0", 0))
        else:
            out.append(term("lm_head", "lm_head", "d_model x vocab_size", d, cfg.vocab_size))
    if cfg.pooler:
        out += [
            term("pooler", "pooler W", "d_model x d_model", d, d),
            term("pooler", "pooler b", "d_model", d),
        ]
    return out


COMPONENTS = ("embedding", "attention", "ffn", "norm", "lm_head", "pooler")


def components(cfg: ModelConfig) -> dict[str, int]:
    """Parameters per contract component; `pooler` only where the model has one."""
    out = dict.fromkeys(COMPONENTS, 0)
    for layer in layer_counts(cfg):
        for t in layer.terms:
            out[t.group] += layer.count * t.value
    for t in model_terms(cfg):
        out[t.group] += t.value
    if not cfg.pooler:
        del out["pooler"]
    return out


def total_params(cfg: ModelConfig) -> int:
    return sum(components(cfg).values())


def idle_params(cfg: ModelConfig) -> int:
    """MoE: parameters of the experts a token does not use (0 for a dense model)."""
    if cfg.n_experts is None or cfg.experts_per_token is None:
        return 0
    layers = cfg.encoder_layers + cfg.decoder_layers
    return layers * (cfg.n_experts - cfg.experts_per_token) * expert_params(cfg)


def active_params(cfg: ModelConfig) -> int:
    """Parameters one token uses: the router and experts_per_token experts per layer (MoE)."""
    return total_params(cfg) - idle_params(cfg)


def non_embedding_params(cfg: ModelConfig) -> int:
    """Kaplan et al.'s N: all parameters but the embeddings and the output head."""
    comps = components(cfg)
    return sum(comps.values()) - comps["embedding"] - comps["lm_head"]
