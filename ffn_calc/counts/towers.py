"""The towers of a multimodal wrapper: parameters and the FLOPs of the images (model.towers).

Parameters: a tower counts its stack as any stack is counted (layers, position table, the
norms before and after its layers) plus its own parts (a patch embedding, a class embedding,
a pooling head); the projector counts its parts. The wrapper's components keep the language
model's groups and gain one key per tower (`vision`, `audio`) and `projector`, so the total is
still their sum; the language model's parameters are the total less the towers and the
projectors (the parameters under the language model plus the head, a tied head once).
Towers route nothing: every tower parameter is active.

FLOPs: an image runs the tower's stack over `tokens` tokens (batch = images x batch), its
parts' multiply-adds (the patch convolution as FlopCounterMode counts a convolution: 2 x
output elements x C x p x p; the projector's matmuls), and gives the language model
`output_tokens` tokens of its sequence. A text-only forward costs the language model alone.
"""

from __future__ import annotations

from ffn_calc.counts.flops import Workload, forward_flops

# The parameter counts live with the fast totals (counts.totals, which the components of every
# model come from); re-exported here, so the towers' counts are in one place for a reader.
from ffn_calc.counts.totals import TOWER_GROUPS as TOWER_GROUPS
from ffn_calc.counts.totals import language_model_params as language_model_params
from ffn_calc.counts.totals import projector_params as projector_params
from ffn_calc.counts.totals import tower_components as tower_components
from ffn_calc.counts.totals import tower_params as tower_params
from ffn_calc.counts.totals import wrapper_components as wrapper_components
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import Tower


def image_tokens(cfg: ModelConfig, images: int) -> int:
    """The tokens `images` images add to each sequence of the language model."""
    return images * sum(t.output_tokens for t in cfg.towers)


def stack_workload(t: Tower, images: int) -> Workload:
    """What the tower's stack runs for `images` images: a batch of them at its tokens each,
    or (packed) one sequence of all their tokens (attention over them all, block-masked)."""
    if t.packed:
        return Workload(batch=1, seq_len=images * t.tokens)
    return Workload(batch=images, seq_len=t.tokens)


def sized(cfg: ModelConfig, size: tuple[int, int] | None) -> ModelConfig:
    """The model with its towers at images of `size` (a tower whose config fixes the size
    keeps it; None: every tower at its configured size)."""
    if size is None or not cfg.towers:
        return cfg
    return cfg.model_copy(update={"towers": [t.at(size) for t in cfg.towers]})


def tower_flops(t: Tower, images: int) -> dict[str, int]:
    """Forward FLOPs of `images` images (over the whole batch) through the tower: its stack
    at its tokens per image, its own parts (the patch convolution), and its projector."""
    stack = forward_flops(t.stack, stack_workload(t, images)) if images else 0
    return {
        t.name: stack + 2 * images * t.part_macs(projector=False),
        "projector": 2 * images * t.part_macs(projector=True),
    }


def image_flops(cfg: ModelConfig, images: int) -> dict[str, int]:
    """The FLOPs of `images` images (over the whole batch) by tower and `projector`."""
    out: dict[str, int] = {}
    for t in cfg.towers:
        for key, value in tower_flops(t, images).items():
            out[key] = out.get(key, 0) + value
    return out
