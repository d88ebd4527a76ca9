"""Towers: the encoders a multimodal wrapper puts beside its language model (a vision or an
audio encoder), each a Transformer stack of its own, with the tensors outside its layers.

A wrapper is a ModelConfig whose fields describe the language model and whose `towers` list
the encoders. A tower is data, like the rest of the model:

- `stack`: a ModelConfig of the encoder's layers ("encoder-only", vocab_size None: no token
  table and no head; a learned position table of `max_positions` rows; `embedding_norm` for a
  norm before the layers, CLIP's pre_layrnorm; `final_norm` for the norm after them), counted
  by the machinery every stack uses (attention / FFN split, layer kinds, FLOPs);
- `parts`: every parameter tensor outside the stack's layers and tables, by its whole name as
  the reference implementation spells it, its contract group and its shape (a patch
  embedding's conv weight and bias, a class embedding, a pooling head; the multimodal
  projector's weights, biases and norms, group "projector"), with the multiply-adds one image
  costs through it (`macs`: FlopCounterMode counts a conv as output elements x C x p x p, a
  Linear as rows x in x out; `per`: per image, per token through the stack, per merged
  token or per token given to the language model);
- what one image is for the FLOPs: `tokens` through the stack (the patches, plus a class token
  for CLIP), `output_tokens` it gives the language model (after pooling or dropping the class
  token), and the input size the tower takes (`image_size`, fixed by its config);
- `grid`, for a tower that takes images of any size (Qwen-VL): patch x patch pixels per token
  through the stack, merge x merge of those per token of the language model, and the layers
  that attend within windows of the image rather than over all of it. Its tokens,
  output_tokens and image_size are those of the smallest image it takes (patch x merge pixels
  a side); `sized(height, width)` gives the tower for an image of that size, and a part's
  `macs` may be per token through the stack or per token given to the language model (`per`).

A grid with `up_to` takes images of any size up to it (Pixtral: 2D rotary positions, no
table): an H x W image gives (H // p) x (W // p) patches through the stack, merged `merge` x
`merge` into (H // p // merge) x (W // p // merge) tokens, plus `row_tokens` per row of merged
tokens in the language model's sequence (Pixtral's [IMG_BREAK] after each row, [IMG_END]
after the last); its `tokens` and `output_tokens` are those of an image of `up_to` (the
largest). `cut(height, width)` gives the three counts of one image; `sized` the tower at
that size, the one method the reports and the reference walk use.
`packed`: the images run through the stack as one sequence (attention over all their
patches, masked block-diagonally), so the attention scores cost (images x tokens)^2.

Tower names ModelConfig in an annotation only (the config holds towers): ffn_calc.model.config
completes both classes when it is imported, so import Tower after it (or from it).

`family` is the tower's model_type (siglip_vision_model, clip_vision_model): its module in
ffn_calc.families names the stack's tensors; `prefix` is where they sit in the wrapper's
state_dict (`model.vision_tower.`).
"""

from __future__ import annotations

from math import prod
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from ffn_calc.limits import MAX_SIZE

if TYPE_CHECKING:
    from ffn_calc.model.config import ModelConfig

PositiveInt = Annotated[int, Field(gt=0, le=MAX_SIZE)]
Count = Annotated[int, Field(ge=0, le=MAX_SIZE * MAX_SIZE)]

# Contract groups a part counts in: the tower's own (as a stack's components) or the projector.
PartGroup = Literal["embedding", "norm", "attention", "ffn", "projector"]
# What a part's multiply-adds are per: an image; a token through the stack (a patch); a
# merged token (merge x merge tokens through the stack made one); a token given to the
# language model (the merged tokens plus the grid's row_tokens).
PartUnit = Literal["image", "token", "merged", "output_token"]
TowerName = Literal["vision", "audio"]


# The FLOP component of a part's multiply-adds, by the part's group.
PART_FLOPS: dict[str, str] = {
    "attention": "attention_projections",
    "ffn": "ffn",
    "norm": "ffn",
    "embedding": "embedding",
    "projector": "embedding",
}


class Part(BaseModel):
    """One parameter tensor outside a tower's layers and position table."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, defer_build=True)

    name: str = Field(description="Its whole state_dict name (model.vision_tower....weight).")
    group: PartGroup = Field(description="The contract group it counts in.")
    shape: list[PositiveInt] = Field(description="Its shape, as the reference stores it.")
    macs: Count = Field(
        0,
        description="Multiply-adds one image costs through it, as FlopCounterMode counts "
        "them (a conv: output elements x C x p x p; a Linear: rows x in x out); 0 for a "
        "bias, a norm or a table.",
    )
    layers: PositiveInt = Field(
        1,
        description="Copies of it, one in each of this many layers of the stack ({i} in its "
        "name: a tensor of the layers the stack's own terms do not describe).",
        exclude_if=lambda v: v == 1,
    )
    uses: PositiveInt = Field(
        1,
        description="Times each token runs through it, `macs` each time: shared weights, "
        "once per layer that uses them (Zamba2's shared blocks).",
        exclude_if=lambda v: v == 1,
    )
    per: PartUnit = Field(
        "image",
        description="What `macs` is per: one image, one token through the stack (a patch "
        "embedding of a grid tower), one merged token (a patch merger) or one token given "
        "to the language model (a merger).",
    )

    @property
    def numel(self) -> int:
        return prod(self.shape) * self.layers

    @property
    def projector(self) -> bool:
        return self.group == "projector"


class Uncounted(BaseModel):
    """A part of the model ffn-calc does not count (neither its parameters nor its FLOPs)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, defer_build=True)

    name: str = Field(description="What it is: vision tower (timm mobilenetv5_300m_enc).")
    prefix: str = Field(
        description="Where its tensors sit in a checkpoint (model.vision_tower.): `verify "
        "--checkpoint` lists them as not counted."
    )


class Grid(BaseModel):
    """How a tower that takes images of any size cuts them into tokens (Qwen-VL)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, defer_build=True)

    patch: PositiveInt = Field(description="Pixels a side of one token through the stack.")
    merge: PositiveInt = Field(
        1, description="Tokens a side merged into one token of the language model."
    )
    window: Annotated[int, Field(ge=0, le=MAX_SIZE)] | None = Field(
        None,
        description="Merged tokens a side of the windows the window_layers attend within "
        "(the last windows of a row or column ragged at the image's edge).",
    )
    window_layers: list[Annotated[int, Field(ge=0, le=MAX_SIZE)]] = Field(
        [], description="The stack's layers that attend within windows; the others over the image."
    )
    row_tokens: Annotated[int, Field(ge=0, le=MAX_SIZE)] = Field(
        0,
        description="Tokens the language model gets per row of merged tokens besides them "
        "(Pixtral's [IMG_BREAK] after each row, [IMG_END] after the last).",
        exclude_if=lambda v: v == 0,
    )
    up_to: list[PositiveInt] | None = Field(
        None,
        description="[height, width]: the largest image the tower takes, any size up to it, "
        "cut into patches by floor division (Pixtral); unset: any size whose sides are "
        "multiples of patch x merge (Qwen-VL).",
        exclude_if=lambda v: v is None,
    )

    @property
    def multiple(self) -> int:
        """The pixels an image's height and width are multiples of."""
        return self.patch * self.merge


class Tower(BaseModel):
    """An encoder beside the language model: its stack, its parts and what an image costs."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, defer_build=True)

    name: TowerName = Field(description="vision or audio: its key in the components.")
    family: str = Field(
        description="The tower's model_type, whose module names its tensors "
        "(siglip_vision_model, clip_vision_model)."
    )
    prefix: str = Field(description="Where its tensors sit in the wrapper (model.vision_tower.).")
    stack: ModelConfig = Field(description="The encoder's layers, position table and norms.")
    parts: list[Part] = Field([], description="Tensors outside the stack, the projector's too.")
    tokens: PositiveInt = Field(description="Tokens through the stack per image.")
    output_tokens: PositiveInt = Field(description="Tokens per image in the language model.")
    image_size: list[PositiveInt] | None = Field(
        None, description="The input size it takes, [height, width] (fixed by its config)."
    )
    grid: Grid | None = Field(
        None,
        description="A tower that takes images of any size: how it cuts them (tokens, "
        "output_tokens and image_size are then the smallest image's, or the largest's "
        "where the grid has an upper bound).",
    )
    packed: bool | None = Field(
        None,
        description="The images run through the stack as one sequence.",
        exclude_if=lambda v: v is None,
    )
    pooling_macs: Count = Field(
        0,
        description="Multiply-adds per image of a matmul with no weights of its own after "
        "the stack (Gemma 4's pooler: an averaging matrix times the patches).",
        exclude_if=lambda v: v == 0,
    )

    @property
    def takes_images(self) -> bool:
        """Images run through it (a vision tower; an audio tower takes none)."""
        return self.name == "vision"

    @property
    def own_parts(self) -> list[Part]:
        """The parts that belong to the tower itself (not the projector)."""
        return [p for p in self.parts if not p.projector]

    @property
    def projector_parts(self) -> list[Part]:
        return [p for p in self.parts if p.projector]

    def units(self, per: PartUnit) -> int:
        """How many of `per` one image has: 1 image, its tokens, its merged tokens (a grid
        tower's at its image_size), its output tokens."""
        if per == "merged":
            if self.grid is None or self.image_size is None:
                return self.output_tokens
            return self.cut(*self.image_size)[1]
        return {"image": 1, "token": self.tokens, "output_token": self.output_tokens}[per]

    def part_macs(self, projector: bool) -> int:
        """Multiply-adds per image through the tower's own parts, or the projector's."""
        return sum(p.macs * self.units(p.per) for p in self.parts if p.projector == projector)

    def cut(self, height: int, width: int) -> tuple[int, int, int]:
        """(tokens through the stack, merged tokens, tokens given to the language model) of
        an image of height x width pixels cut by the grid: (H // patch) x (W // patch)
        tokens; (H // patch // merge) rows of (W // patch // merge) merged tokens, each row
        followed by row_tokens more in the language model."""
        g = self.grid
        assert g is not None
        h, w = height // g.patch, width // g.patch
        rows, cols = h // g.merge, w // g.merge
        return h * w, rows * cols, rows * (cols + g.row_tokens)

    def fits(self, height: int, width: int) -> bool:
        """Whether the tower takes images of height x width pixels as they are: a fixed
        size, a multiple of patch x merge, or (grid with up_to) at most up_to and at least
        one merged token."""
        g = self.grid
        if g is None:
            return self.image_size in (None, [height, width])
        if g.up_to is not None:
            top = g.up_to
            return height <= top[0] and width <= top[1] and self.cut(height, width)[1] > 0
        return not (height % g.multiple or width % g.multiple)

    def sized(self, height: int, width: int, what: str) -> Tower:
        """The tower for images of height x width pixels (`what`: the option that gave the
        size): a grid tower cuts them (`cut`); a tower of a fixed size takes that size only."""
        from ffn_calc.errors import UsageError
        from ffn_calc.i18n.translate import _

        g = self.grid
        if g is None:
            if self.image_size in (None, [height, width]):
                return self
            h, w = self.image_size
            raise UsageError(
                _("{what}: {family} takes images of {h}x{w} pixels only.").format(
                    what=what, family=self.family, h=h, w=w
                )
            )
        m = g.multiple
        if g.up_to is not None and not self.fits(height, width):
            h, w = g.up_to
            raise UsageError(
                _(
                    "--image-size {size}: the vision tower of {model} takes images from "
                    "{side}x{side} up to {h}x{w}."
                ).format(size=f"{height}x{width}", model=self.family, h=h, w=w, side=m)
            )
        if g.up_to is None and not self.fits(height, width):
            near = [max(m, round(x / m) * m) for x in (height, width)]
            raise UsageError(
                _(
                    "{what}: {family} takes images whose height and width are multiples of "
                    "{multiple} pixels (patch {patch} x merge {merge}), as its processor "
                    "resizes them: say {h}x{w}."
                ).format(
                    what=what, family=self.family, multiple=m, patch=g.patch, merge=g.merge,
                    h=near[0], w=near[1],
                )
            )  # fmt: skip
        if g.window == 0 and g.window_layers:
            raise UsageError(
                _(
                    "{what}: {family}'s windows are smaller than one merged token (window_size "
                    "below patch x merge pixels): transformers cannot run an image through it."
                ).format(what=what, family=self.family)
            )
        tokens, _merged, output = self.cut(height, width)
        return self.model_copy(
            update={"tokens": tokens, "output_tokens": output, "image_size": [height, width]}
        )

    def windows(self) -> list[int]:
        """The tokens of each window of one image, row by row (a grid tower with windows):
        rows and columns of merged tokens cut into runs of `window`, the last ragged."""
        g = self.grid
        assert g is not None and g.window and self.image_size is not None
        rows, cols = (x // g.multiple for x in self.image_size)
        runs = [[min(g.window, n - i) for i in range(0, n, g.window)] for n in (rows, cols)]
        return [r * c * g.merge * g.merge for r in runs[0] for c in runs[1]]


def conv_part(name: str, d: int, channels: int, patch: int, patches: int, bias: bool) -> list[Part]:
    """A patch embedding: Conv2d(C, d, kernel = stride = p) over `patches` patches, its weight
    [d, C, p, p] (FlopCounterMode: 2 x output elements x C x p x p) and bias [d]."""
    out = [Part(name=f"{name}.weight", group="embedding", shape=[d, channels, patch, patch],
                macs=patches * d * channels * patch * patch)]  # fmt: skip
    if bias:
        out.append(Part(name=f"{name}.bias", group="embedding", shape=[d]))
    return out


def linear_part(
    name: str, d_in: int, d_out: int, rows: int, group: PartGroup, bias: bool
) -> list[Part]:
    """An nn.Linear(d_in, d_out) applied to `rows` rows per image: weight [d_out, d_in], bias."""
    out = [Part(name=f"{name}.weight", group=group, shape=[d_out, d_in], macs=rows * d_in * d_out)]
    if bias:
        out.append(Part(name=f"{name}.bias", group=group, shape=[d_out]))
    return out


def norm_part(name: str, width: int, group: PartGroup, bias: bool) -> list[Part]:
    """A LayerNorm (weight and bias) or an RMSNorm (weight) over `width`."""
    out = [Part(name=f"{name}.weight", group=group, shape=[width])]
    if bias:
        out.append(Part(name=f"{name}.bias", group=group, shape=[width]))
    return out
