"""Idefics3 (`Idefics3ForConditionalGeneration`): a Llama language model, a SigLIP-like vision
tower (idefics3_vision) and a connector.

text_config is read by its own model_type's module (absent: llama with LlamaConfig's
defaults); vision_config by the idefics3_vision tower module (absent: Idefics3VisionConfig's
defaults). The connector (model.connector) pixel-shuffles each image's (image_size //
patch_size)^2 patches by scale_factor (default 2): every scale_factor x scale_factor block
becomes one token of scale_factor^2 x d_vision features (a reshape, no FLOPs), then
modality_projection.proj [d_text, d_vision x scale_factor^2] without a bias. Each image (a
tile of image_size pixels) gives the language model patches / scale_factor^2 image tokens;
the tokens the processor writes around them (<fake_token_around_image>, <global-img>,
<row_r_col_c>) are the language model's text tokens.

The head is the wrapper's own Linear [vocab, d_text] without a bias, tied when the top-level
tie_word_embeddings is true (default false). Names: the language model under
`model.text_model.`, the tower under `model.vision_model.`, the head at the top.
SmolVLM (`SmolVLMForConditionalGeneration`, module smolvlm) is the same model.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families.base import Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.families.wrappers import read_text, read_tower, wrapped
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import linear_part

ARCHITECTURE = "Idefics3ForConditionalGeneration"

DEFAULTS: dict[str, int | None] = {"scale_factor": 2}

LANGUAGE_MODEL = "model.text_model."
VISION_TOWER = "model.vision_model."
CONNECTOR = "model.connector."


def read(r: Reader, family: str, vision: str) -> dict[str, Any]:
    """The fields of an Idefics3-style wrapper `family` whose absent vision_config is a
    `vision` (its model_type)."""
    text, kind = read_text(r, "llama")
    tower = read_tower(r, "vision_config", vision, VISION_TOWER, {"model_type": vision})
    s = r.req("scale_factor")
    # Idefics3Model.image_seq_len: int(patches / scale_factor^2). Where scale_factor does not
    # divide the patches' side the model still builds (its parameters count) but no image runs.
    rows = max(tower["tokens"] // (s * s), 1)
    dv, dt = tower["stack"]["d_model"], text["d_model"]
    tower["parts"] = [
        *tower["parts"],
        *linear_part(f"{CONNECTOR}modality_projection.proj", dv * s * s, dt, rows, "projector",
                     bias=False),
    ]  # fmt: skip
    tower["output_tokens"] = rows
    text.update(
        family=family,
        text_family=kind,
        tie_embeddings=r.boolean("tie_word_embeddings", False),
        lm_head_bias=False,
        towers=[tower],
    )
    return text


def fields(r: Reader) -> dict[str, Any]:
    return read(r, "idefics3", "idefics3_vision")


def naming(cfg: ModelConfig) -> Naming:
    from ffn_calc.families import family_module

    module = family_module(cfg.text_family or "llama")  # the language model's own names
    assert module is not None
    return wrapped(module.naming(cfg), LANGUAGE_MODEL)
