"""The closed sets of names the options take: the one list of each, read by the model schema
(ffn_calc.model.config), the counting modules and the CLI's choices alike. Only `typing` and the
message marker are imported, so the CLI builds its choices at start without Pydantic."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, get_args

from ffn_calc.i18n.translate import N_

if TYPE_CHECKING:
    from ffn_calc.quantities import Kind

Architecture = Literal["decoder-only", "encoder-only", "encoder-decoder"]
Activation = Literal["relu", "gelu", "gelu_tanh", "silu", "swiglu", "geglu"]
Norm = Literal["layernorm", "rmsnorm"]
Positions = Literal["learned", "sinusoidal", "rotary", "none"]

ARCHITECTURES: tuple[str, ...] = get_args(Architecture)
ACTIVATIONS: tuple[str, ...] = get_args(Activation)
NORMS: tuple[str, ...] = get_args(Norm)
POSITIONS: tuple[str, ...] = get_args(Positions)

# Bits per element of each dtype the memory and KV-cache reports take.
DTYPE_BITS: dict[str, int] = {"fp32": 32, "bf16": 16, "fp16": 16, "fp8": 8, "int8": 8, "int4": 4}

# Bytes per parameter of each training recipe: (its text, unsharded, sharded over data parallelism).
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

# Each recipe's bytes per parameter by part: (16-bit or fp32 weights, gradients, optimizer
# states: fp32 master weights and Adam's two moments). ZeRO shards them over data parallelism
# part by part (Rajbhandari et al. 2020, sec. 5): stage 1 the optimizer states, stage 2 also
# the gradients, stage 3 also the weights. `distributed` is stage 1 of `mixed`.
RECIPE_PARTS: dict[str, tuple[int, int, int]] = {
    "mixed": (2, 4, 12),
    "distributed": (2, 4, 12),
    "fp32": (4, 4, 8),
}

# ZeRO stages and what ZeRO-Offload moves to CPU memory (Ren et al. 2021; DeepSpeed's
# offload_optimizer and offload_param).
ZERO_STAGES: tuple[str, ...] = ("0", "1", "2", "3")
OFFLOAD: tuple[str, ...] = ("none", "optimizer", "optimizer+params")

# Activation recomputation (Korthikanti et al.): none, the attention scores, or every layer.
RECOMPUTE: tuple[str, ...] = ("none", "selective", "full")

# The metrics a sweep counts: name -> (what it takes after @: "" nothing, "S" a sequence length,
# "L" a context length; what it counts; its unit, and so the suffixes a --where bound takes).
# ffn_calc.sweeps.metrics computes them; `sweep --help` lists them from here.
SWEEP_METRICS: dict[str, tuple[str, str, Kind]] = {
    "total_params": ("", "all parameters (tied weights once)", "count"),
    "active_params": ("", "parameters one token uses (MoE: k experts)", "count"),
    "non_embedding_params": ("", "all but the embeddings and head", "count"),
    "embedding_params": ("", "the embedding component", "count"),
    "attention_params": ("", "the attention component", "count"),
    "ffn_params": ("", "the FFN component (MoE: every expert)", "count"),
    "norm_params": ("", "the norm component", "count"),
    "lm_head_params": ("", "the untied output head", "count"),
    "ffn_share": ("", "FFN parameters / all parameters", "share"),
    "layer_ffn_share": ("", "FFN / (attention + FFN) parameters: the layers' weights, no embeddings or norms", "share"),
    "weights_bytes": ("", "the weights in bf16", "bytes"),
    "forward_flops": ("S", "forward FLOPs of one sequence of S tokens", "count"),
    "training_flops": ("S", "3 x forward_flops@S", "count"),
    "scores_vs_ffn": ("", "S where scores = FFN", "count"),
    "scores_vs_projections": ("", "S where scores = projections", "count"),
    "scores_vs_dense": ("", "S where scores = projections + FFN", "count"),
    "kv_elements": ("L", "KV-cache elements after L tokens, batch 1", "count"),
    "kv_bytes": ("L", "the KV cache in bf16 after L tokens, batch 1", "bytes"),
    "decode_flops": ("L", "FLOPs of one decode step after L tokens", "count"),
    "decode_time": ("L", "microseconds of a decode step after L tokens, H100 SXM bf16 bound", "count"),
    "prefill_time": ("S", "microseconds of a prefill of S tokens, H100 SXM bf16 bound", "count"),
    "training_time": ("S", "microseconds of a training step of S tokens, H100 SXM bf16 bound", "count"),
}  # fmt: skip
