"""The answer to `ffn-calc roofline`: per component FLOPs, bytes, intensity, bound and time on an
accelerator, for a prefill and a decode step; the crossovers in time; utilisation from a
measured throughput."""

from __future__ import annotations

from fractions import Fraction
from math import ceil
from typing import ClassVar, Literal

from pydantic import PrivateAttr

from ffn_calc.counts import roofline as rl
from ffn_calc.errors import UsageError
from ffn_calc.i18n.translate import N_, Text, _, say
from ffn_calc.limits import MAX_SIZE
from ffn_calc.model.accelerators import ACCELERATORS
from ffn_calc.model.config import ModelConfig
from ffn_calc.reports.base import Result, english

GROUPS = (
    "attention_projections", "attention_scores", "mixer", "ffn", "lm_head", "embedding", "pooler",
    "optimizer", "communication",
)  # fmt: skip

BOUND_NOTE = N_(
    "Each time is a lower bound: max(FLOPs / peak, bytes / bandwidth) per kernel, summed over "
    "the kernels (no overlap between them); tokens per second is an upper bound. Not counted: "
    "norms, softmax, activations, rotary and residual adds, the embedding lookup, kernel "
    "launches and, under tensor parallelism, the communication."
)
BYTES_NOTE = N_(
    "Bytes: each weight once per step; each matmul's input rows read and output rows written; "
    "QK^T and AV fused (the score matrix stays on chip): each sequence's cached keys and values "
    "read once, a sliding window at most its window; MLA reads its latent and rotary key."
)
MOE_NOTE = N_(
    "MoE: the routed experts' weights read are the expected distinct experts a step touches, "
    "E x (1 - (1 - k/E)^(B x S)) = {decode} per layer at decode (S = 1) and {prefill} at "
    "prefill (of {experts}), routing taken as uniform and independent."
)
MOE_DECODE_NOTE = N_(
    "MoE: the routed experts' weights read are the expected distinct experts a step touches, "
    "E x (1 - (1 - k/E)^B) = {decode} per layer (of {experts}), routing taken as uniform and "
    "independent."
)
TP_NOTE = N_(
    "--tp {tp}: FLOPs and bytes per device divided by {tp}; the all-reduces are not modelled."
)
MIXER_BYTES_NOTE = N_(
    "Token mixers: their linear layers as above; a depthwise convolution reads its weight and "
    "the rows in and out, and a decode step also reads and writes its conv state; a scan is "
    "one fused kernel per layer (its chunks stay on chip): its inputs read and its output "
    "written once, each charged to the term that first uses it; a decode step reads and "
    "writes the recurrent state whole (a step of its own, 0 FLOPs, where the update is "
    "elementwise). Conv states and MiniMax's lightning state in the KV cache dtype "
    "(--kv-dtype); the recurrent states of Mamba, Mamba-2, gated delta-rule and KDA mixers "
    "in float32 whatever it is, as transformers keeps them."
)
NO_ATTENTION_NOTE = N_(
    "No crossovers in time: no layer of {model} attends, so no part of a decode step grows "
    "with the context."
)
UNMODELLED_NOTE = N_("Bytes not modelled (counted as 0) for: {names}.")
KV_REACHES_NOTE = N_(
    "The decode scores' intensity tends to {intensity} FLOPs per byte as the context grows, at "
    "any batch (the re-expansion of each cached latent is counted with the cache read), above "
    "the ridge point {ridge}: here long contexts turn the cache's work compute-bound."
)
KV_NOTE = N_(
    "Cache reads never turn compute-bound: the decode scores' intensity tends to {intensity} "
    "FLOPs per byte at any batch (each sequence reads its own cache), below the ridge point "
    "{ridge}."
)
PALM_NOTE = N_(
    "MFU for training uses PaLM's 6N + 12 L H Q T FLOPs per token (N non-embedding parameters; "
    "L layers, H heads, Q head width, T sequence length); with the causal halving of the "
    "attention term, 6N + 6 L H Q T: {causal}."
)


class RoofComponent(Result):
    name: str
    group: str
    flops: int
    bytes: int
    intensity: float
    bound: Literal["compute", "memory"]
    time_s: float


class PhaseBase(Result):
    phase: str
    components: list[RoofComponent]
    flops: int
    bytes: int
    time_s: float
    tokens_per_s: float
    time_shares: dict[str, float]


class PrefillPhase(PhaseBase):
    seq_len: int

    def length(self) -> int:
        return self.seq_len


class DecodePhase(PhaseBase):
    context: int

    def length(self) -> int:
        return self.context


class TrainingPhase(PhaseBase):
    seq_len: int
    dp: int
    replica_batch: int  # sequences one data-parallel replica runs (batch / dp)
    recompute: str
    forward_flops: int  # one replica's; backward = 2 x forward
    backward_flops: int
    recompute_flops: int

    def length(self) -> int:
        return self.seq_len


class Crossovers(Result):
    context_at_batch: int | None  # attention time >= FFN time, decode, at --batch
    batch_at_context: int | None  # at --context
    ffn_compute_bound_batch: int | None
    kv_intensity_limit: float


class Measured(Result):
    phase: str
    tokens_per_s: float
    mfu: float
    mbu: float | None
    mfu_causal: float | None = None
    devices: int = 1  # --tp x --dp
    mfu_counted: float | None = None  # training: the step's own FLOPs, 3 x forward terms
    hfu: float | None = None  # training: with the recomputed forward (hardware FLOPs)


class RooflineReport(Result):
    view: ClassVar[str] = "ffn_calc.views.roofline:roofline_tables"

    model: str
    accelerator: str
    accelerator_source: str
    batch: int
    dtype: str
    weights_dtype: str
    activations_dtype: str
    kv_dtype: str
    peak_flops: float
    bandwidth_bytes: float
    memory_bytes: int | None
    efficiency: float
    tp: int
    ridge_point: float
    phases: list[PrefillPhase | DecodePhase | TrainingPhase]
    crossovers: Crossovers | None
    measured: Measured | None
    notes: list[str]
    _notes: tuple[Text, ...] = PrivateAttr(())

    def sentences(self) -> tuple[str | Text, ...]:
        return self._notes or tuple(self.notes)


def device(
    gpu: str | None, peak: float | None, bandwidth: float | None, dtype: str, efficiency: float
) -> tuple[rl.Device, str, int | None]:
    """The accelerator: a named one (its peak in `dtype`), or --peak-flops and --bandwidth."""
    if not 0 < efficiency <= 1:
        raise UsageError(
            _("--efficiency {value}: give a factor above 0 and at most 1.").format(value=efficiency)
        )
    for option, value in (("--peak-flops", peak), ("--bandwidth", bandwidth)):
        if value is not None and not 0 < value < 1e21:
            raise UsageError(
                _("{option} {value}: give a positive figure (FLOP/s or bytes/s).").format(
                    option=option, value=value
                )
            )
    if gpu is None:
        if peak is None or bandwidth is None:
            raise UsageError(_("roofline needs --gpu NAME, or both --peak-flops and --bandwidth."))
        return rl.Device("custom", peak * efficiency, bandwidth * efficiency), "", None
    a = ACCELERATORS.get(gpu.lower())
    if a is None:
        raise UsageError(
            _("--gpu {name}: unknown accelerator; known: {names}.").format(
                name=gpu, names=", ".join(ACCELERATORS)
            )
        )
    p = peak if peak is not None else a.peaks.get(dtype)
    if p is None:
        raise UsageError(
            _("--gpu {name} lists no {dtype} peak; give --peak-flops.").format(
                name=a.name, dtype=dtype
            )
        )
    bw = bandwidth if bandwidth is not None else a.bandwidth
    return rl.Device(a.name, p * efficiency, bw * efficiency), a.source, a.memory


def _phase(
    p: rl.Phase, dev: rl.Device, tp: int, dp: int = 1, recompute: str = "none"
) -> PrefillPhase | DecodePhase | TrainingPhase:
    comps = [
        RoofComponent(
            name=c.name,
            group=c.group,
            flops=c.flops,
            bytes=ceil(c.bytes),
            intensity=c.intensity() if c.bytes else 0.0,
            bound=c.bound(dev, tp),
            time_s=c.time(dev, tp),
        )
        for c in p.components
    ]
    total = p.time(dev, tp)
    shares = {
        g: p.group_time(dev, (g,), tp) / total for g in GROUPS if any(c.group == g for c in comps)
    }
    common = dict(
        phase=p.phase,
        components=comps,
        flops=p.flops,
        bytes=p.bytes,
        time_s=total,
        tokens_per_s=p.tokens / total,
        time_shares=shares,
    )
    if p.phase == "prefill":
        return PrefillPhase(seq_len=p.length, **common)
    if p.phase == "training":
        fwd = (p.flops - p.recompute_flops) // 3
        return TrainingPhase(
            seq_len=p.length, dp=dp, replica_batch=p.tokens // p.length // dp,
            recompute=recompute, forward_flops=fwd, backward_flops=2 * fwd,
            recompute_flops=p.recompute_flops, **common,
        )  # fmt: skip
    return DecodePhase(context=p.length, **common)


def roofline_report(
    cfg: ModelConfig,
    *,
    seq_len: int | None,
    context: int | None,
    batch: int = 1,
    dtypes: rl.Dtypes | None = None,
    gpu: str | None = None,
    peak: float | None = None,
    bandwidth: float | None = None,
    efficiency: float = 1.0,
    tp: int = 1,
    crossovers: bool = True,
    measured: float | None = None,
    measured_phase: str = "decode",
    training: bool = False,
    dp: int = 1,
    recompute: str = "none",
    interconnect: float | None = None,
) -> RooflineReport:
    """`training`: the --seq-len phase is a training step (forward, backward, recompute,
    optimizer step; counts.roofline.training) over `dp` data-parallel replicas; with
    `interconnect` bytes/s the gradients' all-reduce is counted."""
    dtypes = dtypes or rl.Dtypes()
    dev, source, memory = device(gpu, peak, bandwidth, dtypes.activations, efficiency)
    notes: list[Text] = [say(BOUND_NOTE), say(BYTES_NOTE)]
    if cfg.layer_mixers:
        notes.append(say(MIXER_BYTES_NOTE))
    phases: list[rl.Phase] = []
    _check_training(training, seq_len, batch, dp, recompute, interconnect)
    if seq_len is not None:
        cfg.check_positions(seq_len, f"--seq-len {seq_len}")
        if training:
            from ffn_calc.counts.params import total_params

            link = None if interconnect is None else interconnect * efficiency
            step = rl.training(cfg, batch, seq_len, dtypes, total_params(cfg), dp, recompute, link)
            phases.append(step)
            notes += _training_notes(step, batch, dp, recompute, interconnect)
        else:
            phases.append(rl.prefill(cfg, batch, seq_len, dtypes))
    if context is not None:
        if not cfg.has_decoder:
            raise UsageError(
                _("--context: {model} is encoder-only: it has no decode step.").format(
                    model=cfg.name
                )
            )
        from ffn_calc.counts.inference import check_decode

        check_decode(cfg, context)
        phases.append(rl.decode(cfg, batch, context, dtypes))
    if not phases:
        raise UsageError(
            _("roofline needs --seq-len S (a prefill), --context L (a decode step) or both.")
        )
    if cfg.is_moe and cfg.n_experts and cfg.experts_per_token:
        e, k = cfg.n_experts, cfg.experts_per_token
        dec = rl.distinct_experts(e, k, batch)
        if seq_len is None:
            notes.append(say(MOE_DECODE_NOTE, decode=f"{dec:.2f}", experts=str(e)))
        else:
            pre = rl.distinct_experts(e, k, batch * seq_len)
            notes.append(say(MOE_NOTE, decode=f"{dec:.2f}", prefill=f"{pre:.2f}", experts=str(e)))
    if tp > 1:
        notes.append(say(TP_NOTE, tp=str(tp)))
    loose = sorted({c.name for p in phases for c in p.components if not c.modelled})
    if loose:
        notes.append(say(UNMODELLED_NOTE, names=", ".join(loose)))
    cross = None
    from ffn_calc.counts.inference import attention_layers

    if crossovers and context is not None and cfg.has_decoder and not attention_layers(cfg):
        notes.append(say(NO_ATTENTION_NOTE, model=cfg.name))
    elif crossovers and context is not None:
        limit = (cfg.position_limit or MAX_SIZE) - 1
        kv = rl.kv_intensity_limit(cfg, dtypes)
        cross = Crossovers(
            context_at_batch=rl.context_crossover(cfg, batch, dtypes, dev, max(limit, 1)),
            batch_at_context=rl.batch_crossover(cfg, context, dtypes, dev),
            ffn_compute_bound_batch=rl.ffn_compute_batch(cfg, context, dtypes, dev),
            kv_intensity_limit=float(kv),
        )
        which = KV_NOTE if kv < Fraction(dev.ridge) else KV_REACHES_NOTE
        notes.append(say(which, intensity=f"{float(kv):.3g}", ridge=f"{dev.ridge:.3g}"))
    meas = None
    if measured is not None:
        meas = _measured(cfg, measured, measured_phase, phases, dev, tp, seq_len, dp, notes)
    out = RooflineReport(
        model=cfg.name,
        accelerator=dev.name,
        accelerator_source=source,
        batch=batch,
        dtype=dtypes.weights,
        weights_dtype=dtypes.weights,
        activations_dtype=dtypes.activations,
        kv_dtype=dtypes.kv,
        peak_flops=dev.peak,
        bandwidth_bytes=dev.bandwidth,
        memory_bytes=memory,
        efficiency=efficiency,
        tp=tp,
        ridge_point=dev.ridge,
        phases=[_phase(p, dev, tp, dp, recompute) for p in phases],
        crossovers=cross,
        measured=meas,
        notes=[english([n]) for n in notes],
    )
    out._notes = tuple(notes)
    return out


def _measured(
    cfg: ModelConfig,
    tokens_per_s: float,
    phase: str,
    phases: list[rl.Phase],
    dev: rl.Device,
    tp: int,
    seq_len: int | None,
    dp: int,
    notes: list[Text],
) -> Measured:
    """MFU = model FLOPs per second over the dense peak; MBU = bytes per second over the
    bandwidth (per device: divided by --tp, and by --dp for training)."""
    if not 0 < tokens_per_s < 1e18:
        raise UsageError(
            _("--measured {value}: give a positive throughput in tokens per second.").format(
                value=tokens_per_s
            )
        )
    peak, bw = dev.peak * tp, dev.bandwidth * tp
    if phase == "training":
        if seq_len is None:
            raise UsageError(
                _("{option} needs --seq-len S (the sequence length T).").format(
                    option="--measured-phase training"
                )
            )
        from ffn_calc.reports.params import params_report

        pr = params_report(cfg)
        n = pr.total_params - pr.components.get("embedding", 0)
        full, causal = rl.palm_training_flops_per_token(cfg, n, seq_len)
        peak *= dp  # every data-parallel replica's devices
        notes.append(say(PALM_NOTE, causal=f"{tokens_per_s * causal / peak:.2%}"))
        step = [p for p in phases if p.phase == "training"]
        counted = hfu = mbu = None
        if step:  # the step's own terms: one replica's FLOPs and bytes over its devices
            t = step[0]
            steps = Fraction(tokens_per_s) / t.tokens
            counted = float(steps * (t.flops - t.recompute_flops)) / (dev.peak * tp)
            hfu = float(steps * t.flops) / (dev.peak * tp)
            mbu = float(steps * t.bytes) / bw
        return Measured(
            phase=phase,
            tokens_per_s=tokens_per_s,
            mfu=tokens_per_s * full / peak,
            mbu=mbu,
            mfu_causal=tokens_per_s * causal / peak,
            devices=tp * dp,
            mfu_counted=counted,
            hfu=hfu,
        )
    match = [p for p in phases if p.phase == phase]
    if not match and phase == "prefill" and any(p.phase == "training" for p in phases):
        raise UsageError(
            _(
                "--measured-phase prefill: with --training the --seq-len phase is a training "
                "step; give --measured-phase training, or leave --training out."
            )
        )
    if not match:
        option = "--seq-len S" if phase == "prefill" else "--context L"
        raise UsageError(
            _("--measured-phase {phase} needs {option}.").format(phase=phase, option=option)
        )
    p = match[0]
    steps = Fraction(tokens_per_s) / p.tokens
    return Measured(
        phase=phase,
        tokens_per_s=tokens_per_s,
        mfu=float(steps * p.flops) / peak,
        mbu=float(steps * p.bytes) / bw,
        devices=tp,
    )


def _check_training(
    training: bool,
    seq_len: int | None,
    batch: int,
    dp: int,
    recompute: str,
    interconnect: float | None,
) -> None:
    """The training options go together: --training needs --seq-len; --dp, --recompute and
    --interconnect need --training; the batch splits evenly over the replicas."""
    if not training:
        for option, given in (("--dp", dp != 1), ("--recompute", recompute != "none"),
                              ("--interconnect", interconnect is not None)):  # fmt: skip
            if given:
                raise UsageError(
                    _("{option} goes with --training (a training step).").format(option=option)
                )
        return
    if seq_len is None:
        raise UsageError(
            _("{option} needs --seq-len S (the sequence length T).").format(option="--training")
        )
    if recompute not in rl.RECOMPUTED:
        raise UsageError(
            _("--recompute {value}: use one of {choices}.").format(
                value=recompute, choices=", ".join(rl.RECOMPUTED)
            )
        )
    if batch % dp:
        raise UsageError(
            _(
                "--batch {batch} is not a multiple of --dp {dp}: each data-parallel replica "
                "runs batch / dp sequences."
            ).format(batch=batch, dp=dp)
        )
    if interconnect is not None:
        if not 0 < interconnect < 1e21:
            raise UsageError(
                _("{option} {value}: give a positive figure (FLOP/s or bytes/s).").format(
                    option="--interconnect", value=interconnect
                )
            )
        if dp == 1:
            raise UsageError(
                _(
                    "--interconnect goes with --dp 2 or more: one replica has no gradients to "
                    "all-reduce."
                )
            )


TRAINING_NOTE = N_(
    "Training step: each term's forward, its backward (2x the forward's FLOPs; a weight's "
    "backward reads it again with the rows in and out twice and writes its fp32 gradient; "
    "the fused scores' backward moves twice the forward's bytes), a recomputed forward where "
    "--recompute asks, and the optimizer step (Adam: 28 bytes per parameter of fp32 "
    "gradient, master weight and moments read and written, plus the weights' copy; no FLOPs "
    "counted). Each term's passes are one component: time max(FLOPs / peak, bytes / "
    "bandwidth)."
)
DP_NOTE = N_(
    "--dp {dp}: each replica runs {batch} sequences (--batch / --dp); FLOPs and bytes are one "
    "replica's, "
    "tokens per second the whole step's."
)
ALLREDUCE_NOTE = N_(
    "Gradient all-reduce: a ring, 2 (N - 1) / N x the fp32 gradients over --interconnect "
    "{link} bytes/s, not overlapped with the backward pass."
)
NO_ALLREDUCE_NOTE = N_(
    "The gradients' all-reduce over the {dp} replicas is not counted: give --interconnect "
    "BYTES/S to count it (a ring, 2 (N - 1) / N x the fp32 gradients)."
)
RECOMPUTE_NOTE = N_(
    "--recompute {recompute}: the recomputed forward's FLOPs ({flops}) count in the time and "
    "in HFU, not in MFU."
)


def _training_notes(
    step: rl.Phase, batch: int, dp: int, recompute: str, interconnect: float | None
) -> list[Text]:
    out = [say(TRAINING_NOTE)]
    if step.recompute_flops:
        out.append(say(RECOMPUTE_NOTE, recompute=recompute, flops=f"{step.recompute_flops:,}"))
    if dp > 1:
        out.append(say(DP_NOTE, dp=str(dp), batch=str(batch // dp)))
        if interconnect is None:
            out.append(say(NO_ALLREDUCE_NOTE, dp=str(dp)))
        else:
            out.append(say(ALLREDUCE_NOTE, link=f"{interconnect:.4g}"))
    return out
