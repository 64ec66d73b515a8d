"""Recht et al. (2018) Sec. 5.4-5.6 and Appendix B: retraining on CIFAR-10 + CIFAR-10.1 (torch-free parts).

Splits
------
- :func:`cv_splits`               class-balanced, seeded split id of every example (Sec. 5.6).
- :func:`cv_fold`                 the training and held-out indices of one split.
- :func:`half_split`              a class-balanced half of CIFAR-10.1 v4 (Sec. 5.5).
- :func:`balanced_draw`           a seeded class-balanced draw of images (Figure 1).
- :func:`class_balanced_subset`   ``per_class`` random examples of every class.

Tables and figures
------------------
- :func:`table2`                  cross-validation accuracies with intervals (Table 2; :data:`PAPER_TABLE2`).
- :func:`sec55_table`             accuracy on each held-out half, with and without the extra images
  (Sec. 5.5; :data:`PAPER_SEC55`).
- :func:`sec55_from_predictions`  the same from one predictions file per run.
- :func:`hard_images`             the images no model classifies correctly (Figure 3).

Loading a run's data and the markdown renderings: :mod:`holdout.retraining.core`; training:
:mod:`holdout.retraining.train` (needs torch).
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
