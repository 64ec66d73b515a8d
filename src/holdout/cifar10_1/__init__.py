"""Recht et al. 2018, *Do CIFAR-10 classifiers generalize to CIFAR-10?*: accuracies with
Clopper-Pearson intervals, Delta rank, Tables 1, 4 and 5, the linear fit of Figure 2."""

from holdout.cifar10_1.recht import (
    TABLE5_NOTE,
    LinearFit,
    accuracy_table,
    clopper_pearson,
    delta_rank,
    figure2_data,
    fit_band,
    format_interval,
    linear_fit,
    linear_fit_markdown,
    new_accuracies,
    new_accuracies_markdown,
    table1,
    table1_markdown,
    table4,
    table4_markdown,
    table5,
    table5_markdown,
)

__all__ = [
    "clopper_pearson",
    "accuracy_table",
    "delta_rank",
    "table1",
    "table4",
    "table5",
    "LinearFit",
    "linear_fit",
    "fit_band",
    "format_interval",
    "figure2_data",
    "TABLE5_NOTE",
    "table1_markdown",
    "table4_markdown",
    "table5_markdown",
    "new_accuracies_markdown",
    "new_accuracies",
    "linear_fit_markdown",
]
