"""The lengths and widths a crossover is shown over: the powers of two around the crossovers
that a sweep table lists (sweep_lengths), and the same design at another width for
`crossover --grid` (scaled).
"""

from __future__ import annotations

from fractions import Fraction

from ffn_calc.model.config import ModelConfig


def sweep_lengths(points: list[Fraction]) -> list[int]:
    """Powers of two from an eighth of the first crossover to twice past the last."""
    lo = max(1, int(min(points) / 8))
    hi = max(2, int(max(points) * 2) + 1)
    out, s = [], 1
    while s < lo:
        s *= 2
    s = max(1, s // 2)
    while s <= hi:
        out.append(s)
        s *= 2
    return out


def scaled(cfg: ModelConfig, d_model: int) -> ModelConfig:
    """The same design at another width: the d_ff / d_model ratio and head_dim kept."""
    hd = cfg.head_size
    heads = max(1, d_model * cfg.n_heads // cfg.d_model)
    group = cfg.n_heads // cfg.kv_heads
    kv = max(1, heads // group)
    while heads % kv:
        kv -= 1
    # Built without validation: every invariant holds by construction (kv divides heads,
    # head_dim given), and a wide d_ff / d_model ratio may carry d_ff past the bound on
    # sizes that input files are held to, which the exact integer counts do not need.
    # The fields as they are (a nested model -- a tower, a mixer's sizes -- stays a model:
    # model_construct does not rebuild one from a dump).
    # An encoder-decoder's decoder of its own width: its ratio kept too. Its own heads are
    # dropped (head_dim is the encoder's here; the crossover describes an encoder layer).
    own: dict[str, int | None] = {"decoder_n_heads": None}
    for name in ("decoder_d_ff", "kv_shared_d_ff"):  # widths of their own: their ratio too
        width = getattr(cfg, name)
        if width is not None:
            own[name] = max(1, round(Fraction(width * d_model, cfg.d_model)))
    return ModelConfig.model_construct(
        **{
            **{name: getattr(cfg, name) for name in type(cfg).model_fields},
            **own,
            "name": f"{cfg.name} @ d_model {d_model}",
            "d_model": d_model,
            "d_ff": max(1, round(Fraction(cfg.d_ff * d_model, cfg.d_model))),
            "n_heads": heads,
            "n_kv_heads": kv,
            "head_dim": hd,
        }
    )
