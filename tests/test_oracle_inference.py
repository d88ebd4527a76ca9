"""Differential tests of the KV cache, one decode step and generate() against transformers.

After a real prefill of L tokens on the CPU (eager attention, eager experts), the sum of
numel() over every cached key and value equals ffn-calc's kv_elements, and FlopCounterMode
over one decode step with that cache equals its decode_flops, at contexts shorter and longer
than the windows. FlopCounterMode over `model.generate()` itself (greedy, exactly N new
tokens, its default cache) equals generation_flops, with prompts shorter and longer than the
windows and steps that cross them. Llama 4's eager experts run every expert for every token:
there the reference exceeds the top-k count by 2 x B x (E - k) x 3 x d_model x d_ff per MoE
layer and token.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from oracle_support import cache_numel, generated_flops  # noqa: E402
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

from ffn_calc.counts.inference import decode_flops, generation_flops, kv_elements  # noqa: E402
from ffn_calc.families import family_module  # noqa: E402
from ffn_calc.families.hf import hf_fields  # noqa: E402
from ffn_calc.model.config import ModelConfig  # noqa: E402
from ffn_calc.model.families import REGISTRY  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

BASE = {"hidden_size": 32, "intermediate_size": 40, "num_attention_heads": 4,
        "num_key_value_heads": 2, "num_hidden_layers": 3, "vocab_size": 50, "head_dim": 8,
        "max_position_embeddings": 128}  # fmt: skip
CASES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "llama (GQA)": ("LlamaConfig", "LlamaForCausalLM", BASE),
    "mistral (every layer slides over 6)": ("MistralConfig", "MistralForCausalLM",
        {**BASE, "sliding_window": 6}),
    "qwen2 (layers from 1 on slide over 6)": ("Qwen2Config", "Qwen2ForCausalLM",
        {**BASE, "use_sliding_window": True, "sliding_window": 6, "max_window_layers": 1}),
    "gemma2 (sliding window 6)": ("Gemma2Config", "Gemma2ForCausalLM", {**BASE, "sliding_window": 6}),
    "gpt_oss (sliding window 6, MoE)": ("GptOssConfig", "GptOssForCausalLM",
        {**BASE, "sliding_window": 6, "num_local_experts": 4, "num_experts_per_tok": 2}),
    "deepseek_v3 (MLA)": ("DeepseekV3Config", "DeepseekV3ForCausalLM",
        {"hidden_size": 32, "intermediate_size": 40, "moe_intermediate_size": 16,
         "num_attention_heads": 4, "num_key_value_heads": 4, "num_hidden_layers": 2,
         "vocab_size": 50, "q_lora_rank": 12, "kv_lora_rank": 8, "qk_nope_head_dim": 8,
         "qk_rope_head_dim": 4, "v_head_dim": 6, "n_routed_experts": 4, "num_experts_per_tok": 2,
         "n_shared_experts": 1, "first_k_dense_replace": 1, "n_group": 1, "topk_group": 1}),
    "gpt2 (learned positions, Conv1D)": ("GPT2Config", "GPT2LMHeadModel",
        {"n_embd": 32, "n_head": 4, "n_layer": 2, "n_positions": 64, "vocab_size": 50}),
    "mixtral (MoE)": ("MixtralConfig", "MixtralForCausalLM",
        {**BASE, "num_local_experts": 4, "num_experts_per_tok": 2}),
    "qwen2_moe (shared expert, sparse step 2)": ("Qwen2MoeConfig", "Qwen2MoeForCausalLM",
        {**BASE, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 16,
         "shared_expert_intermediate_size": 24, "decoder_sparse_step": 2}),
    "qwen3_moe": ("Qwen3MoeConfig", "Qwen3MoeForCausalLM",
        {**BASE, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 16}),
    "olmoe": ("OlmoeConfig", "OlmoeForCausalLM",
        {**BASE, "num_key_value_heads": 4, "num_experts": 4, "num_experts_per_tok": 2}),
    "deepseek_v2 (MLA, plain q_proj)": ("DeepseekV2Config", "DeepseekV2ForCausalLM",
        {"hidden_size": 32, "intermediate_size": 40, "moe_intermediate_size": 16,
         "num_attention_heads": 4, "num_key_value_heads": 4, "num_hidden_layers": 2,
         "vocab_size": 50, "q_lora_rank": None, "kv_lora_rank": 8, "qk_nope_head_dim": 8,
         "qk_rope_head_dim": 4, "v_head_dim": 6, "n_routed_experts": 4, "num_experts_per_tok": 2,
         "n_shared_experts": 1, "first_k_dense_replace": 1}),
    "glm4_moe": ("Glm4MoeConfig", "Glm4MoeForCausalLM",
        {**BASE, "moe_intermediate_size": 16, "n_routed_experts": 4, "num_experts_per_tok": 2,
         "n_shared_experts": 1, "first_k_dense_replace": 1, "n_group": 1, "topk_group": 1}),
    "ernie4_5_moe": ("Ernie4_5_MoeConfig", "Ernie4_5_MoeForCausalLM",
        {**BASE, "moe_intermediate_size": 16, "moe_num_experts": 4, "moe_k": 2}),
    "bart (encoder-decoder, learned positions)": ("BartConfig", "BartForConditionalGeneration",
        {"d_model": 32, "encoder_layers": 2, "decoder_layers": 2, "encoder_attention_heads": 4,
         "decoder_attention_heads": 4, "encoder_ffn_dim": 40, "decoder_ffn_dim": 40,
         "max_position_embeddings": 64, "vocab_size": 50}),
    "t5 (encoder-decoder)": ("T5Config", "T5ForConditionalGeneration",
        {"d_model": 32, "d_kv": 8, "d_ff": 40, "num_heads": 4, "num_layers": 2, "vocab_size": 50}),
    # FalconAttention broadcasts K and V to every query head before it caches them.
    "falcon (new decoder architecture, 2 KV heads)": ("FalconConfig", "FalconForCausalLM",
        {"hidden_size": 32, "num_attention_heads": 4, "num_kv_heads": 2, "num_hidden_layers": 2,
         "vocab_size": 50, "new_decoder_architecture": True}),
    "falcon (multi-query)": ("FalconConfig", "FalconForCausalLM",
        {"hidden_size": 32, "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 50}),
    "gpt_bigcode (multi-query)": ("GPTBigCodeConfig", "GPTBigCodeForCausalLM",
        {"n_embd": 32, "n_head": 4, "n_layer": 2, "n_positions": 64, "vocab_size": 50}),
    "opt (narrow embedding projected out before the head)": ("OPTConfig", "OPTForCausalLM",
        {"hidden_size": 32, "num_attention_heads": 4, "num_hidden_layers": 2, "ffn_dim": 40,
         "max_position_embeddings": 64, "vocab_size": 50, "word_embed_proj_dim": 16}),
}  # fmt: skip
IDS = {"bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None}


def built(conf_name: str, model_name: str, fields: dict[str, Any]) -> tuple[ModelConfig, Any]:
    """ffn-calc's model of the config and the reference model (eager attention and experts)."""
    conf = getattr(transformers, conf_name)(**{**IDS, **fields})
    conf._attn_implementation = "eager"
    conf._experts_implementation = "eager"
    torch.manual_seed(0)
    model = getattr(transformers, model_name)(conf).eval()
    data = {**conf.to_dict(), "model_type": conf.model_type}
    return ModelConfig(**hf_fields(data, "config"), name="x"), model


def measure(conf_name: str, model_name: str, fields: dict[str, Any], batch: int, context: int, source: int) -> tuple[ModelConfig, int, int]:  # fmt: skip
    """ffn-calc's model, and the reference's cache numel and decode-step FLOPs."""
    cfg, model = built(conf_name, model_name, fields)
    v = model.config.vocab_size
    with torch.no_grad():
        if cfg.architecture == "encoder-decoder":
            src, tgt = torch.randint(0, v, (batch, source)), torch.randint(0, v, (batch, context))
            out = model(input_ids=src, decoder_input_ids=tgt, use_cache=True)
            cache = out.past_key_values
            numel = cache_numel(cache.self_attention_cache) + cache_numel(
                cache.cross_attention_cache
            )
            step = {"encoder_outputs": (out.encoder_last_hidden_state,)}
            step["decoder_input_ids"] = torch.randint(0, v, (batch, 1))
        else:
            out = model(input_ids=torch.randint(0, v, (batch, context)), use_cache=True)
            cache = out.past_key_values
            numel = cache_numel(cache)
            step = {"input_ids": torch.randint(0, v, (batch, 1))}
        with FlopCounterMode(display=False) as counter:
            model(**step, past_key_values=cache, use_cache=True)
    return cfg, numel, int(counter.get_total_flops())


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("context", [3, 10])  # shorter and longer than the window of 6
def test_cache_and_decode_step(case: str, context: int) -> None:
    conf_name, model_name, fields = CASES[case]
    cfg, numel, flops = measure(conf_name, model_name, fields, 2, context, 7)
    source = 7 if cfg.architecture == "encoder-decoder" else None
    assert numel == kv_elements(cfg, 2, context, source)
    assert flops == decode_flops(cfg, 2, context, source)


def test_llama4_eager_experts_run_every_expert() -> None:
    fields = {**BASE, "attention_chunk_size": 6, "num_local_experts": 2, "num_experts_per_tok": 1,
              "intermediate_size_mlp": 48, "no_rope_layers": [1, 1, 0]}  # fmt: skip
    cfg, numel, flops = measure("Llama4TextConfig", "Llama4ForCausalLM", fields, 2, 10, 7)
    assert numel == kv_elements(cfg, 2, 10)
    # 3 MoE layers x 2 B x (E - k = 1) x 3 x d_model 32 x d_ff 40 more than the top-k count
    assert flops == decode_flops(cfg, 2, 10) + 3 * 2 * 2 * 1 * 3 * 32 * 40


# --- generate() itself: the prefill keeps the LM head at the last prompt position ----------


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize(("prompt", "new"), [(3, 5), (8, 3)])  # steps 3..6 cross the window of 6
def test_generate_matches_generation_flops(case: str, prompt: int, new: int) -> None:
    """FlopCounterMode over model.generate() of exactly `new` tokens (greedy, the default
    cache) equals generation_flops: the prefill with the LM head over the last prompt position
    only (generate() passes logits_to_keep=1), then new - 1 decode steps; an encoder-decoder
    model runs its encoder once over the prompt and its decoder from the start token."""
    cfg, model = built(*CASES[case])
    ids = torch.randint(1, model.config.vocab_size, (2, prompt))
    assert generated_flops(model, ids, new) == generation_flops(cfg, 2, prompt, new)


def test_generate_llama4_eager_experts_run_every_expert() -> None:
    fields = {**BASE, "attention_chunk_size": 6, "num_local_experts": 2, "num_experts_per_tok": 1,
              "intermediate_size_mlp": 48, "no_rope_layers": [1, 1, 0]}  # fmt: skip
    cfg, model = built("Llama4TextConfig", "Llama4ForCausalLM", fields)
    ids = torch.randint(1, 50, (2, 4))
    # 3 MoE layers x 2 x (E - k = 1) x 3 x d_model 32 x d_ff 40 more per token: the prompt's
    # 4 and the 8 decoded (9 new tokens: 8 decode steps), for 2 sequences.
    surplus = 3 * 2 * 1 * 3 * 32 * 40 * 2 * (4 + 8)
    assert generated_flops(model, ids, 9) == generation_flops(cfg, 2, 4, 9) + surplus


def test_every_decoder_only_class_keeps_only_the_last_logits() -> None:
    """generate() passes logits_to_keep=1 to every class whose forward accepts it: every
    decoder-only class ffn-calc counts does, so each prefill runs its LM head once per
    sequence. (An encoder-decoder model's decoder runs one start token at the prefill.)"""
    for family in REGISTRY:
        module = family_module(family)
        assert module is not None
        cls = getattr(transformers, module.ARCHITECTURE)
        if not cls.can_generate():  # the encoder-only classes
            continue
        config = cls.config_class()
        takes = "logits_to_keep" in inspect.signature(cls.forward).parameters
        assert takes or config.is_encoder_decoder, family
