"""Two models on the same items: paired tests and intervals for the difference in accuracy.

0/1 correctness: the exact McNemar test (McNemar 1947; exact conditional form: a two-sided binomial
test of b against b + c at 1/2), optionally its mid-p version (Fagerland, Lydersen & Laake 2013),
and Newcombe's (1998) hybrid score interval for the difference of paired proportions. Pass rates
(or any per-item scores): the paired t test over items, a sign-flip permutation test and a paired
percentile bootstrap interval. The ``*_from_counts`` / ``*_from_sums`` functions are vectorized
(every pair of a leaderboard at once); the others take two models' per-item results.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from holdout.stats._tails import log_binom_half_cdf, log_t_sf

__all__ = [
    "McNemarResult",
    "PairedTResult",
    "SignFlipResult",
    "mcnemar",
    "mcnemar_log_pvalue",
    "newcombe_paired_ci",
    "paired_bootstrap_ci",
    "paired_t_from_sums",
    "paired_t_test",
    "sign_flip_test",
]


def _log_two_sided(log_tail: np.ndarray) -> np.ndarray:
    """min(0, log 2 + log tail): a two-sided p-value from one tail of a symmetric distribution."""
    return np.minimum(0.0, np.log(2.0) + log_tail)


def mcnemar_log_pvalue(b: np.ndarray, c: np.ndarray, *, mid_p: bool = False) -> np.ndarray:
    """log of the exact two-sided McNemar p-value, elementwise over discordant counts b and c.

    Conditional on the b + c discordant items, b ~ Binomial(b + c, 1/2) under equal accuracies
    (McNemar 1947); the exact p-value is min(1, 2 P(X <= min(b, c))), which is what
    ``scipy.stats.binomtest(b, b + c, 0.5).pvalue`` gives. ``mid_p``: the mid-p value
    2 P(X < min(b, c)) + P(X = min(b, c)) (Fagerland, Lydersen & Laake 2013, BMC Med. Res. Methodol.
    13:91, eq. 3), less conservative, no longer guaranteed to hold its level. b + c = 0 gives p = 1.
    Exact in log space far below 1e-308 (a series for the binomial tail where ``bdtr`` underflows).
    """
    from scipy import stats

    b, c = np.asarray(b, dtype=float), np.asarray(c, dtype=float)
    if np.any(b < 0) or np.any(c < 0) or np.any(b != np.round(b)) or np.any(c != np.round(c)):
        raise ValueError("mcnemar needs whole, non-negative discordant counts b and c")
    k, n = np.minimum(b, c), b + c
    if not mid_p:
        return _log_two_sided(log_binom_half_cdf(k, n))
    below = np.log(2.0) + log_binom_half_cdf(k - 1, n)
    at = np.where(n > 0, stats.binom.logpmf(k, n, 0.5), 0.0)
    return np.minimum(0.0, np.logaddexp(below, at))


@dataclass(frozen=True)
class McNemarResult:
    """Exact McNemar test of two models on the same items: ``b`` items only the first gets right,
    ``c`` only the second; ``statistic`` = min(b, c); ``pvalue`` two-sided (mid-p if ``mid_p``)."""

    b: int
    c: int
    statistic: int
    pvalue: float
    log_pvalue: float
    mid_p: bool


def mcnemar(b: int, c: int, *, mid_p: bool = False) -> McNemarResult:
    """Exact two-sided McNemar test from the discordant counts (see
    [`mcnemar_log_pvalue`][holdout.stats.paired.mcnemar_log_pvalue])."""
    log_p = float(mcnemar_log_pvalue(b, c, mid_p=mid_p))
    return McNemarResult(int(b), int(c), int(min(b, c)), float(np.exp(log_p)), log_p, mid_p)


def _wilson(k: np.ndarray, n: np.ndarray, z: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson (1927) score interval of k / n (Newcombe 1998a, method 3)."""
    p = k / n
    centre = (p + z**2 / (2 * n)) / (1 + z**2 / n)
    half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / (1 + z**2 / n)
    return centre - half, centre + half


def newcombe_paired_ci(
    a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray, alpha: float = 0.05
) -> tuple[np.ndarray, np.ndarray]:
    """1 - alpha interval for p1 - p2 = (b - c) / n of paired proportions, elementwise.

    Newcombe's hybrid score interval (Newcombe 1998, Stat. Med. 17:2635, method 10): the Wilson
    intervals (l1, u1), (l2, u2) of p1 = (a + b) / n and p2 = (a + c) / n combined with the
    correlation phi of the 2 x 2 table, L = D - sqrt((p1 - l1)^2 + (u2 - p2)^2 - 2 phi (p1 - l1)(u2 - p2)),
    U = D + sqrt((p2 - l2)^2 + (u1 - p1)^2 - 2 phi (p2 - l2)(u1 - p1)). phi uses Newcombe's
    correction: (ad - bc - n/2) / sqrt(margins) when ad - bc > n/2, 0 on [0, n/2], the plain
    phi below 0, 0 when a margin is empty (as in Fagerland, Lydersen & Laake 2017, Sec. 8.5.4).
    ``a``: both right, ``b``: only the first, ``c``: only the second, ``d``: both wrong.
    """
    from scipy import stats

    a, b, c, d = (np.asarray(v, dtype=float) for v in (a, b, c, d))
    n = a + b + c + d
    z = float(stats.norm.isf(alpha / 2))
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = _wilson(a + b, n, z)
    l2, u2 = _wilson(a + c, n, z)
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    det = a * d - b * c
    num = np.where(det > n / 2, det - n / 2, np.where(det >= 0, 0.0, det))
    with np.errstate(divide="ignore", invalid="ignore"):
        phi = np.where(margins > 0, num / np.sqrt(margins), 0.0)
    diff = p1 - p2
    low = diff - np.sqrt(np.maximum((p1 - l1) ** 2 + (u2 - p2) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2), 0.0))
    high = diff + np.sqrt(np.maximum((p2 - l2) ** 2 + (u1 - p1) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1), 0.0))
    return np.maximum(low, -1.0), np.minimum(high, 1.0)


@dataclass(frozen=True)
class PairedTResult:
    """Paired t test over items: mean difference ``diff``, its standard error, t, df = n - 1,
    the two-sided p-value (and its log) and the 1 - alpha interval diff +- t_{n-1} se."""

    diff: float
    se: float
    statistic: float
    df: int
    pvalue: float
    log_pvalue: float
    low: float
    high: float


def paired_t_from_sums(
    sum_d: np.ndarray, sum_d2: np.ndarray, n: int, alpha: float = 0.05
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Paired t test from the sums of the per-item differences d_t and of d_t^2, elementwise.

    Returns (diff, se, t, log p, low, high) with diff = mean d, se = s_d / sqrt(n) (s_d the sample
    standard deviation, n - 1 in the denominator), t = diff / se, p two-sided from Student's t with
    n - 1 df (Student 1908; what ``scipy.stats.ttest_rel`` computes), and diff -+ t_{n-1, alpha/2} se.
    Pairs that never differ (s_d = 0) get t = 0 and p = 1 when diff = 0.
    """
    from scipy import stats

    if n < 2:
        raise ValueError(f"the paired t test needs at least 2 items, got n = {n}")
    sum_d, sum_d2 = np.asarray(sum_d, dtype=float), np.asarray(sum_d2, dtype=float)
    diff = sum_d / n
    var = np.maximum(sum_d2 - n * diff**2, 0.0) / (n - 1)
    se = np.sqrt(var / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, diff / se, np.where(diff == 0, 0.0, np.copysign(np.inf, diff)))
    log_p = _log_two_sided(log_t_sf(np.abs(t), np.full_like(t, n - 1.0)))
    half = float(stats.t.isf(alpha / 2, n - 1)) * se
    return diff, se, t, log_p, diff - half, diff + half


def _differences(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or x.size == 0:
        raise ValueError(f"paired tests need two results on the same items, got shapes {x.shape} and {y.shape}")
    return x - y


def paired_t_test(x: np.ndarray, y: np.ndarray, alpha: float = 0.05) -> PairedTResult:
    """Paired t test of mean(x - y) = 0 over items (x, y: two models' per-item pass rates or scores)."""
    d = _differences(x, y)
    diff, se, t, log_p, low, high = paired_t_from_sums(d.sum(), (d**2).sum(), d.size, alpha)
    return PairedTResult(
        float(diff), float(se), float(t), d.size - 1, float(np.exp(log_p)), float(log_p), float(low), float(high)
    )


@dataclass(frozen=True)
class SignFlipResult:
    """Sign-flip permutation test of mean(x - y) = 0: ``pvalue`` two-sided, ``exact`` when all
    2^n sign patterns were enumerated (else ``resamples`` random ones, p = (1 + hits) / (1 + B))."""

    diff: float
    pvalue: float
    exact: bool
    resamples: int


def sign_flip_test(
    x: np.ndarray, y: np.ndarray, *, n_resamples: int = 9999, seed: int | np.random.Generator = 0
) -> SignFlipResult:
    """Two-sided sign-flip (Fisher-Pitman) permutation test of the mean paired difference.

    Under H0 the differences d_t are symmetric about 0, so flipping each sign leaves their
    distribution unchanged (Fisher 1935, Sec. 21; Good 2005, Permutation Tests, Sec. 3.3). Exact
    (all 2^n patterns) when 2^n <= ``n_resamples``, else a Monte Carlo p-value (1 + hits) / (1 + B),
    which is valid at any B (Phipson & Smyth 2010). Items with d_t = 0 do not change the statistic.
    When every nonzero |d_t| is the same, the test is the two-sided sign test, computed exactly (the
    binomial tail, as the exact McNemar test) at any number of items.
    """
    d = _differences(x, y)
    d = d[d != 0]
    obs = abs(d.sum())
    tol = 1e-9 * max(1.0, np.abs(d).sum())  # equal sums in floating point count as ties
    if d.size == 0:
        return SignFlipResult(0.0, 1.0, True, 1)
    if np.ptp(np.abs(d)) <= 1e-12 * np.abs(d).max():  # equal sizes: the sign test, exact at any n
        p = float(np.exp(mcnemar_log_pvalue(int((d > 0).sum()), int((d < 0).sum()))))
        return SignFlipResult(float(d.mean()), p, True, 2**d.size)
    if 2**d.size <= n_resamples:
        signs = 1 - 2 * ((np.arange(2**d.size)[:, None] >> np.arange(d.size)) & 1)
        hits = int((np.abs(signs @ d) >= obs - tol).sum())
        return SignFlipResult(float(d.mean()), hits / 2**d.size, True, 2**d.size)
    rng = np.random.default_rng(seed)
    hits = 0
    for start in range(0, n_resamples, 1024):
        signs = rng.choice([-1.0, 1.0], size=(min(1024, n_resamples - start), d.size))
        hits += int((np.abs(signs @ d) >= obs - tol).sum())
    return SignFlipResult(float(d.mean()), (1 + hits) / (1 + n_resamples), False, n_resamples)


def resample_counts(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """``size`` x n counts of how often each of n items is drawn in a resample of n with replacement
    (a multinomial(n, 1/n) draw per row, by bincount of uniform indices: faster than ``rng.multinomial``)."""
    idx = rng.integers(0, n, size=(size, n)) + n * np.arange(size)[:, None]
    return np.bincount(idx.ravel(), minlength=size * n).reshape(size, n)


def paired_bootstrap_ci(
    x: np.ndarray,
    y: np.ndarray,
    alpha: float = 0.05,
    *,
    n_resamples: int = 9999,
    seed: int | np.random.Generator = 0,
) -> tuple[float, float]:
    """Percentile bootstrap 1 - alpha interval of mean(x - y), resampling items with replacement
    (both models' results on an item stay together: Efron & Tibshirani 1993, Sec. 13.3)."""
    d = _differences(x, y)
    rng = np.random.default_rng(seed)
    means = np.empty(n_resamples)
    for start in range(0, n_resamples, 1024):
        size = min(1024, n_resamples - start)
        counts = resample_counts(rng, d.size, size)
        means[start : start + size] = counts @ d / d.size
    low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)
