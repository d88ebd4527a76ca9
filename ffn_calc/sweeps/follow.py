"""A field that follows another in a sweep (`--vary d_ff=4*d_model`), and the note a sweep
gets when d_model varies while a width that scales with it is held fixed.

The course's 2/3 (the FFN's share of a layer's weights) holds at every d_model only while d_ff
follows d_model: a sweep over d_model alone keeps d_ff and changes the ratio with every row."""

from __future__ import annotations

import re
from fractions import Fraction

from ffn_calc.errors import UsageError
from ffn_calc.i18n.translate import N_, Text, _, say
from ffn_calc.model.config import ModelConfig
from ffn_calc.quantities import cut

# `K*FIELD` or `FIELD*K`, K a whole number or a fraction a/b: a field that follows another.
_FOLLOWS = re.compile(
    r"\s*+(?:(\d{1,9}(?:/\d{1,9})?)\s*+\*\s*+([A-Za-z_]{1,64})|([A-Za-z_]{1,64})\s*+\*\s*+(\d{1,9}(?:/\d{1,9})?))\s*+"
)


def is_follow_rule(text: str) -> bool:
    return _FOLLOWS.fullmatch(text) is not None


def follow_rule(text: str, spec: str) -> tuple[Fraction, str]:
    """`4*d_model` (or `d_model*4`, `8/3*d_model`): the factor and the field followed."""
    m = _FOLLOWS.fullmatch(text)
    if m is None:
        raise UsageError(
            _(
                "--vary {spec}: FIELD=K*OTHER makes one integer field follow another integer "
                "field (e.g. d_ff=4*d_model)."
            ).format(spec=cut(spec))
        )
    factor_text, other = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
    num, _slash, den = factor_text.partition("/")
    if int(num) == 0 or (den and int(den) == 0):
        raise UsageError(
            _("--vary {spec}: the factor must be a positive number, not {factor}.").format(
                spec=cut(spec), factor=factor_text
            )
        )
    return Fraction(int(num), int(den or 1)), other


# Widths that a design scales with d_model: a sweep over d_model that holds one fixed changes
# the ratio with every row (the FFN's share of a layer is 2/3 at d_ff = 4 d_model, whatever
# d_model is, only while d_ff follows it).
FOLLOW_D_MODEL = ("d_ff", "dense_d_ff", "shared_expert_d_ff", "kv_shared_d_ff")


def held_fixed(base: ModelConfig, fields: set[str]) -> list[Text]:
    """A note for each width held fixed while d_model varies, with the --vary that keeps the
    model's own ratio."""
    if "d_model" not in fields:
        return []
    out = []
    for name in FOLLOW_D_MODEL:
        width = getattr(base, name)
        if name in fields or width is None:
            continue
        if name != "d_ff" and width == base.d_ff:
            continue  # equal to d_ff: not a width of its own
        ratio = Fraction(width, base.d_model)
        out.append(
            say(
                N_(
                    "{field} is held at {width} while d_model varies, so the FFN's share "
                    "changes with d_model; to keep {model}'s ratio, add --vary {field}={rule}."
                ),
                field=name,
                width=f"{width:,}",
                model=base.name,
                rule=f"{ratio}*d_model",
            )
        )
    return out
