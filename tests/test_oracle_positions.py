"""Differential test: the longest sequence a learned position table gives positions to.

Optional: needs torch and transformers (the `oracle` extra) and skips cleanly without them.
Tiny config.json files go through ffn-calc's reader (`--hf-config`) and through the transformers
class; a forward pass of `position_limit` tokens runs, one more token fails (no position row),
so the crossovers past `position_limit` are ones the model never reaches. GPT-2's table
(n_positions rows) starts at 0; BART's and OPT's ids are offset by 2; RoBERTa's start after
its padding index (pad_token_id + 1).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from oracle_support import build_hf, read  # noqa: E402

ROWS = 12  # max_position_embeddings / n_positions

CASES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "gpt2": ("GPT2Config", "GPT2LMHeadModel", {
        "model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": 16, "n_layer": 1,
        "n_head": 2, "n_positions": ROWS, "vocab_size": 40}),
    "opt": ("OPTConfig", "OPTForCausalLM", {
        "model_type": "opt", "architectures": ["OPTForCausalLM"], "hidden_size": 16,
        "num_hidden_layers": 1, "num_attention_heads": 2, "ffn_dim": 32,
        "max_position_embeddings": ROWS, "vocab_size": 40, "word_embed_proj_dim": 16}),
    "bart": ("BartConfig", "BartForConditionalGeneration", {
        "model_type": "bart", "architectures": ["BartForConditionalGeneration"], "d_model": 16,
        "encoder_layers": 1, "decoder_layers": 1, "encoder_attention_heads": 2,
        "decoder_attention_heads": 2, "encoder_ffn_dim": 32, "decoder_ffn_dim": 32,
        "max_position_embeddings": ROWS, "vocab_size": 40}),
    "roberta": ("RobertaConfig", "RobertaForMaskedLM", {
        "model_type": "roberta", "architectures": ["RobertaForMaskedLM"], "hidden_size": 16,
        "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 32,
        "max_position_embeddings": ROWS, "vocab_size": 40, "pad_token_id": 1}),
}  # fmt: skip


def _runs(model: Any, tokens: int) -> bool:
    ids = torch.full((1, tokens), 5, dtype=torch.long)  # no padding token among them
    try:
        with torch.no_grad():
            if model.config.is_encoder_decoder:
                model(input_ids=ids, decoder_input_ids=ids)
            else:
                model(input_ids=ids)
    except (IndexError, RuntimeError):
        return False
    return True


@pytest.mark.parametrize("name", CASES)
def test_position_limit_is_the_longest_sequence(name: str, tmp_path: Path) -> None:
    conf, cls, fields = CASES[name]
    cfg = read(fields, tmp_path)
    limit = cfg.position_limit
    assert limit is not None
    model = build_hf(conf, cls, {k: v for k, v in fields.items() if k not in ("model_type", "architectures")})  # fmt: skip
    model.eval()
    assert _runs(model, limit), f"{name}: {limit} tokens should run"
    assert not _runs(model, limit + 1), f"{name}: {limit + 1} tokens should not"
