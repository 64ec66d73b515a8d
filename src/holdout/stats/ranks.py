"""Ranks with honest uncertainty, and the inflation of the best of N variants.

Ranks
-----
- [`rank_confidence_sets`][holdout.stats.ranks.rank_confidence_sets] / [`RankSets`][holdout.stats.ranks.RankSets]
  simultaneous confidence sets for all ranks (Mogstad, Romano, Shaikh & Wilhelm 2024).
- [`tied_with_best`][holdout.stats.ranks.tied_with_best]  the models whose simultaneous rank set reaches 1: with
  all models equally accurate, some model is called worse than the best with probability at most alpha.
- [`tie_groups`][holdout.stats.ranks.tie_groups]  the leaderboard cut into groups by the same simultaneous
  comparisons.
- [`best_models`][holdout.stats.ranks.best_models] / [`rounded_totals`][holdout.stats.ranks.rounded_totals]
  every model tied at the top of the counts; totals compared without float noise.
- [`holm_vs_best`][holdout.stats.ranks.holm_vs_best]  Holm over the K - 1 tests against the sample's best: a
  confidence set for a unique best, not a tie set.

Best of N
---------
- [`best_of_n_resampled`][holdout.stats.ranks.best_of_n_resampled] /
  [`BestOfNResampled`][holdout.stats.ranks.BestOfNResampled]  the inflation of the best of N variants under equal
  true accuracies, by resampling items (measured).
- Mania et al.'s union and similarity bounds for the best of N at plug-in values:
  [`best_of_n_bounds`][holdout.bounds.eps.best_of_n_bounds] in holdout.bounds (stats imports no study).
- [`least_favourable_plug_ins`][holdout.stats.ranks.least_favourable_plug_ins] /
  [`pairwise_similarity`][holdout.stats.ranks.pairwise_similarity]  the error closest to 1/2 and the least similar
  pair of the variants.
"""

from holdout.stats._best_of import (
    PLUG_IN,
    BestOfNResampled,
    best_of_n_resampled,
    least_favourable_plug_ins,
    pairwise_similarity,
)
from holdout.stats._ranks import (
    RankSets,
    best_models,
    holm_vs_best,
    rank_confidence_sets,
    rounded_totals,
    tie_groups,
    tied_with_best,
)

__all__ = [
    "PLUG_IN",
    "BestOfNResampled",
    "least_favourable_plug_ins",
    "pairwise_similarity",
    "RankSets",
    "best_models",
    "best_of_n_resampled",
    "holm_vs_best",
    "rank_confidence_sets",
    "rounded_totals",
    "tie_groups",
    "tied_with_best",
]
