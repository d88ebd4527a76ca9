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
  uses and, where it has one, the shared expert's (at shared_expert_d_ff), which every token
  passes; with a latent width (moe_latent_dim) the experts' input and output at that width,
  2sb(moe_latent_dim) each; a MoE model's dense layers keep theirs at dense_d_ff;
- cross-attention (an encoder-decoder's decoder layers): the attention terms again, with K
  and V read from the encoder's output (stored once for all layers) and the scores over the
  source, and one norm more;
- norms: the input of each of the layer's norms, 2sbh each;
- outside the layers (sec. 4.3): each stack's embedding dropout mask sbh (and the input of
  its embedding norm, 2sbh, where it has one); with an LM head its input 2sbh and the fp32
  logits 4sbv; no LM head, no logits.
Left out, as the paper has no MoE: the router's scores, the tokens' copies dispatched to
the experts and the products by the routing weights.

For a GPT layer (f = 4h, kv = a, a d_head = h) the terms give back the paper's
11sbh + 5as^2b (attention), 19sbh (MLP) and 4sbh (norms) = sbh (34 + 5as/h).
"""

from __future__ import annotations

from dataclasses import dataclass

from ffn_calc.errors import UsageError
from ffn_calc.i18n.translate import N_, Text, say
from ffn_calc.model.choices import OFFLOAD as OFFLOAD
from ffn_calc.model.choices import RECIPE_PARTS as RECIPE_PARTS
from ffn_calc.model.choices import RECIPES as RECIPES  # re-exported: the recipes live there
from ffn_calc.model.choices import RECOMPUTE as RECOMPUTE
from ffn_calc.model.choices import ZERO_STAGES as ZERO_STAGES
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.layer_kinds import LayerKind, layer_kind
from ffn_calc.model.layer_kinds import layer_kinds as stack_kinds


@dataclass(frozen=True)
class Parallel:
    """Data, tensor and sequence parallelism, and activation recomputation."""

    dp: int = 1
    tp: int = 1
    sequence_parallel: bool = False
    recompute: str = "none"


def check(cfg: ModelConfig, par: Parallel) -> None:
    """TP must divide what it shards (heads, KV heads, the FFN width); SP needs TP."""
    from ffn_calc.i18n.translate import _

    t = par.tp
    if cfg.compressed or cfg.hc_streams is not None:
        raise UsageError(
            _(
                "--training: the stored activations of compressed attention and "
                "hyper-connections (DeepSeek-V4) are not modelled; its parameters and FLOPs "
                "are counted."
            )
        )
    if cfg.keys_as_values is not None:
        raise UsageError(
            _(
                "--training: the stored activations of {model}'s layers whose keys serve as "
                "values are not modelled; its parameters and FLOPs are counted."
            ).format(model=cfg.name)
        )
    if cfg.has_parts:
        raise UsageError(
            _(
                "--training: the stored activations of {model}'s parts given as data (AltUp, "
                "LAuReL, per-layer inputs, shared blocks) and KV-shared layers are not "
                "modelled; its parameters and FLOPs are counted."
            ).format(model=cfg.name)
        )
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
    widths = [("n_heads", cfg.n_heads), ("n_kv_heads", cfg.kv_heads), ("d_ff", cfg.d_ff)]
    widths += [
        (k, v)
        for k, v in (
            ("shared_expert_d_ff", cfg.shared_expert_d_ff),
            ("dense_d_ff", cfg.dense_d_ff if cfg.dense_ffn_layers else None),
            ("decoder_d_ff", cfg.decoder_d_ff),
            ("decoder_n_heads", cfg.decoder_n_heads),
        )
        if v
    ]
    for what, n in widths:
        if n % t:
            raise UsageError(
                _("--tp {tp} does not divide {field} ({n}), which it shards.").format(
                    tp=t, field=what, n=n
                )
            )


def unmodelled_mixers(cfg: ModelConfig) -> list[str]:
    """The token mixers whose stored activations have no term-by-term count here (recurrent
    and convolution mixers): a training report then gives the model states alone."""
    return sorted({m for m in cfg.layer_mixers if m not in ("full", "none")})


def state_bytes_per_param(recipe: str, dp: int) -> tuple[int, int]:
    """Bytes per parameter as a fraction (numerator, denominator) for this recipe and DP."""
    if recipe not in RECIPES:
        from ffn_calc.i18n.translate import _

        raise UsageError(
            _("--recipe {value}: use one of {choices}.").format(
                value=recipe, choices=", ".join(RECIPES)
            )
        )
    _label, whole, sharded = RECIPES[recipe]
    return whole * dp + sharded, dp


@dataclass(frozen=True)
class ActTerm:
    component: str  # attention_projections | attention_scores | ffn | norm | embedding | logits
    name: str | Text  # a message (translated where shown); str() is the English
    formula: str | Text
    bytes: int  # per layer (or the model, outside the layers), whole micro-batch, before TP
    sharded: bool  # divided by TP (sequence parallelism divides every term)


@dataclass(frozen=True)
class StoredKind:
    """Layers that store the same activations: their stack, FFN kind and how many there are."""

    stack: str  # "encoder" | "decoder"
    kind: LayerKind  # the FFN only (any mixer): str() "" | "dense FFN" | "MoE"
    count: int
    cross: bool  # a decoder layer with cross-attention (encoder-decoder)


def layer_kinds(cfg: ModelConfig) -> list[StoredKind]:
    """Every stack's layers grouped by what they store: the FFN kind (a MoE model's dense
    layers at their own width) and cross-attention (an encoder-decoder's decoder layers).
    Local and global attention store the same (eager attention keeps the full square)."""
    out = []
    encdec = cfg.architecture == "encoder-decoder"
    stacks = (("encoder", cfg.encoder_layers), ("decoder", cfg.decoder_layers))
    wide = cfg.attending(False) is not cfg  # global layers of their own width: kept apart
    for stack, layers in stacks:
        counts: dict[LayerKind, int] = {}
        for kind, n in stack_kinds(cfg, layers) if layers else []:
            mixer, window = (kind.mixer, kind.window) if wide else (None, None)
            ffn = layer_kind(kind.ffn, mixer, window, kind.names_ffn, wide)  # whatever the mixer
            counts[ffn] = counts.get(ffn, 0) + n
        out += [StoredKind(stack, k, n, encdec and stack == "decoder") for k, n in counts.items()]
    return out


def main_kind(cfg: ModelConfig) -> StoredKind:
    """The layer kind the one-layer figures describe: the first stack's most numerous kind
    (the crossover layer of ffn_calc.counts.flops)."""
    kinds = layer_kinds(cfg)
    first = [k for k in kinds if k.stack == kinds[0].stack]
    return max(first, key=lambda k: k.count)


def _attention_terms(cfg: ModelConfig, s: int, b: int, cross: bool) -> list[ActTerm]:
    h, a = cfg.d_model, cfg.n_heads
    qd, kvd = cfg.n_heads * cfg.qk_head_size, cfg.kv_heads * cfg.qk_head_size
    vd = cfg.kv_heads * cfg.v_head_size
    od = cfg.n_heads * cfg.v_head_size
    sb = s * b
    g, sc = "attention_projections", "attention_scores"
    if cross:  # K and V read the encoder's output, stored once for every layer (model_terms)
        return [
            ActTerm(g, N_("cross Q input"), "2sbh", 2 * sb * h, False),
            ActTerm(g, N_("cross Q"), "2sb(a d_head)", 2 * sb * qd, True),
            ActTerm(g, N_("cross K"), "2sb(kv d_head)", 2 * sb * kvd, True),
            ActTerm(g, N_("cross V"), "2sb(kv d_head)", 2 * sb * vd, True),
            ActTerm(g, N_("cross O input"), "2sb(a d_head)", 2 * sb * od, True),
            ActTerm(g, N_("cross O dropout mask"), "sbh", sb * h, False),
            ActTerm(sc, N_("cross softmax output"), "2as^2b", 2 * a * s * s * b, True),
            ActTerm(sc, N_("cross softmax dropout mask"), "as^2b", a * s * s * b, True),
            ActTerm(sc, N_("cross dropout output"), "2as^2b", 2 * a * s * s * b, True),
        ]
    return [
        ActTerm(g, N_("Q/K/V input"), "2sbh", 2 * sb * h, False),
        ActTerm(g, "Q", "2sb(a d_head)", 2 * sb * qd, True),
        ActTerm(g, "K", "2sb(kv d_head)", 2 * sb * kvd, True),
        ActTerm(g, "V", "2sb(kv d_head)", 2 * sb * vd, True),
        ActTerm(g, N_("O input"), "2sb(a d_head)", 2 * sb * od, True),
        ActTerm(g, N_("O dropout mask"), "sbh", sb * h, False),
        ActTerm(sc, N_("softmax output"), "2as^2b", 2 * a * s * s * b, True),
        ActTerm(sc, N_("softmax dropout mask"), "as^2b", a * s * s * b, True),
        ActTerm(sc, N_("dropout output"), "2as^2b", 2 * a * s * s * b, True),
    ]


def layer_terms(cfg: ModelConfig, s: int, b: int, kind: StoredKind | None = None) -> list[ActTerm]:
    """One layer's stored activations in bytes (16-bit; masks one byte per element), for a
    layer of `kind` (default: main_kind)."""
    kind = kind or main_kind(cfg)
    cfg = cfg.stack(kind.stack)  # an encoder-decoder's decoder: its own width and heads
    h, sb = cfg.d_model, s * b
    local = kind.kind.mixer is None or kind.kind.is_local
    out = _attention_terms(cfg.attending(local), s, b, False)
    if kind.cross:
        out += _attention_terms(cfg, s, b, True)
    out.append(ActTerm("ffn", N_("FFN input"), "2sbh", 2 * sb * h, False))
    per_unit = 8 if cfg.gated else 4  # gate, up, act(gate), product | act input, act output
    words = say(N_("gate, up, act, product") if cfg.gated else N_("activation input and output"))
    unit = f"{per_unit}sb"

    def hidden(symbols: str, experts: int = 1) -> Text:
        if experts > 1:
            return say(N_("{words}: {symbols} x {count} experts"), words=words, symbols=symbols,
                       count=str(experts))  # fmt: skip
        return say(N_("{words}: {symbols}"), words=words, symbols=symbols)

    if kind.kind.is_moe:
        k = cfg.experts_per_token or 1
        out.append(ActTerm("ffn", N_("hidden"), hidden(f"{unit}f", k), per_unit * sb * cfg.d_ff * k, True))  # fmt: skip
        if cfg.moe_latent_dim is not None:  # the experts' input and output at the latent width
            latent = N_("latent input and output")
            out.append(ActTerm("ffn", latent, "4sb(moe_latent_dim)", 4 * sb * cfg.moe_latent_dim, False))  # fmt: skip
        if cfg.shared_expert_d_ff is not None:  # every token also passes the shared expert
            fs = cfg.shared_expert_d_ff
            out.append(
                ActTerm(
                    "ffn",
                    N_("shared expert hidden"),
                    hidden(f"{unit}(shared_expert_d_ff)"),
                    per_unit * sb * fs,
                    True,
                )
            )
    else:
        dense = cfg.is_moe and kind.kind.is_dense_ffn  # a MoE model's dense layer
        f = (cfg.dense_d_ff or cfg.d_ff) if dense else cfg.d_ff
        width = "f" if f == cfg.d_ff else "(dense_d_ff)"
        out.append(ActTerm("ffn", N_("hidden"), hidden(f"{unit}{width}"), per_unit * sb * f, True))
    out.append(ActTerm("ffn", N_("FFN dropout mask"), "sbh", sb * h, False))
    norms = cfg.norms_per_layer + (1 if kind.cross else 0)
    out.append(
        ActTerm(
            "norm",
            say(N_("{count} norm inputs"), count=str(norms)),
            f"{norms} x 2sbh",
            norms * 2 * sb * h,
            False,
        )
    )
    return out


def model_terms(cfg: ModelConfig, s: int, b: int) -> list[ActTerm]:
    """Activations outside the layers (Korthikanti et al. sec. 4.3): each stack's embedding
    dropout mask sbh (and its embedding norm's input 2sbh); with an LM head, its input 2sbh and the fp32 logits for the
    cross-entropy 4sbv (sharded by TP); an encoder-decoder's encoder output 2sbh, which
    every decoder layer's cross-attention K and V read (stored once). A model without an LM
    head has no logits."""
    h, sb = cfg.d_model, s * b
    stacks = 2 if cfg.architecture == "encoder-decoder" else 1
    out = [
        ActTerm(
            "embedding",
            N_("embedding dropout mask"),
            f"{stacks} x sbh" if stacks > 1 else "sbh",
            stacks * sb * h,
            False,
        )
    ]
    if cfg.embedding_norm:  # BERT, BART: a norm over each stack's embeddings keeps its input
        out.append(
            ActTerm(
                "norm",
                N_("embedding norm input"),
                f"{stacks} x 2sbh" if stacks > 1 else "2sbh",
                stacks * 2 * sb * h,
                False,
            )
        )
    if cfg.architecture == "encoder-decoder":
        out.append(
            ActTerm(
                "attention_projections",
                N_("encoder output (cross-attention K/V input)"),
                "2sbh",
                2 * sb * h,
                False,
            )
        )
    if cfg.has_lm_head and cfg.vocab_size is not None:
        out += [
            ActTerm("logits", N_("LM head input"), "2sbh", 2 * sb * h, False),
            ActTerm("logits", N_("logits (fp32)"), "4sbv", 4 * sb * cfg.vocab_size, True),
        ]
    return out


def per_gpu(t: ActTerm, par: Parallel) -> int:
    """A term's bytes on one GPU: TP divides the sharded terms, SP every term (exact when
    the degree divides the dimension; rounded up otherwise)."""
    if par.recompute == "selective" and t.component == "attention_scores":
        return 0  # not stored: recomputed in the backward pass
    if par.sequence_parallel or t.sharded:
        return -(-t.bytes // par.tp)
    return t.bytes


def layer_bytes(
    cfg: ModelConfig, s: int, b: int, par: Parallel, kind: StoredKind | None = None
) -> int:
    """One layer's activations on one GPU (full recomputation: its input only, 2sbh)."""
    if par.recompute == "full":
        full = 2 * s * b * cfg.d_model
        return -(-full // par.tp) if par.sequence_parallel else full
    return sum(per_gpu(t, par) for t in layer_terms(cfg, s, b, kind))


def score_crossover(cfg: ModelConfig) -> tuple[int, int]:
    """(numerator, denominator) of the s where the scores' 5as^2b reaches the FFN's stored
    activations (linear in s), per layer of the main kind, any b: 5 a s = FFN bytes / (s b)."""
    ffn = sum(t.bytes for t in layer_terms(cfg, 1, 1) if t.component == "ffn")
    return ffn, 5 * cfg.n_heads


# --- ZeRO stages and CPU offload ------------------------------------------------------------


@dataclass(frozen=True)
class States:
    """Model states in bytes: on one GPU by part, and in CPU memory for that GPU's process."""

    weights: int
    gradients: int
    optimizer: int
    gather: int  # ZeRO-3: the largest layer gathered whole (its weights and gradients)
    cpu: int

    @property
    def gpu(self) -> int:
        return self.weights + self.gradients + self.optimizer + self.gather


def check_zero(recipe: str, stage: int, offload: str) -> None:
    """ZeRO-Offload needs a partitioned optimizer (stage 1 or more); parameters go to CPU only
    under stage 3; `distributed` is already stage 1 of `mixed`."""
    from ffn_calc.i18n.translate import _

    if offload not in OFFLOAD:
        raise UsageError(
            _("--offload {value}: use one of {choices}.").format(
                value=offload, choices=", ".join(OFFLOAD)
            )
        )
    if recipe == "distributed" and stage:
        raise UsageError(
            _(
                "--zero {stage} with --recipe distributed: the distributed optimizer is ZeRO "
                "stage 1 of --recipe mixed; give --recipe mixed --zero {stage}."
            ).format(stage=stage)
        )
    if offload != "none" and stage == 0 and recipe != "distributed":
        raise UsageError(
            _(
                "--offload {offload} needs --zero 1, 2 or 3: ZeRO-Offload moves a partitioned "
                "optimizer to CPU memory."
            ).format(offload=offload)
        )
    if offload == "optimizer+params" and stage != 3:
        raise UsageError(
            _("--offload {offload} needs --zero 3: only stage 3 partitions the parameters.").format(
                offload=offload
            )
        )


def _share(per_param: int, params: int, dp: int) -> int:
    """One GPU's share of a sharded part: per_param x params / dp, rounded up."""
    return -(-per_param * params // dp)


def zero_states(
    params: int, parts: tuple[int, int, int], dp: int, stage: int, offload: str, largest: int
) -> States:
    """Bytes of model states per GPU for `params` parameters on each GPU before data
    parallelism (after TP), the recipe's (weights, gradients, optimizer) bytes per parameter,
    ZeRO `stage` over `dp` GPUs (Rajbhandari et al. 2020, sec. 5 and Figure 1: stage 1
    shards the optimizer states, 2 also the gradients, 3 also the weights) and ZeRO-Offload:
    `optimizer` keeps the gradients' and optimizer states' partition in CPU memory (the
    optimizer step runs there), `optimizer+params` the weights' partition too (stage 3).
    Stage 3 gathers each layer whole to run it: the largest (`largest` parameters) with its
    weights and gradients in the weights' dtype, as DeepSpeed's estimator counts it
    (4 x largest_layer_params in 16 bits)."""
    w, g, o = parts
    off_opt = offload != "none"
    off_par = offload == "optimizer+params"
    weights = 0 if off_par else (_share(w, params, dp) if stage >= 3 else w * params)
    grads = 0 if off_opt else (_share(g, params, dp) if stage >= 2 else g * params)
    opt = 0 if off_opt else (_share(o, params, dp) if stage >= 1 else o * params)
    cpu = (_share(g + o, params, dp) if off_opt else 0) + (_share(w, params, dp) if off_par else 0)
    gather = 2 * w * largest if stage >= 3 else 0
    return States(weights, grads, opt, gather, cpu)


# DeepSpeed's estimators, as written in deepspeedai/DeepSpeed:
# deepspeed/runtime/zero/stage_1_and_2.py (estimate_zero2_model_states_mem_needs) and
# deepspeed/runtime/zero/stage3.py (estimate_zero3_model_states_mem_needs); its
# documentation page "Memory Requirements" explains the multipliers. Bytes; `cpu` includes
# their additional_buffer_factor (1.5) and, without zero.Init, the fp32 copy each process
# builds at load time (4 x params per GPU of a node). They take the parameters of the whole
# model (no tensor parallelism) and one node of `gpus` GPUs unless told otherwise.


def deepspeed_zero2(
    total: int, gpus_per_node: int, nodes: int = 1, cpu_offload: bool = False, buffer: float = 1.5
) -> tuple[int, int]:
    """(cpu, gpu) bytes: offload 2P on the GPU, P x max(4 x gpus, 16) x 1.5 in CPU memory;
    else 2P + int(18P / gpus) (16-bit weights whole; 16-bit and fp32 gradients, fp32 weights
    and Adam's moments sharded) and the load-time 4P per GPU of a node x 1.5."""
    gpus = nodes * gpus_per_node
    if cpu_offload:
        gpu = 2 * total
        cpu = total * max(4 * gpus, 16) * buffer
    else:
        gpu = 2 * total + int(18 * total / gpus)
        cpu = total * 4 * gpus_per_node * buffer
    return int(cpu), int(gpu)


def deepspeed_zero3(
    total: int,
    largest: int,
    gpus_per_node: int,
    nodes: int = 1,
    offload: str = "none",
    zero_init: bool = True,
    buffer: float = 1.5,
) -> tuple[int, int]:
    """(cpu, gpu) bytes: the largest layer gathered 4 x largest on the GPU, plus 18P / gpus
    (no offload) or 2P / gpus (optimizer offloaded); CPU 18P or 16P per node x 1.5 with
    offload, the load-time copy without (largest layer only with zero.Init)."""
    gpus = nodes * gpus_per_node
    per_node = 1 / nodes  # DeepSpeed's gpus_factor; the products in its order (floats)
    layer = 4 * largest
    if offload == "optimizer+params":
        gpu = layer
        if zero_init:
            cpu = total * 18 * per_node * buffer
        else:
            cpu = total * max(4 * gpus_per_node, 18 * per_node) * buffer
    elif offload == "optimizer":
        gpu = layer + int(2 * total / gpus)
        if zero_init:
            cpu = total * 16 * per_node * buffer
        else:
            cpu = total * max(4 * gpus_per_node, 16 * per_node) * buffer
    else:
        gpu = layer + int(18 * total / gpus)
        cpu = (largest if zero_init else total) * 4 * gpus_per_node * buffer
    return int(cpu), int(gpu)
