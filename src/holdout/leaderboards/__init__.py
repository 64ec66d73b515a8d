"""The four lenses on any benchmark: correctness matrices, accuracy tables, contamination by date.

- [`holdout.leaderboards.correctness`][holdout.leaderboards.correctness]: K models x n items,
  0/1 or pass rates: accuracy intervals, similarity, covering numbers, difficulty.
- [`holdout.leaderboards.fits`][holdout.leaderboards.fits]: accuracy tables: Clopper-Pearson from
  sizes, the linear and probit fits, their lack of fit, effective robustness with a Holm-corrected
  (heuristic) test, Taori et al.'s baseline, the paired test of a stricter grading.
- [`holdout.leaderboards.dates`][holdout.leaderboards.dates]: items split by date, the line of the
  clean models, the models below it (a heuristic test, consistent with contamination);
  [`holdout.leaderboards.checks`][holdout.leaderboards.checks]: its robustness checks (placebo
  splits, item groups, families, a restricted line).
- [`holdout.leaderboards.sources`][holdout.leaderboards.sources]: readers of timm's tables, the
  ImageNet robustness testbed, EvalPlus and LiveCodeBench.
- [`holdout.leaderboards.plots`][holdout.leaderboards.plots]: the study's figures;
  [`holdout.leaderboards.outputs`][holdout.leaderboards.outputs]: the files both the CLI and the
  study write.

Correctness matrices
--------------------
- [`CorrectnessMatrix`][holdout.leaderboards.CorrectnessMatrix]      K x n entries in [0, 1];
  [`CorrectnessError`][holdout.leaderboards.CorrectnessError] for bad input.
- [`read_correctness`][holdout.leaderboards.read_correctness]        a CSV (model name first) or .npy matrix, checked.
- [`accuracy_intervals`][holdout.leaderboards.accuracy_intervals]      accuracy with exact (0/1) or stated (pass rates)
  intervals.
- [`similarity_matrix`][holdout.leaderboards.similarity_matrix]       Mania et al.'s agreement of 0-1 losses (its
  expectation for rates).
- [`similarity_summary`][holdout.leaderboards.similarity_summary]      pairs against independent errors.

Accuracy tables
---------------
- [`accuracy_table_audit`][holdout.leaderboards.accuracy_table_audit]    intervals, gap, linear and probit fits ->
  [`AccuracyTableAudit`][holdout.leaderboards.AccuracyTableAudit].
- [`probit_fit`][holdout.leaderboards.probit_fit]              least squares on the probit scale (Miller et al. 2021).
- [`effective_robustness`][holdout.leaderboards.effective_robustness]    distance to the probit line with an interval
  and a test.
- [`holm`][holdout.leaderboards.holm]                    Holm's step-down adjusted p-values.

Dates
-----
- [`contamination`][holdout.leaderboards.contamination]           items split by date, the clean models' line ->
  [`Contamination`][holdout.leaderboards.Contamination].
"""

from holdout.leaderboards.correctness import (
    CorrectnessError,
    CorrectnessMatrix,
    accuracy_intervals,
    read_correctness,
    similarity_matrix,
    similarity_summary,
)
from holdout.leaderboards.dates import Contamination, contamination
from holdout.leaderboards.fits import AccuracyTableAudit, accuracy_table_audit, effective_robustness, holm, probit_fit

__all__ = [
    "AccuracyTableAudit",
    "Contamination",
    "CorrectnessError",
    "CorrectnessMatrix",
    "accuracy_intervals",
    "accuracy_table_audit",
    "contamination",
    "effective_robustness",
    "holm",
    "probit_fit",
    "read_correctness",
    "similarity_matrix",
    "similarity_summary",
]
