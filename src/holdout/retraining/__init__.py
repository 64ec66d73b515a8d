"""Recht et al. (2018) Sec. 5.4-5.6 and Appendix B: retraining on CIFAR-10 + CIFAR-10.1 (torch-free parts).

Splits
------
- [`cv_splits`][holdout.retraining.cv_splits]               class-balanced, seeded split id of every example (Sec. 5.6).
- [`cv_fold`][holdout.retraining.cv_fold]                 the training and held-out indices of one split.
- [`half_split`][holdout.retraining.half_split]              a class-balanced half of CIFAR-10.1 v4 (Sec. 5.5).
- [`balanced_draw`][holdout.retraining.balanced_draw]           a seeded class-balanced draw of images (Figure 1).
- [`class_balanced_subset`][holdout.retraining.class_balanced_subset]   ``per_class`` random examples of every class.

Tables and figures
------------------
- [`table2`][holdout.retraining.table2]                  cross-validation accuracies with intervals (Table 2;
  `PAPER_TABLE2`).
- [`sec55_table`][holdout.retraining.sec55_table]             accuracy on each held-out half, with and without the extra
  images
  (Sec. 5.5; `PAPER_SEC55`).
- [`sec55_from_predictions`][holdout.retraining.sec55_from_predictions]  the same from one predictions file per run.
- [`hard_images`][holdout.retraining.hard_images]             the images no model classifies correctly (Figure 3).

Loading a run's data and the markdown renderings: [`holdout.retraining.core`][holdout.retraining.core]; training:
[`holdout.retraining.train`][holdout.retraining.train] (needs torch).
"""

from holdout.retraining.core import (
    PAPER_SEC55,
    PAPER_TABLE2,
    balanced_draw,
    class_balanced_subset,
    cv_fold,
    cv_splits,
    half_split,
    hard_images,
    sec55_from_predictions,
    sec55_table,
    table2,
)

__all__ = [
    "PAPER_SEC55",
    "PAPER_TABLE2",
    "balanced_draw",
    "class_balanced_subset",
    "cv_fold",
    "cv_splits",
    "half_split",
    "hard_images",
    "sec55_from_predictions",
    "sec55_table",
    "table2",
]
