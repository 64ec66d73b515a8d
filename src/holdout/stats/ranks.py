"""Ranks with honest uncertainty, and the inflation of the best of N variants.

Ranks
-----
- [`tied_with_best`][holdout.stats.ranks.tied_with_best]  not significantly worse than the most accurate model
  (paired, Holm over the K - 1 comparisons).
- [`rank_confidence_sets`][holdout.stats.ranks.rank_confidence_sets] / [`RankSets`][holdout.stats.ranks.RankSets]
  simultaneous confidence sets for all ranks (Mogstad, Romano, Shaikh & Wilhelm 2024).
- [`tie_groups`][holdout.stats.ranks.tie_groups]  the leaderboard cut into groups of models tied with their leader.

Best of N
---------
- [`best_of_n_resampled`][holdout.stats.ranks.best_of_n_resampled] /
  [`BestOfNResampled`][holdout.stats.ranks.BestOfNResampled]  the inflation of the best of N variants under equal
  true accuracies, by resampling items.
"""

from holdout.stats._best_of import BestOfNResampled, best_of_n_resampled
from holdout.stats._ranks import RankSets, rank_confidence_sets, tie_groups, tied_with_best

__all__ = [
    "BestOfNResampled",
    "RankSets",
    "best_of_n_resampled",
    "rank_confidence_sets",
    "tie_groups",
    "tied_with_best",
]
