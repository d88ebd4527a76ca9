"""Differential test of the position limit: ModelConfig.position_limit from a Hugging Face
config.json is the longest input the transformers class accepts (one more token fails).

Tiny models on the CPU, one forward each at the limit and one past it."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from ffn_calc.families.hf import hf_fields  # noqa: E402
from ffn_calc.model.config import ModelConfig  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

BERTISH = {"hidden_size": 16, "intermediate_size": 32, "num_attention_heads": 2,
           "num_hidden_layers": 1, "max_position_embeddings": 8, "vocab_size": 20}  # fmt: skip
CASES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "gpt2": ("GPT2Config", "GPT2LMHeadModel",
             {"n_embd": 16, "n_head": 2, "n_layer": 1, "n_positions": 8, "vocab_size": 20}),
    "gpt_bigcode": ("GPTBigCodeConfig", "GPTBigCodeForCausalLM",
                    {"n_embd": 16, "n_head": 2, "n_layer": 1, "n_positions": 8, "vocab_size": 20}),
    "bert": ("BertConfig", "BertModel", BERTISH),
    "roberta": ("RobertaConfig", "RobertaForMaskedLM", {**BERTISH, "max_position_embeddings": 10}),
    "roberta pad 3": ("RobertaConfig", "RobertaForMaskedLM",
                      {**BERTISH, "max_position_embeddings": 12, "pad_token_id": 3}),
    "distilbert": ("DistilBertConfig", "DistilBertForMaskedLM",
                   {"dim": 16, "hidden_dim": 32, "n_heads": 2, "n_layers": 1,
                    "max_position_embeddings": 8, "vocab_size": 20}),
    "albert": ("AlbertConfig", "AlbertForMaskedLM", {**BERTISH, "embedding_size": 8}),
    "opt": ("OPTConfig", "OPTForCausalLM",
            {"hidden_size": 16, "ffn_dim": 32, "num_attention_heads": 2, "num_hidden_layers": 1,
             "max_position_embeddings": 8, "vocab_size": 20, "word_embed_proj_dim": 16}),
}  # fmt: skip


def _accepts(model: Any, n: int, **extra: Any) -> bool:
    try:
        with torch.no_grad():
            model(input_ids=torch.full((1, n), 5), **extra)
    except (IndexError, RuntimeError, ValueError):
        return False
    return True


@pytest.mark.parametrize("case", CASES)
def test_position_limit_is_what_the_class_accepts(case: str) -> None:
    config_name, class_name, fields = CASES[case]
    hf = getattr(transformers, config_name)(**fields)
    torch.manual_seed(0)
    model = getattr(transformers, class_name)(hf).eval()
    cfg = ModelConfig(**hf_fields({**hf.to_dict(), **fields}, case))
    limit = cfg.position_limit
    assert limit is not None
    assert _accepts(model, limit) and not _accepts(model, limit + 1)


def test_bart_each_stack() -> None:
    fields = {"d_model": 16, "encoder_ffn_dim": 32, "decoder_ffn_dim": 32,
              "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_layers": 1,
              "decoder_layers": 1, "max_position_embeddings": 8, "vocab_size": 20}  # fmt: skip
    hf = transformers.BartConfig(**fields)
    torch.manual_seed(0)
    model = transformers.BartForConditionalGeneration(hf).eval()
    cfg = ModelConfig(**hf_fields({**hf.to_dict(), **fields}, "bart"))
    limit = cfg.position_limit
    assert limit == 8

    def run(s: int, t: int) -> bool:
        return _accepts(model, s, decoder_input_ids=torch.full((1, t), 5))

    assert run(limit, limit) and not run(limit + 1, 2) and not run(2, limit + 1)
