"""Mania et al. (2019), *Model similarity mitigates test set overuse*: the bounds, exact.

All functions take the paper's quantities as keyword arguments:

- ``n``: test-set size; ``error``: population error rate mu = E_D[q];
- ``similarity``: eta = P(q_i(z) = q_j(z)), the probability that two models' 0-1 losses agree;
- ``eps``: the tolerated deviation |E_S[q] - E_D[q]|; ``delta``: the failure probability.

Tail convention (one helper, :func:`deviation_thresholds`, used by every bound). With
X the number of test errors of a model, a deviation is ``X >= n(mu + eps)`` on the right
and ``X < n(mu - eps)`` on the left, where ``n(mu +- eps)`` is taken as the nearest integer
when floating point lands within a hair (1e-9 relative) of it. This is the convention that
reproduces the paper's k = 257,397 for the union bound at the ImageNet setting (Sec. 5.1;
``X <= n(mu - eps)`` on the left gives 251,165, ``X > n(mu + eps)`` on the right 265,636,
both 259,004).
The similarity and naive-Bayes bounds use the same events, so their gains over the union
bound compare like with like.

Numerics: every probability that can be tiny is handled in log space; sums over the
binomial "easy set" count J of the coupling (Appendix B) keep only the values of J whose
terms are not negligible in absolute terms (below e^-700 each, i.e. a total absolute error
below 1e-300), which for n = 50,000 means a few thousand terms instead of 50,001. Binomial
point masses use Loader's saddle-point form (relative error ~1e-15 at n = 50,000, where
log-gamma differences lose five digits), tails the regularised incomplete beta function.
The bounds are accurate to ~1e-13 relative, so the k's are exact up to ~1e12 (beyond, to
that relative accuracy; beyond 2^53 also to the resolution of a double).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy.special import bdtr, bdtrc, gammaln, xlogy

from holdout.stats import independent_similarity

__all__ = [
    "PairCoupling",
    "joint_distribution",
    "pair_coupling",
    "independent_similarity",
    "deviation_thresholds",
    "union_bound_probability",
    "union_bound_k",
    "pair_tail_probability",
    "similarity_bound_probability",
    "similarity_bound_k",
    "naive_bayes_probability",
    "naive_bayes_bound_k",
    "theorem2_probability",
    "theorem2_eps",
    "theorem2_max_similarity",
    "theorem2_eps_high_similarity",
    "theorem2_min_similarity_high",
    "similarity_cover_bound",
    "similarity_cover_eps",
    "Corollary4",
    "corollary4",
    "corollary4_eps",
]

# Terms whose log-probability is below this are dropped (each < 1e-304).
_LOG_NEGLIGIBLE = -700.0
# Relative distance to an integer under which n(mu +- eps) is taken as that integer.
_INTEGER_HAIR = 1e-9
# The k search stops here (2^1020 ~ 1e307): beyond, k is not representable as a float.
_K_CAP = 2**1020

SimilarityForm = Literal["literal", "partition"]


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------


def _check_n(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n (test-set size) must be a positive integer, got {n!r}")
    return int(n)


def _check_open_unit(name: str, value: float) -> float:
    value = float(value)
    if not (0.0 < value < 1.0) or math.isnan(value):
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {value!r}")
    return value


def _check_unit(name: str, value: float) -> float:
    value = float(value)
    if not (0.0 <= value <= 1.0) or math.isnan(value):
        raise ValueError(f"{name} must lie in [0, 1], got {value!r}")
    return value


def _check_eps(eps: float) -> float:
    return _check_open_unit("eps", eps)


def _check_k(k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k (number of models) must be a positive integer, got {k!r}")
    return int(k)


def _check_k_real(k: float) -> float:
    """k of Theorem 2 and Corollary 4, a real number (e.g. a log-scale count) that is finite and >= 1."""
    k_value = math.nan if isinstance(k, bool) else float(k)
    if not (math.isfinite(k_value) and k_value >= 1):
        raise ValueError(f"k (number of models) must be a finite number >= 1, got {k!r}")
    return k_value


def _check_cover(cover_size: float) -> float:
    cover_size = float(cover_size)
    if not (cover_size >= 1 and math.isfinite(cover_size)):
        raise ValueError(f"cover_size (N_eta) must be at least 1, got {cover_size!r}")
    return cover_size


# ---------------------------------------------------------------------------
# The joint law of two losses and the coupling of Appendix B
# ---------------------------------------------------------------------------


def joint_distribution(error_1: float, error_2: float, similarity: float) -> tuple[float, float, float, float]:
    """The joint law (p11, p10, p01, p00) of (q_1(z), q_2(z)), Appendix B.

    p11 = (p1 + p2 + eta - 1)/2, p10 = (1 + p1 - p2 - eta)/2, p01 = (1 + p2 - p1 - eta)/2,
    p00 = (1 + eta - p1 - p2)/2. Raises ``ValueError`` when one of them is negative, i.e.
    when no pair of {0,1} losses has these error rates and this similarity.
    """
    p1 = _check_unit("error_1", error_1)
    p2 = _check_unit("error_2", error_2)
    eta = _check_unit("similarity", similarity)
    p11 = (p1 + p2 + eta - 1.0) / 2.0
    p10 = (1.0 + p1 - p2 - eta) / 2.0
    p01 = (1.0 + p2 - p1 - eta) / 2.0
    p00 = (1.0 + eta - p1 - p2) / 2.0
    tol = 1e-12
    if min(p11, p10, p01, p00) < -tol:
        raise ValueError(
            f"no joint distribution of two 0-1 losses has error rates {p1!r}, {p2!r} and "
            f"similarity {eta!r}: need |error_1 - error_2| <= 1 - similarity <= "
            f"min(error_1 + error_2, 2 - error_1 - error_2) "
            f"(got p11={p11:.3g}, p10={p10:.3g}, p01={p01:.3g}, p00={p00:.3g})"
        )
    return (max(p11, 0.0), max(p10, 0.0), max(p01, 0.0), max(p00, 0.0))


@dataclass(frozen=True)
class PairCoupling:
    """Independent Bernoulli X_1, X_2, W with (X_1 W, X_2 W) ~ (q_1(z), q_2(z)) (Appendix B).

    ``p_w`` = P(W = 1) (W = 0: an "easy" example both models get right),
    ``p_x1`` = P(X_1 = 1), ``p_x2`` = P(X_2 = 1).
    """

    p_w: float
    p_x1: float
    p_x2: float


def pair_coupling(error_1: float, error_2: float, similarity: float) -> PairCoupling:
    """The coupling of Appendix B for two losses with these error rates and similarity.

    P(X_1 = 1) = p11/(p01 + p11), P(X_2 = 1) = p11/(p10 + p11),
    P(W = 1) = (p10 + p11)(p01 + p11)/p11, which exists iff p11 >= p1 p2 (the losses are
    not negatively correlated, i.e. similarity >= :func:`independent_similarity`).
    Equivalently p_w = p1 p2 / p11, P(X_1 = 1) = p1 / p_w, P(X_2 = 1) = p2 / p_w.
    """
    p1 = _check_open_unit("error_1", error_1)
    p2 = _check_open_unit("error_2", error_2)
    p11, _, _, _ = joint_distribution(p1, p2, similarity)
    if p11 < p1 * p2 * (1.0 - 1e-12):
        raise ValueError(
            f"the coupling of Mania et al. App. B needs p11 >= p1 p2, i.e. similarity >= "
            f"{independent_similarity(p1, p2)!r} (independent errors) for error rates "
            f"{p1!r}, {p2!r}; got similarity {float(similarity)!r} (p11 = {p11!r})"
        )
    p_w = min(1.0, p1 * p2 / p11)
    return PairCoupling(p_w=p_w, p_x1=min(1.0, p1 / p_w), p_x2=min(1.0, p2 / p_w))


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

    Loader's saddle-point form (as in R's dbinom) of :func:`_log_pmf_grid`, plus the
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

    The log-gamma-free form of :func:`_log_binom_pmf` with the 1-D parts (Stirling
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


# ---------------------------------------------------------------------------
# Standard union bound (2)
# ---------------------------------------------------------------------------


def _single_model_tails(n: int, error: float, eps: float) -> tuple[float, float]:
    upper, lower = deviation_thresholds(n, error, eps)
    right = float(np.exp(_log_sf(upper, float(n), error)))
    left = float(np.exp(_log_cdf(lower, float(n), error)))
    return right, left


def union_bound_probability(n: int, error: float, eps: float, k: int) -> float:
    """Right-hand side of the union bound (2) for k models with error rate mu, exact tails.

    k [P(X >= n(mu + eps)) + P(X < n(mu - eps))], X ~ Bin(n, mu): the union over models and,
    as in the paper's footnote 2, over the left and right tails.
    """
    k = _check_k(k)
    right, left = _single_model_tails(n, error, eps)
    return float(k) * (right + left)


def _largest_k(bound: Callable[[int], float], delta: float) -> int:
    """Largest integer k >= 0 with bound(k) <= delta, for a nondecreasing bound (exact search)."""
    if bound(1) > delta:
        return 0
    lo, hi = 1, 2
    while bound(hi) <= delta:
        lo, hi = hi, hi * 2
        if hi > _K_CAP:
            raise OverflowError(
                f"the bound stays at most delta={delta!r} for every k up to 2^1020: "
                "the number of testable models is unbounded or not representable"
            )
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if bound(mid) <= delta:
            lo = mid
        else:
            hi = mid
    return lo


def _check_delta(delta: float) -> float:
    return _check_open_unit("delta", delta)


def union_bound_k(n: int, error: float, eps: float, delta: float) -> int:
    """Largest k such that the union bound (2) with exact binomial tails is at most delta.

    Tail convention: a deviation is X >= n(mu + eps) on the right and X < n(mu - eps) on
    the left (X = number of errors, n(mu +- eps) snapped to the nearest integer when within
    floating-point noise of it). With n = 50,000, mu = 0.244, eps = 0.01, delta = 0.05 this
    gives the paper's k = 257,397 (Mania et al. Sec. 5.1); the other conventions give
    251,165 (X <= n(mu - eps)) or 265,636 (X > n(mu + eps)).
    """
    n = _check_n(n)
    delta = _check_delta(delta)
    right, left = _single_model_tails(n, error, eps)
    p = right + left
    if p == 0.0:
        raise OverflowError(
            f"the single-model deviation probability is 0 in double precision (n={n}, "
            f"error={error}, eps={eps}): any number of models passes the union bound"
        )
    return _largest_k(lambda k: float(k) * p, delta)


# ---------------------------------------------------------------------------
# Probability (8) via the coupling (13)-(14)
# ---------------------------------------------------------------------------


def pair_tail_probability(
    n: int,
    error_1: float,
    error_2: float,
    similarity: float,
    alpha_1: float,
    alpha_2: float,
) -> float:
    """Probability (8): P({E_S[q_2] - E_D[q_2] <= alpha_2} and {E_S[q_1] - E_D[q_1] >= alpha_1}).

    Computed exactly through the coupling of Appendix B, eq. (13)-(14):
    sum_j C(n, j) p_w^j (1 - p_w)^(n - j) P(Bin(j, p_x2) <= floor(n(p_2 + alpha_2)))
    P(Bin(j, p_x1) >= ceil(n(p_1 + alpha_1))), in log space, over the values of j whose
    terms are not negligible. Raises ``ValueError`` when the error rates and similarity
    admit no joint distribution or no coupling (similarity below independence).
    """
    n = _check_n(n)
    coupling = pair_coupling(error_1, error_2, similarity)
    for name, alpha in (("alpha_1", alpha_1), ("alpha_2", alpha_2)):
        if not math.isfinite(float(alpha)):
            raise ValueError(f"{name} must be a finite number, got {alpha!r}")
    upper = _floor(n * (float(error_2) + float(alpha_2)))
    lower = _ceil(n * (float(error_1) + float(alpha_1)))
    if upper < 0 or lower > n:
        return 0.0
    upper = min(upper, n)
    lower = max(lower, 0)
    log_p = _log_pair_counts(n, coupling, (upper, upper), (lower, lower))[0]
    return float(min(1.0, math.exp(log_p)))


# ---------------------------------------------------------------------------
# Similarity union bound (3) + (8)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _SimilarityTerms:
    """Per anchor threshold: log P(anchor deviates) and log P(model i deviates, anchor not)."""

    right_anchor: np.ndarray
    right_pair: np.ndarray
    left_anchor: np.ndarray
    left_pair: np.ndarray

    def bound(self, k: int) -> float:
        if self.right_anchor.size == 0 or self.left_anchor.size == 0:
            return math.inf
        m = float(k - 1)
        right = np.min(np.exp(self.right_anchor) + m * np.exp(self.right_pair))
        left = np.min(np.exp(self.left_anchor) + m * np.exp(self.left_pair))
        return float(right + left)


def _similarity_terms(
    n: int,
    error: float,
    similarity: float,
    eps: float,
    right_cut: float,
    left_cut: float,
    form: str,
) -> _SimilarityTerms:
    """Anchor and pair terms of (3) for every candidate anchor threshold of each tail.

    Candidates are the integer thresholds whose anchor term alone is at most ``right_cut``
    (resp. ``left_cut``): the others can never give the minimum that is asked for.
    """
    if form not in ("literal", "partition"):
        raise ValueError(f"form must be 'literal' or 'partition', got {form!r}")
    n = _check_n(n)
    mu = _check_open_unit("error", error)
    eta = float(similarity)
    if eta >= 1.0:
        raise ValueError("similarity must be < 1: identical models can be tested without limit")
    coupling = pair_coupling(mu, mu, eta)
    upper, lower = deviation_thresholds(n, mu, eps)
    shift = 0 if form == "literal" else 1
    nf = float(n)

    # Right tail, anchor threshold a <= upper (t >= 0):
    # P(S_1 >= a) + (k - 1) P(S_1 <= a - shift, S_i >= upper).
    if upper > n:
        right_anchor = right_pair = np.array([-np.inf])
    else:
        a = np.arange(0, upper + 1)
        log_ra = _log_sf_block(np.array([nf]), mu, 0, upper)[0]
        keep = log_ra <= math.log(right_cut)
        a, right_anchor = a[keep], log_ra[keep]
        right_pair = np.full(a.size, -np.inf)
        if a.size and a[-1] - shift >= 0:
            u_lo, u_hi = max(int(a[0]) - shift, 0), int(a[-1]) - shift
            vals = _log_pair_counts(n, coupling, (u_lo, u_hi), (upper, upper))
            right_pair[a.size - vals.size :] = vals

    # Left tail, anchor threshold b >= lower (t >= 0):
    # P(S_1 <= b) + (k - 1) P(S_1 >= b + shift, S_i <= lower).
    if lower < 0:
        left_anchor = left_pair = np.array([-np.inf])
    else:
        b = np.arange(lower, n + 1)
        log_la = _log_cdf_block(np.array([nf]), mu, lower, n)[0]
        keep = log_la <= math.log(left_cut)
        b, left_anchor = b[keep], log_la[keep]
        left_pair = np.full(b.size, -np.inf)
        if b.size and b[0] + shift <= n:
            l_lo, l_hi = int(b[0]) + shift, min(int(b[-1]) + shift, n)
            vals = _log_pair_counts(n, coupling, (lower, lower), (l_lo, l_hi))
            left_pair[: vals.size] = vals
    # P(E_i and anchor not deviating) <= P(E_i): clipping at the single-model tail keeps the
    # bound at most the union bound also in floating point (near independence the two agree
    # to ~1e-13, the accuracy of the sums of (14)).
    right_pair = np.minimum(right_pair, _log_sf(upper, nf, mu))
    left_pair = np.minimum(left_pair, _log_cdf(lower, nf, mu))
    return _SimilarityTerms(right_anchor, right_pair, left_anchor, left_pair)


def similarity_bound_probability(
    n: int,
    error: float,
    similarity: float,
    eps: float,
    k: int,
    form: SimilarityForm = "literal",
) -> float:
    """The similarity union bound (3) with (8) on P(overfitting) for k models, t optimised.

    k models with equal error rate mu and pairwise similarity eta; one model is the anchor,
    the k - 1 others are bounded with probability (8). The split t is optimised separately
    for the right and left tails over every integer threshold of the anchor (exhaustive).
    ``form="literal"``: the anchor's boundary count appears in both terms, as when (3)'s
    first term P(E_S[q_1] - mu >= eps - t) is combined with (8) at alpha_2 = eps - t
    (the paper's numbers match this form). ``form="partition"``: the exact partition
    {anchor >= a} / {anchor <= a - 1} of (3), slightly sharper.
    """
    k = _check_k(k)
    if form not in ("literal", "partition"):
        raise ValueError(f"form must be 'literal' or 'partition', got {form!r}")
    right, left = _single_model_tails(n, error, eps)
    # The value at t = 0 bounds the minimum of each tail: no anchor term above it can win.
    cut_right, cut_left = min(1.0, k * right), min(1.0, k * left)
    if float(similarity) < 1.0:
        coupling = pair_coupling(error, error, similarity)
        upper, lower = deviation_thresholds(n, error, eps)
        shift = 0 if form == "literal" else 1
        if 0 <= upper - shift and upper <= n:
            q = _log_pair_counts(n, coupling, (upper - shift, upper - shift), (upper, upper))[0]
            cut_right = min(cut_right, right + (k - 1) * math.exp(q))
        if 0 <= lower and lower + shift <= n:
            q = _log_pair_counts(n, coupling, (lower, lower), (lower + shift, lower + shift))[0]
            cut_left = min(cut_left, left + (k - 1) * math.exp(q))
    terms = _similarity_terms(
        n, error, similarity, eps, min(1.0, cut_right * (1 + 1e-12)), min(1.0, cut_left * (1 + 1e-12)), form
    )
    return terms.bound(k)


def similarity_bound_k(
    n: int,
    error: float,
    similarity: float,
    eps: float,
    delta: float,
    form: SimilarityForm = "literal",
) -> int:
    """Largest k for which the similarity union bound (3)+(8) is at most delta.

    For fixed anchor thresholds the bound is linear in k; the minimum over thresholds is
    nondecreasing in k, so an integer binary search on k is exact. About 4x the union bound
    at the ImageNet setting (n = 50,000, mu = 0.244, eta = 0.85, eps = 0.01, delta = 0.05;
    Mania et al. Sec. 5.1 and Fig. 1b). See :func:`similarity_bound_probability` for
    ``form``.
    """
    delta = _check_delta(delta)
    terms = _similarity_terms(n, error, similarity, eps, delta, delta, form)
    return _largest_k(terms.bound, delta)


# ---------------------------------------------------------------------------
# Naive-Bayes bound (Assumption A1, last display of Appendix B)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _NaiveBayesTerms:
    logw: np.ndarray
    log_inside: np.ndarray  # log P(one model does not deviate | J = j)

    def probability(self, k: int) -> float:
        with np.errstate(invalid="ignore"):
            fail = -np.expm1(float(k) * self.log_inside)
        fail = np.where(np.isneginf(self.log_inside), 1.0, fail)
        return float(min(1.0, np.sum(np.exp(self.logw) * fail)))


def _naive_bayes_terms(n: int, error: float, similarity: float, eps: float, delta: float = 1.0) -> _NaiveBayesTerms:
    n = _check_n(n)
    mu = _check_open_unit("error", error)
    if float(similarity) >= 1.0:
        raise ValueError("similarity must be < 1: identical models can be tested without limit")
    coupling = pair_coupling(mu, mu, similarity)
    upper, lower = deviation_thresholds(n, mu, eps)
    # Values of J with P(J = j) < delta e^-40 / (n + 1) change the probability by less than
    # 1e-17 delta in total, below the resolution of the comparison with delta: dropped.
    floor = max(_LOG_NEGLIGIBLE, math.log(delta) - 40.0 - math.log(n + 1.0))
    j, logw = _log_weights(n, coupling.p_w, floor)
    p = coupling.p_x1
    log_right = _log_sf(upper, j, p)
    log_left = _log_cdf(lower, j, p)
    fail = np.exp(log_right) + np.exp(log_left)
    with np.errstate(divide="ignore"):
        log_inside = np.log1p(-np.minimum(fail, 1.0))
    # Where deviating is likely, compute P(lower < S < upper) directly, without cancellation.
    big = fail > 0.5
    if big.any():
        jb = j[big]
        below = jb * p < upper
        sf_gap = np.exp(_log_sf(lower + 1, jb, p)) - np.exp(_log_sf(upper, jb, p))
        cdf_gap = np.exp(_log_cdf(upper - 1, jb, p)) - np.exp(_log_cdf(lower, jb, p))
        inside = np.where(below, sf_gap, cdf_gap)
        log_inside[big] = _log(np.maximum(inside, 0.0))
    return _NaiveBayesTerms(logw=logw, log_inside=log_inside)


def naive_bayes_probability(n: int, error: float, similarity: float, eps: float, k: int) -> float:
    """Exact P(max_i |E_S[q_i] - mu| >= eps) for k models with a naive-Bayes structure (A1).

    Last display of Mania et al. App. B: sum_j P(J = j) [1 - P(one model inside | j)^k],
    with 1 - x^k evaluated as -expm1(k log x) (no cancellation, no overflow for k up to
    1e20 and beyond). The j = 0 term (every example easy) is included.
    """
    k = _check_k(k)
    return _naive_bayes_terms(n, error, similarity, eps).probability(k)


def naive_bayes_bound_k(n: int, error: float, similarity: float, eps: float, delta: float) -> int:
    """Largest k whose exact naive-Bayes overfitting probability is at most delta.

    About 1e8 at the ImageNet setting (Mania et al. Sec. 5.1, Fig. 2: n = 50,000,
    mu = 0.244, eta = 0.85, eps = 0.01, delta = 0.05). Exact integer binary search on k.
    """
    delta = _check_delta(delta)
    terms = _naive_bayes_terms(n, error, similarity, eps, delta)
    return _largest_k(terms.probability, delta)


# ---------------------------------------------------------------------------
# Theorem 2 and Corollary 4 in closed form
# ---------------------------------------------------------------------------


def _log1p_ratio(eps: float, similarity: float) -> float:
    """log(1 + eps / (4 (1 - eta))), +inf at eta = 1."""
    if similarity >= 1.0:
        return math.inf
    return math.log1p(eps / (4.0 * (1.0 - similarity)))


def theorem2_probability(n: int, k: float, cover_size: float, similarity: float, eps: float) -> float:
    """Right-hand side of (4): 2 N_eta e^(-n eps^2 / 2) + 2 k e^(-(n eps / 4) log(1 + eps / (4 (1 - eta)))).

    Mania et al. Theorem 2: a bound on P(max_i |E_S[q_i] - E_D[q_i]| >= eps) for k
    non-adaptive queries with an eta similarity cover of size N_eta.
    """
    n = _check_n(n)
    eps = _check_eps(eps)
    eta = _check_unit("similarity", similarity)
    cover_size = _check_cover(cover_size)
    k = _check_k_real(k)
    first = 2.0 * cover_size * math.exp(-n * eps**2 / 2.0)
    second = 2.0 * float(k) * math.exp(-(n * eps / 4.0) * _log1p_ratio(eps, eta))
    return first + second


def theorem2_max_similarity(n: int, k: float, cover_size: float, delta: float) -> float:
    """The largest eta for which (5) holds: 1 - max{2 log(4k/delta)/n, sqrt(log(4 N_eta/delta)/(2n))}."""
    n = _check_n(n)
    k = _check_k_real(k)
    delta = _check_delta(delta)
    cover_size = _check_cover(cover_size)
    return 1.0 - max(
        2.0 * math.log(4.0 * float(k) / delta) / n,
        math.sqrt(math.log(4.0 * cover_size / delta) / (2.0 * n)),
    )


def theorem2_eps(n: int, k: float, cover_size: float, similarity: float, delta: float) -> float:
    """The eps of (5): max{sqrt(2 log(4 N_eta/delta)/n), sqrt(32 (1 - eta) log(4k/delta)/n)}.

    Valid (holds with probability 1 - delta) for eta <= :func:`theorem2_max_similarity`;
    raises ``ValueError`` otherwise.
    """
    eta = _check_unit("similarity", similarity)
    limit = theorem2_max_similarity(n, k, cover_size, delta)
    if eta > limit:
        raise ValueError(
            f"(5) of Mania et al. Theorem 2 needs similarity <= {limit!r} for n={n}, k={k}, "
            f"N_eta={cover_size}, delta={delta}; got {eta!r} (use theorem2_eps_high_similarity)"
        )
    return max(
        math.sqrt(2.0 * math.log(4.0 * float(cover_size) / delta) / n),
        math.sqrt(32.0 * (1.0 - eta) * math.log(4.0 * float(k) / delta) / n),
    )


def _eps6(n: int, cover_size: float, delta: float, as_printed: bool) -> float:
    factor = 1.0 if as_printed else 2.0
    return math.sqrt(factor * math.log((2.0 * cover_size + 1.0) / delta) / n)


def theorem2_min_similarity_high(n: int, k: float, cover_size: float, delta: float, as_printed: bool = False) -> float:
    """The smallest eta for which (6) holds: 1 - eps / (4 (e^(2 eps) (2k)^(4/(n eps)) - 1)).

    eps is that of :func:`theorem2_eps_high_similarity` (same ``as_printed``); the
    exponential is evaluated as expm1 of 2 eps + 4 log(2k)/(n eps).
    """
    n = _check_n(n)
    k = _check_k_real(k)
    delta = _check_delta(delta)
    cover_size = _check_cover(cover_size)
    eps = _eps6(n, cover_size, delta, as_printed)
    x = 2.0 * eps + 4.0 * math.log(2.0 * float(k)) / (n * eps)
    return 1.0 - eps / (4.0 * math.expm1(x)) if x < 700 else 1.0


def theorem2_eps_high_similarity(
    n: int, k: float, cover_size: float, similarity: float, delta: float, as_printed: bool = False
) -> float:
    """The eps of (6), valid for eta >= :func:`theorem2_min_similarity_high`.

    The paper prints eps = sqrt(log((2 N_eta + 1)/delta)/n) (``as_printed=True``). Its proof
    ends with (4) <= (2 N_eta + 1) e^(-n eps^2 / 2), which is at most delta only for
    eps = sqrt(2 log((2 N_eta + 1)/delta)/n): the printed value drops the factor 2 inside
    the square root and does not give probability 1 - delta (e.g. N_eta = 1, delta = 0.05:
    (4) = sqrt(3 delta) = 0.39). The default (``as_printed=False``) is the corrected eps.
    Raises ``ValueError`` when the similarity is below the threshold.
    """
    eta = _check_unit("similarity", similarity)
    limit = theorem2_min_similarity_high(n, k, cover_size, delta, as_printed)
    if eta < limit:
        raise ValueError(
            f"(6) of Mania et al. Theorem 2 needs similarity >= {limit!r} for n={n}, k={k}, "
            f"N_eta={cover_size}, delta={delta}; got {eta!r} (use theorem2_eps)"
        )
    return _eps6(n, float(cover_size), delta, as_printed)


def similarity_cover_bound(n: int, k: float, cover_size: float, similarity: float, eps: float) -> float:
    """Bound (4) on P(overfitting) from a measured eta similarity cover (Definition 1).

    ``cover_size`` is N_eta (or an upper bound on it, e.g. a greedy cover of the models'
    similarity matrix at level eta, as in Mania et al. Fig. 3); capped at 1.
    """
    return min(1.0, theorem2_probability(n, k, cover_size, similarity, eps))


def similarity_cover_eps(n: int, k: float, cover_size: float, similarity: float, delta: float) -> float:
    """The eps guaranteed with probability 1 - delta by a cover of size N_eta at level eta.

    The smaller of (5) and (6) among those whose condition on eta holds; when neither
    holds, the eps solving (4) = delta (bisection on the closed form, always valid).
    """
    n, k, cover_size = _check_n(n), _check_k_real(k), _check_cover(cover_size)
    similarity, delta = _check_unit("similarity", similarity), _check_delta(delta)
    candidates: list[float] = []
    try:
        candidates.append(theorem2_eps(n, k, cover_size, similarity, delta))
    except ValueError:
        pass
    try:
        candidates.append(theorem2_eps_high_similarity(n, k, cover_size, similarity, delta))
    except ValueError:
        pass
    lo, hi = 0.0, 1.0
    if theorem2_probability(n, k, cover_size, similarity, 1.0 - 1e-12) > delta:
        if candidates:
            return min(candidates)
        raise ValueError(f"no eps < 1 makes bound (4) at most delta={delta} (n={n}, k={k}, N_eta={cover_size})")
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= 0.0 or theorem2_probability(n, k, cover_size, similarity, mid) > delta:
            lo = mid
        else:
            hi = mid
    candidates.append(hi)
    return min(candidates)


@dataclass(frozen=True)
class Corollary4:
    """Corollary 4 of Mania et al.: adaptive analyst, trivial mechanism.

    ``eps`` = sqrt(4 (k^(1-alpha) log(n+1) + log(2/delta)) / n); ``similarity`` =
    1 - eps / (4 (e^(eps k^alpha) - 1)); ``log_max_cover`` = k^(1-alpha) log(n+1), the log of
    the largest N_eta(F) for which the guarantee max_i |E_S[q_i] - E_D[q_i]| <= eps holds.
    """

    eps: float
    similarity: float
    log_max_cover: float


def corollary4(n: int, k: int, alpha: float, delta: float) -> Corollary4:
    """Corollary 4 (eq. (7)): eps, the required similarity and the allowed cover size."""
    n = _check_n(n)
    k = _check_k(k)
    alpha = _check_unit("alpha", alpha)
    delta = _check_delta(delta)
    log_max_cover = float(k) ** (1.0 - alpha) * math.log(n + 1.0)
    eps = math.sqrt(4.0 * (log_max_cover + math.log(2.0 / delta)) / n)
    x = eps * float(k) ** alpha
    eta = 1.0 - eps / (4.0 * math.expm1(x)) if x < 700 else 1.0
    return Corollary4(eps=eps, similarity=eta, log_max_cover=log_max_cover)


def corollary4_eps(n: int, k: int, alpha: float, delta: float) -> float:
    """Corollary 4's eps for an adaptive analyst: sqrt(4 (k^(1-alpha) log(n+1) + log(2/delta)) / n)."""
    return corollary4(n, k, alpha, delta).eps
