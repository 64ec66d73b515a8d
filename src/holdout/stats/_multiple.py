"""Multiple testing: Holm's step-down correction of K p-values, in log space."""

from __future__ import annotations

import numpy as np

__all__ = ["holm"]


def holm(log_p_values: np.ndarray) -> np.ndarray:
    """Holm-adjusted log p-values of K tests (Holm 1979): controls the family-wise error rate.

    With the p-values sorted, p_(1) <= ... <= p_(K), the adjusted value of the j-th is
    max_{i <= j} min(1, (K - i + 1) p_(i)); rejecting where it is at most alpha rejects no true
    null hypothesis with probability at least 1 - alpha, whatever the dependence between the tests.
    Log p-values in and out, so that p-values far below 1e-308 keep their size.
    """
    log_p = np.asarray(log_p_values, dtype=float)
    if log_p.ndim != 1:
        raise ValueError(f"holm needs a 1-D array of log p-values, got shape {log_p.shape}")
    if np.any(log_p > 0) or np.any(np.isnan(log_p)):
        raise ValueError("holm needs log p-values <= 0 (p-values in [0, 1])")
    order = np.argsort(log_p, kind="stable")
    k = log_p.size
    scaled = np.minimum(0.0, np.log(k - np.arange(k)) + log_p[order])
    adjusted = np.empty(k)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted
