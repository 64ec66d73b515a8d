"""Log tail probabilities that stay exact far below 1e-308 (where ``scipy.stats`` returns 0 or -inf).

Both tails are a first term times a positive series whose term ratios never exceed a known r < 1,
so the sum is stopped when the next term cannot move it in the last bit (remainder at most
t_j r / (1 - r)). The series are evaluated only where the ordinary float tail is below 1e-300;
elsewhere the log of ``scipy.special.bdtr`` / ``stdtr`` is already exact to rounding.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["log_binom_half_cdf", "log_t_sf"]

#: below this the float tail is replaced by the series (above it the float is exact to rounding)
_TINY = 1e-300


def _log_series(log_first: np.ndarray, ratio: Callable[[int], np.ndarray], bound: np.ndarray) -> np.ndarray:
    """log(first * sum_j t_j) with t_0 = 1, t_{j+1} = t_j * ratio(j) and every ratio <= ``bound`` < 1.

    Vectorized: all entries step together; an entry stops counting once its remaining tail
    (at most t_j bound / (1 - bound)) is below 1e-17 of its sum.
    """
    term = np.ones_like(log_first)
    total = np.ones_like(log_first)
    j = 0
    live = np.ones(log_first.shape, dtype=bool)
    while live.any():
        term = np.where(live, term * ratio(j), 0.0)
        total += term
        live &= term * bound / (1.0 - bound) > 1e-17 * total
        j += 1
    return log_first + np.log(total)


def log_binom_half_cdf(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """log P(X <= k) for X ~ Binomial(n, 1/2), elementwise; -inf where k < 0, 0 where k >= n.

    Ordinary range: log of ``scipy.special.bdtr``. Below 1e-300 (where that underflows): for
    k < n/2, P(X <= k) = pmf(k) sum_j prod_{i<j} (k - i) / (n - k + 1 + i), a series whose ratios
    decrease from k / (n - k + 1) < 1 (the terminating 2F1(1, -k; n - k + 1; -1)).
    """
    from scipy import special, stats

    shape = np.broadcast_shapes(np.shape(k), np.shape(n))
    k, n = (np.atleast_1d(v) for v in np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(n, dtype=float)))
    out = np.where(k < 0, -np.inf, 0.0)
    mid = (k >= 0) & (k < n)
    with np.errstate(divide="ignore"):
        out[mid] = np.log(special.bdtr(k[mid], n[mid].astype(np.int64), 0.5))
    tiny = mid & (out < np.log(_TINY))
    if tiny.any():
        kt, nt = k[tiny], n[tiny]
        first = stats.binom.logpmf(kt, nt, 0.5)
        out[tiny] = _log_series(first, lambda j: np.maximum(kt - j, 0.0) / (nt - kt + 1 + j), kt / (nt - kt + 1))
    return out.reshape(shape)


def log_t_sf(t: np.ndarray, df: np.ndarray) -> np.ndarray:
    """log P(T > t) for Student's T with ``df`` degrees of freedom, elementwise (t >= 0 used as given).

    Ordinary range: log of ``scipy.special.stdtr(df, -t)``. Below 1e-300: P(T > t) = I_x(df/2, 1/2) / 2
    with x = df / (df + t^2), and I_x(a, b) = x^a (1 - x)^b / (a B(a, b)) sum_j t_j with
    t_{j+1} / t_j = x (a + b + j) / (a + 1 + j) <= x (Abramowitz & Stegun 26.5.4 / DLMF 8.17.8).
    """
    from scipy import special

    shape = np.broadcast_shapes(np.shape(t), np.shape(df))
    t, df = (np.atleast_1d(v) for v in np.broadcast_arrays(np.asarray(t, dtype=float), np.asarray(df, dtype=float)))
    with np.errstate(divide="ignore"):
        out = np.log(special.stdtr(df, -t))
    tiny = (out < np.log(_TINY)) & np.isfinite(t)
    if tiny.any():
        a, b = df[tiny] / 2, 0.5
        x = df[tiny] / (df[tiny] + t[tiny] ** 2)
        log_1mx = np.log1p(-x)
        first = a * np.log(x) + b * log_1mx - np.log(a) - special.betaln(a, b) - np.log(2.0)
        out[tiny] = _log_series(first, lambda j: x * (a + b + j) / (a + 1 + j), x)
    return out.reshape(shape)
