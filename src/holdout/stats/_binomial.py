"""Exact binomial intervals for accuracies (Recht et al. 2018, Sec. 3.2 and 5.1: Clopper-Pearson at 95%)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from holdout.predictions import Predictions

__all__ = ["accuracy_table", "clopper_pearson"]


def _as_count(name: str, value: object) -> int:
    """``value`` as an int when it is a whole number (int, numpy integer, or integral float); else ValueError."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    try:
        as_float = math.nan if isinstance(value, (bool, np.bool_)) else float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        as_float = math.nan
    if not as_float.is_integer():
        raise ValueError(f"{name} must be a whole number (a count), got {value!r}")
    return int(as_float)


def clopper_pearson(k: int, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """Exact (Clopper-Pearson) 1 - alpha interval for a binomial proportion k / n.

    The Beta quantiles B(alpha/2; k, n - k + 1) (``beta.ppf``) and B(1 - alpha/2; k + 1, n - k),
    the latter as the upper-tail quantile ``beta.isf(alpha/2, k + 1, n - k)``: both tails are
    computed from alpha itself, never from the float ``1 - alpha``, so the interval stays exact for
    alpha down to the smallest floats (a ``1 - alpha`` of 1e-17 rounds to 1 and gives (0, 1)).
    The lower end is 0 at k = 0 and the upper end 1 at k = n.
    """
    from scipy import stats  # imported on use: holdout.config's parse-time checks import this package

    k, n = _as_count("k", k), _as_count("n", n)
    if n <= 0 or not 0 <= k <= n:
        raise ValueError(f"clopper_pearson needs 0 <= k <= n and n > 0, got k={k}, n={n}")
    if not 0 < alpha < 1:  # also false for NaN
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    low = 0.0 if k == 0 else float(stats.beta.ppf(alpha / 2, k, n - k + 1))
    high = 1.0 if k == n else float(stats.beta.isf(alpha / 2, k + 1, n - k))
    return low, high


def accuracy_table(preds: Predictions, alpha: float = 0.05) -> pd.DataFrame:
    """Per model: correct count, n, accuracy and its Clopper-Pearson interval (percent)."""
    correct = preds.correct_counts()
    n = preds.num_examples
    rows = []
    for name, k in zip(preds.model_names, correct):
        lo, hi = clopper_pearson(int(k), n, alpha)
        # 100 * (k / n), not 100 * k / n: the two differ in the last bit, and the paper's
        # printed digits on exact halves (e.g. 1697 / 2000 -> 84.9 in Table 5) follow the former
        rows.append(
            {
                "model": name,
                "correct": int(k),
                "n": n,
                "accuracy": 100 * (int(k) / n),
                "ci_low": 100 * lo,
                "ci_high": 100 * hi,
            }
        )
    return pd.DataFrame(rows, columns=["model", "correct", "n", "accuracy", "ci_low", "ci_high"])
