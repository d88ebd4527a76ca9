"""Gemma 3n (`Gemma3nForConditionalGeneration`): the Gemma 3n language model, an audio tower,
a vision tower from timm, and an embedder per tower.

text_config is a Gemma3nTextConfig (gemma3n_text, its defaults where absent); audio_config a
gemma3n_audio config (the Conformer encoder, counted as a tower); vision_config a
gemma3n_vision config, whose tower is a timm model (`architecture`, mobilenetv5_300m_enc by
default) that transformers builds through timm: ffn-calc does not count it, neither its
parameters nor its FLOPs (`not_counted`; the totals leave it out and say so), and takes no
images for Gemma 3n. Each tower's output goes through a Gemma3nMultimodalEmbedder, counted as
a projector: embedding [vocab_size, hidden], hard_embedding_norm and soft_embedding_norm [hidden],
embedding_projection [text hidden_size, hidden] (embedding_post_projection_norm has no
weight); hidden and vocab_size are the tower config's (vision: 2048 and 128; audio: 1536 and
128 by default). The head is tied when tie_word_embeddings (default true) at the top level.

Names: the language model under `model.language_model.`, the audio tower under
`model.audio_tower.`, the embedders `model.embed_vision.` and `model.embed_audio.`, the head
at the top level (`lm_head`).
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families import gemma3n_text
from ffn_calc.families.base import Reader, check_padding, merge_defaults, sub_reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.families.wrappers import _model_type, read_tower, wrapped
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import Part, Uncounted

ARCHITECTURE = "Gemma3nForConditionalGeneration"

# Gemma3nConfig reads no size of its own at the top level but the soft tokens per clip.
DEFAULTS: dict[str, int | None] = {"audio_soft_tokens_per_image": 188}
# Gemma3nVisionConfig's defaults for the sizes its embedder reads.
VISION_DEFAULTS: dict[str, int | None] = {"hidden_size": 2048, "vocab_size": 128}

LANGUAGE_MODEL = "model.language_model."
AUDIO_TOWER = "model.audio_tower."
VISION_TOWER = "model.vision_tower."


def embedder(prefix: str, hidden: int, vocab: int, text: int) -> list[Part]:
    """A Gemma3nMultimodalEmbedder under `prefix`, as projector parts."""
    return [
        Part(name=f"{prefix}embedding.weight", group="projector", shape=[vocab, hidden]),
        Part(name=f"{prefix}hard_embedding_norm.weight", group="projector", shape=[hidden]),
        Part(name=f"{prefix}soft_embedding_norm.weight", group="projector", shape=[hidden]),
        Part(name=f"{prefix}embedding_projection.weight", group="projector",
             shape=[text, hidden]),
    ]  # fmt: skip


def fields(r: Reader) -> dict[str, Any]:
    sub = sub_reader(r, "text_config", gemma3n_text.DEFAULTS)
    text = gemma3n_text.fields(sub, LANGUAGE_MODEL)
    check_padding(sub, text["vocab_size"], gemma3n_text.PAD_DEFAULT)
    merge_defaults(r, sub, "text_config")
    d = text["d_model"]

    audio = read_tower(r, "audio_config", "gemma3n_audio", AUDIO_TOWER)
    audio_cfg = sub_reader(r, "audio_config", {"vocab_size": 128})
    da = audio["stack"]["d_model"]
    audio["parts"] = [
        *audio["parts"],
        *embedder("model.embed_audio.", da, audio_cfg.req("vocab_size"), d),
    ]
    # The tokens a clip gives the language model; through the stack a clip runs as many
    # frames as its length gives (no fixed count: ffn-calc runs no audio through it).
    audio["tokens"] = audio["output_tokens"] = r.req("audio_soft_tokens_per_image")

    _model_type(r, "vision_config", "gemma3n_vision", {"gemma3n_vision": "gemma3n_vision"})
    vision = sub_reader(r, "vision_config", VISION_DEFAULTS)
    timm = vision.string("architecture", "mobilenetv5_300m_enc")
    projector = embedder("model.embed_vision.", vision.req("hidden_size"),
                         vision.req("vocab_size"), d)  # fmt: skip
    merge_defaults(r, vision, "vision_config")
    text.update(
        family="gemma3n",
        text_family="gemma3n_text",
        tie_embeddings=r.boolean("tie_word_embeddings", True),
        towers=[audio],
        model_parts=[*text["model_parts"], *projector],
        not_counted=[Uncounted(name=f"vision tower (timm {timm})", prefix=VISION_TOWER)],
        note=(
            f"The vision tower (timm {timm}, built through timm) is not counted: neither its "
            "parameters nor its FLOPs; total_params is every other parameter of "
            f"{ARCHITECTURE}, its embedder (model.embed_vision) included."
        ),
    )
    return text


def naming(cfg: ModelConfig) -> Naming:
    return wrapped(gemma3n_text.naming(cfg), LANGUAGE_MODEL)
