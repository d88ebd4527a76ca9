"""XLM-RoBERTa (`XLMRobertaForMaskedLM`): RoBERTa's structure (ffn_calc.families.roberta), with
these differences as data.

- The configuration class's defaults: vocab_size 30,522 (RobertaConfig's: 50,265); the other
  sizes are RoBERTa's (xlm-roberta-base itself sets vocab_size 250,002, max_position_embeddings
  514, type_vocab_size 1).
- The masked-LM class registers its head `lm_head` before the model `roberta`, so with the
  decoder tied to the word embeddings `named_parameters()` lists the shared tensor as
  `lm_head.decoder.weight` (and the word embeddings as its tied copy), while
  `save_pretrained` writes it as `roberta.embeddings.word_embeddings.weight`; `verify
  --checkpoint` takes either name. The [vocab_size] bias is `lm_head.bias` (state_dicts also
  hold it as `lm_head.decoder.bias`). Parameters and FLOPs are RoBERTa's.

Not supported: add_cross_attention, as RoBERTa.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ffn_calc.families import roberta
from ffn_calc.families.base import Reader
from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "XLMRobertaForMaskedLM"

# transformers 5.24.0 XLMRobertaConfig's defaults for the sizes config.json may leave out.
DEFAULTS: dict[str, int | None] = {**roberta.DEFAULTS, "vocab_size": 30522}
# Its token embedding takes pad_token_id (class default 1) as padding_idx.
PAD_DEFAULT: int | None = 1


def fields(r: Reader) -> dict[str, Any]:
    return roberta.masked_lm_fields(r, "xlm-roberta", ARCHITECTURE)


NAMING = replace(roberta.NAMING, tied_under_head=True)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
