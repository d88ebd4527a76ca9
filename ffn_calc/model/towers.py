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
  Linear as rows x in x out; with `per`, the multiply-adds per patch or per merged token of a
  tower that takes images of any size);
- what one image is for the FLOPs: `tokens` through the stack (the patches, plus a class token
  for CLIP), `output_tokens` it gives the language model (after pooling or dropping the class
  token), and the input size the tower takes (`image_size`, fixed by its config).

A tower with `patch_size` set takes images of any size up to `image_size` (Pixtral: 2D
rotary positions, no table): an H x W image gives (H // p) x (W // p) patches through the
stack, merged `merge` x `merge` into (H // p // merge) x (W // p // merge) tokens, plus
`row_tokens` per row of merged tokens in the language model's sequence (Pixtral's
[IMG_BREAK] after each row, [IMG_END] after the last); `tokens` and `output_tokens` are those
of an image of `image_size` (the largest), and `at(size)` is the tower at another size.
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
# What a part's `macs` is per where it is not per image: a patch, or a merged token.
PartUnit = Literal["patch", "merged"]
TowerName = Literal["vision", "audio"]


class Part(BaseModel):
    """One parameter tensor outside a tower's layers and position table."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    name: str = Field(description="Its whole state_dict name (model.vision_tower....weight).")
    group: PartGroup = Field(description="The contract group it counts in.")
    shape: list[PositiveInt] = Field(description="Its shape, as the reference stores it.")
    macs: Count = Field(
        0,
        description="Multiply-adds one image costs through it, as FlopCounterMode counts "
        "them (a conv: output elements x C x p x p; a Linear: rows x in x out); 0 for a "
        "bias, a norm or a table.",
    )
    per: PartUnit | None = Field(
        None,
        description="macs per patch or per merged token (absent: per image).",
        exclude_if=lambda v: v is None,
    )

    @property
    def numel(self) -> int:
        return prod(self.shape)

    @property
    def projector(self) -> bool:
        return self.group == "projector"


class Tower(BaseModel):
    """An encoder beside the language model: its stack, its parts and what an image costs."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

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
    patch_size: PositiveInt | None = Field(
        None,
        description="Set when the tower takes images of any size up to image_size: the "
        "side of a patch.",
        exclude_if=lambda v: v is None,
    )
    merge: PositiveInt | None = Field(
        None,
        description="Patches merged per side into one token of the language model.",
        exclude_if=lambda v: v is None,
    )
    row_tokens: Count | None = Field(
        None,
        description="Tokens the language model gets per row of merged tokens.",
        exclude_if=lambda v: v is None,
    )
    packed: bool | None = Field(
        None,
        description="The images run through the stack as one sequence.",
        exclude_if=lambda v: v is None,
    )

    @property
    def own_parts(self) -> list[Part]:
        """The parts that belong to the tower itself (not the projector)."""
        return [p for p in self.parts if not p.projector]

    @property
    def projector_parts(self) -> list[Part]:
        return [p for p in self.parts if p.projector]

    def part_macs(self, projector: bool) -> int:
        """Multiply-adds per image through the tower's own parts, or the projector's."""
        return sum(p.macs * self.units(p.per) for p in self.parts if p.projector == projector)

    def grid(self, size: tuple[int, int] | list[int]) -> tuple[int, int, int]:
        """(patches, merged tokens, tokens in the language model) of an image of `size`
        for a tower that takes any size (patch_size set)."""
        assert self.patch_size is not None
        h, w = size[0] // self.patch_size, size[1] // self.patch_size
        m = self.merge or 1
        rows = h // m
        return h * w, rows * (w // m), rows * (w // m) + rows * (self.row_tokens or 0)

    def units(self, per: PartUnit | None) -> int:
        """How many of `per` one image has (1 for per image)."""
        if per is None:
            return 1
        assert self.image_size is not None
        patches, merged, _ = self.grid(self.image_size)
        return patches if per == "patch" else merged

    def at(self, size: tuple[int, int]) -> Tower:
        """The tower for images of `size` (itself where its config fixes the size)."""
        if self.patch_size is None:
            return self
        patches, _, output = self.grid(size)
        return self.model_copy(
            update={"tokens": patches, "output_tokens": output, "image_size": list(size)}
        )

    def sizes_ok(self, size: tuple[int, int]) -> bool:
        """Whether the tower takes images of `size`."""
        if self.patch_size is None:
            return self.image_size is None or list(size) == self.image_size
        assert self.image_size is not None
        top = self.image_size
        return self.grid(size)[1] > 0 and size[0] <= top[0] and size[1] <= top[1]


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
