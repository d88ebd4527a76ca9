"""Result model of `memory --training`: model states, activations per component, fit."""

from __future__ import annotations

from fractions import Fraction

from pydantic import Field

from ffn_calc import param_counts as pm
from ffn_calc import training as tr
from ffn_calc.config import ModelConfig
from ffn_calc.i18n import N_
from ffn_calc.report import Number, exact, num
from ffn_calc.result import Result

CONVENTION = N_(
    "Model states are exact: bytes per parameter of the recipe x the parameters on one GPU "
    "(tensor parallelism splits them: total / TP, rounded up). Activations are a published "
    "approximation: Korthikanti et al. 2022 (arXiv:2205.05198), sec. 4 and Table 2, 16-bit, "
    "dropout masks included, generalised term by term to any d_ff, gated FFNs, GQA and MoE; "
    "logits after sec. 4.3 (fp32 cross-entropy 4sbv / TP). Left out: fragmentation, "
    "communication buffers, framework workspace."
)


class ActivationTerm(Result):
    component: str
    name: str
    formula: str
    bytes: int = Field(description="one layer, one GPU")


class TrainingReport(Result):
    model: str
    recipe: str
    recipe_text: str
    dp: int
    tp: int
    sequence_parallel: bool
    recompute: str
    seq_len: int
    micro_batch: int
    params_per_gpu: int
    bytes_per_param: Number
    bytes_per_param_exact: str
    model_states_bytes: int
    layers: int
    activation_terms: list[ActivationTerm]
    activations_per_layer_bytes: int
    activation_components: dict[str, int] = Field(description="all layers, one GPU")
    logits_bytes: int
    activations_bytes: int
    total_bytes: int
    score_crossover: Number = Field(description="s where the scores' activations reach the FFN's")
    score_crossover_exact: str
    gpu_memory_bytes: int | None = None
    max_micro_batch: int | None = None
    rows: list[dict[str, int]] = Field(
        description="one layer's activations per component over s (micro-batch 1, this GPU)"
    )
    convention: str


def _check_dp(recipe: str, dp: int) -> None:
    """DP changes a GPU's share only of what the recipe shards (the distributed optimizer)."""
    if dp > 1 and recipe in tr.RECIPES and not tr.RECIPES[recipe][2]:
        from ffn_calc.errors import UsageError
        from ffn_calc.i18n import _

        raise UsageError(
            _(
                "--dp divides the optimizer states that --recipe distributed shards; with "
                "--recipe {recipe} every data-parallel GPU holds all of the model states."
            ).format(recipe=recipe)
        )


def training_report(
    cfg: ModelConfig, recipe: str, par: tr.Parallel, s: int, b: int, gpu: int | None
) -> TrainingReport:
    tr.check(cfg, par)
    _check_dp(recipe, par.dp)
    n, d = tr.state_bytes_per_param(recipe, par.dp)
    total = pm.total_params(cfg)
    per_gpu = -(-total // par.tp)
    states = -(-per_gpu * n // d)
    layers = cfg.encoder_layers + cfg.decoder_layers

    def activations(batch: int) -> tuple[list[tr.ActTerm], int, int, dict[str, int]]:
        terms = tr.layer_terms(cfg, s, batch)
        per_layer = tr.layer_bytes(cfg, s, batch, par)
        v = cfg.vocab_size or 0
        logits = (
            2 * s * batch * cfg.d_model + -(-4 * s * batch * v // par.tp) + s * batch * cfg.d_model
        )
        comps: dict[str, int] = {}
        if par.recompute != "full":
            for t in terms:
                comps[t.component] = comps.get(t.component, 0) + layers * tr.per_gpu(t, par)
        return terms, per_layer, logits, comps

    terms, per_layer, logits, comps = activations(b)
    acts = layers * per_layer + logits
    comps["embedding / logits"] = logits
    if par.recompute == "full":
        comps["layer inputs (full recomputation)"] = layers * per_layer
    cross = Fraction(*tr.score_crossover(cfg))
    fit = None
    if gpu is not None:
        _, one_layer, one_logits, _ = activations(1)
        per_sample = layers * one_layer + one_logits
        fit = max(0, (gpu - states) // per_sample) if per_sample else None
    return TrainingReport(
        rows=_sweep(cfg, par, cross),
        model=cfg.name, recipe=recipe, recipe_text=tr.RECIPES[recipe][0], dp=par.dp, tp=par.tp,
        sequence_parallel=par.sequence_parallel, recompute=par.recompute, seq_len=s, micro_batch=b,
        params_per_gpu=per_gpu, bytes_per_param=num(Fraction(n, d)),
        bytes_per_param_exact=exact(Fraction(n, d)), model_states_bytes=states, layers=layers,
        activation_terms=[ActivationTerm(component=t.component, name=t.name, formula=t.formula,
                                         bytes=tr.per_gpu(t, par)) for t in terms],
        activations_per_layer_bytes=per_layer, activation_components=comps, logits_bytes=logits,
        activations_bytes=acts, total_bytes=states + acts, score_crossover=num(cross),
        score_crossover_exact=exact(cross), gpu_memory_bytes=gpu, max_micro_batch=fit,
        convention=CONVENTION,
    )  # fmt: skip


def _sweep(cfg: ModelConfig, par: tr.Parallel, cross: Fraction) -> list[dict[str, int]]:
    """One layer's stored activations per component at powers of two around the crossover."""
    from ffn_calc import flop_counts as fl

    out = []
    for s in fl.sweep_lengths([cross]):
        row = {"seq_len": s}
        for t in tr.layer_terms(cfg, s, 1):
            row[t.component] = row.get(t.component, 0) + tr.per_gpu(t, par)
        out.append(row)
    return out
