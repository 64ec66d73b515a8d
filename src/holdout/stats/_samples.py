"""Several samples per item (pass@1 over m samples, Inspect epochs, lm-eval repeats): the variance
of a model's mean score split into a between-item and a within-item part (Miller 2024, Sec. 3).

With x_ij the score of sample j on item i and x_i. the item's mean over m samples,

    Var(mean of x_i.) = (sigma_b^2 + sigma_w^2 / m) / n,

sigma_b^2 = Var(E[x | item]) the spread of the items' true scores, which more samples do not shrink,
and sigma_w^2 = E[Var(x | item)] the sampling noise within an item, which they do. Unbiased
estimates: sigma_w^2 = the mean over items of the within-item sample variances (n - 1 form), and
sigma_b^2 = S^2 - sigma_w^2 / m with S^2 the sample variance of the item means.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["SampleVarianceSplit", "sample_variance_split", "sample_variance_split_from_rates"]


@dataclass(frozen=True)
class SampleVarianceSplit:
    """One model's mean score over n items x m samples and the parts of its variance.

    ``var_between`` sigma_b^2 and ``var_within`` sigma_w^2 (per sample); ``se`` = sqrt(S^2 / n),
    the standard error of the mean score; ``share_within`` = (sigma_w^2 / m) / S^2, the part of the
    variance that more samples would remove; ``m_negligible`` the fewest samples per item that bring
    sigma_w^2 / m down to ``tolerance`` sigma_b^2 (the standard error is then within
    sqrt(1 + tolerance) of its limit for infinitely many samples; None when sigma_b^2 is 0).
    ``var_between`` is clipped at 0 (its unbiased estimate can be negative)."""

    n: int
    m: int
    mean: float
    var_between: float
    var_within: float
    se: float
    share_within: float
    m_negligible: int | None
    tolerance: float


def _split(item_means: np.ndarray, within: np.ndarray, m: int, tolerance: float) -> SampleVarianceSplit:
    if not 0 < tolerance:
        raise ValueError(f"tolerance must be positive, got {tolerance!r}")
    n = item_means.size
    if n < 2:
        raise ValueError(f"the variance split needs at least 2 items, got {n}")
    total = float(item_means.var(ddof=1))
    var_within = float(within.mean())
    var_between = max(total - var_within / m, 0.0)
    need = None if var_between == 0 else max(1, math.ceil(var_within / (tolerance * var_between) - 1e-12))
    return SampleVarianceSplit(
        n=n,
        m=m,
        mean=float(item_means.mean()),
        var_between=var_between,
        var_within=var_within,
        se=math.sqrt(total / n),
        share_within=min(1.0, var_within / m / total) if total > 0 else 0.0,
        m_negligible=need,
        tolerance=float(tolerance),
    )


def sample_variance_split(scores: object, *, tolerance: float = 0.1) -> SampleVarianceSplit:
    """The split from an n x m array of per-sample scores (row = item, column = sample, m >= 2).

    References
    ----------
    .. [1] E. Miller, "Adding Error Bars to Evals", arXiv 2411.00640 (2024), Sec. 3.

    Examples
    --------
    >>> s = sample_variance_split(np.array([[1, 1], [0, 0], [1, 0], [0, 1]]))
    >>> s.var_within, round(s.var_between, 4)
    (0.25, 0.0417)
    """
    x = np.asarray(scores, dtype=float)
    if x.ndim != 2 or x.shape[1] < 2:
        raise ValueError(f"scores must be n items x m >= 2 samples, got shape {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError("scores hold a NaN or infinite value")
    return _split(x.mean(axis=1), x.var(axis=1, ddof=1), x.shape[1], tolerance)


def sample_variance_split_from_rates(rates: object, m: int, *, tolerance: float = 0.1) -> SampleVarianceSplit:
    """The split from per-item pass rates p_i over m 0/1 samples (pass@1 as leaderboards publish it):
    the within-item sample variance of 0/1 samples is m p_i (1 - p_i) / (m - 1)."""
    p = np.asarray(rates, dtype=float)
    m = int(m)
    if m < 2:
        raise ValueError(f"a within-item variance needs m >= 2 samples per item, got {m}")
    if p.ndim != 1 or not np.isfinite(p).all() or (p < 0).any() or (p > 1).any():
        raise ValueError("rates must be a vector of pass rates in [0, 1]")
    off = np.abs(p * m - np.rint(p * m)) > 1e-6
    if off.any():
        raise ValueError(f"rate {p[off][0]:g} is not a multiple of 1/{m}: not a pass rate over {m} samples")
    return _split(p, m * p * (1 - p) / (m - 1), m, tolerance)
