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


def _norm_terms(
    cfg: ModelConfig, group: str, name: str, width: int | None = None, symbol: str = "d_model"
) -> list[Term]:
    """One norm over `width` (default d_model): weight and bias, or a weight only."""
    w = cfg.d_model if width is None else width
    if cfg.norm == "layernorm" and cfg.norm_bias:
        return [term(group, name, f"2 x {symbol} (weight, bias)", 2, w)]
    return [term(group, name, f"{symbol} (weight)", w)]


def _qk_norm_terms(cfg: ModelConfig) -> list[Term]:
    """Norms on queries and keys (weights only counted as the norm kind has them)."""
    hd, h, kv = cfg.head_size, cfg.n_heads, cfg.kv_heads
    if cfg.qk_norm == "head":  # one weight over head_dim, shared by every head
        return _norm_terms(cfg, "norm", "q_norm", hd, "head_dim") + _norm_terms(
            cfg, "norm", "k_norm", hd, "head_dim"
        )
    if cfg.qk_norm == "per_head":  # a weight per head: [n_heads, head_dim]
        return _norm_terms(cfg, "norm", "q_norm", h * hd, "n_heads x head_dim") + _norm_terms(
            cfg, "norm", "k_norm", kv * hd, "n_kv_heads x head_dim"
        )
    if cfg.qk_norm == "full":  # over the whole projection width
        return _norm_terms(cfg, "norm", "q_norm", h * hd, "n_heads x head_dim") + _norm_terms(
            cfg, "norm", "k_norm", kv * hd, "n_kv_heads x head_dim"
        )
    return []


def _layer_norm_terms(cfg: ModelConfig) -> list[Term]:
    """The norms around self-attention and the FFN of one layer."""
    names = {0: [], 1: ["norm (shared by attention and FFN)"], 2: ["norm_attn", "norm_ffn"]}
    labels = names.get(cfg.norms_per_layer) or [f"norm {i + 1}" for i in range(cfg.norms_per_layer)]
    return [t for n in labels for t in _norm_terms(cfg, "norm", n)]


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
    """One entry per layer kind: encoder layers, decoder layers (with cross-attention).

    `count` is the number of layers that hold parameters of their own: with shared layers
    (ALBERT) fewer than the layers applied, which the FLOPs count.
    """
    layers: list[LayerCount] = []
    own = attention_terms(cfg) + _qk_norm_terms(cfg)
    if cfg.has_encoder:
        terms = own + ffn_terms(cfg) + _layer_norm_terms(cfg)
        layers.append(LayerCount("encoder", cfg.param_layers(cfg.encoder_layers), terms))
    if cfg.has_decoder:
        terms = list(own)
        cross: list[Term] = []
        if cfg.architecture == "encoder-decoder":
            terms += attention_terms(cfg, prefix="cross ")
            cross = _norm_terms(cfg, "norm", "norm_cross")
        terms += ffn_terms(cfg) + _layer_norm_terms(cfg) + cross
        layers.append(LayerCount("decoder", cfg.param_layers(cfg.decoder_layers), terms))
    return layers


def _stacks(cfg: ModelConfig) -> list[str]:
    return [s for s, n in (("encoder", cfg.encoder_layers), ("decoder", cfg.decoder_layers)) if n]


def _embedding_terms(cfg: ModelConfig) -> list[Term]:
    """Token, position and token-type tables, the projection of a narrow embedding, norms."""
    d, v, g = cfg.d_model, cfg.vocab_size, "embedding"
    e, side = cfg.embed_width, cfg.side_width
    ew = "embedding_dim" if cfg.embedding_dim is not None else "d_model"
    sw = ew if cfg.embedding_projection == "all" else "d_model"
    out: list[Term] = []
    if v is not None:
        out.append(term(g, "token embedding", f"vocab_size x {ew}", v, e))
        if cfg.architecture == "encoder-decoder" and not cfg.shared_embeddings:
            out.append(term(g, "target token embedding", f"vocab_size x {ew}", v, e))
        for stack in _stacks(cfg) if cfg.stack_embeddings else []:  # beside the shared one
            out.append(term(g, f"{stack} token embedding", f"vocab_size x {ew}", v, e))
    if cfg.positions == "learned" and cfg.max_positions is not None:
        tables = 2 if cfg.architecture == "encoder-decoder" and cfg.separate_position_tables else 1
        for i in range(tables):
            name = ("encoder ", "decoder ")[i] if tables == 2 else ""
            out.append(
                term(
                    g, f"{name}position embedding", f"max_positions x {sw}", cfg.max_positions, side
                )
            )
    if cfg.type_vocab_size:
        out.append(
            term(g, "token-type embedding", f"type_vocab_size x {sw}", cfg.type_vocab_size, side)
        )
    if cfg.embedding_dim is not None:
        b = cfg.embedding_projection_bias
        out.append(term(g, "projection in", f"{ew} x d_model", e, d))
        if b:
            out.append(term(g, "projection in bias", "d_model", d))
        if cfg.project_out:
            out.append(term(g, "projection out", f"d_model x {ew}", d, e))
            if b:
                out.append(term(g, "projection out bias", ew, e))
    if cfg.embedding_norm:
        for stack in _stacks(cfg) if cfg.architecture == "encoder-decoder" else [""]:
            label = f"{stack} embedding norm".strip()
            out += _norm_terms(cfg, "norm", label, side, sw)
    return out  # fmt: skip


def _head_terms(cfg: ModelConfig) -> list[Term]:
    """The output head: a masked-LM transform, the projection to the vocabulary, its bias."""
    d, v, e, out = cfg.d_model, cfg.vocab_size, cfg.embed_width, []
    if not cfg.has_lm_head or v is None:
        return []
    ew = "embedding_dim" if cfg.embedding_dim is not None else "d_model"
    if cfg.lm_head_transform:
        out += [term("lm_head", "head dense", f"d_model x {ew}", d, e),
                term("lm_head", "head dense bias", ew, e)]  # fmt: skip
        out += _norm_terms(cfg, "norm", "head norm", e, ew)
    if cfg.tie_embeddings:
        out.append(term("lm_head", "lm_head (tied to the token embedding)", "0", 0))
    else:
        out.append(term("lm_head", "lm_head", f"{ew} x vocab_size", e, v))
    if cfg.lm_head_bias:
        out.append(term("lm_head", "lm_head bias", "vocab_size", v))
    if cfg.lm_head_projection_bias:  # the projection's own, beside lm_head_bias
        out.append(term("lm_head", "lm_head projection bias", "vocab_size", v))
    return out


def model_terms(cfg: ModelConfig) -> list[Term]:
    """Terms outside the layers: embeddings, final and embedding norms, head, pooler."""
    d, out = cfg.d_model, _embedding_terms(cfg)
    if cfg.relative_attention_buckets is not None:
        for stack in _stacks(cfg):  # T5: in the first layer's self-attention of each stack
            out.append(term("attention", f"{stack} relative attention bias",
                            "buckets x n_heads", cfg.relative_attention_buckets, cfg.n_heads))  # fmt: skip
    if cfg.final_norm:
        for stack in _stacks(cfg):
            out += _norm_terms(cfg, "norm", f"final {stack} norm")
    out += _head_terms(cfg)
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
    layers = sum(layer.count for layer in layer_counts(cfg))
    return layers * (cfg.n_experts - cfg.experts_per_token) * expert_params(cfg)


def active_params(cfg: ModelConfig) -> int:
    """Parameters one token uses: the router and experts_per_token experts per layer (MoE)."""
    return total_params(cfg) - idle_params(cfg)


def non_embedding_params(cfg: ModelConfig) -> int:
    """Kaplan et al.'s N: all parameters but the embeddings and the output head."""
    comps = components(cfg)
    return sum(comps.values()) - comps["embedding"] - comps["lm_head"]
