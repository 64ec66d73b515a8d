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
- [`rank_confidence_sets`][holdout.stats.rank_confidence_sets]  simultaneous confidence sets for all ranks (Mogstad,
  Romano, Shaikh & Wilhelm 2024); more in [`holdout.stats.ranks`][holdout.stats.ranks] (tied with the best, tie
  groups, the best of N variants).

Paired comparisons (two models on the same items)
-------------------------------------------------
- [`mcnemar`][holdout.stats.mcnemar]           exact two-sided McNemar test on the discordant counts, mid-p as an
  option.
- [`newcombe_paired_ci`][holdout.stats.newcombe_paired_ci]  Newcombe's (1998) hybrid score interval for a difference of
  paired proportions.
- [`paired_t_test`][holdout.stats.paired_t_test]     paired t test over items (pass rates, scores).
- [`sign_flip_test`][holdout.stats.sign_flip_test]    sign-flip permutation test of the mean paired difference.
- [`paired_bootstrap_ci`][holdout.stats.paired_bootstrap_ci]  percentile bootstrap interval of the mean paired
  difference.
- [`paired_comparisons`][holdout.stats.paired_comparisons]  every pair of K models at once, from one matrix product;
  the vectorized building blocks and result types are in [`holdout.stats.paired`][holdout.stats.paired].

Clustered items, repeated samples, power
----------------------------------------
In [`holdout.stats.clustered`][holdout.stats.clustered] and [`holdout.stats.power`][holdout.stats.power]
(also importable from here): ``clustered_se`` (plain and clustered standard errors, Miller 2024, App. A, both
the paper's form and the finite-cluster C / (C - 1) form, the design effect), ``clustered_paired_test`` (a
cluster sign-flip randomization test under 30 clusters), ``sample_variance_split`` (between- and within-item
variance over m samples, Miller 2024, Sec. 3), ``mcnemar_sample_size`` / ``mcnemar_mde`` (Connor 1987) and
``paired_sample_size`` / ``paired_mde``.

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
``_similarity``, ``_paired``, ``_pairs``, ``_ranks``, ``_best_of``, ``_tails``, ``_clustered``, ``_samples``,
``_power``); import from ``holdout.stats``, ``holdout.stats.paired``, ``holdout.stats.ranks``,
``holdout.stats.clustered`` or ``holdout.stats.power``.
"""

from holdout.stats._binomial import accuracy_table, clopper_pearson
from holdout.stats._multiple import holm
from holdout.stats._paired import mcnemar, newcombe_paired_ci, paired_bootstrap_ci, paired_t_test, sign_flip_test
from holdout.stats._pairs import paired_comparisons
from holdout.stats._ranking import delta_rank
from holdout.stats._ranks import rank_confidence_sets
from holdout.stats._regression import LinearFit, fit_band, linear_fit
from holdout.stats._similarity import independent_similarity
from holdout.stats.clustered import (  # noqa: F401 (importable from here; listed in holdout.stats.clustered)
    ClusteredPairedResult,
    ClusteredSE,
    ConfidenceInterval,
    SampleVarianceSplit,
    clustered_paired_test,
    clustered_se,
    sample_variance_split,
    sample_variance_split_from_rates,
)
from holdout.stats.power import (  # noqa: F401 (importable from here; listed in holdout.stats.power)
    discordance_from_correlation,
    mcnemar_mde,
    mcnemar_sample_size,
    paired_mde,
    paired_sample_size,
)

__all__ = [
    "LinearFit",
    "accuracy_table",
    "clopper_pearson",
    "delta_rank",
    "fit_band",
    "holm",
    "independent_similarity",
    "linear_fit",
    "mcnemar",
    "newcombe_paired_ci",
    "paired_bootstrap_ci",
    "paired_comparisons",
    "paired_t_test",
    "rank_confidence_sets",
    "sign_flip_test",
]
