"""Fields a model has no use for: setting them would change no count.

A size flag or a swept field that the model cannot use is refused (exit 2) rather than
accepted and ignored. Each rule names the fields that would give the field a use, so a sweep
that varies one of those too is left alone.
"""

from __future__ import annotations

from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig

# field -> the fields that decide whether it has a use
ENABLED_BY: dict[str, tuple[str, ...]] = {
    "max_positions": ("positions",),
    "n_kv_heads": ("attention",),
    "head_dim": ("attention",),
    "tie_embeddings": ("lm_head", "vocab_size"),
}


def unused_field(cfg: ModelConfig, field: str) -> str | None:
    """Why setting `field` changes nothing in `cfg` (in the reader's language), or None."""
    if field == "max_positions" and cfg.positions != "learned":
        return _(
            "{model} has {positions} positions; max_positions sets the rows of a learned "
            "position table (positions = learned)."
        ).format(model=cfg.name, positions=cfg.positions)
    if field in ("n_kv_heads", "head_dim") and cfg.attention == "mla":
        return _(
            "{model} has MLA attention, whose head widths are kv_lora_rank, qk_nope_head_dim, "
            "qk_rope_head_dim and v_head_dim."
        ).format(model=cfg.name)
    if field == "tie_embeddings" and not cfg.has_lm_head:
        return _("{model} has no LM head to tie or untie.").format(model=cfg.name)
    return None
