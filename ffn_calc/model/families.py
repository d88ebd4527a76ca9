"""The model families ffn-calc knows, by name: data only, so that ModelConfig can check its
`family` field without importing a family module (ffn_calc.families imports the module of
the one asked for)."""

from __future__ import annotations

# model_type (and ModelConfig.family) -> its module in ffn_calc.families.
REGISTRY: dict[str, str] = {
    "gpt2": "gpt2",
    "llama": "llama",
    "mistral": "mistral",
    "mixtral": "mixtral",
    "qwen2": "qwen2",
    "bert": "bert",
    "gemma": "gemma",
    "gemma2": "gemma2",
    "gemma3_text": "gemma3_text",
    "qwen3": "qwen3",
    "olmo2": "olmo2",
    "phi3": "phi3",
    "starcoder2": "starcoder2",
    "granite": "granite",
    "cohere": "cohere",
    "gpt_neox": "gpt_neox",
    "falcon": "falcon",
    "gpt_bigcode": "gpt_bigcode",
    "gptj": "gptj",
    "opt": "opt",
    "roberta": "roberta",
    "distilbert": "distilbert",
    "albert": "albert",
    "t5": "t5",
    "mt5": "mt5",
    "umt5": "umt5",
    "bart": "bart",
    "whisper": "whisper",
    "deepseek_v3": "deepseek_v3",
    "deepseek_v2": "deepseek_v2",
    "deepseek_v4": "deepseek_v4",
    "deepseek_v32": "deepseek_v32",
    "glm_moe_dsa": "glm_moe_dsa",
    "qwen2_moe": "qwen2_moe",
    "qwen3_moe": "qwen3_moe",
    "olmoe": "olmoe",
    "gpt_oss": "gpt_oss",
    "llama4_text": "llama4_text",
    "glm4_moe": "glm4_moe",
    "ernie4_5_moe": "ernie4_5_moe",
    "xlm-roberta": "xlm_roberta",
    "modernbert": "modernbert",
    "deberta-v2": "deberta_v2",
    "smollm3": "smollm3",
    "olmo3": "olmo3",
    "seed_oss": "seed_oss",
    "exaone4": "exaone4",
    "cohere2": "cohere2",
    "minimax_m2": "minimax_m2",
    "ministral3": "ministral3",
    "ernie4_5": "ernie4_5",
    "hunyuan_v1_dense": "hunyuan_v1_dense",
    "hunyuan_v1_moe": "hunyuan_v1_moe",
    "gemma3": "gemma3",
    "llava": "llava",
    "qwen2_5_vl": "qwen2_5_vl",
    "qwen3_vl": "qwen3_vl",
    "qwen3_vl_moe": "qwen3_vl_moe",
    "mamba2": "mamba2",
    "nemotron_h": "nemotron_h",
    "granitemoehybrid": "granitemoehybrid",
    "falcon_h1": "falcon_h1",
    "mistral3": "mistral3",
    "idefics3": "idefics3",
    "smolvlm": "smolvlm",
    "llama4": "llama4",
    "qwen3_next": "qwen3_next",
    "kimi_linear": "kimi_linear",
    "gemma4_text": "gemma4_text",
    "gemma4": "gemma4",
    "kimi_k25": "kimi_k25",
}
# The towers of multimodal wrappers, by the model_type of their vision_config (or
# audio_config): each module reads one into a Tower and names its tensors.
TOWER_FAMILIES: dict[str, str] = {
    "siglip_vision_model": "siglip_vision_model",
    "clip_vision_model": "clip_vision_model",
    "qwen2_5_vl_vision": "qwen2_5_vl_vision",
    "qwen3_vl_vision": "qwen3_vl_vision",
    "pixtral": "pixtral",
    "idefics3_vision": "idefics3_vision",
    "smolvlm_vision": "idefics3_vision",
    "llama4_vision_model": "llama4_vision_model",
    "gemma4_vision": "gemma4_vision",
    "gemma4_audio": "gemma4_audio",
    "kimi_k25_vision": "kimi_k25_vision",
}
# Families with tensor names but no config.json: torch.nn.Transformer; "custom" has neither.
OTHER_FAMILIES: dict[str, str | None] = {"transformer": "transformer", "custom": None}


def family_names() -> list[str]:
    """Every value ModelConfig.family may take."""
    return sorted([*REGISTRY, *TOWER_FAMILIES, *OTHER_FAMILIES])
