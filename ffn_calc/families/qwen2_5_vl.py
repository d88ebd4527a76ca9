"""Qwen2.5-VL (`Qwen2_5_VLForConditionalGeneration`): a Qwen2 language model beside a vision
tower with windowed attention and a patch merger.

The language model (`model.language_model.`, Qwen2_5_VLTextConfig): Qwen2's layout, biases on
Q, K and V (none on O), two RMSNorms per layer, SwiGLU without biases, head_dim hidden_size /
heads (the class refuses a hidden_size that is no multiple of them); sliding-window layers as
Qwen2 (use_sliding_window, from max_window_layers, default 80; a mask and a smaller cache, no
parameters). The Hub's config.json files are flat (the text fields at the top level, beside
`vision_config`), as the class reads them when `text_config` is absent; with `text_config`
given, its fields are the language model's and the top level's are not read. The head is
`lm_head`, tied when `tie_word_embeddings` is true at the top level or in text_config.

The vision tower (`model.visual.`, Qwen2_5_VLVisionConfig): a Conv3d patch embedding without
bias ([d, C, temporal_patch_size, p, p]; an image is its patches repeated over
temporal_patch_size frames), `depth` blocks of two RMSNorms (weight only), a fused `attn.qkv`
with bias, `attn.proj` with bias and a gated MLP with biases (gate_proj, up_proj, down_proj,
`hidden_act`), 2-D rotary positions (no parameters), then the merger: an RMSNorm `ln_q` over
d, and over each spatial_merge_size^2 patches concatenated (m^2 d) `mlp.0` [m^2 d, m^2 d] and
`mlp.2` [out_hidden_size, m^2 d], both with biases. Blocks in `fullatt_block_indexes` attend
over the whole image; the others within windows of window_size pixels (window_size / patch /
merge merged patches a side; ragged at the image's right and bottom edges).

No parameters: mrope sections, tokens_per_second, the special token ids.
"""

from __future__ import annotations

from typing import Any

from ffn_calc.families import qwen2_5_vl_vision, qwen_vl
from ffn_calc.families.base import Reader, check_padding, decoder, qwen_windows
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "Qwen2_5_VLForConditionalGeneration"

# transformers 5.24.0 Qwen2_5_VLTextConfig's defaults for the sizes config.json may leave out.
TEXT_DEFAULTS: dict[str, int | None] = {
    "num_hidden_layers": 80,
    "hidden_size": 8192,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "intermediate_size": 29568,
    "vocab_size": 152064,
}
# The wrapper reads no size of its own (the flat text fields: TEXT_DEFAULTS).
DEFAULTS: dict[str, int | None] = {}


def text_fields(r: Reader) -> dict[str, Any]:
    """The language model's fields, read from text_config or, without one, the top level."""
    flat = r.data.get("text_config") is None
    t = qwen_vl.text_reader(r, TEXT_DEFAULTS, flat=flat)
    out = decoder(
        t,
        "qwen2_5_vl",
        **qwen_windows(t, first_default=80),
        attention_bias=True,
        attention_out_bias=False,
        head_dim=None,
        tie_embeddings=r.boolean("tie_word_embeddings", False)
        or (not flat and t.boolean("tie_word_embeddings", False)),
    )
    qwen_vl.check_head_split(t, out["d_model"], out["n_heads"])
    check_padding(t, out["vocab_size"], None)
    qwen_vl.note_defaults(r, t)
    return out


def fields(r: Reader) -> dict[str, Any]:
    out = text_fields(r)
    out["towers"] = [qwen_vl.vision_tower(r, qwen2_5_vl_vision)]
    return out


def naming(cfg: ModelConfig) -> Naming:
    return qwen_vl.LEGACY_NAMING
