"""How many items a paired comparison needs: sample sizes and minimum detectable differences.

The functions are also importable from [`holdout.stats`][holdout.stats].

0/1 correctness (McNemar's test)
--------------------------------
- [`mcnemar_sample_size`][holdout.stats.power.mcnemar_sample_size]  items needed to detect a paired
  difference at a discordance (Connor 1987), times a design effect for clustered items.
- [`mcnemar_mde`][holdout.stats.power.mcnemar_mde]  the smallest difference detectable on n items.
- [`discordance_from_correlation`][holdout.stats.power.discordance_from_correlation]  the discordance of two
  0/1 outcomes from their accuracies and correlation.

Scores and pass rates
---------------------
- [`paired_sample_size`][holdout.stats.power.paired_sample_size]  items needed from the standard deviation of
  the paired differences.
- [`paired_mde`][holdout.stats.power.paired_mde]  the smallest mean difference detectable on n items.
"""

from holdout.stats._power import (
    discordance_from_correlation,
    mcnemar_mde,
    mcnemar_sample_size,
    paired_mde,
    paired_sample_size,
)

__all__ = [
    "discordance_from_correlation",
    "mcnemar_mde",
    "mcnemar_sample_size",
    "paired_mde",
    "paired_sample_size",
]
