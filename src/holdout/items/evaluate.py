"""Measuring a screen against a review: ROC AUC, precision of the flagged set, agreement of the proposed answer."""

from __future__ import annotations

import numpy as np
from scipy.stats import rankdata

__all__ = ["agreement", "precision", "roc_auc"]


def roc_auc(score: np.ndarray, positive: np.ndarray) -> float:
    """Area under the ROC curve of ``score`` for ``positive`` against the rest: the Mann-Whitney U over
    n_pos n_neg (Hanley & McNeil 1982, Radiology 143:29-36), ties counted one half. NaN without both classes."""
    s = np.asarray(score, dtype=float)
    pos = np.asarray(positive, dtype=bool)
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = rankdata(s)
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def precision(flagged: np.ndarray, positive: np.ndarray) -> float:
    """Share of the flagged items that are positive (NaN when nothing is flagged)."""
    f = np.asarray(flagged, dtype=bool)
    return float(np.asarray(positive, dtype=bool)[f].mean()) if f.any() else float("nan")


def agreement(proposed: np.ndarray, reference: np.ndarray) -> float:
    """Share of items whose proposed answer equals the reviewers' answer (NaN on no items)."""
    p, r = np.asarray(proposed, dtype=object), np.asarray(reference, dtype=object)
    return float(np.mean([str(a) == str(b) for a, b in zip(p, r)])) if p.size else float("nan")
