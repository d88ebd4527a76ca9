"""The towers of a multimodal wrapper: parameters and the FLOPs of the images (model.towers).

Parameters: a tower counts its stack as any stack is counted (layers, position table, the
norms before and after its layers) plus its own parts (a patch embedding, a class embedding,
a pooling head); the projector counts its parts. The wrapper's components keep the language
model's groups and gain one key per tower (`vision`, `audio`) and `projector`, so the total is
still their sum; the language model's parameters are the total less the towers and the
projectors (the parameters under the language model plus the head, a tied head once).
Towers route nothing: every tower parameter is active.

FLOPs: an image runs the vision tower's stack over `tokens` tokens (batch = images x batch),
its parts' multiply-adds (the patch convolution as FlopCounterMode counts a convolution: 2 x
output elements x C x p x p; the projector's matmuls) and a weightless pooling matmul's
(pooling_macs), and gives the language model `output_tokens` tokens of its sequence. No
image runs through an audio tower. A text-only forward costs the language model alone.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING

from ffn_calc.counts import tower_params as tp
from ffn_calc.counts.terms import term
from ffn_calc.counts.totals import param_components
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.layer_kinds import CHUNKED, DENSE, FULL, LayerKind
from ffn_calc.model.towers import Tower

if TYPE_CHECKING:  # the FLOP counts load with the first FLOP question, not with `params`
    from ffn_calc.counts.flops import LayerFlops, Workload

TOWER_GROUPS = tp.TOWER_GROUPS
projector_params = tp.projector_params


def tower_components(t: Tower) -> dict[str, int]:
    """The tower's parameters by group (its stack counted as any model is)."""
    return tp.tower_components(t, param_components)


def tower_params(t: Tower) -> int:
    return tp.tower_params(t, param_components)


def wrapper_components(cfg: ModelConfig) -> dict[str, int]:
    """One key per tower (its name) and `projector`; empty for a language model alone."""
    return tp.wrapper_components(cfg, param_components)


def language_model_params(cfg: ModelConfig, total: int) -> int | None:
    """The total less the towers and projectors; None for a model that is only a language
    model (contract: `language_model_params` is null there)."""
    if not cfg.towers:
        return None
    return total - sum(wrapper_components(cfg).values())


def image_towers(cfg: ModelConfig) -> list[Tower]:
    """The towers images run through (not an audio tower)."""
    return [t for t in cfg.towers if t.takes_images]


def image_tokens(cfg: ModelConfig, images: int) -> int:
    """The tokens `images` images add to each sequence of the language model."""
    return images * sum(t.output_tokens for t in image_towers(cfg))


def stack_workload(t: Tower, images: int) -> Workload:
    """What the tower's stack runs for `images` images: a batch of them at its tokens each,
    or (packed) one sequence of all their tokens (attention over them all, block-masked)."""
    from ffn_calc.counts.flops import Workload

    if t.packed:
        return Workload(batch=1, seq_len=images * t.tokens)
    return Workload(batch=images, seq_len=t.tokens)


def tower_layers(t: Tower, images: int) -> list[LayerFlops]:
    """The FLOPs of the tower's layers for `images` images, by kind: a grid tower's windowed
    layers apart, their QK^T and AV over each window's square (windows of one size grouped),
    its other layers' over the whole image (or, packed, over all the images as one)."""
    from ffn_calc.counts.flops import LayerFlops, layer_flops

    base = layer_flops(t.stack, stack_workload(t, images))
    g = t.grid
    windowed = sorted({i for i in (g.window_layers if g else []) if i < t.stack.n_layers})
    if not windowed:
        return base
    assert len(base) == 1 and not t.packed  # a tower's layers are alike but for their windows
    (layer,) = base
    full = t.stack.n_layers - len(windowed)
    h, hd = t.stack.n_heads, t.stack.head_size
    sizes = Counter(t.windows())
    formula = "2 x B x windows x n_heads x w x w x head_dim"
    scores = [
        term("attention_scores", name, formula, 2, images, c, h, n, n, hd)
        for n, c in sorted(sizes.items(), reverse=True)
        for name in ("QK^T", "AV")
    ]
    projections = [x for x in layer.terms if x.group == "attention_projections"]
    ffn = [x for x in layer.terms if x.group not in ("attention_projections", "attention_scores")]
    out = []
    if full:
        out.append(replace(layer, count=full, kind=LayerKind(DENSE, FULL, names_mixer=True)))
    local = LayerKind(DENSE, CHUNKED, max(sizes), names_mixer=True)
    out.append(LayerFlops(layer.stack, len(windowed), projections + scores + ffn, local))
    return out


def tower_flops(t: Tower, images: int) -> dict[str, int]:
    """Forward FLOPs of `images` images (over the whole batch) through the tower: its layers
    at its tokens per image (tower_layers: windowed layers within each window; packed: all
    the images as one sequence), its own parts (the patch convolution), and its projector."""
    stack = sum(x.count * x.total for x in tower_layers(t, images)) if images else 0
    own = t.part_macs(projector=False) + t.pooling_macs
    return {
        t.name: stack + 2 * images * own,
        "projector": 2 * images * t.part_macs(projector=True),
    }


def sized(cfg: ModelConfig, height: int, width: int, what: str) -> ModelConfig:
    """The model with its towers taking images of height x width pixels (`what`: the option
    that gave the size; Tower.sized refuses a size a tower cannot take)."""
    towers = [t.sized(height, width, what) if t.takes_images else t for t in cfg.towers]
    return cfg.model_copy(update={"towers": towers})


def image_flops(cfg: ModelConfig, images: int) -> dict[str, int]:
    """The FLOPs of `images` images (over the whole batch) by tower and `projector`."""
    out: dict[str, int] = {}
    for t in image_towers(cfg):
        for key, value in tower_flops(t, images).items():
            out[key] = out.get(key, 0) + value
    return out
