"""Recht et al. (2018) Sec. 5.4-5.6, Appendix B: cross-validation retraining (Table 2), training on
half of CIFAR-10.1 (Sec. 5.5), Figures 1 and 3 (torch-free parts: splits, tables, plots)."""

from holdout.retraining.core import (
    PAPER_SEC55,
    PAPER_TABLE2,
    RunData,
    accuracy_row,
    balanced_draw,
    class_balanced_subset,
    cv_fold,
    cv_splits,
    cv_splits_frame,
    half_split,
    hard_images,
    read_cv_splits,
    run_data,
    sec55_table,
    table2,
    table2_markdown,
)

__all__ = [
    "PAPER_SEC55",
    "PAPER_TABLE2",
    "RunData",
    "accuracy_row",
    "balanced_draw",
    "class_balanced_subset",
    "cv_fold",
    "cv_splits",
    "cv_splits_frame",
    "half_split",
    "hard_images",
    "read_cv_splits",
    "run_data",
    "sec55_table",
    "table2",
    "table2_markdown",
]
