"""Paired comparisons of models scored on the same items: every function and result type.

The headline functions are also exported by [`holdout.stats`][holdout.stats].

Two models
----------
- [`mcnemar`][holdout.stats.paired.mcnemar] / [`McNemarResult`][holdout.stats.paired.McNemarResult]  exact
  two-sided McNemar test on the discordant counts, mid-p as an option.
- [`mcnemar_log_pvalue`][holdout.stats.paired.mcnemar_log_pvalue]  its log p-value, vectorized, exact far below
  1e-308.
- [`newcombe_paired_ci`][holdout.stats.paired.newcombe_paired_ci]  Newcombe's (1998) hybrid score interval for a
  difference of paired proportions.
- [`paired_t_test`][holdout.stats.paired.paired_t_test] / [`PairedTResult`][holdout.stats.paired.PairedTResult]
  paired t test over items (pass rates, scores).
- [`paired_t_from_sums`][holdout.stats.paired.paired_t_from_sums]  the same from sums, vectorized.
- [`sign_flip_test`][holdout.stats.paired.sign_flip_test] / [`SignFlipResult`][holdout.stats.paired.SignFlipResult]
  sign-flip permutation test of the mean paired difference.
- [`paired_bootstrap_ci`][holdout.stats.paired.paired_bootstrap_ci]  percentile bootstrap interval of the mean
  paired difference.

Every pair at once
------------------
- [`pair_counts`][holdout.stats.paired.pair_counts] / [`PairCounts`][holdout.stats.paired.PairCounts]  totals and
  X X^T of a K x n correctness matrix.
- [`paired_comparisons`][holdout.stats.paired.paired_comparisons]  one row per pair (columns
  `PAIR_COLUMNS`).
- [`pairs_memory_bytes`][holdout.stats.paired.pairs_memory_bytes]  its memory, to say before the work.
"""

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

__all__ = [
    "PAIR_COLUMNS",
    "McNemarResult",
    "PairCounts",
    "PairedTResult",
    "SignFlipResult",
    "mcnemar",
    "mcnemar_log_pvalue",
    "newcombe_paired_ci",
    "pair_counts",
    "paired_bootstrap_ci",
    "paired_comparisons",
    "paired_t_from_sums",
    "paired_t_test",
    "pairs_memory_bytes",
    "sign_flip_test",
]
