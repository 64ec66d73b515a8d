"""Recht et al. (2019), *Do ImageNet classifiers generalize to ImageNet?*: ImageNet -> ImageNetV2
MatchedFrequency on the 67-model testbed.

Accuracies
----------
- [`top5_correct`][holdout.imagenetv2.top5_correct]       per model, the points whose label is among the 5 predicted
  classes.
- [`imagenetv2_table`][holdout.imagenetv2.imagenetv2_table]   top-1 / top-5 on both sets with intervals, the gaps, Delta
  Rank.

The linear fit (Figure 1)
-------------------------
- [`fit_table`][holdout.imagenetv2.fit_table]          the least-squares line of new on original top-1, all and
  convolutional models.
- [`fit_lines`][holdout.imagenetv2.fit_lines]          each line and its pointwise band on a grid.

Paper check and similarity
--------------------------
- [`paper_check`][holdout.imagenetv2.paper_check]        our top-1 drops against the paper's 11-14% (`PAPER_TOP1_DROP`).
- [`similarity_table`][holdout.imagenetv2.similarity_table]   Mania et al.'s similarity and testable models on both
  sets.
- [`imagenetv2_tables`][holdout.imagenetv2.imagenetv2_tables]  every table of the study in one call.

Markdown renderings are in [`holdout.imagenetv2.core`][holdout.imagenetv2.core], the figure in
[`holdout.imagenetv2.plots`][holdout.imagenetv2.plots].
"""

from holdout.imagenetv2.core import (
    PAPER_TOP1_DROP,
    fit_lines,
    fit_table,
    imagenetv2_table,
    imagenetv2_tables,
    paper_check,
    similarity_table,
    top5_correct,
)

__all__ = [
    "PAPER_TOP1_DROP",
    "fit_lines",
    "fit_table",
    "imagenetv2_table",
    "imagenetv2_tables",
    "paper_check",
    "similarity_table",
    "top5_correct",
]
