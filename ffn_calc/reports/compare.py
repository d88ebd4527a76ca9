"""Side-by-side comparison of several models at one sequence length."""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

from pydantic import Field

from ffn_calc.counts import flops as fl
from ffn_calc.counts import params as pm
from ffn_calc.model.config import ModelConfig
from ffn_calc.reports.base import Number, Result, exact, num, share


class ComparedModel(Result):
    model: str
    family: str
    architecture: str
    d_model: int
    d_ff: int
    d_ff_ratio: float
    ffn_kind: str
    activation: str
    n_heads: int
    n_kv_heads: int
    head_dim: int
    layers: int
    attention_params_per_layer: int
    ffn_params_per_layer: int
    ffn_share_of_layer: float
    ffn_share_of_model: float
    total_params: int
    active_params: int
    seq_len: int
    forward_flops: int
    flops_per_token: Number
    flops_per_token_exact: str
    ffn_share_of_flops: float
    crossover: dict[str, Number | None] = Field(
        description="as `crossover` gives it: null where never reached (`never` says why)"
    )
    never: dict[str, str] = Field(
        {},
        description="why a crossover is null: 'positions' (past the learned position table), "
        "'no attention' (no layer attends: no score FLOPs grow with S) or 'compressed' "
        "(compressed attention: the scores per token are no line in S)",
    )


# The sequence length compare counts FLOPs at unless told: lowered to the shortest learned
# position table among the models, so that no default exceeds a model's limit.
DEFAULT_SEQ_LEN = 1024


class CompareReport(Result):
    view: ClassVar[str] = "ffn_calc.views.compare:compare_tables"

    seq_len: int
    seq_len_lowered_for: str | None = Field(
        None, description="the model whose learned position table lowered the default "
        "sequence length (1,024) to seq_len",
    )  # fmt: skip
    models: list[ComparedModel]


def compared(cfg: ModelConfig, seq_len: int) -> ComparedModel:
    layer = pm.layer_counts(cfg)[0]
    comps = pm.components(cfg)
    total = sum(comps.values())
    w = fl.Workload(batch=1, seq_len=seq_len)
    fc = fl.flop_components(cfg, w)
    fwd = sum(fc.values())
    tokens = 2 * seq_len if cfg.architecture == "encoder-decoder" else seq_len
    return ComparedModel(
        model=cfg.name, family=cfg.family, architecture=cfg.architecture, d_model=cfg.d_model,
        d_ff=cfg.d_ff, d_ff_ratio=cfg.d_ff / cfg.d_model, ffn_kind=cfg.ffn_kind,
        activation=cfg.activation, n_heads=cfg.n_heads, n_kv_heads=cfg.kv_heads,
        head_dim=cfg.head_size, layers=cfg.encoder_layers + cfg.decoder_layers,
        attention_params_per_layer=layer.group("attention"),
        ffn_params_per_layer=layer.group("ffn"),
        ffn_share_of_layer=share(layer.group("ffn"), layer.total),
        ffn_share_of_model=share(comps["ffn"], total), total_params=total,
        active_params=pm.active_params(cfg), seq_len=seq_len, forward_flops=fwd,
        flops_per_token=num(Fraction(fwd, tokens)), flops_per_token_exact=exact(Fraction(fwd, tokens)), ffn_share_of_flops=share(fc["ffn"], fwd),
        **_crossovers(cfg),
    )  # fmt: skip


CROSSOVER_KEYS = ("scores_vs_ffn", "scores_vs_projections", "scores_vs_dense")


def _crossovers(cfg: ModelConfig) -> dict[str, dict[str, Number | None] | dict[str, str]]:
    """The crossovers as `crossover` reaches them, and why any is never reached: a model
    with none (fl.no_crossover) stands in the comparison with every crossover null."""
    why = fl.no_crossover(cfg)
    if why is not None:
        return {
            "crossover": dict.fromkeys(CROSSOVER_KEYS),
            "never": dict.fromkeys(CROSSOVER_KEYS, why),
        }
    reached, past = fl.reached_crossovers(cfg)
    return {
        "crossover": {k: None if v is None else num(v) for k, v in reached.items()},
        "never": dict.fromkeys(past, "positions"),
    }


def compare_report(models: list[ModelConfig], seq_len: int | None = None) -> CompareReport:
    """The models at `seq_len` tokens; by default DEFAULT_SEQ_LEN, or the shortest learned
    position table among them. A given length past a model's table is an error naming it."""
    lowered = None
    if seq_len is None:
        seq_len = DEFAULT_SEQ_LEN
        for m in models:
            if m.position_limit is not None and m.position_limit < seq_len:
                seq_len, lowered = m.position_limit, m.name
    for m in models:
        fl.check_lengths(m, fl.Workload(batch=1, seq_len=seq_len))
    return CompareReport(
        seq_len=seq_len, seq_len_lowered_for=lowered, models=[compared(m, seq_len) for m in models]
    )
