"""The answer to `ffn-calc flops`: forward and training FLOPs per component, per layer and per token,
with the rules of thumb they are set against."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, ClassVar

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from ffn_calc.counts import flops as fl
from ffn_calc.counts import params as pm
from ffn_calc.counts.towers import wrapper_components
from ffn_calc.errors import UsageError
from ffn_calc.i18n.translate import N_, Text, _, say
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import Tower
from ffn_calc.reports.base import (
    KindResult,
    Number,
    Result,
    Stated,
    TermReport,
    english,
    exact,
    num,
    share,
)


class FlopLayer(KindResult):
    stack: str
    kind: str = ""
    count: int
    attention_projections: int
    attention_scores: int
    ffn: int
    total: int
    terms: list[TermReport]


class Approximation(Result):
    name: str
    formula: str
    value: int
    exact: int
    error: float = Field(description="(approximation - exact) / exact")


class TowerFlops(Result):
    """The images through one tower: its layers at its tokens per image, its parts' matmuls
    (the patch convolution), its projector's."""

    name: str
    images: int = Field(description="images through the tower, over the whole batch")
    tokens_per_image: int = Field(description="tokens through the tower's stack per image")
    output_tokens_per_image: int = Field(description="tokens each image gives the language model")
    image_size: list[int] | None
    flops: int = Field(description="the tower's: its layers and its own parts")
    projector_flops: int
    layers: list[FlopLayer]


class FlopsReport(Stated):
    view: ClassVar[str] = "ffn_calc.views.flops:flops_tables"

    model: str
    batch: int
    seq_len: int
    target_len: int | None
    unit: str
    causal: bool
    lm_head_counted: bool
    tokens: int
    forward_flops: int
    training_flops: int
    flops_per_token: Number = Field(description="forward / tokens: an int when exact")
    flops_per_token_exact: str = Field(description="forward / tokens as an exact fraction")
    components: dict[str, int]
    shares: dict[str, float]
    layers: list[FlopLayer]
    approximations: list[Approximation]
    convention: str
    images: int | None = Field(None, description="--images: images per sequence (else no key)")
    image_tokens: int | None = Field(
        None, description="--images: the tokens they add to each sequence of the language model"
    )
    towers: list[TowerFlops] | None = Field(None, description="--images: each tower's FLOPs")

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> Any:
        out = handler(self)
        if isinstance(out, dict) and out.get("images") is None:  # no --images: no keys
            for key in ("images", "image_tokens", "towers"):
                out.pop(key, None)
        return out


# The sentences a FlopsReport's convention is made of (JSON: English, one string; the tables
# show each in the reader's language).
MACS_NOTE = N_("Unit: multiply-adds (MACs) = FLOPs / 2.")


CAUSAL_NOTE = N_("--causal: decoder self-attention scores over the S(S+1)/2 visible pairs.")


NO_LM_HEAD_NOTE = N_("--no-lm-head: the output projection is left out.")


def conventions(
    sentences: tuple[str, ...], unit: str, lm_head: bool, causal: bool = False
) -> list[Text]:
    """A convention's sentences (msgids) with the notes of the options given: MACs before
    them, --causal and --no-lm-head after them."""
    out = [say(MACS_NOTE)] if unit == "macs" else []
    out += [say(s) for s in sentences]
    if causal:
        out.append(say(CAUSAL_NOTE))
    if not lm_head:
        out.append(say(NO_LM_HEAD_NOTE))
    return out


def check_workload(cfg: ModelConfig, w: fl.Workload) -> None:
    """Refuse the workload options that would change nothing for this model."""
    if w.target_len is not None and cfg.architecture != "encoder-decoder":
        raise UsageError(
            _("--target-len applies to encoder-decoder models; {model} is {architecture}.").format(
                model=cfg.name, architecture=cfg.architecture
            )
        )
    if w.causal and not cfg.has_decoder:
        raise UsageError(
            _(
                "--causal applies to decoder self-attention; {model} is encoder-only: its "
                "attention sees every token."
            ).format(model=cfg.name)
        )
    if not w.lm_head and not cfg.has_lm_head:
        raise UsageError(
            _("--no-lm-head: {model} has no LM head to leave out.").format(model=cfg.name)
        )


IMAGES_NOTE = N_(
    "--images: each image runs the {tower} over its {tokens} tokens (batch = images x batch), "
    "its patch convolution (2 x output elements x C x p x p) and the projector's matmuls; its "
    "{out} tokens join the language model's sequence (S = {text} text + {added} image tokens)."
)

PACKED_NOTE = N_(
    "The {tower} runs the images of a forward as one sequence ({tokens} tokens each, "
    "attention over all of them, masked per image), so its attention scores grow as "
    "(images x tokens)^2; the images' tokens in the language model include one "
    "[IMG_BREAK] or [IMG_END] per row of merged patches where the processor adds them."
)


WINDOWS_NOTE = N_(
    "The vision tower's chunked layers attend within windows of {window} x {window} merged "
    "tokens ({windows} windows an image, the last of a row or column ragged): their QK^T and "
    "AV run over each window's square."
)


def check_images(cfg: ModelConfig, images: int, image_size: tuple[int, int] | None) -> None:
    """--images needs a vision tower; --image-size must be one the tower takes."""
    towers = [t for t in cfg.towers if t.name == "vision"]
    if not towers and cfg.not_counted:  # a vision tower ffn-calc does not count (Gemma 3n's)
        raise UsageError(
            _(
                "--images {images}: {model}'s {part} is not counted (neither its parameters "
                "nor its FLOPs), so ffn-calc runs no images through it; its text FLOPs are "
                "counted without --images."
            ).format(images=images, model=cfg.name, part=", ".join(u.name for u in cfg.not_counted))
        )
    if not towers:
        raise UsageError(
            _("--images {images}: {model} has no vision tower (it reads text only).").format(
                images=images, model=cfg.name
            )
        )
    if image_size is None:
        grid = next((t.grid for t in towers if t.grid is not None and t.grid.up_to is None), None)
        if grid is not None:  # no size of its own: the user says which
            raise UsageError(
                _(
                    "--images {images}: the vision tower of {model} takes images of any size "
                    "(multiples of {multiple} pixels a side): give --image-size HxW."
                ).format(images=images, model=cfg.name, multiple=grid.multiple)
            )
        return
    for t in towers:
        g = t.grid
        if g is not None and g.up_to is not None and not t.fits(*image_size):
            h, w = g.up_to
            raise UsageError(
                _(
                    "--image-size {size}: the vision tower of {model} takes images from "
                    "{side}x{side} up to {h}x{w}."
                ).format(
                    size=f"{image_size[0]}x{image_size[1]}", model=cfg.name, h=h, w=w,
                    side=g.multiple,
                )
            )  # fmt: skip
        if t.grid is None and t.image_size is not None and list(image_size) != t.image_size:
            h, w = t.image_size
            raise UsageError(
                _(
                    "--image-size {size}: the vision tower of {model} takes {h}x{w} images "
                    "only (its config fixes the size and the position table)."
                ).format(size=f"{image_size[0]}x{image_size[1]}", model=cfg.name, h=h, w=w)
            )


def flops_report(
    cfg: ModelConfig,
    w: fl.Workload,
    unit: str = "flops",
    images: int = 0,
    image_size: tuple[int, int] | None = None,
) -> FlopsReport:
    """FLOPs of a forward pass; `images` images per sequence through the towers (their tokens
    join the language model's sequence)."""
    from dataclasses import replace

    check_workload(cfg, w)
    text_len = w.seq_len
    if images:
        from ffn_calc.counts import towers as tw

        check_images(cfg, images, image_size)
        if image_size is not None:  # a tower of any size cut to this one
            h, wd = image_size
            cfg = tw.sized(cfg, h, wd, f"--image-size {h}x{wd}")
        w = replace(w, seq_len=w.seq_len + tw.image_tokens(cfg, images))
    fl.check_lengths(cfg, w)
    div = 2 if unit == "macs" else 1  # every term carries the factor 2: exact
    comps = {k: v // div for k, v in fl.flop_components(cfg, w).items()}
    lm_forward = sum(comps.values())
    tower_reports: list[TowerFlops] | None = None
    if images:
        comps |= {k: v // div for k, v in tw.image_flops(cfg, images * w.batch).items()}
        tower_reports = [_tower_flops(t, images * w.batch, div) for t in tw.image_towers(cfg)]
    fwd = sum(comps.values())
    layers = _flop_layers(cfg, w, div)
    t = w.target_len if w.target_len is not None else w.seq_len
    tokens = w.batch * (w.seq_len + t if cfg.architecture == "encoder-decoder" else w.seq_len)
    stated = conventions((fl.CONVENTION, *fl.indexer_conventions(cfg)), unit, w.lm_head, w.causal)
    if images:
        added = w.seq_len - text_len
        stated += [
            say(IMAGES_NOTE, tower=say(N_("vision tower")), tokens=f"{x.tokens:,}",
                out=f"{x.output_tokens:,}", text=f"{text_len:,}", added=f"{added:,}")
            for x in tw.image_towers(cfg)
        ]  # fmt: skip
        stated += [
            say(WINDOWS_NOTE, window=f"{x.grid.window:,}", windows=f"{len(x.windows()):,}")
            for x in tw.image_towers(cfg)
            if x.grid is not None and x.grid.window and x.grid.window_layers
        ]
        stated += [
            say(PACKED_NOTE, tower=say(N_("vision tower")), tokens=f"{x.tokens:,}")
            for x in tw.image_towers(cfg)
            if x.packed
        ]
    return FlopsReport(
        model=cfg.name, batch=w.batch, seq_len=w.seq_len,
        target_len=w.target_len if cfg.architecture == "encoder-decoder" else None,
        unit=unit, causal=w.causal, lm_head_counted="lm_head" in comps and w.lm_head and cfg.has_lm_head,
        tokens=tokens, forward_flops=fwd, training_flops=3 * fwd,
        flops_per_token=num(Fraction(fwd, tokens)), flops_per_token_exact=exact(Fraction(fwd, tokens)),
        components=comps,
        shares={k: share(v, fwd) for k, v in comps.items()},
        layers=layers, approximations=_approximations(cfg, w, lm_forward * div, div, tokens),
        convention=english(stated),
        images=images or None, image_tokens=(w.seq_len - text_len) if images else None,
        towers=tower_reports,
    ).stated(stated)  # fmt: skip


def _flop_layers(
    cfg: ModelConfig,
    w: fl.Workload,
    div: int,
    stack: str | None = None,
    given: list[fl.LayerFlops] | None = None,
) -> list[FlopLayer]:
    """The layers' FLOPs by kind (`given`: already counted, a tower's)."""
    return [
        FlopLayer(
            stack=stack or layer.stack, kind=str(layer.kind), count=layer.count,
            attention_projections=layer.group("attention_projections") // div,
            attention_scores=layer.group("attention_scores") // div,
            ffn=layer.group("ffn") // div, total=layer.total // div,
            terms=[TermReport.of(t, macs=div == 2) for t in layer.terms],
        ).with_kind(layer.kind)
        for layer in (fl.layer_flops(cfg, w) if given is None else given)
    ]  # fmt: skip


def _tower_flops(t: Tower, images: int, div: int) -> TowerFlops:
    from ffn_calc.counts import towers as tw

    counts = tw.tower_flops(t, images)
    return TowerFlops(
        name=t.name, images=images, tokens_per_image=t.tokens,
        output_tokens_per_image=t.output_tokens, image_size=t.image_size,
        flops=counts[t.name] // div, projector_flops=counts["projector"] // div,
        layers=_flop_layers(t.stack, tw.stack_workload(t, images), div, t.name,
                            tw.tower_layers(t, images)),
    )  # fmt: skip


def _approximations(
    cfg: ModelConfig, w: fl.Workload, exact_flops: int, div: int, tokens: int
) -> list[Approximation]:
    """Rules of thumb next to the exact figure (N: active parameters for MoE)."""
    idle = pm.idle_params(cfg)
    towers = sum(wrapper_components(cfg).values())  # the language model's rules: no towers
    n = pm.total_params(cfg) - idle - towers
    n_ne = pm.non_embedding_params(cfg) - idle - towers
    layers = cfg.encoder_layers + cfg.decoder_layers
    d, s = cfg.d_model, w.seq_len
    dec = cfg.stack("decoder")  # an encoder-decoder's decoder: its own heads
    heads = cfg.encoder_layers * cfg.q_dim + cfg.decoder_layers * dec.q_dim  # L x H x Q
    rows = [
        (
            N_("2N x tokens (forward)"),
            N_("2 x N x tokens, N = all parameters"),
            2 * n * tokens,
            exact_flops,
        ),
        (N_("6N x tokens (training)"), N_("6 x N x tokens"), 6 * n * tokens, 3 * exact_flops),
        (
            N_("Kaplan et al. 2020 (forward)"),
            N_("(2 N_ne + 2 n_layer n_ctx d_model) x tokens, N_ne = non-embedding parameters"),
            (2 * n_ne + 2 * layers * s * d) * tokens,
            exact_flops,
        ),
        (
            N_("PaLM, Chowdhery et al. 2022 (training)"),
            N_("(6 N_ne + 12 L H Q T) x tokens, H heads, Q head_dim, T = S"),
            (6 * n_ne + 12 * heads * s) * tokens,
            3 * exact_flops,
        ),
    ]
    return [
        Approximation(
            name=name, formula=formula, value=value // div, exact=ref // div,
            error=share(value - ref, ref),
        )
        for name, formula, value, ref in rows
    ]  # fmt: skip
