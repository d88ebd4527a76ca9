"""Result model of `memory --training`: model states, activations per component, fit."""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

from pydantic import Field, PrivateAttr

from ffn_calc.counts import params as pm
from ffn_calc.counts import training as tr
from ffn_calc.counts.grid import sweep_lengths
from ffn_calc.i18n.translate import N_, Text, say
from ffn_calc.model.config import ModelConfig
from ffn_calc.reports.base import KindResult, Number, Result, english, exact, num

CONVENTION = N_(
    "Model states are exact: bytes per parameter of the recipe x the parameters on one GPU "
    "(tensor parallelism splits them: total / TP, rounded up). Activations are a published "
    "approximation: Korthikanti et al. 2022 (arXiv:2205.05198), sec. 4 and Table 2, 16-bit, "
    "dropout masks included, generalised term by term to any d_ff, gated FFNs, GQA, MoE "
    "(k experts and the shared expert; dense layers at their own width) and cross-attention; "
    "embeddings and logits after sec. 4.3 (fp32 cross-entropy 4sbv / TP; no LM head, no "
    "logits). Left out: the router's scores and the tokens dispatched to experts, "
    "fragmentation, communication buffers, framework workspace."
)
DEFAULT_SEQ_LEN = 2048


class ActivationTerm(Result):
    component: str
    name: str
    formula: str
    bytes: int = Field(description="one layer (or the model, outside the layers), one GPU")
    # The name and formula as messages (not in JSON), for a view to show in the reader's
    # language; None for a term read back from JSON (name and formula are then shown as read).
    _name: str | Text | None = PrivateAttr(None)
    _formula: str | Text | None = PrivateAttr(None)

    def shown_name(self) -> str | Text:
        return self.name if self._name is None else self._name

    def shown_formula(self) -> str | Text:
        return self.formula if self._formula is None else self._formula


class TrainingLayerKind(KindResult):
    stack: str
    kind: str = Field(description="'' | 'dense FFN' | 'MoE'")
    count: int
    cross_attention: bool
    bytes: int = Field(description="one layer, one GPU")
    terms: list[ActivationTerm]


class DeepSpeedEstimate(Result):
    """DeepSpeed's own estimator for the same stage and offload (counts.training)."""

    function: str
    gpus_per_node: int
    nodes: int
    zero_init: bool
    additional_buffer_factor: float
    largest_layer_params: int | None
    gpu_bytes: int
    cpu_bytes: int = Field(description="per node, buffer factor included")


class _TrainingSetup(Result):
    """What both training reports answer for: the model, the recipe and the parallel layout,
    recompute and the sequence length (their JSON keys first, in this order)."""

    model: str
    recipe: str
    recipe_text: str
    dp: int
    tp: int
    sequence_parallel: bool
    recompute: str
    seq_len: int


class TrainingReport(_TrainingSetup):
    view: ClassVar[str] = "ffn_calc.views.training:training_tables"

    seq_len_lowered: bool = Field(
        False, description="the default s (2,048) was lowered to the learned position table"
    )
    position_limit: int | None = Field(None, description="the most tokens the model takes")
    micro_batch: int
    params_per_gpu: int
    bytes_per_param: Number
    bytes_per_param_exact: str
    model_states_bytes: int
    layers: int
    layer_kinds: list[TrainingLayerKind]
    activation_terms: list[ActivationTerm] = Field(
        description="one layer of the main kind (the first stack's most numerous)"
    )
    activations_per_layer_bytes: int = Field(description="one layer of the main kind")
    model_terms: list[ActivationTerm] = Field(description="outside the layers")
    activation_components: dict[str, int] = Field(description="all layers, one GPU")
    embedding_bytes: int
    logits_bytes: int = Field(description="the LM head's input and fp32 logits (0: no head)")
    activations_bytes: int
    total_bytes: int
    score_crossover: Number | None = Field(
        description="s where the scores' activations reach the FFN's (null: past the learned "
        "position table, never reached)"
    )
    score_crossover_exact: str | None
    score_crossover_unbounded: Number = Field(description="the crossover without the table")
    score_crossover_unbounded_exact: str
    gpu_memory_bytes: int | None = None
    max_micro_batch: int | None = None
    zero_stage: int = Field(0, description="ZeRO stage over --dp (distributed: 1)")
    offload: str = "none"
    weights_bytes: int = Field(0, description="model states on one GPU: the weights")
    gradients_bytes: int = 0
    optimizer_states_bytes: int = 0
    gather_bytes: int = Field(0, description="ZeRO-3: the largest layer's weights and gradients")
    cpu_bytes: int = Field(0, description="offloaded states in CPU memory, one GPU's share")
    largest_layer_params: int | None = Field(
        None, description="the most parameters one module holds itself (ZeRO-3's gather)"
    )
    deepspeed: DeepSpeedEstimate | None = None
    rows: list[dict[str, int]] = Field(
        description="one layer's activations per component over s (micro-batch 1, this GPU)"
    )
    convention: str


MIXER_ACTIVATIONS = N_(
    "The stored activations of the {mixers} token mixer are not modelled (no term-by-term "
    "count of the tensors it keeps for the backward pass is stated here): the activation part "
    "is left out, and with it the total; the model states are exact."
)


class TrainingStatesReport(_TrainingSetup):
    """`memory --training` for a model whose token mixers' stored activations are not
    modelled: the model states alone, and which mixers leave the activations out."""

    view: ClassVar[str] = "ffn_calc.views.training:states_tables"

    micro_batch: int
    params_per_gpu: int
    bytes_per_param: Number
    bytes_per_param_exact: str
    model_states_bytes: int
    activations_bytes: None = Field(None, description="not modelled (see activations_refused)")
    total_bytes: None = Field(None, description="not known without the activations")
    unmodelled_mixers: list[str] = Field(description="the token mixers refused")
    activations_refused: str = Field(description="why the activation part is left out")
    gpu_memory_bytes: int | None = None
    model_states_fit: bool | None = Field(
        None, description="the model states alone fit in --gpu-memory (activations not counted)"
    )
    convention: str

    def refused(self) -> Text:
        """activations_refused as a message (the reader's language), from the mixers' names."""
        return say(MIXER_ACTIVATIONS, mixers=", ".join(self.unmodelled_mixers))


def _terms(terms: list[tr.ActTerm], par: tr.Parallel) -> list[ActivationTerm]:
    out = []
    for t in terms:
        term = ActivationTerm(component=t.component, name=str(t.name), formula=str(t.formula),
                              bytes=tr.per_gpu(t, par))  # fmt: skip
        term._name, term._formula = t.name, t.formula
        out.append(term)
    return out


def _activations(
    cfg: ModelConfig, par: tr.Parallel, s: int, b: int
) -> tuple[list[TrainingLayerKind], list[tr.ActTerm], dict[str, int]]:
    """Every layer kind's activations, the terms outside the layers, and the components."""
    kinds: list[TrainingLayerKind] = []
    comps: dict[str, int] = {}
    for k in tr.layer_kinds(cfg):
        terms = tr.layer_terms(cfg, s, b, k)
        kinds.append(TrainingLayerKind(
            stack=k.stack, kind=str(k.kind), count=k.count, cross_attention=k.cross,
            bytes=tr.layer_bytes(cfg, s, b, par, k), terms=_terms(terms, par),
        ).with_kind(k.kind))  # fmt: skip
        if par.recompute != "full":
            for t in terms:
                comps[t.component] = comps.get(t.component, 0) + k.count * tr.per_gpu(t, par)
    if par.recompute == "full":
        comps["layer inputs (full recomputation)"] = sum(k.count * k.bytes for k in kinds)
    outside = tr.model_terms(cfg, s, b)
    for t in outside:
        comps[t.component] = comps.get(t.component, 0) + tr.per_gpu(t, par)
    return kinds, outside, comps


def _check_dp(recipe: str, dp: int) -> None:
    """DP changes a GPU's share only of what the recipe shards (the distributed optimizer)."""
    if dp > 1 and recipe in tr.RECIPES and not tr.RECIPES[recipe][2]:
        from ffn_calc.errors import UsageError
        from ffn_calc.i18n.translate import _

        raise UsageError(
            _(
                "--dp divides the model states that --zero 1, 2 or 3 (or --recipe "
                "distributed) shards; with --recipe {recipe} and no --zero every data-parallel "
                "GPU holds all of the model states."
            ).format(recipe=recipe)
        )


def largest_layer_params(cfg: ModelConfig) -> int:
    """The most parameters one module holds itself (its parameters, not its children's), as
    DeepSpeed's estimator finds it: max over modules of sum(p.numel() for p in
    m.parameters(recurse=False)). transformers 5 holds a layer's routed experts as one
    module's 3-D tensors, so they count together; a tied tensor counts in each module."""
    import re

    from ffn_calc.reference.instantiate import instantiate

    own: dict[str, int] = {}
    for t in instantiate(cfg, 1, 1).tensors:
        m = re.search(r"\.experts\.\{(\d+)\.\.(\d+)\}\.", t.label)
        if m:
            module, n = t.label[: m.start()] + ".experts", t.numel * (int(m[2]) - int(m[1]) + 1)
        else:
            module, n = t.label.rsplit(".", 1)[0], t.numel
        own[module] = own.get(module, 0) + n
    return max(own.values(), default=0)


def _deepspeed(
    cfg: ModelConfig, recipe: str, par: tr.Parallel, stage: int, offload: str, largest: int | None
) -> DeepSpeedEstimate | None:
    """DeepSpeed's estimator for stage 2 or 3 (mixed precision, no TP; one node of --dp
    GPUs, zero.Init, its default buffer factor 1.5)."""
    if recipe != "mixed" or par.tp != 1 or stage < 2:
        return None
    total = pm.total_params(cfg)
    if stage == 2:
        cpu, gpu = tr.deepspeed_zero2(total, par.dp, cpu_offload=offload != "none")
        name = "estimate_zero2_model_states_mem_needs"
    else:
        assert largest is not None
        cpu, gpu = tr.deepspeed_zero3(total, largest, par.dp, offload=offload)
        name = "estimate_zero3_model_states_mem_needs"
    return DeepSpeedEstimate(
        function=name, gpus_per_node=par.dp, nodes=1, zero_init=True,
        additional_buffer_factor=1.5, largest_layer_params=largest if stage == 3 else None,
        gpu_bytes=gpu, cpu_bytes=cpu,
    )  # fmt: skip


def training_report(
    cfg: ModelConfig,
    recipe: str,
    par: tr.Parallel,
    s: int | None,
    b: int,
    gpu: int | None,
    zero: int = 0,
    offload: str = "none",
) -> TrainingReport | TrainingStatesReport:
    """`s` None: DEFAULT_SEQ_LEN, or the learned position table when it is shorter. `zero`:
    the ZeRO stage over par.dp (`distributed` is stage 1 of `mixed`); `offload`: none,
    optimizer or optimizer+params (counts.training.zero_states). A model whose token mixers'
    stored activations are not modelled: the model states alone (TrainingStatesReport)."""
    tr.check(cfg, par)
    tr.check_zero(recipe, zero, offload)
    stage = 1 if recipe == "distributed" else zero
    if stage == 0:
        _check_dp(recipe, par.dp)
    lowered = False
    if s is None:
        s = DEFAULT_SEQ_LEN
        if cfg.position_limit is not None and cfg.position_limit < s:
            s, lowered = cfg.position_limit, True
    cfg.check_positions(s, f"--seq-len {s}")
    tr.state_bytes_per_param(recipe, par.dp)  # the recipe checked
    parts = tr.RECIPE_PARTS[recipe]
    total = pm.total_params(cfg)
    per_gpu = -(-total // par.tp)
    largest = largest_layer_params(cfg) if stage == 3 else None
    st = tr.zero_states(per_gpu, parts, par.dp, stage, offload, -(-(largest or 0) // par.tp))
    states = st.gpu
    per_param = _per_param(parts, par.dp, stage, offload)
    n, d = per_param.numerator, per_param.denominator
    mixers = tr.unmodelled_mixers(cfg)
    if mixers:  # the model states alone: no term-by-term count of the mixers' activations
        refused = say(MIXER_ACTIVATIONS, mixers=", ".join(mixers))
        return TrainingStatesReport(
            model=cfg.name, recipe=recipe, recipe_text=tr.RECIPES[recipe][0], dp=par.dp,
            tp=par.tp, sequence_parallel=par.sequence_parallel, recompute=par.recompute,
            seq_len=s, micro_batch=b, params_per_gpu=per_gpu,
            bytes_per_param=num(Fraction(n, d)), bytes_per_param_exact=exact(Fraction(n, d)),
            model_states_bytes=states, unmodelled_mixers=mixers,
            activations_refused=english([refused]), gpu_memory_bytes=gpu,
            model_states_fit=None if gpu is None else states <= gpu, convention=CONVENTION,
        )  # fmt: skip
    layers = cfg.encoder_layers + cfg.decoder_layers
    kinds, outside, comps = _activations(cfg, par, s, b)
    acts = sum(comps.values())
    main = tr.main_kind(cfg)
    main_terms = tr.layer_terms(cfg, s, b, main)
    cross = Fraction(*tr.score_crossover(cfg))
    limit = cfg.position_limit
    reached = limit is None or cross <= limit
    fit = None
    if gpu is not None:
        per_sample = sum(_activations(cfg, par, s, 1)[2].values())
        fit = max(0, (gpu - states) // per_sample) if per_sample else None
    return TrainingReport(
        rows=_sweep(cfg, par, cross, main),
        model=cfg.name, recipe=recipe, recipe_text=tr.RECIPES[recipe][0], dp=par.dp, tp=par.tp,
        sequence_parallel=par.sequence_parallel, recompute=par.recompute, seq_len=s,
        seq_len_lowered=lowered, position_limit=cfg.position_limit, micro_batch=b,
        params_per_gpu=per_gpu, bytes_per_param=num(Fraction(n, d)),
        bytes_per_param_exact=exact(Fraction(n, d)), model_states_bytes=states, layers=layers,
        layer_kinds=kinds, activation_terms=_terms(main_terms, par),
        activations_per_layer_bytes=tr.layer_bytes(cfg, s, b, par, main),
        model_terms=_terms(outside, par), activation_components=comps,
        embedding_bytes=comps.get("embedding", 0), logits_bytes=comps.get("logits", 0),
        activations_bytes=acts, total_bytes=states + acts, score_crossover=num(cross) if reached else None,
        score_crossover_exact=exact(cross) if reached else None,
        score_crossover_unbounded=num(cross), score_crossover_unbounded_exact=exact(cross),
        gpu_memory_bytes=gpu, max_micro_batch=fit, zero_stage=stage, offload=offload,
        weights_bytes=st.weights, gradients_bytes=st.gradients, optimizer_states_bytes=st.optimizer,
        gather_bytes=st.gather, cpu_bytes=st.cpu, largest_layer_params=largest,
        deepspeed=_deepspeed(cfg, recipe, par, stage, offload, largest),
        convention=CONVENTION,
    )  # fmt: skip


def _per_param(parts: tuple[int, int, int], dp: int, stage: int, offload: str) -> Fraction:
    """Bytes per parameter on one GPU (the gathered layer aside): each part whole, 1/dp or 0."""
    w, g, o = parts
    sharded, whole = Fraction(1, dp), Fraction(1)
    off = offload != "none"
    return (
        Fraction(0 if offload == "optimizer+params" else w * (sharded if stage >= 3 else whole))
        + (0 if off else g * (sharded if stage >= 2 else 1))
        + (0 if off else o * (sharded if stage >= 1 else 1))
    )


def _sweep(
    cfg: ModelConfig, par: tr.Parallel, cross: Fraction, kind: tr.StoredKind
) -> list[dict[str, int]]:
    """One layer's stored activations per component at powers of two around the crossover,
    up to the learned position table where the model has one."""

    limit = cfg.position_limit
    lengths = sweep_lengths([cross])
    if limit is not None:  # no row past the learned position table
        lengths = sorted(
            {s for s in lengths if s <= limit} | ({limit} if limit < max(lengths) else set())
        )
    out = []
    for s in lengths:
        row = {"seq_len": s}
        for t in tr.layer_terms(cfg, s, 1, kind):
            row[t.component] = row.get(t.component, 0) + tr.per_gpu(t, par)
        out.append(row)
    return out
