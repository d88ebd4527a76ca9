"""Training memory per GPU: model states by recipe, and activations after Korthikanti et al.

Model states are exact (bytes per parameter x the parameters each GPU holds). Activations
follow Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
Models" (arXiv:2205.05198), sec. 4.1 and Table 2: 16-bit activations, per layer
s b h (34 + 5 a s / h) bytes for a GPT layer without parallelism. That is a published
approximation (what Megatron-LM stores, dropout masks included), generalised here term by
term from the tensors each layer keeps for its backward pass:

- attention: the input of the Q/K/V projections 2sbh, Q 2sb(a d_head), K and V
  2sb(kv d_head) each, the input of O 2sb(a d_head), O's dropout mask sbh;
- scores: softmax output 2as^2b, its dropout mask as^2b, the dropout output 2as^2b (5as^2b);
- FFN: its input 2sbh, per hidden unit the activation's input and output 2sbf each (a gated
  FFN keeps the gate and up outputs, the activation's output and the product: 8sbf), the
  dropout mask sbh; a MoE layer keeps the expert tensors for each of the k experts a token
  uses;
- norms: the input of each of the layer's norms, 2sbh each.

For a GPT layer (f = 4h, kv = a, a d_head = h) the terms give back the paper's
11sbh + 5as^2b (attention), 19sbh (MLP) and 4sbh (norms) = sbh (34 + 5as/h).
"""

from __future__ import annotations

from dataclasses import dataclass

from ffn_calc.config import ModelConfig
from ffn_calc.errors import UsageError
from ffn_calc.i18n import N_

# Bytes per parameter of each recipe: (unsharded, sharded over data parallelism).
RECIPES: dict[str, tuple[str, int, int]] = {
    # Megatron-LM mixed precision with Adam: 16-bit weights 2 + fp32 gradients 4, fp32 master
    # weights 4 and two Adam moments 8 = 18 bytes (Korthikanti et al. sec. 2; Rajbhandari
    # et al. 2020, ZeRO, sec. 3.1 with fp32 gradients).
    "mixed": (N_("mixed precision, Adam (Megatron-LM): 2 + 4 + 4 + 8 = 18 bytes per parameter"), 18, 0),
    # The distributed optimizer shards the master weights and moments over DP: 6 + 12 / DP.
    "distributed": (N_("mixed precision, distributed optimizer: 6 + 12 / DP bytes per parameter"), 6, 12),
    # Plain fp32 training with Adam: weights 4 + gradients 4 + two moments 8 = 16 bytes.
    "fp32": (N_("fp32 with Adam: 4 + 4 + 8 = 16 bytes per parameter"), 16, 0),
}  # fmt: skip

RECOMPUTE = ("none", "selective", "full")


@dataclass(frozen=True)
class Parallel:
    """Data, tensor and sequence parallelism, and activation recomputation."""

    dp: int = 1
    tp: int = 1
    sequence_parallel: bool = False
    recompute: str = "none"


def check(cfg: ModelConfig, par: Parallel) -> None:
    """TP must divide what it shards (heads, KV heads, the FFN width); SP needs TP."""
    from ffn_calc.i18n import _

    t = par.tp
    if par.recompute not in RECOMPUTE:
        raise UsageError(
            _("--recompute {value}: use one of {choices}.").format(
                value=par.recompute, choices=", ".join(RECOMPUTE)
            )
        )
    if par.sequence_parallel and t == 1:
        raise UsageError(
            _(
                "--sequence-parallel splits activations across the --tp GPUs: it needs --tp 2 or more."
            )
        )
    for what, n in (("n_heads", cfg.n_heads), ("n_kv_heads", cfg.kv_heads), ("d_ff", cfg.d_ff)):
        if n % t:
            raise UsageError(
                _("--tp {tp} does not divide {field} ({n}), which it shards.").format(
                    tp=t, field=what, n=n
                )
            )


def state_bytes_per_param(recipe: str, dp: int) -> tuple[int, int]:
    """Bytes per parameter as a fraction (numerator, denominator) for this recipe and DP."""
    if recipe not in RECIPES:
        from ffn_calc.i18n import _

        raise UsageError(
            _("--recipe {value}: use one of {choices}.").format(
                value=recipe, choices=", ".join(RECIPES)
            )
        )
    _label, whole, sharded = RECIPES[recipe]
    return whole * dp + sharded, dp


@dataclass(frozen=True)
class ActTerm:
    component: str  # attention_projections | attention_scores | ffn | norm
    name: str
    formula: str
    bytes: int  # per layer, whole micro-batch, before parallelism
    sharded: bool  # divided by TP (sequence parallelism divides every term)


def layer_terms(cfg: ModelConfig, s: int, b: int) -> list[ActTerm]:
    """One layer's stored activations in bytes (16-bit; masks one byte per element)."""
    h, a, f = cfg.d_model, cfg.n_heads, cfg.d_ff
    qd, kvd = cfg.n_heads * cfg.qk_head_size, cfg.kv_heads * cfg.qk_head_size
    vd = cfg.kv_heads * cfg.v_head_size
    od = cfg.n_heads * cfg.v_head_size
    sb = s * b
    g = "attention_projections"
    out = [
        ActTerm(g, N_("Q/K/V input"), "2sbh", 2 * sb * h, False),
        ActTerm(g, "Q", "2sb(a d_head)", 2 * sb * qd, True),
        ActTerm(g, "K", "2sb(kv d_head)", 2 * sb * kvd, True),
        ActTerm(g, "V", "2sb(kv d_head)", 2 * sb * vd, True),
        ActTerm(g, N_("O input"), "2sb(a d_head)", 2 * sb * od, True),
        ActTerm(g, N_("O dropout mask"), "sbh", sb * h, False),
        ActTerm("attention_scores", N_("softmax output"), "2as^2b", 2 * a * s * s * b, True),
        ActTerm("attention_scores", N_("softmax dropout mask"), "as^2b", a * s * s * b, True),
        ActTerm("attention_scores", N_("dropout output"), "2as^2b", 2 * a * s * s * b, True),
        ActTerm("ffn", N_("FFN input"), "2sbh", 2 * sb * h, False),
    ]
    k = cfg.experts_per_token if cfg.is_moe and cfg.experts_per_token else 1
    per_unit = 8 if cfg.gated else 4  # gate, up, act(gate), product | act input, act output
    label = "gate, up, act, product: 8sbf" if cfg.gated else "activation input and output: 4sbf"
    if k > 1:
        label += f" x {k} experts"
    out.append(ActTerm("ffn", N_("hidden"), label, per_unit * sb * f * k, True))
    out.append(ActTerm("ffn", N_("FFN dropout mask"), "sbh", sb * h, False))
    norms = cfg.norms_per_layer + (1 if cfg.architecture == "encoder-decoder" else 0)
    out.append(
        ActTerm("norm", f"{norms} norm inputs", f"{norms} x 2sbh", norms * 2 * sb * h, False)
    )
    return out


def per_gpu(t: ActTerm, par: Parallel) -> int:
    """A term's bytes on one GPU: TP divides the sharded terms, SP every term (exact when
    the degree divides the dimension; rounded up otherwise)."""
    if par.recompute == "selective" and t.component == "attention_scores":
        return 0  # not stored: recomputed in the backward pass
    if par.sequence_parallel or t.sharded:
        return -(-t.bytes // par.tp)
    return t.bytes


def layer_bytes(cfg: ModelConfig, s: int, b: int, par: Parallel) -> int:
    """One layer's activations on one GPU (full recomputation: its input only, 2sbh)."""
    if par.recompute == "full":
        full = 2 * s * b * cfg.d_model
        return -(-full // par.tp) if par.sequence_parallel else full
    return sum(per_gpu(t, par) for t in layer_terms(cfg, s, b))


def score_crossover(cfg: ModelConfig) -> tuple[int, int]:
    """(numerator, denominator) of the s where the scores' 5as^2b reaches the FFN's stored
    activations (linear in s), per layer, any b: 5 a s = FFN bytes per (s b)."""
    ffn = sum(t.bytes for t in layer_terms(cfg, 1, 1) if t.component == "ffn")
    return ffn, 5 * cfg.n_heads
