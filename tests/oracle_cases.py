"""The differential (oracle) cases of every family, as data: one table, read by one harness.

No torch here: tests/test_families_covered.py reads this table without the `oracle` extra.

- `ORACLE`: each family the differential tests build, with the transformers configuration and
  model classes the counts equal, the module that draws its random tiny configs and checks a
  case (`configs(family)`, `check_case(data, batch, s, t, tmp)`), the fields every tiny
  config.json of the family holds, and how many random configs hypothesis draws.
- `EXPLICIT`: each family's rarest variants, always run: label -> the config.json fields (a
  `model_type`), or, for the families whose oracle builds from ffn-calc's own model, the
  ModelConfig fields (a `family`).
- `case(label)`: the whole config of one explicit case, as the check receives it.

tests/test_oracle_cases.py runs every random draw and every explicit case through its
family's `check_case`: parameters by tensor (`parameters()`, `named_parameters()`), forward
FLOPs (FlopCounterMode), for decoders the cache after a prefill, one decode step and
generate(), and the checkpoint `save_pretrained` writes (`ffn-calc verify`).

Adding a family: its row in ORACLE, at least one EXPLICIT case, and a golden case in
tests/data (tests/test_families_covered.py fails naming what is missing).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Cases = dict[str, dict[str, Any]]

# The longest random forward pass (RoBERTa's positions start after its padding index, so its
# tiny configs hold MAX_S + 2 positions) and the longest encoder-decoder target.
MAX_S = 9
MAX_T = 9
IDS: dict[str, Any] = {"bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None}
CAUSAL: dict[str, Any] = {**IDS, "max_position_embeddings": 64}


@dataclass(frozen=True)
class Oracle:
    """One family's differential harness. `config`, `model`: transformers class names
    (`model` alone for a torch module); `module`: the test module with `configs` and
    `check_case`; `ids`: fields every explicit config.json gets unless it sets them;
    `examples`: random configs drawn per run."""

    config: str | None
    model: str
    module: str
    ids: dict[str, Any] = field(default_factory=dict)
    examples: int = 10


_TORCH = "test_torch_oracle"
_DENSE = "test_oracle_gemma_qwen_olmo"
_PHI = "test_oracle_phi_starcoder_granite_cohere"
_NEOX = "test_oracle_neox_falcon_bigcode_gptj_opt"
_MLM = "test_oracle_masked_lm"
_ENCDEC = "test_oracle_encoder_decoder"
_DEEPSEEK = "test_oracle_moe_deepseek"
_GLM = "test_oracle_moe_glm_ernie"
_OSS = "test_oracle_moe_gptoss_llama4"
_G4K = "test_oracle_gemma4_kimi"
_QMOE = "test_oracle_moe_qwen_olmoe"
_V4 = "test_oracle_deepseek_v4"
_SPARSE = "test_oracle_sparse_attention"
_WHISPER_MT5 = "test_oracle_whisper_mt5"
_ENC25 = "test_oracle_encoders_2025"
_DEC25 = "test_oracle_decoders_2025"
_2025 = "test_oracle_decoders_moe_2025"
_QVL = "test_oracle_qwen_vl"
_MM = "test_oracle_multimodal"
_MAMBA = "test_oracle_hybrid_mamba"
_MM2 = "test_oracle_multimodal_2"
_LINEAR = "test_oracle_hybrid_linear"
_G3N = "test_oracle_gemma3n"
_CONV_SCAN = "test_oracle_hybrid_conv_scan"
_QWEN3_5 = "test_oracle_qwen3_5"

ORACLE: dict[str, Oracle] = {
    # Built from ffn-calc's ModelConfig (tests/test_torch_oracle.py hf_config).
    "gpt2": Oracle("GPT2Config", "GPT2LMHeadModel", _TORCH, examples=30),
    "llama": Oracle("LlamaConfig", "LlamaForCausalLM", _TORCH, examples=30),
    "mistral": Oracle("MistralConfig", "MistralForCausalLM", _TORCH, examples=30),
    "qwen2": Oracle("Qwen2Config", "Qwen2ForCausalLM", _TORCH, examples=30),
    "mixtral": Oracle("MixtralConfig", "MixtralForCausalLM", _TORCH, examples=30),
    "bert": Oracle("BertConfig", "BertModel", _TORCH, examples=30),
    "transformer": Oracle(None, "torch.nn.Transformer", _TORCH, examples=30),
    # Built from a config.json by the class in `architectures`, read by `--hf-config`.
    "gemma": Oracle("GemmaConfig", "GemmaForCausalLM", _DENSE, CAUSAL),
    "gemma2": Oracle("Gemma2Config", "Gemma2ForCausalLM", _DENSE, CAUSAL),
    "gemma3_text": Oracle("Gemma3TextConfig", "Gemma3ForCausalLM", _DENSE, CAUSAL),
    "qwen3": Oracle("Qwen3Config", "Qwen3ForCausalLM", _DENSE, CAUSAL),
    "olmo2": Oracle("Olmo2Config", "Olmo2ForCausalLM", _DENSE, CAUSAL),
    "phi3": Oracle("Phi3Config", "Phi3ForCausalLM", _PHI, CAUSAL),
    "starcoder2": Oracle("Starcoder2Config", "Starcoder2ForCausalLM", _PHI, CAUSAL),
    "granite": Oracle("GraniteConfig", "GraniteForCausalLM", _PHI, CAUSAL),
    "cohere": Oracle("CohereConfig", "CohereForCausalLM", _PHI, CAUSAL),
    "gpt_neox": Oracle("GPTNeoXConfig", "GPTNeoXForCausalLM", _NEOX, IDS),
    "falcon": Oracle("FalconConfig", "FalconForCausalLM", _NEOX, IDS),
    "gpt_bigcode": Oracle("GPTBigCodeConfig", "GPTBigCodeForCausalLM", _NEOX, IDS),
    "gptj": Oracle("GPTJConfig", "GPTJForCausalLM", _NEOX, IDS),
    "opt": Oracle("OPTConfig", "OPTForCausalLM", _NEOX, IDS),
    "roberta": Oracle("RobertaConfig", "RobertaForMaskedLM", _MLM),
    "distilbert": Oracle("DistilBertConfig", "DistilBertForMaskedLM", _MLM),
    "albert": Oracle("AlbertConfig", "AlbertForMaskedLM", _MLM),
    "t5": Oracle("T5Config", "T5ForConditionalGeneration", _ENCDEC),
    "bart": Oracle("BartConfig", "BartForConditionalGeneration", _ENCDEC),
    "mt5": Oracle("MT5Config", "MT5ForConditionalGeneration", _WHISPER_MT5),
    "umt5": Oracle("UMT5Config", "UMT5ForConditionalGeneration", _WHISPER_MT5),
    "whisper": Oracle("WhisperConfig", "WhisperForConditionalGeneration", _WHISPER_MT5),
    "deepseek_v3": Oracle("DeepseekV3Config", "DeepseekV3ForCausalLM", _DEEPSEEK),
    "deepseek_v2": Oracle("DeepseekV2Config", "DeepseekV2ForCausalLM", _DEEPSEEK),
    "deepseek_v4": Oracle("DeepseekV4Config", "DeepseekV4ForCausalLM", _V4, examples=6),
    "glm4_moe": Oracle("Glm4MoeConfig", "Glm4MoeForCausalLM", _GLM, CAUSAL),
    "ernie4_5_moe": Oracle("Ernie4_5_MoeConfig", "Ernie4_5_MoeForCausalLM", _GLM, CAUSAL),
    "gpt_oss": Oracle("GptOssConfig", "GptOssForCausalLM", _OSS, CAUSAL),
    "llama4_text": Oracle("Llama4TextConfig", "Llama4ForCausalLM", _OSS, CAUSAL),
    "qwen2_moe": Oracle("Qwen2MoeConfig", "Qwen2MoeForCausalLM", _QMOE, CAUSAL),
    "qwen3_moe": Oracle("Qwen3MoeConfig", "Qwen3MoeForCausalLM", _QMOE, CAUSAL),
    "olmoe": Oracle("OlmoeConfig", "OlmoeForCausalLM", _QMOE, CAUSAL),
    "deepseek_v32": Oracle("DeepseekV32Config", "DeepseekV32ForCausalLM", _SPARSE),
    "glm_moe_dsa": Oracle("GlmMoeDsaConfig", "GlmMoeDsaForCausalLM", _SPARSE),
    "xlm-roberta": Oracle("XLMRobertaConfig", "XLMRobertaForMaskedLM", _ENC25),
    "modernbert": Oracle("ModernBertConfig", "ModernBertForMaskedLM", _ENC25),
    "deberta-v2": Oracle("DebertaV2Config", "DebertaV2ForMaskedLM", _ENC25, examples=20),
    "smollm3": Oracle("SmolLM3Config", "SmolLM3ForCausalLM", _DEC25, CAUSAL),
    "olmo3": Oracle("Olmo3Config", "Olmo3ForCausalLM", _DEC25, CAUSAL),
    "seed_oss": Oracle("SeedOssConfig", "SeedOssForCausalLM", _DEC25, CAUSAL),
    "exaone4": Oracle("Exaone4Config", "Exaone4ForCausalLM", _DEC25, CAUSAL),
    "cohere2": Oracle("Cohere2Config", "Cohere2ForCausalLM", _DEC25, CAUSAL),
    "minimax_m2": Oracle("MiniMaxM2Config", "MiniMaxM2ForCausalLM", _2025, CAUSAL),
    "ministral3": Oracle("Ministral3Config", "Ministral3ForCausalLM", _2025, CAUSAL),
    "ernie4_5": Oracle("Ernie4_5Config", "Ernie4_5ForCausalLM", _2025, CAUSAL),
    "hunyuan_v1_dense": Oracle("HunYuanDenseV1Config", "HunYuanDenseV1ForCausalLM", _2025, CAUSAL),
    "hunyuan_v1_moe": Oracle("HunYuanMoEV1Config", "HunYuanMoEV1ForCausalLM", _2025, CAUSAL),
    "qwen2_5_vl": Oracle("Qwen2_5_VLConfig", "Qwen2_5_VLForConditionalGeneration", _QVL),
    "qwen3_vl": Oracle("Qwen3VLConfig", "Qwen3VLForConditionalGeneration", _QVL),
    "qwen3_vl_moe": Oracle("Qwen3VLMoeConfig", "Qwen3VLMoeForConditionalGeneration", _QVL),
    "gemma3": Oracle("Gemma3Config", "Gemma3ForConditionalGeneration", _MM, examples=8),
    "llava": Oracle("LlavaConfig", "LlavaForConditionalGeneration", _MM, examples=8),
    "mamba2": Oracle("Mamba2Config", "Mamba2ForCausalLM", _MAMBA, IDS, examples=6),
    "lfm2": Oracle("Lfm2Config", "Lfm2ForCausalLM", _CONV_SCAN, IDS, examples=6),
    "lfm2_moe": Oracle("Lfm2MoeConfig", "Lfm2MoeForCausalLM", _CONV_SCAN, IDS, examples=6),
    "jamba": Oracle("JambaConfig", "JambaForCausalLM", _CONV_SCAN, IDS, examples=6),
    "minimax": Oracle("MiniMaxConfig", "MiniMaxForCausalLM", _CONV_SCAN, CAUSAL, examples=6),
    "granitemoehybrid": Oracle(
        "GraniteMoeHybridConfig", "GraniteMoeHybridForCausalLM", _MAMBA, CAUSAL, examples=4
    ),
    "falcon_h1": Oracle("FalconH1Config", "FalconH1ForCausalLM", _MAMBA, CAUSAL, examples=4),
    "nemotron_h": Oracle("NemotronHConfig", "NemotronHForCausalLM", _MAMBA, CAUSAL, examples=6),
    "bamba": Oracle("BambaConfig", "BambaForCausalLM", _MAMBA, CAUSAL, examples=6),
    "zamba2": Oracle("Zamba2Config", "Zamba2ForCausalLM", _MAMBA, CAUSAL, examples=6),
    "mistral3": Oracle("Mistral3Config", "Mistral3ForConditionalGeneration", _MM2, examples=8),
    "idefics3": Oracle("Idefics3Config", "Idefics3ForConditionalGeneration", _MM2, examples=6),
    "smolvlm": Oracle("SmolVLMConfig", "SmolVLMForConditionalGeneration", _MM2, examples=6),
    "llama4": Oracle("Llama4Config", "Llama4ForConditionalGeneration", _MM2, examples=6),
    "qwen3_next": Oracle("Qwen3NextConfig", "Qwen3NextForCausalLM", _LINEAR, IDS, examples=6),
    "kimi_linear": Oracle("KimiLinearConfig", "KimiLinearForCausalLM", _LINEAR, IDS, examples=6),
    "gemma3n_text": Oracle("Gemma3nTextConfig", "Gemma3nForCausalLM", _G3N, CAUSAL, examples=6),
    # Its vision tower is a timm model (not installed here): the text model, the audio tower
    # and the embedders are built apart (tests/test_oracle_gemma3n.py).
    "gemma3n": Oracle("Gemma3nConfig", "Gemma3nForConditionalGeneration", _G3N, examples=2),
    "qwen3_5": Oracle("Qwen3_5Config", "Qwen3_5ForConditionalGeneration", _QWEN3_5, examples=4),
    "qwen3_5_moe": Oracle(
        "Qwen3_5MoeConfig", "Qwen3_5MoeForConditionalGeneration", _QWEN3_5, examples=4
    ),
    "qwen3_5_text": Oracle("Qwen3_5TextConfig", "Qwen3_5ForCausalLM", _QWEN3_5, IDS, examples=4),
    "qwen3_5_moe_text": Oracle(
        "Qwen3_5MoeTextConfig", "Qwen3_5MoeForCausalLM", _QWEN3_5, IDS, examples=4
    ),
    "gemma4_text": Oracle("Gemma4TextConfig", "Gemma4ForCausalLM", _G4K, examples=8),
    "gemma4": Oracle("Gemma4Config", "Gemma4ForConditionalGeneration", _G4K, examples=4),
    "kimi_k25": Oracle("Kimi_K25Config", "Kimi_K25ForConditionalGeneration", _G4K, examples=4),
}


def classes(module: str) -> dict[str, tuple[str, str]]:
    """The families `module` checks: model_type -> (configuration class, model class)."""
    return {f: (o.config or "", o.model) for f, o in ORACLE.items() if o.module == module}


# --- the explicit cases, by family --------------------------------------------------------

# ffn-calc's ModelConfig fields: transformers builds the model they describe.
_MODEL_CONFIGS: Cases = {
    "llama tied and biased, GQA": {"family": "llama", "n_layers": 2, "d_model": 24, "n_heads": 6,
        "n_kv_heads": 2, "head_dim": 6, "d_ff": 40, "activation": "swiglu", "norm": "rmsnorm",
        "positions": "rotary", "vocab_size": 30, "tie_embeddings": True, "attention_bias": True,
        "ffn_bias": True},
    "gpt2 custom n_inner": {"family": "gpt2", "n_layers": 2, "d_model": 16, "n_heads": 2,
        "d_ff": 50, "activation": "gelu_tanh", "attention_bias": True, "ffn_bias": True,
        "positions": "learned", "max_positions": 16, "vocab_size": 30, "tie_embeddings": True},
    "mixtral top-2 of 4": {"family": "mixtral", "n_layers": 1, "d_model": 16, "n_heads": 4,
        "n_kv_heads": 1, "d_ff": 24, "activation": "swiglu", "norm": "rmsnorm",
        "positions": "rotary", "vocab_size": 30, "n_experts": 4, "experts_per_token": 2},
    "mistral GQA, head_dim free of d_model, untied": {"family": "mistral", "n_layers": 2,
        "d_model": 20, "n_heads": 4, "n_kv_heads": 2, "head_dim": 6, "d_ff": 28,
        "activation": "swiglu", "norm": "rmsnorm", "positions": "rotary", "vocab_size": 30},
    "qwen2 Q/K/V biases, no output bias, tied": {"family": "qwen2", "n_layers": 2,
        "d_model": 16, "n_heads": 4, "n_kv_heads": 1, "head_dim": 4, "d_ff": 24,
        "activation": "swiglu", "norm": "rmsnorm", "positions": "rotary", "vocab_size": 30,
        "tie_embeddings": True, "attention_bias": True, "attention_out_bias": False},
    "bert 2 token types, pooler": {"family": "bert", "architecture": "encoder-only",
        "n_layers": 2, "d_model": 16, "n_heads": 2, "d_ff": 24, "vocab_size": 30,
        "activation": "gelu", "attention_bias": True, "ffn_bias": True, "final_norm": False,
        "embedding_norm": True, "positions": "learned", "max_positions": 16, "lm_head": False,
        "pooler": True, "type_vocab_size": 2},
    "transformer 2 encoder layers, 1 decoder layer": {"family": "transformer",
        "architecture": "encoder-decoder", "n_layers": 2, "n_decoder_layers": 1, "d_model": 16,
        "n_heads": 4, "d_ff": 24, "vocab_size": 30, "activation": "relu",
        "attention_bias": True, "ffn_bias": True, "final_norm": False,
        "positions": "sinusoidal", "tie_embeddings": True},
}  # fmt: skip

# Encoder-decoder config.json files: T5 untied with more decoder than encoder layers (the
# separate head transformers does not build; generate()'s cache sized by the encoder), BART
# with a head count and depth per stack.
_ENCODER_DECODER: Cases = {
    "t5 gated-gelu, untied, 2 encoder and 3 decoder layers": {
        "model_type": "t5", "d_model": 16, "d_kv": 4, "num_heads": 3, "d_ff": 24,
        "num_layers": 2, "num_decoder_layers": 3, "vocab_size": 40,
        "feed_forward_proj": "gated-gelu", "relative_attention_num_buckets": 8,
        "tie_word_embeddings": False,
    },
    "bart 4 and 2 heads, 2 and 1 layers, scaled embeddings, untied": {
        "model_type": "bart", "d_model": 16, "encoder_attention_heads": 4,
        "decoder_attention_heads": 2, "encoder_ffn_dim": 24, "decoder_ffn_dim": 24,
        "encoder_layers": 2, "decoder_layers": 1, "vocab_size": 40,
        "max_position_embeddings": 16, "activation_function": "gelu",
        "scale_embedding": True, "tie_word_embeddings": False,
    },
    # Stacks of different widths (transformers' BartConfig: encoder_ffn_dim, decoder_ffn_dim).
    "bart FFN 40 and 12, 4 and 8 heads, 1 and 3 layers": {
        "model_type": "bart", "d_model": 16, "encoder_attention_heads": 4,
        "decoder_attention_heads": 8, "encoder_ffn_dim": 40, "decoder_ffn_dim": 12,
        "encoder_layers": 1, "decoder_layers": 3, "vocab_size": 40,
        "max_position_embeddings": 16, "activation_function": "relu",
    },
}  # fmt: skip

# config.json files as the Hub holds them (some fields absent: the class defaults apply).
_GEMMA_QWEN3_OLMO2: Cases = {
    "gemma defaults: head_dim 256, 16 kv heads, tied": {
        "model_type": "gemma", "hidden_size": 32, "num_attention_heads": 16,
        "intermediate_size": 24, "num_hidden_layers": 2, "vocab_size": 40, "hidden_act": "gelu",
    },
    "gemma biased, untied, MQA": {
        "model_type": "gemma", "hidden_size": 24, "num_attention_heads": 4,
        "num_key_value_heads": 1, "head_dim": 6, "intermediate_size": 20,
        "num_hidden_layers": 2, "vocab_size": 40, "attention_bias": True,
        "tie_word_embeddings": False,
    },
    "gemma2 untied, soft-capping off, GQA": {
        "model_type": "gemma2", "hidden_size": 16, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 8, "intermediate_size": 20,
        "num_hidden_layers": 3, "vocab_size": 50, "tie_word_embeddings": False,
        "attn_logit_softcapping": None, "final_logit_softcapping": None, "sliding_window": 2,
    },
    "gemma3_text biased, bidirectional, defaults": {
        "model_type": "gemma3_text", "hidden_size": 16, "num_attention_heads": 4,
        "intermediate_size": 20, "num_hidden_layers": 2, "vocab_size": 50,
        "attention_bias": True, "use_bidirectional_attention": True, "sliding_window": 4,
    },
    "qwen3 defaults: head_dim 128, 32 kv heads": {
        "model_type": "qwen3", "hidden_size": 8, "num_attention_heads": 32,
        "intermediate_size": 12, "num_hidden_layers": 1, "vocab_size": 30,
    },
    "qwen3 null kv heads, biased, tied, sliding window": {
        "model_type": "qwen3", "hidden_size": 24, "num_attention_heads": 3,
        "num_key_value_heads": None, "head_dim": 4, "intermediate_size": 20,
        "num_hidden_layers": 2, "vocab_size": 40, "attention_bias": True,
        "tie_word_embeddings": True, "use_sliding_window": True, "sliding_window": 3,
        "max_window_layers": 1,
    },
    "olmo2 GQA, head_dim, biased, tied": {
        "model_type": "olmo2", "hidden_size": 20, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 6, "intermediate_size": 28,
        "num_hidden_layers": 2, "vocab_size": 60, "attention_bias": True,
        "tie_word_embeddings": True,
    },
}  # fmt: skip

_PHI_STARCODER_GRANITE_COHERE: Cases = {
    "phi3 GQA, head_dim, tied, partial rotary": {
        "model_type": "phi3", "hidden_size": 24, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 8, "intermediate_size": 20,
        "num_hidden_layers": 2, "vocab_size": 40, "tie_word_embeddings": True,
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0,
                            "partial_rotary_factor": 0.5},
    },
    "starcoder2 default kv heads (2), no bias, untied": {
        "model_type": "starcoder2", "hidden_size": 32, "num_attention_heads": 4,
        "intermediate_size": 24, "num_hidden_layers": 2, "vocab_size": 50, "use_bias": False,
        "tie_word_embeddings": False,
    },
    "granite biased, untied, multipliers": {
        "model_type": "granite", "hidden_size": 32, "num_attention_heads": 4,
        "num_key_value_heads": 1, "intermediate_size": 40, "num_hidden_layers": 2,
        "vocab_size": 60, "attention_bias": True, "mlp_bias": True,
        "embedding_multiplier": 12.0, "residual_multiplier": 0.22,
        "attention_multiplier": 0.015625, "logits_scaling": 8.0,
    },
    "cohere qk-norm, GQA, biased, untied": {
        "model_type": "cohere", "hidden_size": 32, "num_attention_heads": 4,
        "num_key_value_heads": 2, "intermediate_size": 40, "num_hidden_layers": 2,
        "vocab_size": 60, "use_qk_norm": True, "attention_bias": True,
        "tie_word_embeddings": False, "logit_scale": 0.0625,
    },
}  # fmt: skip

_NEOX_FALCON_BIGCODE_GPTJ_OPT: Cases = {
    "gpt_neox tied, no attention bias, sequential residual": {
        "model_type": "gpt_neox", "hidden_size": 32, "num_attention_heads": 4,
        "num_hidden_layers": 2, "intermediate_size": 40, "vocab_size": 50,
        "attention_bias": False, "use_parallel_residual": False, "tie_word_embeddings": True,
    },
    "falcon-40b layout: new decoder, GQA, ln_attn and ln_mlp": {
        "model_type": "falcon", "hidden_size": 32, "num_attention_heads": 4, "num_kv_heads": 2,
        "num_hidden_layers": 2, "vocab_size": 50, "new_decoder_architecture": True,
    },
    "falcon-11b layout: new decoder, one parallel norm, untied": {
        "model_type": "falcon", "hidden_size": 32, "num_attention_heads": 4, "num_kv_heads": 1,
        "num_hidden_layers": 2, "vocab_size": 50, "new_decoder_architecture": True,
        "num_ln_in_parallel_attn": 1, "ffn_hidden_size": 24, "tie_word_embeddings": False,
    },
    "falcon-rw layout: multi-head, sequential, biased, alibi": {
        "model_type": "falcon", "hidden_size": 32, "num_attention_heads": 4,
        "num_hidden_layers": 2, "vocab_size": 50, "multi_query": False, "parallel_attn": False,
        "bias": True, "alibi": True,
    },
    "gpt_bigcode multi-head, untied": {
        "model_type": "gpt_bigcode", "n_embd": 32, "n_head": 4, "n_layer": 2, "n_positions": 16,
        "vocab_size": 50, "multi_query": False, "tie_word_embeddings": False,
    },
    "gptj tied head keeps its bias": {
        "model_type": "gptj", "n_embd": 32, "n_head": 4, "n_layer": 2, "n_positions": 16,
        "rotary_dim": 4, "vocab_size": 50, "tie_word_embeddings": True,
    },
    "opt-350m layout: narrow embedding, post-LN, no final norm": {
        "model_type": "opt", "hidden_size": 32, "num_attention_heads": 4, "num_hidden_layers": 2,
        "ffn_dim": 40, "max_position_embeddings": 16, "vocab_size": 50,
        "word_embed_proj_dim": 16, "do_layer_norm_before": False,
    },
    "opt without affine norms or biases, untied": {
        "model_type": "opt", "hidden_size": 32, "num_attention_heads": 4, "num_hidden_layers": 2,
        "ffn_dim": 40, "max_position_embeddings": 16, "vocab_size": 50,
        "layer_norm_elementwise_affine": False, "enable_bias": False,
        "tie_word_embeddings": False,
    },
}  # fmt: skip

_MASKED_LM = {
    "albert 2 groups of 2, 3 steps, untied": {
        "model_type": "albert", "architectures": ["AlbertForMaskedLM"], "hidden_size": 16,
        "num_attention_heads": 2, "num_hidden_layers": 3, "num_hidden_groups": 2,
        "inner_group_num": 2, "embedding_size": 4, "intermediate_size": 24, "vocab_size": 30,
        "max_position_embeddings": 16, "tie_word_embeddings": False, "pad_token_id": 0,
    },
    "roberta untied": {
        "model_type": "roberta", "architectures": ["RobertaForMaskedLM"], "hidden_size": 16,
        "num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 24,
        "vocab_size": 30, "max_position_embeddings": 16, "type_vocab_size": 1,
        "tie_word_embeddings": False, "pad_token_id": 1,
    },
    "distilbert untied, sinusoidal": {
        "model_type": "distilbert", "architectures": ["DistilBertForMaskedLM"], "dim": 16,
        "n_heads": 2, "n_layers": 2, "hidden_dim": 24, "vocab_size": 30,
        "max_position_embeddings": 16, "sinusoidal_pos_embds": True,
        "tie_word_embeddings": False, "pad_token_id": 0,
    },
}  # fmt: skip

_DEEPSEEK_BASE = {
    "num_hidden_layers": 3, "hidden_size": 32, "num_attention_heads": 4,
    "num_key_value_heads": 4, "intermediate_size": 40, "moe_intermediate_size": 12,
    "n_routed_experts": 8, "num_experts_per_tok": 2, "kv_lora_rank": 16,
    "qk_nope_head_dim": 8, "qk_rope_head_dim": 4, "v_head_dim": 6, "vocab_size": 50,
    "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None, "max_position_embeddings": 64,
}  # fmt: skip
_DEEPSEEK: Cases = {
    "deepseek_v3 low-rank Q, biased attention, 2 shared experts, tied": {
        "model_type": "deepseek_v3", **_DEEPSEEK_BASE, "q_lora_rank": 24, "first_k_dense_replace": 1,
        "n_shared_experts": 2, "n_group": 2, "topk_group": 1, "attention_bias": True,
        "tie_word_embeddings": True,
    },
    "deepseek_v3 plain q_proj, every layer MoE, heads not dividing hidden_size": {
        "model_type": "deepseek_v3", **_DEEPSEEK_BASE, "hidden_size": 30, "q_lora_rank": None,
        "first_k_dense_replace": 0, "n_group": 4, "topk_group": 2,
    },
    "deepseek_v2 lite: plain q_proj, layer 0 dense, mlp_bias": {
        "model_type": "deepseek_v2", **_DEEPSEEK_BASE, "q_lora_rank": None, "first_k_dense_replace": 1,
        "mlp_bias": True, "moe_layer_freq": 1,
    },
    "deepseek_v2 low-rank Q, group-limited routing, every layer dense": {
        "model_type": "deepseek_v2", **_DEEPSEEK_BASE, "q_lora_rank": 8, "first_k_dense_replace": 5,
        "topk_method": "group_limited_greedy", "n_group": 4, "topk_group": 2,
    },
}  # fmt: skip

# DeepSeek-V4: every size small; compress rates 2 and 4 so a prompt of a few tokens closes
# windows of both compressors; a sliding window of 4 so a prompt outgrows it.
_V4_BASE = {
    "model_type": "deepseek_v4", "architectures": ["DeepseekV4ForCausalLM"],
    "vocab_size": 50, "hidden_size": 16, "moe_intermediate_size": 8, "num_hidden_layers": 4,
    "num_attention_heads": 4, "head_dim": 8, "q_lora_rank": 12, "num_experts_per_tok": 2,
    "n_routed_experts": 4, "compress_rates": {"compressed_sparse_attention": 2,
                                              "heavily_compressed_attention": 4},
    "hc_mult": 3, "sliding_window": 4, "o_groups": 2, "o_lora_rank": 6, "index_n_heads": 2,
    "index_head_dim": 4, "index_topk": 3, "qk_rope_head_dim": 4, "max_position_embeddings": 64,
    "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None,
}  # fmt: skip
_DEEPSEEK_V4: Cases = {
    "deepseek_v4 every attention type, 1 hash layer": {
        **_V4_BASE, "layer_types": ["sliding_attention", "heavily_compressed_attention",
                                    "compressed_sparse_attention", "compressed_sparse_attention"],
        "mlp_layer_types": ["hash_moe", "moe", "moe", "moe"],
    },
    "deepseek_v4 default layer pattern, 3 hash layers, mlp_bias, tied, 2 streams": {
        **_V4_BASE, "num_hidden_layers": 5, "mlp_bias": True, "tie_word_embeddings": True,
        "hc_mult": 2, "o_groups": 4, "o_lora_rank": 3,
    },
    "deepseek_v4 legacy keys: compress_ratios, compress_rate_csa, num_hash_layers": {
        **{k: v for k, v in _V4_BASE.items() if k != "compress_rates"},
        "num_hidden_layers": 3, "compress_ratios": [0, 4, 128], "compress_rate_csa": 3,
        "compress_rate_hca": 2, "num_hash_layers": 1, "num_experts_per_tok": 4,
    },
    "deepseek_v4 sliding only, one stream, gelu": {
        **_V4_BASE, "num_hidden_layers": 2, "layer_types": ["sliding_attention"] * 2,
        "hc_mult": 1, "hidden_act": "gelu", "mlp_layer_types": ["moe", "moe"],
    },
}  # fmt: skip

_GLM = {"model_type": "glm4_moe", "architectures": ["Glm4MoeForCausalLM"], "hidden_size": 16,
       "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 4,
       "intermediate_size": 24, "moe_intermediate_size": 6, "num_hidden_layers": 3,
       "vocab_size": 40, "n_routed_experts": 4, "num_experts_per_tok": 2}  # fmt: skip
_ERNIE = {"model_type": "ernie4_5_moe", "architectures": ["Ernie4_5_MoeForCausalLM"],
         "hidden_size": 16, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 4,
         "intermediate_size": 20, "moe_intermediate_size": 6, "num_hidden_layers": 3,
         "vocab_size": 40, "moe_num_experts": 4, "moe_k": 2}  # fmt: skip
_GLM_ERNIE: Cases = {
    "glm defaults: 1 dense layer, 1 shared expert, untied": _GLM,
    "glm all MoE, biased Q/K/V, qk norms, 2 shared experts, tied": {
        **_GLM, "first_k_dense_replace": 0, "attention_bias": True, "use_qk_norm": True,
        "n_shared_experts": 2, "tie_word_embeddings": True,
    },
    "glm all dense (first_k_dense_replace beyond the layers)": {**_GLM, "first_k_dense_replace": 5},
    "ernie defaults: layer 0 dense, 2 shared experts, tied": _ERNIE,
    "ernie use_bias tied: biased head, unbiased experts": {**_ERNIE, "use_bias": True},
    "ernie use_bias untied, every other layer, no shared expert": {
        **_ERNIE, "use_bias": True, "tie_word_embeddings": False, "moe_layer_interval": 2,
        "moe_layer_start_index": 0, "moe_num_shared_experts": 0,
    },
    "ernie MoE window 0..1": {**_ERNIE, "moe_layer_start_index": 0, "moe_layer_end_index": 1},
    "ernie all dense (start beyond the layers)": {**_ERNIE, "moe_layer_start_index": 3},
}  # fmt: skip

_GPT_OSS_LLAMA4: Cases = {
    "gpt_oss head_dim x heads != d_model, GQA, top-2 of 4, untied": {
        "model_type": "gpt_oss", "hidden_size": 24, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 8, "intermediate_size": 20,
        "num_hidden_layers": 2, "vocab_size": 40, "num_local_experts": 4,
        "num_experts_per_tok": 2, "tie_word_embeddings": False,
    },
    "gpt_oss no attention bias, tied, every expert": {
        "model_type": "gpt_oss", "hidden_size": 16, "num_attention_heads": 2,
        "num_key_value_heads": 1, "head_dim": 4, "intermediate_size": 12,
        "num_hidden_layers": 3, "vocab_size": 30, "num_local_experts": 3,
        "num_experts_per_tok": 3, "attention_bias": False, "tie_word_embeddings": True,
    },
    "llama4_text interleaved MoE (step 2), qk-norm, biased": {
        "model_type": "llama4_text", "hidden_size": 32, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 8, "intermediate_size": 16,
        "intermediate_size_mlp": 40, "num_hidden_layers": 3, "vocab_size": 50,
        "num_local_experts": 4, "num_experts_per_tok": 1, "interleave_moe_layer_step": 2,
        "use_qk_norm": True, "attention_bias": True,
    },
    "llama4_text moe_layers listed, tied, top-2": {
        "model_type": "llama4_text", "hidden_size": 16, "num_attention_heads": 2,
        "head_dim": 8, "num_key_value_heads": 1, "intermediate_size": 12,
        "intermediate_size_mlp": 20, "num_hidden_layers": 3, "vocab_size": 40,
        "num_local_experts": 3, "num_experts_per_tok": 2, "moe_layers": [0, 2],
        "tie_word_embeddings": True,
    },
}  # fmt: skip

_QWEN_MOE_OLMOE: Cases = {
    "qwen2_moe sparse step 2, MLP-only layer 3, GQA, tied": {
        "model_type": "qwen2_moe", "hidden_size": 16, "num_attention_heads": 4,
        "num_key_value_heads": 2, "num_hidden_layers": 4, "intermediate_size": 20,
        "moe_intermediate_size": 6, "shared_expert_intermediate_size": 10, "num_experts": 4,
        "num_experts_per_tok": 2, "decoder_sparse_step": 2, "mlp_only_layers": [3, 7],
        "vocab_size": 40, "tie_word_embeddings": True,
    },
    "qwen2_moe defaults: 16 kv heads, Q/K/V biases, head_dim": {
        "model_type": "qwen2_moe", "hidden_size": 20, "num_attention_heads": 16, "head_dim": 2,
        "num_hidden_layers": 1, "intermediate_size": 8, "moe_intermediate_size": 6,
        "shared_expert_intermediate_size": 4, "num_experts": 3, "num_experts_per_tok": 3,
        "vocab_size": 30,
    },
    "qwen3_moe defaults: 4 kv heads, head_dim hidden / heads, both expert keys": {
        "model_type": "qwen3_moe", "hidden_size": 32, "num_attention_heads": 8,
        "num_hidden_layers": 2, "intermediate_size": 12, "moe_intermediate_size": 6,
        "num_experts": 2, "num_local_experts": 3, "num_experts_per_tok": 2, "vocab_size": 30,
        "mlp_only_layers": [0],
    },
    "qwen3_moe biased, tied, every layer dense": {
        "model_type": "qwen3_moe", "hidden_size": 12, "num_attention_heads": 3,
        "num_key_value_heads": 1, "head_dim": 4, "num_hidden_layers": 2,
        "intermediate_size": 10, "moe_intermediate_size": 6, "num_experts": 2,
        "num_experts_per_tok": 1, "decoder_sparse_step": 3, "attention_bias": True,
        "tie_word_embeddings": True, "vocab_size": 30,
    },
    # Sliding windows (use_sliding_window): Qwen2MoeConfig's layers i < max_window_layers with
    # i + 1 odd, Qwen3MoeConfig's every layer; the harness's prompts are longer than them.
    "qwen2_moe sliding window 3 on layers 0 and 2 (max_window_layers 3)": {
        "model_type": "qwen2_moe", "hidden_size": 16, "num_attention_heads": 4,
        "num_key_value_heads": 2, "num_hidden_layers": 4, "intermediate_size": 12,
        "moe_intermediate_size": 6, "shared_expert_intermediate_size": 8, "num_experts": 3,
        "num_experts_per_tok": 2, "vocab_size": 40, "use_sliding_window": True,
        "sliding_window": 3, "max_window_layers": 3,
    },
    "qwen3_moe sliding window 4 on every layer": {
        "model_type": "qwen3_moe", "hidden_size": 16, "num_attention_heads": 4,
        "num_key_value_heads": 2, "num_hidden_layers": 2, "intermediate_size": 12,
        "moe_intermediate_size": 6, "num_experts": 3, "num_experts_per_tok": 2,
        "vocab_size": 40, "use_sliding_window": True, "sliding_window": 4,
    },
    "qwen2_moe num_experts 0: a dense model": {
        "model_type": "qwen2_moe", "hidden_size": 16, "num_attention_heads": 2,
        "num_key_value_heads": 1, "num_hidden_layers": 2, "intermediate_size": 20,
        "moe_intermediate_size": 6, "shared_expert_intermediate_size": 10, "num_experts": 0,
        "num_experts_per_tok": 2, "vocab_size": 40,
    },
    "olmoe GQA, biased, tied, clip_qkv, num_local_experts": {
        "model_type": "olmoe", "hidden_size": 24, "num_attention_heads": 4,
        "num_key_value_heads": 2, "num_hidden_layers": 2, "intermediate_size": 14,
        "num_local_experts": 4, "num_experts_per_tok": 2, "attention_bias": True,
        "tie_word_embeddings": True, "clip_qkv": 2.0, "vocab_size": 50,
    },
}  # fmt: skip

_SPARSE_BASE = {
    "num_hidden_layers": 2, "hidden_size": 32, "num_attention_heads": 4,
    "num_key_value_heads": 4, "intermediate_size": 40, "moe_intermediate_size": 12,
    "n_routed_experts": 4, "num_experts_per_tok": 2, "kv_lora_rank": 16, "q_lora_rank": 24,
    "qk_nope_head_dim": 8, "qk_rope_head_dim": 4, "v_head_dim": 6, "vocab_size": 50,
    "index_n_heads": 3, "index_head_dim": 8, "index_topk": 3, "n_group": 1, "topk_group": 1,
    "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None, "max_position_embeddings": 64,
}  # fmt: skip
_SPARSE_ATTENTION: Cases = {
    "deepseek_v32 indexer of 3 heads, layer 0 dense, biased attention": {
        "model_type": "deepseek_v32", "architectures": ["DeepseekV32ForCausalLM"],
        **_SPARSE_BASE, "first_k_dense_replace": 1, "attention_bias": True,
    },
    "deepseek_v32 every layer MoE, 2 shared experts, grouped routing, top-k past S, no pass part": {
        "model_type": "deepseek_v32", "architectures": ["DeepseekV32ForCausalLM"],
        **_SPARSE_BASE, "num_hidden_layers": 3, "first_k_dense_replace": 0, "n_shared_experts": 2,
        "n_group": 2, "topk_group": 1, "index_topk": 2048, "index_head_dim": 4,
    },
    "glm_moe_dsa mlp_layer_types, tied, every indexer full": {
        "model_type": "glm_moe_dsa", "architectures": ["GlmMoeDsaForCausalLM"], **_SPARSE_BASE,
        "mlp_layer_types": ["dense", "sparse"], "tie_word_embeddings": True,
        "indexer_types": ["full", "full"],
    },
    "glm_moe_dsa class defaults for the layer pattern, one indexer head, gelu": {
        "model_type": "glm_moe_dsa", "architectures": ["GlmMoeDsaForCausalLM"], **_SPARSE_BASE,
        "num_hidden_layers": 3, "index_n_heads": 1, "hidden_act": "gelu", "index_topk_freq": 1,
    },
}  # fmt: skip

# mT5 and UMT5 as released (gated-gelu by default, untied), relu, more decoder layers;
# Whisper with a head count and depth per stack (max_source_positions: each case's S).
_WHISPER_MT5_CASES: Cases = {
    "mt5 defaults: gated-gelu, untied, 2 encoder and 3 decoder layers": {
        "model_type": "mt5", "d_model": 16, "d_kv": 4, "num_heads": 3, "d_ff": 24,
        "num_layers": 2, "num_decoder_layers": 3, "vocab_size": 40,
        "relative_attention_num_buckets": 8, "tie_word_embeddings": False,
    },
    "mt5 relu, tied": {
        "model_type": "mt5", "d_model": 12, "d_kv": 5, "num_heads": 2, "d_ff": 20,
        "num_layers": 2, "vocab_size": 30, "feed_forward_proj": "relu",
    },
    "umt5 bias in every layer: 3 encoder and 2 decoder layers, untied": {
        "model_type": "umt5", "d_model": 16, "d_kv": 4, "num_heads": 3, "d_ff": 24,
        "num_layers": 3, "num_decoder_layers": 2, "vocab_size": 40,
        "relative_attention_num_buckets": 8, "tie_word_embeddings": False,
    },
    "umt5 gated-silu, tied": {
        "model_type": "umt5", "d_model": 12, "d_kv": 6, "num_heads": 2, "d_ff": 16,
        "num_layers": 2, "vocab_size": 30, "feed_forward_proj": "gated-silu",
        "tie_word_embeddings": True,
    },
    "whisper 2 encoder and 3 decoder layers, 4 and 2 heads, untied": {
        "model_type": "whisper", "d_model": 16, "encoder_layers": 2, "decoder_layers": 3,
        "encoder_attention_heads": 4, "decoder_attention_heads": 2, "encoder_ffn_dim": 24,
        "decoder_ffn_dim": 24, "vocab_size": 40, "num_mel_bins": 6, "max_target_positions": 12,
        "tie_word_embeddings": False,
    },
    "whisper large-v3 layout: 128 mel bins, tied, scaled embeddings": {
        "model_type": "whisper", "d_model": 20, "encoder_layers": 2, "decoder_layers": 1,
        "encoder_attention_heads": 5, "decoder_attention_heads": 5, "encoder_ffn_dim": 80,
        "decoder_ffn_dim": 80, "vocab_size": 50, "num_mel_bins": 128,
        "max_target_positions": 10, "scale_embedding": True, "tie_word_embeddings": True,
    },
    "whisper FFN 12 and 36, 2 and 4 heads, 3 and 1 layers": {
        "model_type": "whisper", "d_model": 16, "encoder_layers": 3, "decoder_layers": 1,
        "encoder_attention_heads": 2, "decoder_attention_heads": 4, "encoder_ffn_dim": 12,
        "decoder_ffn_dim": 36, "vocab_size": 40, "num_mel_bins": 4, "max_target_positions": 12,
    },
}  # fmt: skip

_MODERNBERT = {"model_type": "modernbert", "architectures": ["ModernBertForMaskedLM"],
               "hidden_size": 16, "num_attention_heads": 4, "intermediate_size": 24,
               "vocab_size": 40, "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0,
               "cls_token_id": 0, "sep_token_id": 0, "max_position_embeddings": 64}  # fmt: skip
_DEBERTA = {"model_type": "deberta-v2", "architectures": ["DebertaV2ForMaskedLM"],
            "hidden_size": 16, "num_attention_heads": 4, "num_hidden_layers": 2,
            "intermediate_size": 24, "vocab_size": 40, "max_position_embeddings": 16,
            "pad_token_id": 0}  # fmt: skip
_ENCODERS_2025: Cases = {
    "xlm-roberta tied, class defaults": {
        "model_type": "xlm-roberta", "architectures": ["XLMRobertaForMaskedLM"],
        "hidden_size": 16, "num_attention_heads": 4, "num_hidden_layers": 2,
        "intermediate_size": 24, "max_position_embeddings": 16, "vocab_size": 40,
    },
    "xlm-roberta untied, one token type": {
        "model_type": "xlm-roberta", "architectures": ["XLMRobertaForMaskedLM"],
        "hidden_size": 12, "num_attention_heads": 3, "num_hidden_layers": 1,
        "intermediate_size": 20, "max_position_embeddings": 12, "vocab_size": 30,
        "type_vocab_size": 1, "tie_word_embeddings": False, "pad_token_id": 1,
    },
    "modernbert defaults: global every 3rd layer, no biases, tied": {
        **_MODERNBERT, "num_hidden_layers": 4,
    },
    "modernbert every bias, untied, local window 4, layer_types": {
        **_MODERNBERT, "num_hidden_layers": 3, "attention_bias": True, "mlp_bias": True,
        "norm_bias": True, "classifier_bias": True, "decoder_bias": True,
        "tie_word_embeddings": False, "local_attention": 4,
        "layer_types": ["sliding_attention", "full_attention", "sliding_attention"],
    },
    "modernbert one layer, every layer local, no decoder bias": {
        **_MODERNBERT, "num_hidden_layers": 1, "layer_types": ["sliding_attention"],
        "decoder_bias": False, "local_attention": 2,
    },
    "deberta-v2 v3 layout: buckets, shared keys, c2p and p2c, normed table, no positions": {
        **_DEBERTA, "relative_attention": True, "position_buckets": 4,
        "max_relative_positions": -1, "pos_att_type": ["p2c", "c2p"], "share_att_key": True,
        "norm_rel_ebd": "layer_norm", "position_biased_input": False,
    },
    "deberta-v2 v2 layout: own position projections, string pos_att_type, untied": {
        **_DEBERTA, "relative_attention": True, "max_relative_positions": 6,
        "pos_att_type": "p2c|c2p", "share_att_key": False, "type_vocab_size": 2,
        "tie_word_embeddings": False,
    },
    "deberta-v2 c2p only, own projection, span from max_position_embeddings": {
        **_DEBERTA, "relative_attention": True, "pos_att_type": ["c2p"],
    },
    "deberta-v2 shared keys with no score kind: projections only": {
        **_DEBERTA, "relative_attention": True, "share_att_key": True, "position_buckets": 2,
    },
    "deberta-v2 no relative attention: BERT with a masked-LM head": {**_DEBERTA},
    "modernbert global every layer, local window 1": {
        **_MODERNBERT, "num_hidden_layers": 2, "global_attn_every_n_layers": 1,
        "local_attention": 1,
    },
}  # fmt: skip

# Windows below the prefill (5 tokens in the explicit run), so the sliding layers' caches are
# cut to window - 1 tokens.
_DECODERS_2025: Cases = {
    "smollm3 defaults: 4 kv heads, tied, NoPE every 4th layer": {
        "model_type": "smollm3", "hidden_size": 16, "num_attention_heads": 4,
        "intermediate_size": 20, "num_hidden_layers": 4, "vocab_size": 40,
    },
    "smollm3 NoPE layers slide, biased, untied, GQA, head_dim": {
        "model_type": "smollm3", "hidden_size": 20, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 6, "intermediate_size": 28,
        "num_hidden_layers": 4, "vocab_size": 50, "attention_bias": True, "mlp_bias": True,
        "tie_word_embeddings": False, "use_sliding_window": True, "sliding_window": 3,
        "no_rope_layers": [1, 0, 1, 0, 1],
    },
    "smollm3 layer_types slide without use_sliding_window": {
        "model_type": "smollm3", "hidden_size": 16, "num_attention_heads": 2,
        "num_key_value_heads": 1, "intermediate_size": 24, "num_hidden_layers": 2,
        "vocab_size": 40, "sliding_window": 2,
        "layer_types": ["sliding_attention", "full_attention"],
    },
    "olmo3 defaults: 3 sliding layers in 4, window 4096, untied": {
        "model_type": "olmo3", "hidden_size": 16, "num_attention_heads": 4,
        "intermediate_size": 20, "num_hidden_layers": 5, "vocab_size": 40,
    },
    "olmo3 GQA, head_dim, biased, tied, window 3": {
        "model_type": "olmo3", "hidden_size": 20, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 6, "intermediate_size": 28,
        "num_hidden_layers": 4, "vocab_size": 60, "attention_bias": True,
        "tie_word_embeddings": True, "sliding_window": 3,
    },
    "olmo3 layer_types: full, sliding": {
        "model_type": "olmo3", "hidden_size": 16, "num_attention_heads": 2,
        "intermediate_size": 24, "num_hidden_layers": 2, "vocab_size": 40,
        "sliding_window": 2, "layer_types": ["full_attention", "sliding_attention"],
    },
    "seed_oss defaults: Q/K/V biases, no O bias, head_dim 128, 8 kv heads": {
        "model_type": "seed_oss", "hidden_size": 16, "num_attention_heads": 8,
        "intermediate_size": 12, "num_hidden_layers": 1, "vocab_size": 30,
    },
    "seed_oss O bias only, null head_dim, MLP bias, tied": {
        "model_type": "seed_oss", "hidden_size": 24, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": None, "intermediate_size": 20,
        "num_hidden_layers": 2, "vocab_size": 40, "attention_bias": False,
        "attention_out_bias": True, "mlp_bias": True, "tie_word_embeddings": True,
    },
    "exaone4 defaults: 32 kv heads, 3 sliding layers in 4, window 4096": {
        "model_type": "exaone4", "hidden_size": 64, "num_attention_heads": 32,
        "intermediate_size": 12, "num_hidden_layers": 4, "vocab_size": 30,
    },
    "exaone4 pattern 2, window 2, GQA, head_dim, tied": {
        "model_type": "exaone4", "hidden_size": 20, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 6, "intermediate_size": 28,
        "num_hidden_layers": 3, "vocab_size": 50, "sliding_window_pattern": 2,
        "sliding_window": 2, "tie_word_embeddings": True,
    },
    "exaone4 layer_types beside a string pattern": {
        "model_type": "exaone4", "hidden_size": 16, "num_attention_heads": 2,
        "num_key_value_heads": 1, "intermediate_size": 24, "num_hidden_layers": 2,
        "vocab_size": 40, "sliding_window": 3, "sliding_window_pattern": "LG",
        "layer_types": ["sliding_attention", "full_attention"],
    },
    "cohere2 defaults: 3 sliding layers in 4, window 4096, tied": {
        "model_type": "cohere2", "hidden_size": 16, "num_attention_heads": 4,
        "intermediate_size": 20, "num_hidden_layers": 5, "vocab_size": 40,
    },
    "cohere2 pattern 2, window 2, biased, untied, head_dim, GQA": {
        "model_type": "cohere2", "hidden_size": 20, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 6, "intermediate_size": 28,
        "num_hidden_layers": 3, "vocab_size": 50, "sliding_window_pattern": 2,
        "sliding_window": 2, "attention_bias": True, "tie_word_embeddings": False,
        "logit_scale": 0.25,
    },
    "cohere2 layer_types: full, sliding, window 3": {
        "model_type": "cohere2", "hidden_size": 16, "num_attention_heads": 2,
        "intermediate_size": 24, "num_hidden_layers": 2, "vocab_size": 40,
        "sliding_window": 3, "layer_types": ["full_attention", "sliding_attention"],
    },
}  # fmt: skip

_M2 = {"model_type": "minimax_m2", "architectures": ["MiniMaxM2ForCausalLM"], "hidden_size": 16,
       "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 4,
       "intermediate_size": 6, "num_hidden_layers": 2, "vocab_size": 40,
       "num_local_experts": 4, "num_experts_per_tok": 2}  # fmt: skip
_MINISTRAL3 = {"model_type": "ministral3", "architectures": ["Ministral3ForCausalLM"],
               "hidden_size": 16, "num_attention_heads": 8, "intermediate_size": 20,
               "num_hidden_layers": 2, "vocab_size": 40}  # fmt: skip
_ERNIE_DENSE = {"model_type": "ernie4_5", "architectures": ["Ernie4_5ForCausalLM"],
                "hidden_size": 16, "num_attention_heads": 2, "intermediate_size": 20,
                "num_hidden_layers": 2, "vocab_size": 40}  # fmt: skip
_HY_DENSE = {"model_type": "hunyuan_v1_dense", "architectures": ["HunYuanDenseV1ForCausalLM"],
             "hidden_size": 16, "num_attention_heads": 4, "head_dim": 4, "intermediate_size": 20,
             "num_hidden_layers": 2, "vocab_size": 40}  # fmt: skip
_HY_MOE = {"model_type": "hunyuan_v1_moe", "architectures": ["HunYuanMoEV1ForCausalLM"],
           "hidden_size": 16, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 4,
           "intermediate_size": 10, "num_hidden_layers": 2, "vocab_size": 40}  # fmt: skip
_DECODERS_MOE_2025: Cases = {
    "minimax_m2 top-2 of 4, GQA, full-width q/k norms": _M2,
    "minimax_m2 tied, partial rotary, num_experts alias wins, every expert": {
        **_M2, "num_local_experts": 5, "num_experts": 3, "num_experts_per_tok": 3,
        "tie_word_embeddings": True, "rotary_dim": 2,
    },
    "minimax_m2 defaults: head_dim 128, 8 kv heads, 256 experts top-8": {
        "model_type": "minimax_m2", "hidden_size": 8, "num_attention_heads": 8,
        "intermediate_size": 2, "num_hidden_layers": 1, "vocab_size": 30,
    },
    "minimax_m2 sliding_window in config.json: the cache slides": {**_M2, "sliding_window": 3},
    "ministral3 defaults: head_dim 128, 8 kv heads, untied": _MINISTRAL3,
    "ministral3 sliding window, head_dim 6, GQA, tied": {
        **_MINISTRAL3, "num_attention_heads": 4, "head_dim": 6, "num_key_value_heads": 2,
        "sliding_window": 3, "tie_word_embeddings": True,
    },
    "ernie4_5 defaults: head_dim 128, 2 kv heads, tied": _ERNIE_DENSE,
    "ernie4_5 use_bias untied, null head_dim, MQA": {
        **_ERNIE_DENSE, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": None,
        "num_hidden_layers": 3, "use_bias": True, "tie_word_embeddings": False,
    },
    "hunyuan_v1_dense defaults: kv = heads": _HY_DENSE,
    "hunyuan_v1_dense biased, GQA, head_dim free, tied": {
        **_HY_DENSE, "hidden_size": 20, "num_key_value_heads": 2, "head_dim": 6,
        "intermediate_size": 12, "attention_bias": True, "tie_word_embeddings": True,
    },
    "hunyuan_v1_moe top-2 of 3, shared MLP, moe_topk per layer": {
        **_HY_MOE, "num_experts": 3, "moe_topk": [2, 2],
        "moe_intermediate_size": [99, 99], "num_shared_expert": [2, 2],  # unread by the class
    },
    "hunyuan_v1_moe aliases win, biased, tied": {
        **_HY_MOE, "num_experts": 2, "num_local_experts": 4, "moe_topk": 1,
        "num_experts_per_tok": 3, "attention_bias": True, "tie_word_embeddings": True,
    },
    "hunyuan_v1_moe defaults: one expert, top-1, kv = heads": {
        **_HY_MOE, "num_key_value_heads": None,
    },
}  # fmt: skip

TINY_TEXT: dict[str, Any] = {
    "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1,
    "hidden_size": 8, "head_dim": 4, "intermediate_size": 12, "vocab_size": 40,
    "max_position_embeddings": 128, "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None,
}  # fmt: skip
_MULTIMODAL: Cases = {
    "gemma3 SigLIP with its pooling head, 4 tokens an image": {
        "model_type": "gemma3", "image_token_index": 39, "boi_token_index": 0,
        "eoi_token_index": 0, "mm_tokens_per_image": 4,
        "text_config": {**TINY_TEXT, "model_type": "gemma3_text", "sliding_window": 2},
        "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 8,
                          "num_attention_heads": 2, "num_hidden_layers": 2,
                          "intermediate_size": 10, "image_size": 9, "patch_size": 2},
    },
    "gemma3 untied, no head, one token an image": {
        "model_type": "gemma3", "image_token_index": 39, "boi_token_index": 0,
        "eoi_token_index": 0, "mm_tokens_per_image": 1, "tie_word_embeddings": False,
        "text_config": {**TINY_TEXT, "model_type": "gemma3_text"},
        "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 4,
                          "num_attention_heads": 1, "num_hidden_layers": 1,
                          "intermediate_size": 6, "image_size": 4, "patch_size": 2,
                          "vision_use_head": False, "num_channels": 1},
    },
    "llava CLIP, full strategy, two feature layers, no projector bias": {
        "model_type": "llava", "image_token_index": 39,
        "vision_feature_select_strategy": "full", "vision_feature_layer": [-2, -1],
        "multimodal_projector_bias": False, "projector_hidden_act": "silu",
        "text_config": {**TINY_TEXT, "model_type": "llama", "tie_word_embeddings": True},
        "vision_config": {"model_type": "clip_vision_model", "hidden_size": 8,
                          "num_attention_heads": 2, "num_hidden_layers": 2,
                          "intermediate_size": 10, "image_size": 6, "patch_size": 3},
    },
    "llava SigLIP tower": {
        "model_type": "llava", "image_token_index": 39,
        "text_config": {**TINY_TEXT, "model_type": "llama"},
        "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 8,
                          "num_attention_heads": 2, "num_hidden_layers": 1,
                          "intermediate_size": 10, "image_size": 4, "patch_size": 2,
                          "vision_use_head": False},
    },
}  # fmt: skip

# The Qwen vision-language wrappers: special tokens at the top of the vocabulary (40).
_QVL_IDS: dict[str, Any] = {
    "image_token_id": 39,
    "video_token_id": 38,
    "vision_start_token_id": 37,
    "vision_end_token_id": 36,
}
_QVL_TEXT: dict[str, Any] = {
    "vocab_size": 40,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "intermediate_size": 12,
    "max_position_embeddings": 64,
    "bos_token_id": 0,
    "eos_token_id": 0,
    "pad_token_id": None,
    "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 1, 1]},
}
_QWEN_VL: Cases = {
    "qwen2_5_vl flat text fields (the Hub's), ragged windows, tied": {
        "model_type": "qwen2_5_vl", **_QVL_IDS, **_QVL_TEXT, "hidden_size": 16,
        "tie_word_embeddings": True,
        "vision_config": {"depth": 2, "hidden_size": 16, "num_heads": 2, "intermediate_size": 10,
                          "patch_size": 2, "spatial_merge_size": 2, "temporal_patch_size": 2,
                          "window_size": 8, "fullatt_block_indexes": [1],
                          "out_hidden_size": 16},
    },
    "qwen2_5_vl text_config tied, sliding layers, window_size floored, gelu": {
        "model_type": "qwen2_5_vl", **_QVL_IDS,
        "text_config": {**_QVL_TEXT, "hidden_size": 16, "tie_word_embeddings": True,
                        "use_sliding_window": True, "sliding_window": 3, "max_window_layers": 1},
        "vision_config": {"depth": 2, "hidden_size": 8, "num_heads": 1, "intermediate_size": 6,
                          "patch_size": 3, "spatial_merge_size": 1, "temporal_patch_size": 1,
                          "in_channels": 1, "window_size": 7, "fullatt_block_indexes": [],
                          "hidden_act": "gelu", "out_hidden_size": 16},
    },
    "qwen3_vl deepstack repeated and past the blocks, biased, null kv heads": {
        "model_type": "qwen3_vl", **_QVL_IDS,
        "text_config": {**_QVL_TEXT, "hidden_size": 12, "head_dim": 4,
                        "num_key_value_heads": None, "attention_bias": True,
                        "tie_word_embeddings": True},
        "vision_config": {"depth": 2, "hidden_size": 8, "num_heads": 2, "intermediate_size": 6,
                          "patch_size": 2, "spatial_merge_size": 2, "temporal_patch_size": 2,
                          "num_position_embeddings": 9, "deepstack_visual_indexes": [1, 1, 5],
                          "out_hidden_size": 12},
    },
    "qwen3_vl head_dim 128 by default, tied at the top, no deepstack": {
        "model_type": "qwen3_vl", **_QVL_IDS, "tie_word_embeddings": True,
        "text_config": {**_QVL_TEXT, "hidden_size": 8,
                        "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0,
                                            "mrope_section": [24, 20, 20]}},
        "vision_config": {"depth": 1, "hidden_size": 4, "num_heads": 1, "intermediate_size": 6,
                          "patch_size": 4, "spatial_merge_size": 1, "temporal_patch_size": 1,
                          "deepstack_visual_indexes": [], "out_hidden_size": 8},
    },
    "qwen3_vl_moe both expert keys, sparse step 2, MLP-only layer": {
        "model_type": "qwen3_vl_moe", **_QVL_IDS,
        "text_config": {**_QVL_TEXT, "hidden_size": 16, "head_dim": 4, "num_experts": 2,
                        "num_local_experts": 3, "num_experts_per_tok": 2,
                        "moe_intermediate_size": 6, "decoder_sparse_step": 1,
                        "mlp_only_layers": [0], "tie_word_embeddings": True},
        "vision_config": {"depth": 2, "hidden_size": 8, "num_heads": 2, "intermediate_size": 6,
                          "patch_size": 2, "spatial_merge_size": 2, "temporal_patch_size": 2,
                          "num_position_embeddings": 4, "deepstack_visual_indexes": [0],
                          "out_hidden_size": 16},
    },
    "qwen3_vl_moe head_dim hidden / heads, 16 kv heads by default, tied": {
        "model_type": "qwen3_vl_moe", **_QVL_IDS, "tie_word_embeddings": True,
        "text_config": {**_QVL_TEXT, "hidden_size": 32, "num_attention_heads": 16,
                        "num_key_value_heads": 16, "num_experts": 2, "num_experts_per_tok": 1,
                        "moe_intermediate_size": 4, "decoder_sparse_step": 2},
        "vision_config": {"depth": 1, "hidden_size": 4, "num_heads": 1, "intermediate_size": 6,
                          "patch_size": 2, "spatial_merge_size": 1, "temporal_patch_size": 1,
                          "deepstack_visual_indexes": [0], "out_hidden_size": 32},
    },
}  # fmt: skip
_MULTIMODAL_2: Cases = {
    "mistral3 Pixtral, merge 2, projector biases": {
        "model_type": "mistral3", "image_token_index": 39, "multimodal_projector_bias": True,
        "text_config": {**TINY_TEXT, "model_type": "mistral"},
        "vision_config": {"model_type": "pixtral", "hidden_size": 8, "num_attention_heads": 2,
                          "num_hidden_layers": 2, "intermediate_size": 10, "image_size": 12,
                          "patch_size": 2},
    },
    "mistral3 Pixtral, no merge, untied, one channel": {
        "model_type": "mistral3", "image_token_index": 39, "spatial_merge_size": 1,
        "tie_word_embeddings": False, "vision_feature_layer": -2,
        "text_config": {**TINY_TEXT, "model_type": "mistral", "sliding_window": 2},
        "vision_config": {"model_type": "pixtral", "hidden_size": 4, "num_attention_heads": 1,
                          "num_hidden_layers": 1, "intermediate_size": 6, "image_size": 6,
                          "patch_size": 3, "num_channels": 1, "hidden_act": "silu"},
    },
    "idefics3 shuffle 2, tied": {
        "model_type": "idefics3", "image_token_id": 39, "tie_word_embeddings": True,
        "text_config": {**TINY_TEXT, "model_type": "llama"},
        "vision_config": {"model_type": "idefics3_vision", "hidden_size": 8,
                          "num_attention_heads": 2, "num_hidden_layers": 2,
                          "intermediate_size": 10, "image_size": 9, "patch_size": 2},
    },
    "smolvlm shuffle 3, one channel": {
        "model_type": "smolvlm", "image_token_id": 39, "scale_factor": 3,
        "text_config": {**TINY_TEXT, "model_type": "llama"},
        "vision_config": {"model_type": "smolvlm_vision", "hidden_size": 4,
                          "num_attention_heads": 1, "num_hidden_layers": 1,
                          "intermediate_size": 6, "image_size": 6, "patch_size": 1,
                          "num_channels": 1, "hidden_act": "gelu"},
    },
    "llama4 MoE every other layer, vision model of 4 x 4 patches": {
        "model_type": "llama4", "image_token_index": 39,
        "text_config": {**TINY_TEXT, "model_type": "llama4_text", "num_local_experts": 2,
                        "num_experts_per_tok": 1, "intermediate_size_mlp": 10,
                        "interleave_moe_layer_step": 2, "num_hidden_layers": 2},
        "vision_config": {"hidden_size": 8, "num_attention_heads": 2, "num_hidden_layers": 2,
                          "intermediate_size": 32, "image_size": 8, "patch_size": 2,
                          "projector_input_dim": 5, "projector_output_dim": 5,
                          "vision_output_dim": 5},
    },
}  # fmt: skip

_HYBRID_MAMBA: Cases = {
    "mamba2 chunk 4, kernel 3, 2 groups": {
        "model_type": "mamba2", "architectures": ["Mamba2ForCausalLM"], "hidden_size": 16,
        "num_heads": 4, "head_dim": 8, "n_groups": 2, "state_size": 6,
        "num_hidden_layers": 2, "vocab_size": 50, "expand": 2, "conv_kernel": 3,
        "chunk_size": 4,
    },
    "mamba2 biases, tied, one head": {
        "model_type": "mamba2", "architectures": ["Mamba2ForCausalLM"], "hidden_size": 8,
        "num_heads": 1, "head_dim": 8, "n_groups": 1, "state_size": 3, "num_hidden_layers": 1,
        "vocab_size": 20, "expand": 1, "use_bias": True, "use_conv_bias": False,
        "tie_word_embeddings": True, "chunk_size": 2,
    },
    "nemotron_h pattern M-*-M: Mamba-2, MLP, attention": {
        "model_type": "nemotron_h", "architectures": ["NemotronHForCausalLM"],
        "hidden_size": 16, "hybrid_override_pattern": "M-*-M", "num_attention_heads": 2,
        "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 24, "vocab_size": 40,
        "mamba_num_heads": 4, "mamba_head_dim": 4, "n_groups": 2, "ssm_state_size": 5,
        "conv_kernel": 3, "chunk_size": 4,
    },
    "nemotron_h legacy mamba_* names win over the fields; use_bias gives the mixer biases": {
        "model_type": "nemotron_h", "architectures": ["NemotronHForCausalLM"],
        "hidden_size": 16, "hybrid_override_pattern": "M*-", "num_attention_heads": 2,
        "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 24, "vocab_size": 40,
        "mamba_num_heads": 4, "mamba_head_dim": 4, "n_groups": 2, "mamba_n_groups": 4,
        "ssm_state_size": 5, "conv_kernel": 3, "mamba_d_conv": 2, "chunk_size": 4,
        "mamba_chunk_size": 3, "use_conv_bias": True, "mamba_conv_bias": False,
        "use_bias": True, "mamba_proj_bias": False,
    },
    "nemotron_h pattern ME*-E: MoE blocks (4 experts, top 2, shared MLP), MLP, attention": {
        "model_type": "nemotron_h", "architectures": ["NemotronHForCausalLM"],
        "hidden_size": 16, "hybrid_override_pattern": "ME*-E", "num_attention_heads": 2,
        "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 24, "vocab_size": 40,
        "mamba_num_heads": 4, "mamba_head_dim": 4, "n_groups": 2, "ssm_state_size": 5,
        "conv_kernel": 3, "chunk_size": 4, "n_routed_experts": 4, "num_experts_per_tok": 2,
        "moe_intermediate_size": 12, "moe_shared_expert_intermediate_size": 20,
        "routed_scaling_factor": 2.5,
    },
    "nemotron_h latent MoE, mlp_bias (latent projections, shared MLP), 2 routing groups": {
        "model_type": "nemotron_h", "architectures": ["NemotronHForCausalLM"],
        "hidden_size": 16, "layers_block_type": ["moe", "full_attention", "linear_attention"],
        "num_attention_heads": 2, "num_key_value_heads": 2, "head_dim": 4,
        "intermediate_size": 24, "vocab_size": 40, "mamba_num_heads": 2, "mamba_head_dim": 4,
        "n_groups": 1, "ssm_state_size": 3, "chunk_size": 2, "n_routed_experts": 6,
        "n_group": 2, "topk_group": 1, "num_experts_per_tok": 3, "moe_intermediate_size": 10,
        "moe_shared_expert_intermediate_size": 14, "moe_latent_size": 6, "mlp_bias": True,
        "norm_topk_prob": False,
    },
    "nemotron_h num_local_experts (alias); shared MLP width 0 takes intermediate_size": {
        "model_type": "nemotron_h", "architectures": ["NemotronHForCausalLM"],
        "hidden_size": 8, "hybrid_override_pattern": "*E", "num_attention_heads": 2,
        "num_key_value_heads": 1, "head_dim": 4, "intermediate_size": 18, "vocab_size": 30,
        "num_local_experts": 3, "num_experts_per_tok": 1, "moe_intermediate_size": 5,
        "moe_shared_expert_intermediate_size": 0, "tie_word_embeddings": True,
    },
    "granitemoehybrid Mamba-2, attention; 4 experts, shared MLP": {
        "model_type": "granitemoehybrid", "architectures": ["GraniteMoeHybridForCausalLM"],
        "hidden_size": 16, "num_hidden_layers": 3, "num_attention_heads": 2,
        "num_key_value_heads": 1, "intermediate_size": 8, "shared_intermediate_size": 12,
        "num_local_experts": 4, "num_experts_per_tok": 2, "vocab_size": 40,
        "layer_types": ["linear_attention", "full_attention", "linear_attention"],
        "mamba_n_heads": 4, "mamba_n_groups": 2, "mamba_d_state": 5, "mamba_d_conv": 3,
        "mamba_chunk_size": 4, "position_embedding_type": "rope",
    },
    "granitemoehybrid no experts: the shared MLP alone, tied": {
        "model_type": "granitemoehybrid", "architectures": ["GraniteMoeHybridForCausalLM"],
        "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2,
        "intermediate_size": 8, "shared_intermediate_size": 6, "num_local_experts": 0,
        "vocab_size": 30, "layer_types": ["full_attention", "linear_attention"],
        "mamba_n_heads": 2, "mamba_d_state": 3, "mamba_chunk_size": 2,
        "tie_word_embeddings": True, "mamba_proj_bias": True,
    },
    "bamba attention at layer 1 (and an index past the last), groups 2, biases": {
        "model_type": "bamba", "architectures": ["BambaForCausalLM"], "hidden_size": 16,
        "num_hidden_layers": 3, "num_attention_heads": 2, "num_key_value_heads": 1,
        "intermediate_size": 12, "vocab_size": 40, "attn_layer_indices": [1, 7],
        "mamba_n_heads": 4, "mamba_n_groups": 2, "mamba_d_state": 5, "mamba_d_conv": 3,
        "mamba_chunk_size": 4, "mamba_proj_bias": True, "mlp_bias": True,
        "attention_bias": True,
    },
    "bamba head_dim and mamba_d_head given, no conv bias, tied, pad_token_id 0": {
        "model_type": "bamba", "architectures": ["BambaForCausalLM"], "hidden_size": 12,
        "num_hidden_layers": 2, "num_attention_heads": 3, "num_key_value_heads": 3,
        "head_dim": 6, "intermediate_size": 8, "vocab_size": 30, "attn_layer_indices": [0],
        "mamba_n_heads": 3, "mamba_d_head": 4, "mamba_expand": 1, "mamba_d_state": 2,
        "mamba_d_conv": 2, "mamba_chunk_size": 2, "mamba_conv_bias": False,
        "tie_word_embeddings": True, "pad_token_id": 0,
    },
    "falcon_h1 attention and Mamba-2 side by side, d_ssm given": {
        "model_type": "falcon_h1", "architectures": ["FalconH1ForCausalLM"], "hidden_size": 16,
        "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1,
        "intermediate_size": 24, "vocab_size": 40, "mamba_d_ssm": 12, "mamba_n_heads": 3,
        "mamba_n_groups": 1, "mamba_d_state": 5, "mamba_d_conv": 3, "mamba_chunk_size": 4,
    },
    "falcon_h1 gated norm, biases, d_ssm null (expand x hidden)": {
        "model_type": "falcon_h1", "architectures": ["FalconH1ForCausalLM"], "hidden_size": 8,
        "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 2,
        "intermediate_size": 12, "vocab_size": 30, "mamba_d_ssm": None, "mamba_expand": 2, "mamba_n_heads": 4,
        "mamba_n_groups": 2, "mamba_d_state": 3, "mamba_chunk_size": 2, "mamba_rms_norm": True,
        "mamba_proj_bias": True, "projectors_bias": True, "tie_word_embeddings": True,
    },
    "zamba2 two shared blocks over three hybrid layers, attention adapters, rotary, biases": {
        "model_type": "zamba2", "architectures": ["Zamba2ForCausalLM"], "hidden_size": 8,
        "num_hidden_layers": 5, "layers_block_type": ["mamba", "hybrid", "hybrid", "mamba", "hybrid"],
        "num_attention_heads": 2, "intermediate_size": 6, "vocab_size": 30, "n_mamba_heads": 2,
        "mamba_ngroups": 2, "mamba_d_state": 4, "mamba_d_conv": 3, "chunk_size": 2,
        "num_mem_blocks": 2, "use_shared_attention_adapter": True, "adapter_rank": 3,
        "use_mem_rope": True, "add_bias_linear": True,
    },
    "zamba2 GQA, more shared blocks than hybrid layers, untied, no conv-bias flag honoured": {
        "model_type": "zamba2", "architectures": ["Zamba2ForCausalLM"], "hidden_size": 6,
        "num_hidden_layers": 3, "layers_block_type": ["hybrid", "linear_attention", "hybrid"],
        "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 5,
        "vocab_size": 25, "n_mamba_heads": 3, "mamba_expand": 1, "mamba_d_state": 2,
        "mamba_d_conv": 2, "chunk_size": 3, "num_mem_blocks": 3, "adapter_rank": 2,
        "tie_word_embeddings": False, "use_conv_bias": False, "pad_token_id": 0,
    },
    "zamba2 untied: each hybrid layer its own block copy, adapter slots of its block id": {
        "model_type": "zamba2", "architectures": ["Zamba2ForCausalLM"], "hidden_size": 4,
        "num_hidden_layers": 4, "layers_block_type": ["hybrid", "hybrid", "mamba", "hybrid"],
        "num_attention_heads": 2, "intermediate_size": 3, "vocab_size": 20, "n_mamba_heads": 2,
        "mamba_d_state": 2, "mamba_d_conv": 2, "chunk_size": 2, "num_mem_blocks": 2,
        "use_shared_attention_adapter": True, "adapter_rank": 2, "tie_word_embeddings": False,
    },
}  # fmt: skip

_HYBRID_LINEAR: Cases = {
    "qwen3_next two key heads, four value heads, MLP-only layer": {
        "model_type": "qwen3_next", "architectures": ["Qwen3NextForCausalLM"],
        "hidden_size": 32, "num_hidden_layers": 4, "num_attention_heads": 2,
        "num_key_value_heads": 1, "head_dim": 8, "linear_num_key_heads": 2,
        "linear_num_value_heads": 4, "linear_key_head_dim": 8, "linear_value_head_dim": 6,
        "linear_conv_kernel_dim": 4, "intermediate_size": 48, "moe_intermediate_size": 16,
        "shared_expert_intermediate_size": 24, "num_experts": 4, "num_experts_per_tok": 2,
        "mlp_only_layers": [1], "vocab_size": 64,
    },
    "qwen3_next layer_types, biases, tied, kernel 2, key dim 1": {
        "model_type": "qwen3_next", "architectures": ["Qwen3NextForCausalLM"],
        "hidden_size": 12, "num_hidden_layers": 3, "num_attention_heads": 3,
        "num_key_value_heads": 3, "head_dim": 4, "linear_num_key_heads": 1,
        "linear_num_value_heads": 2, "linear_key_head_dim": 1, "linear_value_head_dim": 3,
        "linear_conv_kernel_dim": 2, "intermediate_size": 10, "moe_intermediate_size": 6,
        "shared_expert_intermediate_size": 5, "num_experts": 3, "num_experts_per_tok": 1,
        "layer_types": ["full_attention", "linear_attention", "linear_attention"],
        "attention_bias": True, "tie_word_embeddings": True, "decoder_sparse_step": 2,
        "vocab_size": 30,
    },
    "kimi_linear KDA, MLA with a plain q_proj, dense first layer": {
        "model_type": "kimi_linear", "architectures": ["KimiLinearForCausalLM"],
        "hidden_size": 24, "num_hidden_layers": 3, "num_attention_heads": 2,
        "num_key_value_heads": 2, "kv_lora_rank": 6, "qk_rope_head_dim": 4, "qk_nope_head_dim": 5, "v_head_dim": 3,
        "linear_num_heads": 2, "linear_head_dim": 4, "linear_conv_kernel_dim": 4,
        "intermediate_size": 20, "moe_intermediate_size": 8, "num_experts": 4,
        "num_experts_per_token": 2, "vocab_size": 40,
        "layer_types": ["linear_attention", "full_attention", "linear_attention"],
    },
    "kimi_linear linear_attn_config, q_lora_rank, two shared experts": {
        "model_type": "kimi_linear", "architectures": ["KimiLinearForCausalLM"],
        "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2, "q_lora_rank": 4,
        "num_key_value_heads": 2,
        "kv_lora_rank": 3, "qk_rope_head_dim": 2, "qk_nope_head_dim": 2, "v_head_dim": 2,
        "linear_attn_config": {"head_dim": 3, "num_heads": 2, "short_conv_kernel_size": 3,
                               "full_attn_layers": [2], "kda_layers": [1]},
        "intermediate_size": 12, "moe_intermediate_size": 4, "num_experts": 3,
        "num_experts_per_token": 2, "num_shared_experts": 2, "mlp_layer_types": ["sparse", "dense"],
        "vocab_size": 30,
    },
}  # fmt: skip

_G3N_TEXT: dict[str, Any] = {
    "model_type": "gemma3n_text", "num_hidden_layers": 4, "hidden_size": 8,
    "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4, "intermediate_size": 12,
    "vocab_size": 40, "vocab_size_per_layer_input": 30, "hidden_size_per_layer_input": 3,
    "altup_num_inputs": 3, "laurel_rank": 2, "num_kv_shared_layers": 2, "sliding_window": 3,
    "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention"],
}  # fmt: skip
_G3N_AUDIO: dict[str, Any] = {
    "model_type": "gemma3n_audio", "hidden_size": 8, "conf_num_attention_heads": 2,
    "conf_num_hidden_layers": 2, "conf_conv_kernel_size": 3, "input_feat_size": 10,
    "sscp_conv_channel_size": [4, 3], "vocab_size": 6,
}  # fmt: skip
_GEMMA3N: Cases = {
    "gemma3n_text AltUp, LAuReL, per-layer inputs, 2 KV-shared layers, sparse FFN": {
        **_G3N_TEXT, "activation_sparsity_pattern": [0.95, 0.95, 0.0, 0.0],
    },
    "gemma3n_text one stream, no sharing, widths per layer, untied, biased": {
        **_G3N_TEXT, "altup_num_inputs": 1, "num_kv_shared_layers": 0,
        "intermediate_size": [10, 10, 10, 10, 10], "tie_word_embeddings": False,
        "attention_bias": True, "layer_types": None, "num_hidden_layers": 5,
    },
    "gemma3n tiny text and audio, vision embedder": {
        "model_type": "gemma3n", "audio_soft_tokens_per_image": 3,
        "text_config": _G3N_TEXT, "audio_config": _G3N_AUDIO,
        "vision_config": {"model_type": "gemma3n_vision", "hidden_size": 6, "vocab_size": 5},
    },
}  # fmt: skip
_HYBRID_CONV_SCAN: Cases = {
    "lfm2 conv kernel 4, biases, attention in layer 1": {
        "model_type": "lfm2", "architectures": ["Lfm2ForCausalLM"], "hidden_size": 8,
        "num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 3,
        "intermediate_size": 30, "vocab_size": 40, "conv_L_cache": 4, "conv_bias": True,
        "layer_types": ["conv", "full_attention", "conv"], "block_multiple_of": 4,
    },
    "lfm2 full_attn_idxs, untied, unadjusted FFN": {
        "model_type": "lfm2", "architectures": ["Lfm2ForCausalLM"], "hidden_size": 8,
        "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2,
        "intermediate_size": 12, "vocab_size": 30, "full_attn_idxs": [0],
        "block_auto_adjust_ff_dim": False, "tie_word_embeddings": False,
    },
    "lfm2_moe 1 dense layer, 4 experts top 2, expert bias": {
        "model_type": "lfm2_moe", "architectures": ["Lfm2MoeForCausalLM"], "hidden_size": 8,
        "num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 3,
        "intermediate_size": 12, "moe_intermediate_size": 6, "num_experts": 4,
        "num_experts_per_tok": 2, "num_dense_layers": 1, "vocab_size": 30,
        "layer_types": ["conv", "full_attention", "conv"],
    },
    "lfm2_moe no expert bias, conv bias, untied": {
        "model_type": "lfm2_moe", "architectures": ["Lfm2MoeForCausalLM"], "hidden_size": 8,
        "num_attention_heads": 2, "num_key_value_heads": 2, "num_hidden_layers": 2,
        "intermediate_size": 12, "moe_intermediate_size": 4, "num_experts": 3,
        "num_experts_per_tok": 1, "num_dense_layers": 0, "vocab_size": 30,
        "layer_types": ["full_attention", "conv"], "use_expert_bias": False,
        "conv_bias": True, "tie_word_embeddings": False,
    },
    "jamba attention at 1 of 2, experts at 0 of 2, d_conv 3": {
        "model_type": "jamba", "architectures": ["JambaForCausalLM"], "hidden_size": 8,
        "num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 3,
        "intermediate_size": 6, "num_experts": 3, "num_experts_per_tok": 2,
        "attn_layer_period": 2, "attn_layer_offset": 1, "expert_layer_period": 2,
        "expert_layer_offset": 0, "mamba_d_state": 3, "mamba_d_conv": 3, "mamba_dt_rank": 2,
        "vocab_size": 30,
    },
    "jamba one expert (dense), biases, auto dt_rank": {
        "model_type": "jamba", "architectures": ["JambaForCausalLM"], "hidden_size": 8,
        "num_attention_heads": 2, "num_key_value_heads": 2, "num_hidden_layers": 2,
        "intermediate_size": 6, "num_experts": 1, "attn_layer_period": 2,
        "attn_layer_offset": 0, "mamba_d_state": 2, "mamba_proj_bias": True,
        "mamba_conv_bias": False, "vocab_size": 30,
    },
    "jamba state size 1 (the read-out over one element still a bmm), expand 1": {
        "model_type": "jamba", "architectures": ["JambaForCausalLM"], "hidden_size": 4,
        "num_attention_heads": 1, "num_key_value_heads": 1, "num_hidden_layers": 2,
        "intermediate_size": 3, "num_experts": 2, "num_experts_per_tok": 1,
        "attn_layer_period": 2, "attn_layer_offset": 0, "mamba_d_state": 1,
        "mamba_expand": 1, "vocab_size": 20,
    },
    "minimax lightning, full, lightning; block 2, head_dim 4": {
        "model_type": "minimax", "architectures": ["MiniMaxForCausalLM"], "hidden_size": 8,
        "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4,
        "num_hidden_layers": 3, "intermediate_size": 6, "num_local_experts": 3,
        "num_experts_per_tok": 2, "block_size": 2, "vocab_size": 30,
        "layer_types": ["linear_attention", "full_attention", "linear_attention"],
    },
    "minimax default layer types (full, lightning), block 4": {
        "model_type": "minimax", "architectures": ["MiniMaxForCausalLM"], "hidden_size": 8,
        "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2,
        "intermediate_size": 6, "num_local_experts": 2, "num_experts_per_tok": 1,
        "block_size": 4, "vocab_size": 30,
    },
}  # fmt: skip
# Qwen3.5: the wrappers' special tokens at the top of each tiny vocabulary.
_Q35_IDS: dict[str, Any] = {
    "image_token_id": 39,
    "video_token_id": 38,
    "vision_start_token_id": 37,
    "vision_end_token_id": 36,
}
_Q35_VISION: dict[str, Any] = {
    "depth": 2,
    "hidden_size": 8,
    "num_heads": 2,
    "intermediate_size": 6,
    "patch_size": 2,
    "spatial_merge_size": 2,
    "temporal_patch_size": 2,
    "num_position_embeddings": 9,
}
_QWEN3_5: Cases = {
    "qwen3_5 text_config by interval, untied, two value heads per key head": {
        "model_type": "qwen3_5", "architectures": ["Qwen3_5ForConditionalGeneration"],
        **_Q35_IDS,
        "text_config": {"hidden_size": 16, "num_hidden_layers": 4, "num_attention_heads": 2,
                        "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 20,
                        "linear_num_key_heads": 2, "linear_num_value_heads": 4,
                        "linear_key_head_dim": 4, "linear_value_head_dim": 3,
                        "linear_conv_kernel_dim": 3, "vocab_size": 40, **IDS,
                        "max_position_embeddings": 64},
        "vision_config": {**_Q35_VISION, "out_hidden_size": 16},
    },
    "qwen3_5 tied at the top (text_config's tie not read), biases, layer_types": {
        "model_type": "qwen3_5", "architectures": ["Qwen3_5ForConditionalGeneration"],
        **_Q35_IDS, "tie_word_embeddings": True,
        "text_config": {"hidden_size": 12, "num_hidden_layers": 3, "num_attention_heads": 3,
                        "num_key_value_heads": 3, "head_dim": 4, "intermediate_size": 10,
                        "linear_num_key_heads": 1, "linear_num_value_heads": 2,
                        "linear_key_head_dim": 1, "linear_value_head_dim": 3,
                        "linear_conv_kernel_dim": 2, "vocab_size": 40, **IDS,
                        "layer_types": ["full_attention", "linear_attention", "linear_attention"],
                        "attention_bias": True, "tie_word_embeddings": False},
        "vision_config": {**_Q35_VISION, "depth": 1, "spatial_merge_size": 1,
                          "hidden_act": "gelu", "out_hidden_size": 12},
    },
    "qwen3_5_moe shared expert in every layer, sparse-step fields not read": {
        "model_type": "qwen3_5_moe", "architectures": ["Qwen3_5MoeForConditionalGeneration"],
        **_Q35_IDS,
        "text_config": {"hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
                        "num_key_value_heads": 1, "head_dim": 8, "moe_intermediate_size": 6,
                        "shared_expert_intermediate_size": 5, "num_experts": 3,
                        "num_experts_per_tok": 2, "linear_num_key_heads": 1,
                        "linear_num_value_heads": 2, "linear_key_head_dim": 4,
                        "linear_value_head_dim": 2, "vocab_size": 40, **IDS,
                        "layer_types": ["linear_attention", "full_attention"],
                        "decoder_sparse_step": 2, "mlp_only_layers": [0],
                        "intermediate_size": 99},
        "vision_config": {**_Q35_VISION, "out_hidden_size": 16},
    },
    "qwen3_5_text dense, kernel 4, tied": {
        "model_type": "qwen3_5_text", "architectures": ["Qwen3_5ForCausalLM"],
        "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
        "num_key_value_heads": 1, "head_dim": 4, "intermediate_size": 12,
        "linear_num_key_heads": 2, "linear_num_value_heads": 2, "linear_key_head_dim": 2,
        "linear_value_head_dim": 4, "full_attention_interval": 2, "tie_word_embeddings": True,
        "vocab_size": 30,
    },
    "qwen3_5_moe_text one expert, top-1, attention first": {
        "model_type": "qwen3_5_moe_text", "architectures": ["Qwen3_5MoeForCausalLM"],
        "hidden_size": 8, "num_hidden_layers": 3, "num_attention_heads": 2,
        "num_key_value_heads": 2, "head_dim": 4, "moe_intermediate_size": 4,
        "shared_expert_intermediate_size": 3, "num_experts": 1, "num_experts_per_tok": 1,
        "linear_num_key_heads": 1, "linear_num_value_heads": 1, "linear_key_head_dim": 3,
        "linear_value_head_dim": 2, "linear_conv_kernel_dim": 4, "vocab_size": 30,
        "layer_types": ["full_attention", "linear_attention", "linear_attention"],
    },
}  # fmt: skip
_G4_TEXT: dict[str, Any] = {
    "num_hidden_layers": 3, "num_attention_heads": 2, "num_key_value_heads": 1,
    "hidden_size": 8, "head_dim": 4, "intermediate_size": 12, "vocab_size": 40,
    "max_position_embeddings": 64, "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": 0,
}  # fmt: skip
_G4_IDS: dict[str, Any] = {
    "image_token_id": 39, "audio_token_id": 38, "video_token_id": 37, "boi_token_id": 0,
    "eoi_token_id": 0, "boa_token_id": 0, "eoa_token_index": 0,
}  # fmt: skip
_GEMMA4: Cases = {
    "gemma4_text global head_dim 6, per-layer inputs 3, last layer forced full": {
        "model_type": "gemma4_text", **_G4_TEXT, "global_head_dim": 6,
        "hidden_size_per_layer_input": 3, "vocab_size_per_layer_input": 48, "sliding_window": 3,
        "layer_types": ["sliding_attention", "full_attention", "sliding_attention"],
    },
    "gemma4_text per_layer_config: global kv heads 2, head_dim 2, no per-layer inputs": {
        "model_type": "gemma4_text", **_G4_TEXT, "hidden_size_per_layer_input": 0,
        "per_layer_config": {"02": {"head_dim": 2, "num_key_value_heads": 2}},
        "tie_word_embeddings": False, "attention_bias": True,
    },
    "gemma4_text 2 KV-shared layers of 5, per-layer inputs 2": {
        "model_type": "gemma4_text", **_G4_TEXT, "num_hidden_layers": 5, "global_head_dim": 6,
        "hidden_size_per_layer_input": 2, "sliding_window": 2, "num_kv_shared_layers": 2,
        "layer_types": ["sliding_attention", "full_attention", "sliding_attention",
                        "sliding_attention", "full_attention"],
    },
    "gemma4_text keys as values, 2 global KV heads, biased": {
        "model_type": "gemma4_text", **_G4_TEXT, "global_head_dim": 6, "sliding_window": 2,
        "attention_k_eq_v": True, "num_global_key_value_heads": 2, "attention_bias": True,
        "hidden_size_per_layer_input": 2,
        "layer_types": ["sliding_attention", "full_attention", "full_attention"],
    },
    "gemma4_text MoE block: 5 experts of width 3, top 2, beside an MLP of 12": {
        "model_type": "gemma4_text", **_G4_TEXT, "global_head_dim": 6, "sliding_window": 3,
        "hidden_size_per_layer_input": 2, "enable_moe_block": True, "num_experts": 5,
        "top_k_experts": 2, "moe_intermediate_size": 3,
        "layer_types": ["sliding_attention", "full_attention", "sliding_attention"],
    },
    "gemma4_text double-wide MLP in 2 KV-shared layers of 5, keys as values": {
        "model_type": "gemma4_text", **_G4_TEXT, "num_hidden_layers": 5, "global_head_dim": 6,
        "hidden_size_per_layer_input": 2, "sliding_window": 2, "num_kv_shared_layers": 2,
        "use_double_wide_mlp": True, "attention_k_eq_v": True,
        "layer_types": ["sliding_attention", "full_attention", "sliding_attention",
                        "sliding_attention", "full_attention"],
    },
    "gemma4_text MoE block and double-wide MLP in 1 KV-shared layer of 3, untied": {
        "model_type": "gemma4_text", **_G4_TEXT, "global_head_dim": 2, "sliding_window": 2,
        "hidden_size_per_layer_input": 3, "num_kv_shared_layers": 1, "use_double_wide_mlp": True,
        "enable_moe_block": True, "num_experts": 3, "top_k_experts": 3,
        "moe_intermediate_size": 2, "tie_word_embeddings": False,
        "layer_types": ["sliding_attention", "full_attention", "sliding_attention"],
    },
    "gemma4 MoE text (4 experts, top 1) and a vision tower": {
        "model_type": "gemma4", **_G4_IDS,
        "text_config": {**_G4_TEXT, "model_type": "gemma4_text", "global_head_dim": 2,
                        "hidden_size_per_layer_input": 0, "sliding_window": 2,
                        "enable_moe_block": True, "num_experts": 4, "top_k_experts": 1,
                        "moe_intermediate_size": 5, "attention_k_eq_v": True,
                        "num_global_key_value_heads": 2},
        "vision_config": {"model_type": "gemma4_vision", "hidden_size": 4,
                          "num_attention_heads": 1, "num_key_value_heads": 1, "head_dim": 4,
                          "num_hidden_layers": 1, "intermediate_size": 3, "patch_size": 1,
                          "pooling_kernel_size": 2, "position_embedding_size": 40},
    },
    "gemma4 vision (pooling 2) and audio towers, untied": {
        "model_type": "gemma4", **_G4_IDS, "tie_word_embeddings": False,
        "text_config": {**_G4_TEXT, "model_type": "gemma4_text", "global_head_dim": 2,
                        "hidden_size_per_layer_input": 2, "sliding_window": 2},
        "vision_config": {"model_type": "gemma4_vision", "hidden_size": 4,
                          "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4,
                          "num_hidden_layers": 1, "intermediate_size": 6, "patch_size": 1,
                          "pooling_kernel_size": 2, "position_embedding_size": 40},
        "audio_config": {"model_type": "gemma4_audio", "hidden_size": 8,
                         "num_attention_heads": 2, "num_hidden_layers": 2,
                         "output_proj_dims": 6, "subsampling_conv_channels": [4, 2]},
    },
    "kimi_k25 kimi_k2 text, 2 x 2 merge, tied by default": {
        "model_type": "kimi_k25", "image_token_id": 39, "video_token_id": 38,
        "vision_start_token_id": 0, "vision_end_token_id": 0, "projection_hidden_size": 8,
        "text_config": {**_DEEPSEEK_BASE, "model_type": "kimi_k2", "q_lora_rank": 24,
                        "first_k_dense_replace": 1, "n_group": 2, "topk_group": 1,
                        "vocab_size": 40},
        "vision_config": {"hidden_size": 8, "num_attention_heads": 2, "num_hidden_layers": 1,
                          "intermediate_size": 6, "patch_size": 2, "pos_emb_height": 4,
                          "pos_emb_width": 4},
    },
    "kimi_k25 untied, 3 x 3 merge, every layer MoE, 2 shared experts": {
        "model_type": "kimi_k25", "image_token_id": 39, "video_token_id": 38,
        "vision_start_token_id": 0, "vision_end_token_id": 0, "projection_hidden_size": 4,
        "tie_word_embeddings": False,
        "text_config": {**_DEEPSEEK_BASE, "model_type": "deepseek_v3", "q_lora_rank": 8,
                        "first_k_dense_replace": 0, "n_group": 1, "topk_group": 1,
                        "vocab_size": 40, "n_shared_experts": 2},
        "vision_config": {"hidden_size": 4, "num_attention_heads": 1, "num_hidden_layers": 2,
                          "intermediate_size": 5, "patch_size": 1, "pos_emb_height": 3,
                          "pos_emb_width": 5, "merge_kernel_size": [3, 3]},
    },
}  # fmt: skip

EXPLICIT: Cases = {
    **_MODEL_CONFIGS,
    **_GEMMA3N,
    **_QWEN3_5,
    **_HYBRID_MAMBA,
    **_HYBRID_LINEAR,
    **_HYBRID_CONV_SCAN,
    **_ENCODER_DECODER,
    **_WHISPER_MT5_CASES,
    **_GEMMA_QWEN3_OLMO2,
    **_PHI_STARCODER_GRANITE_COHERE,
    **_NEOX_FALCON_BIGCODE_GPTJ_OPT,
    **_MASKED_LM,
    **_DEEPSEEK,
    **_DEEPSEEK_V4,
    **_GLM_ERNIE,
    **_GPT_OSS_LLAMA4,
    **_QWEN_MOE_OLMOE,
    **_SPARSE_ATTENTION,
    **_ENCODERS_2025,
    **_DECODERS_2025,
    **_DECODERS_MOE_2025,
    **_MULTIMODAL,
    **_QWEN_VL,
    **_MULTIMODAL_2,
    **_GEMMA4,
}


def family_of(data: dict[str, Any]) -> str:
    """The family a case names: its config.json's model_type or its ModelConfig family."""
    return str(data.get("model_type") or data["family"])


def case(label: str) -> dict[str, Any]:
    """The explicit case `label` as its check receives it: its family's `ids` under its own
    fields."""
    data = EXPLICIT[label]
    return {**ORACLE[family_of(data)].ids, **data}
