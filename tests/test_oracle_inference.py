"""Differential tests of the KV cache and one decode step against transformers' cache.

After a real prefill of L tokens on the CPU (eager attention, eager experts), the sum of
numel() over every cached key and value equals ffn-calc's kv_elements, and FlopCounterMode
over one decode step with that cache equals its decode_flops, at contexts shorter and longer
than the windows. Llama 4's eager experts run every expert for every token: there the
reference exceeds the top-k count by 2 x B x (E - k) x 3 x d_model x d_ff per MoE layer.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from oracle_support import cache_numel  # noqa: E402
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

from ffn_calc.config import ModelConfig  # noqa: E402
from ffn_calc.hf import hf_fields  # noqa: E402
from ffn_calc.inference import decode_flops, kv_elements  # noqa: E402

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
}  # fmt: skip


def measure(conf_name: str, model_name: str, fields: dict[str, Any], batch: int, context: int, source: int) -> tuple[ModelConfig, int, int]:  # fmt: skip
    """ffn-calc's model, and the reference's cache numel and decode-step FLOPs."""
    conf = getattr(transformers, conf_name)(**fields)
    conf._attn_implementation = "eager"
    conf._experts_implementation = "eager"
    torch.manual_seed(0)
    model = getattr(transformers, model_name)(conf).eval()
    data = {**conf.to_dict(), "model_type": conf.model_type}
    cfg = ModelConfig(**hf_fields(data, "config"), name="x")
    v = conf.vocab_size
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
