"""Least-squares line with standard errors and its confidence band (Recht et al. 2018, Eq. 3, Figure 2)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["LinearFit", "fit_band", "linear_fit"]


@dataclass(frozen=True)
class LinearFit:
    """Least-squares line y = slope * x + intercept with standard errors (Recht et al. Eq. 3).

    ``x_mean``, ``sxx`` (sum of squared deviations of x) and ``residual_std`` (s, with
    n - 2 degrees of freedom) define the confidence band of [`fit_band`][holdout.stats._regression.fit_band].
    """

    slope: float
    slope_se: float
    intercept: float
    intercept_se: float
    r_squared: float
    n: int
    x_mean: float
    sxx: float
    residual_std: float


def linear_fit(x: Sequence[float], y: Sequence[float]) -> LinearFit:
    """Ordinary least squares of y on x, with the usual standard errors.

    SE(slope) = s / sqrt(Sxx), SE(intercept) = s * sqrt(1/n + mean(x)^2 / Sxx),
    s^2 = sum(residual^2) / (n - 2).
    """
    from scipy import stats  # imported on use: holdout.config's parse-time checks import this package

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or x.size < 3:
        raise ValueError("linear_fit needs two vectors of the same length >= 3")
    for name, v in (("x", x), ("y", y)):
        bad = np.flatnonzero(~np.isfinite(v))
        if bad.size:
            raise ValueError(f"linear_fit: {name} has {bad.size} NaN or infinite value(s), first at index {bad[0]}")
    if np.ptp(x) == 0:
        raise ValueError("linear_fit: all x values are equal, the slope is undefined")
    res = stats.linregress(x, y)
    resid = y - (res.slope * x + res.intercept)
    s = float(np.sqrt(np.sum(resid**2) / (x.size - 2)))
    return LinearFit(
        slope=float(res.slope),
        slope_se=float(res.stderr),
        intercept=float(res.intercept),
        intercept_se=float(res.intercept_stderr),
        r_squared=float(res.rvalue**2),
        n=int(x.size),
        x_mean=float(x.mean()),
        sxx=float(np.sum((x - x.mean()) ** 2)),
        residual_std=s,
    )


def fit_band(fit: LinearFit, x: Sequence[float], level: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Line and pointwise ``level`` confidence band of the mean response at ``x``.

    y_hat +- t_{(1+level)/2, n-2} * s * sqrt(1/n + (x - mean(x))^2 / Sxx).
    Returns ``(y_hat, lower, upper)``.
    """
    from scipy import stats  # imported on use: holdout.config's parse-time checks import this package

    x = np.asarray(x, dtype=float)
    if not 0 < level < 1:  # also false for NaN
        raise ValueError(f"level must be in (0, 1), got {level}")
    y_hat = fit.slope * x + fit.intercept
    t = stats.t.ppf((1 + level) / 2, fit.n - 2)
    half = t * fit.residual_std * np.sqrt(1 / fit.n + (x - fit.x_mean) ** 2 / fit.sxx)
    return y_hat, y_hat - half, y_hat + half
