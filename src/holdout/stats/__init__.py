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
``_similarity``); import from ``holdout.stats``.
"""

from holdout.stats._binomial import accuracy_table, clopper_pearson
from holdout.stats._multiple import holm
from holdout.stats._ranking import delta_rank
from holdout.stats._regression import LinearFit, fit_band, linear_fit
from holdout.stats._similarity import independent_similarity

__all__ = [
    "LinearFit",
    "accuracy_table",
    "clopper_pearson",
    "delta_rank",
    "fit_band",
    "holm",
    "independent_similarity",
    "linear_fit",
]
