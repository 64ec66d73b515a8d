"""Rank changes between two test sets (Recht et al. 2018, Table 1, column Delta Rank)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["delta_rank"]


def delta_rank(acc_orig: Sequence[float], acc_new: Sequence[float]) -> np.ndarray:
    """Delta Rank of Recht et al. Table 1: rank on the original minus rank on the new test set.

    Rank 1 is the most accurate; ties share the best rank ("min" ranking, which is what
    the paper's Table 1 shows for the tied new accuracies of vgg_15_BN_64 and
    resnet_basic_32). Negative: the model dropped in the ranking on the new test set.
    """
    from scipy import stats  # imported on use: holdout.config's parse-time checks import this package

    r_orig = stats.rankdata(-np.asarray(acc_orig, dtype=float), method="min")
    r_new = stats.rankdata(-np.asarray(acc_new, dtype=float), method="min")
    return (r_orig - r_new).astype(int)
