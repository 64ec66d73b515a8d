"""What should this model have scored? Reference-benchmark contamination tests and their anchors.

- [`holdout.contamination.reference`][holdout.contamination.reference]: ConStat's test (Dekoninck
  et al. 2024): the curve from a reference benchmark's accuracy to the benchmark's across >= 5
  reference models, each other model's delta above it, bootstrap intervals and p-values, Holm.
- [`holdout.contamination.spline`][holdout.contamination.spline]: the cubic smoothing spline with
  GCV smoothing that ConStat fits.
- [`holdout.contamination.constat`][holdout.contamination.constat]: ConStat's published tables,
  read and reproduced from their own columns.
- [`holdout.contamination.aline`][holdout.contamination.aline]: agreement on the line (Baek et al.
  2022), new-set accuracy from unlabeled new-set predictions.
- [`holdout.contamination.anchors`][holdout.contamination.anchors]: GSM1k, MMLU-CF, ObsScaling and
  MathArena read as published, recomputed, and what is off in their files.
- [`holdout.contamination.outputs`][holdout.contamination.outputs]: each anchor's table, figure
  and numbers, as the workflow writes them.
- [`holdout.contamination.plots`][holdout.contamination.plots]: the study's figures.

Reference-benchmark lens
------------------------
- [`reference_lens`][holdout.contamination.reference_lens]        delta, interval, p-value and Holm
  per tested model -> [`ReferenceLens`][holdout.contamination.ReferenceLens].
- [`fit_curve`][holdout.contamination.fit_curve]             ConStat's spline or our probit line
  through the reference models.
- [`binomial_draws`][holdout.contamination.binomial_draws]        replicates from a table alone
  (parametric binomial bootstrap).
- [`item_draws`][holdout.contamination.item_draws]            replicates from per-item scores (item
  bootstrap).
- [`bootstrap_summary`][holdout.contamination.bootstrap_summary]     mean, basic interval and
  ConStat's one-sided p-value of replicates.

Agreement on the line
---------------------
- [`aline`][holdout.contamination.aline]                 ALine-S and ALine-D estimates, the agreement
  and accuracy lines -> [`ALine`][holdout.contamination.ALine].

Smoothing spline
----------------
- [`smoothing_spline`][holdout.contamination.smoothing_spline]      natural cubic smoothing spline,
  GCV or given smoothing -> [`SmoothingSpline`][holdout.contamination.SmoothingSpline].

Published anchors
-----------------
- [`read_constat_table`][holdout.contamination.read_constat_table]    one of ConStat's result tables
  with sizes and roles.
- [`reproduce_constat`][holdout.contamination.reproduce_constat]     its test redone from the table.
"""

from holdout.contamination.aline import ALine, aline
from holdout.contamination.constat import read_constat_table, reproduce_constat
from holdout.contamination.reference import (
    ReferenceLens,
    binomial_draws,
    bootstrap_summary,
    fit_curve,
    item_draws,
    reference_lens,
)
from holdout.contamination.spline import SmoothingSpline, smoothing_spline

__all__ = [
    "ALine",
    "ReferenceLens",
    "SmoothingSpline",
    "aline",
    "binomial_draws",
    "bootstrap_summary",
    "fit_curve",
    "item_draws",
    "read_constat_table",
    "reference_lens",
    "reproduce_constat",
    "smoothing_spline",
]
