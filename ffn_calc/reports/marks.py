"""The names of the crossovers and the causal note, shared by the crossover report (its JSON
marks, in English) and the tables that show them (by key): kept apart so that a table which
only names a crossover (`flops`, `kv`) does not load the crossover report."""

from __future__ import annotations

from ffn_calc.i18n.translate import N_

# Also the marks of CrossoverRow (JSON: English); the tables show them by key.
CROSSOVER_LABELS = {
    "scores_vs_ffn": N_("scores = FFN"),
    "scores_vs_projections": N_("scores = projections"),
    "scores_vs_dense": N_("scores = projections + FFN"),
}


CAUSAL_PAIRS = N_("Causal: scores over S(S+1)/2 pairs.")
