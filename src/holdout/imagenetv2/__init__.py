"""Recht et al. 2019, *Do ImageNet classifiers generalize to ImageNet?*: ImageNet -> ImageNetV2
MatchedFrequency from the 67-model testbed (top-1 / top-5 with intervals, gaps, the linear fit,
the similarity lens on both sets)."""

from holdout.imagenetv2.core import (
    PAPER_TOP1_DROP,
    accuracies_markdown,
    accuracy_columns,
    fit_lines,
    fit_table,
    fits_markdown,
    imagenetv2_table,
    imagenetv2_tables,
    paper_check,
    paper_check_markdown,
    similarity_table,
    top5_correct,
)

__all__ = [
    "PAPER_TOP1_DROP",
    "accuracies_markdown",
    "accuracy_columns",
    "fit_lines",
    "fit_table",
    "fits_markdown",
    "imagenetv2_table",
    "imagenetv2_tables",
    "paper_check",
    "paper_check_markdown",
    "similarity_table",
    "top5_correct",
]
