"""Clustered items and repeated samples: every function and result type.

The headline functions are also importable from [`holdout.stats`][holdout.stats].

Clustered items (Miller 2024, App. A)
-------------------------------------
- [`clustered_se`][holdout.stats.clustered.clustered_se] / [`ClusteredSE`][holdout.stats.clustered.ClusteredSE]
  mean of item scores with its plain and clustered standard errors (Miller's form and the finite-cluster
  form C / (C - 1)), the number of clusters and the design effect.
- [`clustered_paired_test`][holdout.stats.clustered.clustered_paired_test] /
  [`ClusteredPairedResult`][holdout.stats.clustered.ClusteredPairedResult]  a paired difference under
  clustering: normal test with `MIN_CLUSTERS_NORMAL` (30) clusters or more, a cluster sign-flip
  randomization test below, and which was used.
- [`clustered_many`][holdout.stats.clustered.clustered_many] / [`ClusteredMany`][holdout.stats.clustered.ClusteredMany]
  the same for every row of a K x n matrix and every paired difference at once (two K x K products).
- [`ConfidenceInterval`][holdout.stats.clustered.ConfidenceInterval]  (low, high), from
  `ClusteredSE.confidence_interval`.
- [`cluster_codes`][holdout.stats.clustered.cluster_codes]  cluster labels to codes 0..C-1, checked.

Repeated samples (Miller 2024, Sec. 3)
--------------------------------------
- [`sample_variance_split`][holdout.stats.clustered.sample_variance_split] /
  [`SampleVarianceSplit`][holdout.stats.clustered.SampleVarianceSplit]  between- and within-item variance of
  a mean over m samples per item, and the m that makes the within part negligible.
- [`sample_variance_split_from_rates`][holdout.stats.clustered.sample_variance_split_from_rates]  the same
  from pass rates over m 0/1 samples.
"""

from holdout.stats._clustered import (
    MIN_CLUSTERS_NORMAL,
    ClusteredMany,
    ClusteredPairedResult,
    ClusteredSE,
    ConfidenceInterval,
    cluster_codes,
    clustered_many,
    clustered_paired_test,
    clustered_se,
)
from holdout.stats._samples import SampleVarianceSplit, sample_variance_split, sample_variance_split_from_rates

__all__ = [
    "MIN_CLUSTERS_NORMAL",
    "ClusteredMany",
    "ClusteredPairedResult",
    "ClusteredSE",
    "ConfidenceInterval",
    "SampleVarianceSplit",
    "cluster_codes",
    "clustered_many",
    "clustered_paired_test",
    "clustered_se",
    "sample_variance_split",
    "sample_variance_split_from_rates",
]
