"""Log-space binomial numerics behind the bounds of Mania et al. (2019) ([`holdout.bounds.core`][holdout.bounds.core]).

The deviation thresholds of one model (the tail convention of the ``core`` module docstring),
binomial point masses in Loader's saddle-point form (relative error ~1e-15 at n = 50,000, where
log-gamma differences lose five digits), tails from the regularised incomplete beta function,
and the log-sum over the "easy set" count J of the coupling (Appendix B) that keeps only terms
above e^-700.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import bdtr, bdtrc, gammaln, xlogy

from holdout.bounds._checks import _check_eps, _check_n, _check_open_unit
from holdout.bounds._coupling import PairCoupling

# Terms whose log-probability is below this are dropped (each < 1e-304).
_LOG_NEGLIGIBLE = -700.0
# Relative distance to an integer under which n(mu +- eps) is taken as that integer.
_INTEGER_HAIR = 1e-9


# ---------------------------------------------------------------------------
# Thresholds and binomial building blocks (log space)
# ---------------------------------------------------------------------------


def _snap(x: float) -> float:
    """x, or the nearest integer when x lies within a hair of it (floating-point noise)."""
    r = round(x)
    if abs(x - r) <= _INTEGER_HAIR * max(1.0, abs(x)):
        return float(r)
    return x


def _ceil(x: float) -> int:
    return int(math.ceil(_snap(x)))


def _floor(x: float) -> int:
    return int(math.floor(_snap(x)))


def deviation_thresholds(n: int, error: float, eps: float) -> tuple[int, int]:
    """Integer thresholds ``(upper, lower)`` of the deviation events of one model.

    A model with X test errors deviates on the right when ``X >= upper`` (X >= n(mu + eps))
    and on the left when ``X <= lower`` (X < n(mu - eps)); see the module docstring for why
    this convention (it reproduces the paper's k = 257,397).
    """
    n = _check_n(n)
    mu = _check_open_unit("error", error)
    eps = _check_eps(eps)
    upper = _ceil(n * (mu + eps))
    lower = _ceil(n * (mu - eps)) - 1
    return upper, lower


def _log(x: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(x)


_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def _stirlerr(x: np.ndarray) -> np.ndarray:
    """log(x!) - log(sqrt(2 pi x) (x/e)^x), accurate to double precision (Loader 2000)."""
    x = np.asarray(x, dtype=float)
    out = np.empty_like(x)
    small = x <= 15.0
    if small.any():
        xs = x[small]
        with np.errstate(divide="ignore", invalid="ignore"):
            val = gammaln(xs + 1.0) - (xs + 0.5) * np.log(xs) + xs - _LOG_SQRT_2PI
        out[small] = np.where(xs == 0, 0.0, val)
    big = ~small
    if big.any():
        xb = x[big]
        x2 = xb * xb
        s0, s1, s2, s3, s4 = 1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188
        out[big] = (s0 - (s1 - (s2 - (s3 - s4 / x2) / x2) / x2) / x2) / xb
    return out


def _log_binom_pmf(k: np.ndarray, n: float, p: float) -> np.ndarray:
    """log P(Bin(n, p) = k) for a vector ``k`` and one ``n``, -inf outside 0..n.

    Loader's saddle-point form (as in R's dbinom) of `_log_pmf_grid`, plus the
    degenerate p = 0 and p = 1: relative accuracy ~1e-15 even for n = 50,000, where
    differences of log-gamma values would lose ~5 digits.
    """
    k = np.asarray(k, dtype=float)
    if p <= 0.0 or p >= 1.0:
        target = 0.0 if p <= 0.0 else float(n)
        return np.where((k >= 0) & (k <= n) & (k == target), 0.0, -np.inf)
    return _log_pmf_grid(np.array([float(n)]), p, k)[0]


def _log_cdf(a: np.ndarray, j: np.ndarray, p: float) -> np.ndarray:
    """log P(Bin(j, p) <= a) (broadcast), from the regularised incomplete beta function."""
    a, j = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(j, dtype=float))
    inside = (a >= 0) & (a < j)
    with np.errstate(invalid="ignore"):
        val = bdtr(np.where(inside, a, 0.0).astype(np.int64), np.where(inside, j, 1.0).astype(np.int64), p)
    val = np.where(a < 0, 0.0, np.where(a >= j, 1.0, val))
    return _log(val)


def _log_sf(a: np.ndarray, j: np.ndarray, p: float) -> np.ndarray:
    """log P(Bin(j, p) >= a) (broadcast)."""
    a, j = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(j, dtype=float))
    inside = (a >= 1) & (a <= j)
    with np.errstate(invalid="ignore"):
        val = bdtrc(
            np.where(inside, a - 1.0, 0.0).astype(np.int64),
            np.where(inside, j, 1.0).astype(np.int64),
            p,
        )
    val = np.where(a <= 0, 1.0, np.where(a > j, 0.0, val))
    return _log(val)


def _log_weights(n: int, p_w: float, floor: float = _LOG_NEGLIGIBLE) -> tuple[np.ndarray, np.ndarray]:
    """Values j of J ~ Bin(n, p_w) and their log-probabilities, those below ``floor`` dropped."""
    j = np.arange(n + 1, dtype=float)
    logw = _log_binom_pmf(j, float(n), p_w)
    keep = logw >= floor
    return j[keep], logw[keep]


_PHI_COEFFS = [(-1.0) ** k / (k * (k - 1)) for k in range(2, 19)]


def _bd0(x: np.ndarray, m: np.ndarray) -> np.ndarray:
    """x log(x/m) + m - x for x >= 0, m > 0 (broadcast), in place-friendly form.

    Equals m phi(t) with t = x/m - 1 and phi(t) = (1 + t) log1p(t) - t; for |t| < 0.1 phi is
    summed from its series sum_k (-1)^k t^k / (k (k - 1)) (17 terms, error < 1e-17
    relative), elsewhere the direct form has no harmful cancellation.
    """
    t = (x - m) / m
    poly = np.full(t.shape, _PHI_COEFFS[-1])
    for c in reversed(_PHI_COEFFS[:-1]):
        poly *= t
        poly += c
    poly *= t
    poly *= t
    series = poly * m
    far = np.abs(t) >= 0.1
    if far.any():
        xf = np.broadcast_to(x, t.shape)[far]
        mf = np.broadcast_to(m, t.shape)[far]
        series[far] = xlogy(xf, xf / mf) + mf - xf
    return series


def _log_pmf_grid(j: np.ndarray, p: float, cols: np.ndarray) -> np.ndarray:
    """log P(Bin(j, p) = a) for rows j and columns a (0 < p < 1), Loader's saddle-point form.

    The log-gamma-free form of `_log_binom_pmf` with the 1-D parts (Stirling
    corrections of j and a, and of j - a from a table) computed once.
    """
    q = 1.0 - p
    jj = j[:, None]
    aa = cols[None, :]
    diff = jj - aa
    valid = diff >= 0
    lo = int(max(0.0, diff.min()))
    hi = int(max(0.0, diff.max()))
    table = _stirlerr(np.arange(lo, hi + 1, dtype=float))
    idx = (np.clip(diff, lo, hi) - lo).astype(np.int64)
    out = -table[idx]
    out += (_stirlerr(j) - _LOG_SQRT_2PI)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        out -= (_stirlerr(cols) + 0.5 * _log(cols))[None, :]
        out -= 0.5 * np.log1p(-aa / jj)
        out -= _bd0(aa, jj * p)
        out -= _bd0(np.maximum(diff, 0.0), jj * q)
    # Edges: a = 0 and a = j, where the saddle-point form's logs are singular.
    zero = aa == 0
    if zero.any():
        out = np.where(zero, jj * math.log1p(-p), out)
    full = diff == 0
    if full.any():
        out = np.where(full, jj * math.log(p), out)
    out[~valid] = -np.inf
    return out


def _log_cumsum_rows(x: np.ndarray) -> None:
    """In place: x[r, c] <- log sum_{c' <= c} exp(x[r, c']) (rows scaled by their maximum).

    All terms are nonnegative, so the scaled running sum loses nothing but the terms below
    e^-745 of the row's largest, which cannot change a double.
    """
    m = np.max(x, axis=1)
    shift = np.where(np.isfinite(m), m, 0.0)[:, None]
    x -= shift
    np.exp(x, out=x)
    np.cumsum(x, axis=1, out=x)
    with np.errstate(divide="ignore"):
        np.log(x, out=x)
    x += shift


def _log_cdf_block(j: np.ndarray, p: float, a_lo: int, a_hi: int) -> np.ndarray:
    """log P(Bin(j, p) <= a) for every j (rows) and every integer a in [a_lo, a_hi] (columns).

    One incomplete-beta evaluation per row, then a cumulative log-sum of point masses.
    """
    cols = np.arange(a_lo, a_hi + 1, dtype=float)
    if p >= 1.0:
        return np.where(cols[None, :] >= j[:, None], 0.0, -np.inf)
    out = np.empty((j.size, cols.size))
    out[:, 0] = _log_cdf(a_lo, j, p)
    if cols.size > 1:
        out[:, 1:] = _log_pmf_grid(j, p, cols[1:])
        _log_cumsum_rows(out)
    return out


def _log_sf_block(j: np.ndarray, p: float, a_lo: int, a_hi: int) -> np.ndarray:
    """log P(Bin(j, p) >= a) for every j (rows) and every integer a in [a_lo, a_hi] (columns)."""
    cols = np.arange(a_lo, a_hi + 1, dtype=float)
    if p >= 1.0:
        return np.where(cols[None, :] <= j[:, None], 0.0, -np.inf)
    rev = np.empty((j.size, cols.size))
    rev[:, 0] = _log_sf(a_hi, j, p)
    if cols.size > 1:
        rev[:, 1:] = _log_pmf_grid(j, p, cols[-2::-1])
        _log_cumsum_rows(rev)
    return rev[:, ::-1]


def _logsumexp_rows(x: np.ndarray) -> np.ndarray:
    """log sum_j exp(x[j, c]) per column c (-inf for an all -inf column)."""
    m = np.max(x, axis=0)
    finite = np.isfinite(m)
    shift = np.where(finite, m, 0.0)
    with np.errstate(divide="ignore"):
        return np.where(finite, shift + np.log(np.sum(np.exp(x - shift[None, :]), axis=0)), -np.inf)


def _log_pair_counts(
    n: int,
    coupling: PairCoupling,
    upper_2: tuple[int, int],
    lower_1: tuple[int, int],
    block: int = 256,
) -> np.ndarray:
    """log P(S_2 <= u, S_1 >= l) for the counts S_i = sum_t X_it W_t (eq. (14)).

    ``upper_2`` = (u_lo, u_hi) and ``lower_1`` = (l_lo, l_hi) are integer ranges, one of
    them a single value; the result has one entry per value of the other range.
    Conditionally on J = sum_t W_t = j, S_1 ~ Bin(j, p_x1) and S_2 ~ Bin(j, p_x2) are
    independent, so the probability is sum_j P(J = j) P(S_2 <= u | j) P(S_1 >= l | j).
    """
    u_lo, u_hi = upper_2
    l_lo, l_hi = lower_1
    if u_lo != u_hi and l_lo != l_hi:
        raise ValueError("only one of upper_2 and lower_1 may be a range")
    j, logw = _log_weights(n, coupling.p_w)
    # Drop j whose term is negligible even with the loosest thresholds (u_hi, l_lo).
    env = logw + _log_cdf(u_hi, j, coupling.p_x2) + _log_sf(l_lo, j, coupling.p_x1)
    keep = env >= _LOG_NEGLIGIBLE
    size = max(u_hi - u_lo, l_hi - l_lo) + 1
    if not keep.any():
        return np.full(size, -np.inf)
    j, logw = j[keep], logw[keep]
    out = np.empty(size)
    if u_lo != u_hi:
        base = logw + _log_sf(l_lo, j, coupling.p_x1)
        for start in range(u_lo, u_hi + 1, block):
            stop = min(start + block - 1, u_hi)
            grid = _log_cdf_block(j, coupling.p_x2, start, stop)
            out[start - u_lo : stop - u_lo + 1] = _logsumexp_rows(grid + base[:, None])
    else:
        base = logw + _log_cdf(u_lo, j, coupling.p_x2)
        for start in range(l_lo, l_hi + 1, block):
            stop = min(start + block - 1, l_hi)
            grid = _log_sf_block(j, coupling.p_x1, start, stop)
            out[start - l_lo : stop - l_lo + 1] = _logsumexp_rows(grid + base[:, None])
    return out
