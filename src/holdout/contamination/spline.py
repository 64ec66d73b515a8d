"""Cubic smoothing splines in Reinsch form, with the smoothing parameter chosen by GCV.

The minimiser of sum_i w_i (y_i - f(x_i))^2 + lam * int f''(t)^2 dt over functions f is a natural
cubic spline with knots at the x_i (Green & Silverman 1994, *Nonparametric Regression and
Generalized Linear Models*, Sec. 2.1-2.3): its values g at the knots solve
(W + lam K) g = W y with K = Q R^-1 Q^T (their Eq. 2.4-2.6, Theorem 2.1), and its second
derivatives at the knots are gamma = R^-1 Q^T g. Without ``lam``, lam minimises the generalized
cross-validation score n RSS(lam) / (n - tr S(lam))^2 (Wahba 1990, Sec. 4.3) over (0, n], the
criterion and search range of ``scipy.interpolate.make_smoothing_spline``, which ConStat
(Dekoninck et al. 2024) uses. Beyond the outer knots the spline is linear (natural boundary).

Knots here are few (a reference-model curve has 5-60), so the n x n algebra is dense.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["SmoothingSpline", "gcv_lambda", "smoothing_spline"]


@dataclass(frozen=True)
class SmoothingSpline:
    """A natural cubic spline: ``knots`` (ascending), its ``values`` and second derivatives
    ``gamma`` there (0 at both ends), and the smoothing parameter ``lam`` it was fitted with.
    Calling it evaluates the spline (linear beyond the outer knots)."""

    knots: np.ndarray
    values: np.ndarray
    gamma: np.ndarray
    lam: float

    def __call__(self, x: npt.ArrayLike) -> np.ndarray:
        t, g, c = self.knots, self.values, self.gamma
        x = np.asarray(x, dtype=float)
        i = np.clip(np.searchsorted(t, x, side="right") - 1, 0, t.size - 2)
        h = t[i + 1] - t[i]
        a, b = x - t[i], t[i + 1] - x
        inside = (a * g[i + 1] + b * g[i]) / h - a * b / 6 * ((1 + a / h) * c[i + 1] + (1 + b / h) * c[i])
        h0, h1 = t[1] - t[0], t[-1] - t[-2]
        slope_low = (g[1] - g[0]) / h0 - h0 * c[1] / 6
        slope_high = (g[-1] - g[-2]) / h1 + h1 * c[-2] / 6
        out = np.where(x < t[0], g[0] + (x - t[0]) * slope_low, inside)
        return np.where(x > t[-1], g[-1] + (x - t[-1]) * slope_high, out)


def _q_r(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Green & Silverman's Q (n x (n-2)) and R ((n-2) x (n-2), tridiagonal) for knots x."""
    n = x.size
    h = np.diff(x)
    j = np.arange(n - 2)
    q = np.zeros((n, n - 2))
    q[j, j] = 1 / h[:-1]
    q[j + 1, j] = -1 / h[:-1] - 1 / h[1:]
    q[j + 2, j] = 1 / h[1:]
    r = np.diag((h[:-1] + h[1:]) / 3)
    r[j[:-1], j[:-1] + 1] = r[j[:-1] + 1, j[:-1]] = h[1:-1] / 6
    return q, r


def _checked(x: npt.ArrayLike, y: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError("x and y must be 1-d arrays of the same length")
    if x.size < 5:
        raise ValueError(f"a smoothing spline needs at least 5 knots, got {x.size}")
    if np.any(np.diff(x) <= 0) or not np.all(np.isfinite(x)) or not np.all(np.isfinite(y)):
        raise ValueError("x must be strictly increasing and x, y finite")
    return x, y


def gcv_lambda(x: npt.ArrayLike, y: npt.ArrayLike) -> float:
    """The smoothing parameter minimising GCV(lam) = n RSS / (n - tr S)^2, unit weights (Wahba 1990,
    Sec. 4.3), by bounded Brent search over (0, n) as ``scipy.interpolate.make_smoothing_spline``
    does (ConStat's choice). GCV often falls again towards interpolation (lam -> 0, where RSS and
    n - tr S both vanish); the bounded search stops in the minimum that smooths, as scipy's does.

    With K = U diag(d) U^T each GCV value is a sum over the eigenvalues d.
    """
    from scipy.optimize import minimize_scalar

    x, y = _checked(x, y)
    q, r = _q_r(x)
    d, u = np.linalg.eigh(q @ np.linalg.solve(r, q.T))
    d = np.clip(d, 0.0, None)
    z2 = (u.T @ y) ** 2
    n = float(x.size)

    def gcv(lam: float) -> float:
        s = 1.0 / (1.0 + lam * d)
        return n * float((1.0 - s) ** 2 @ z2) / (n - float(s.sum())) ** 2

    return float(minimize_scalar(gcv, bounds=(0.0, n), method="bounded").x)


def smoothing_spline(
    x: npt.ArrayLike, y: npt.ArrayLike, w: npt.ArrayLike | None = None, lam: float | None = None
) -> SmoothingSpline:
    """The natural cubic smoothing spline of y on x (Green & Silverman 1994, Theorem 2.1).

    ``w``: positive weights (default 1); ``lam``: the smoothing parameter, by default
    [`gcv_lambda`][holdout.contamination.spline.gcv_lambda] (which uses unit weights). x strictly
    increasing, at least 5 knots.
    """
    x, y = _checked(x, y)
    w = np.ones_like(x) if w is None else np.asarray(w, dtype=float)
    if w.shape != x.shape or np.any(w <= 0):
        raise ValueError("weights must be positive, one per knot")
    lam = gcv_lambda(x, y) if lam is None else float(lam)
    if lam < 0:
        raise ValueError(f"lam must be >= 0, got {lam}")
    q, r = _q_r(x)
    k = q @ np.linalg.solve(r, q.T)
    g = np.linalg.solve(np.diag(w) + lam * k, w * y)
    gamma = np.concatenate([[0.0], np.linalg.solve(r, q.T @ g), [0.0]])
    return SmoothingSpline(x, g, gamma, lam)
