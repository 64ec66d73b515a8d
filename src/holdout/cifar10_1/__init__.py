"""Recht et al. (2018), *Do CIFAR-10 classifiers generalize to CIFAR-10?*: the tables and Figure 2.

Tables
------
- [`table1`][holdout.cifar10_1.table1]           original and new accuracy with intervals, gap and Delta Rank (Table 1).
- [`table4`][holdout.cifar10_1.table4]           errors with intervals and the error ratio (Table 4, Appendix C).
- [`table5`][holdout.cifar10_1.table5]           CIFAR-10.1 v4 against v6 (Table 5).
- [`new_accuracies`][holdout.cifar10_1.new_accuracies]   every model's accuracy on each new test set.

Figure
------
- [`figure2_data`][holdout.cifar10_1.figure2_data]     the points and the least-squares line of Figure 2 / Eq. (3).

The statistics (Clopper-Pearson intervals, Delta Rank, the linear fit and its band) are
[`holdout.stats`][holdout.stats]; the markdown renderings are in [`holdout.cifar10_1.recht`][holdout.cifar10_1.recht],
the figures
in [`holdout.cifar10_1.plots`][holdout.cifar10_1.plots].
"""

from holdout.cifar10_1.recht import figure2_data, new_accuracies, table1, table4, table5

__all__ = ["figure2_data", "new_accuracies", "table1", "table4", "table5"]
