"""Statistics shared by the studies (in the style of ``scipy.stats``: one public function per formula).

Binomial accuracies
-------------------
- [`clopper_pearson`][holdout.stats.clopper_pearson]   exact 1 - alpha interval of a proportion k / n (Recht et al.
  2018, Sec. 3.2).
- [`accuracy_table`][holdout.stats.accuracy_table]    per model: correct count, n, accuracy and its Clopper-Pearson
  interval.

Multiple testing
----------------
- [`holm`][holdout.stats.holm]              Holm-adjusted log p-values of K tests (family-wise error rate).

Ranking
-------
- [`delta_rank`][holdout.stats.delta_rank]        rank on the original minus rank on the new test set (Recht et al.
  Table 1).
- [`tied_with_best`][holdout.stats.tied_with_best]    not significantly worse than the most accurate model (paired,
  Holm over the K - 1 comparisons).
- [`rank_confidence_sets`][holdout.stats.rank_confidence_sets]  simultaneous confidence sets for all ranks (Mogstad,
  Romano, Shaikh & Wilhelm 2024).
- [`tie_groups`][holdout.stats.tie_groups]        the leaderboard cut into groups of models tied with their leader.

Paired comparisons (two models on the same items)
-------------------------------------------------
- [`mcnemar`][holdout.stats.mcnemar] / [`mcnemar_log_pvalue`][holdout.stats.mcnemar_log_pvalue]  exact two-sided
  McNemar test on the discordant counts, mid-p as an option.
- [`newcombe_paired_ci`][holdout.stats.newcombe_paired_ci]  Newcombe's (1998) hybrid score interval for a difference of
  paired proportions.
- [`paired_t_test`][holdout.stats.paired_t_test] / [`paired_t_from_sums`][holdout.stats.paired_t_from_sums]  paired t
  test over items (pass rates, scores).
- [`sign_flip_test`][holdout.stats.sign_flip_test]    sign-flip permutation test of the mean paired difference.
- [`paired_bootstrap_ci`][holdout.stats.paired_bootstrap_ci]  percentile bootstrap interval of the mean paired
  difference.
- [`paired_comparisons`][holdout.stats.paired_comparisons]  every pair of K models at once, from one matrix product.
- [`best_of_n_resampled`][holdout.stats.best_of_n_resampled]  the inflation of the best of N variants under equal
  true accuracies, by resampling items.

Regression
----------
- [`LinearFit`][holdout.stats.LinearFit]        least-squares line with standard errors (Recht et al. Eq. 3).
- [`linear_fit`][holdout.stats.linear_fit]        ordinary least squares of y on x.
- [`fit_band`][holdout.stats.fit_band]          the line and its pointwise confidence band of the mean response (Figure
  2).

Similarity
----------
- [`independent_similarity`][holdout.stats.independent_similarity]  mu_1 mu_2 + (1 - mu_1)(1 - mu_2), the
  independent-errors baseline
  (Mania et al. 2019, Sec. 5.1).

The implementations live in private modules (``_binomial``, ``_multiple``, ``_ranking``, ``_regression``,
``_similarity``, ``_paired``, ``_pairs``, ``_ranks``, ``_best_of``, ``_tails``); import from ``holdout.stats``.
"""

from holdout.stats._best_of import BestOfNResampled, best_of_n_resampled
from holdout.stats._binomial import accuracy_table, clopper_pearson
from holdout.stats._multiple import holm
from holdout.stats._paired import (
    McNemarResult,
    PairedTResult,
    SignFlipResult,
    mcnemar,
    mcnemar_log_pvalue,
    newcombe_paired_ci,
    paired_bootstrap_ci,
    paired_t_from_sums,
    paired_t_test,
    sign_flip_test,
)
from holdout.stats._pairs import PAIR_COLUMNS, PairCounts, pair_counts, paired_comparisons, pairs_memory_bytes
from holdout.stats._ranking import delta_rank
from holdout.stats._ranks import RankSets, rank_confidence_sets, tie_groups, tied_with_best
from holdout.stats._regression import LinearFit, fit_band, linear_fit
from holdout.stats._similarity import independent_similarity

__all__ = [
    "PAIR_COLUMNS",
    "BestOfNResampled",
    "LinearFit",
    "McNemarResult",
    "PairCounts",
    "PairedTResult",
    "RankSets",
    "SignFlipResult",
    "accuracy_table",
    "best_of_n_resampled",
    "clopper_pearson",
    "delta_rank",
    "fit_band",
    "holm",
    "independent_similarity",
    "linear_fit",
    "mcnemar",
    "mcnemar_log_pvalue",
    "newcombe_paired_ci",
    "pair_counts",
    "paired_bootstrap_ci",
    "paired_comparisons",
    "paired_t_from_sums",
    "paired_t_test",
    "pairs_memory_bytes",
    "rank_confidence_sets",
    "sign_flip_test",
    "tie_groups",
    "tied_with_best",
]
