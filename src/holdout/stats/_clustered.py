"""Clustered standard errors of a mean of item scores and of a paired difference (Miller 2024, App. A).

Items that share a passage, a source, a repository or a template are not independent draws: the
plain standard error s / sqrt(n) understates the uncertainty of their mean. With residuals
e_i = s_i - mean and cluster totals E_c = sum_{i in c} e_i, Miller's clustered standard error is

    SE_C = sqrt(sum_c E_c^2) / n                                     (Miller 2024, App. A)

and the finite-cluster form multiplies the variance by C / (C - 1) (what statsmodels' cluster-robust
OLS of an intercept, Stata's ``vce(cluster)`` and Inspect's ``stderr(cluster=...)`` report). The
paired difference of two models is the same formula on d_i = a_i - b_i. With few clusters the normal
reference fails (Cameron & Miller 2015, on few clusters): the paired p-value then comes from a cluster-level
sign-flip randomization test on the cluster totals of d.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = [
    "MIN_CLUSTERS_NORMAL",
    "ClusteredMany",
    "ClusteredPairedResult",
    "ClusteredSE",
    "ConfidenceInterval",
    "cluster_codes",
    "clustered_many",
    "clustered_paired_test",
    "clustered_se",
]

#: fewer clusters than this: the paired p-value comes from the sign-flip randomization test
MIN_CLUSTERS_NORMAL = 30

_FORMS = ("finite", "miller")


@dataclass(frozen=True)
class ConfidenceInterval:
    """A two-sided interval (``low``, ``high``)."""

    low: float
    high: float


@dataclass(frozen=True)
class ClusteredSE:
    """The mean of n item scores (or paired differences) and its standard errors.

    ``se``: plain, s / sqrt(n) with the n - 1 sample variance; ``se_clustered``: Miller's (2024,
    App. A) form sqrt(sum_c E_c^2) / n; ``se_clustered_finite``: the same times sqrt(C / (C - 1)),
    the finite-cluster form; ``design_effect``: sum_c E_c^2 / sum_i e_i^2, the variance of the mean
    under clustering over its variance under independence (both with the 1 / n^2 of Miller's form;
    1 when every item is its own cluster). ``n_clusters``: C.
    """

    estimate: float
    n: int
    n_clusters: int
    se: float
    se_clustered: float
    se_clustered_finite: float
    design_effect: float

    def confidence_interval(self, confidence_level: float = 0.95, *, form: str = "finite") -> ConfidenceInterval:
        """estimate -+ t_{C-1} SE: the clustered interval with C - 1 degrees of freedom (Cameron &
        Miller 2015: the usual small-cluster reference, as Stata uses it), ``form``
        'finite' (C / (C - 1), default) or 'miller'."""
        from scipy import stats

        if not 0 < confidence_level < 1:
            raise ValueError(f"confidence_level must lie in (0, 1), got {confidence_level!r}")
        if form not in _FORMS:
            raise ValueError(f"form must be 'finite' or 'miller', got {form!r}")
        se = self.se_clustered_finite if form == "finite" else self.se_clustered
        half = float(stats.t.isf((1 - confidence_level) / 2, self.n_clusters - 1)) * se
        return ConfidenceInterval(self.estimate - half, self.estimate + half)


def cluster_codes(clusters: object, n: int) -> tuple[np.ndarray, int]:
    """Integer codes 0..C-1 of n cluster labels (any hashable values) and C; ValueError naming the
    lengths, a missing label, or fewer than 2 clusters."""
    labels = pd.Series(np.asarray(clusters, dtype=object).ravel())
    if len(labels) != n:
        raise ValueError(f"clusters must give one label per item: {len(labels)} labels for {n} items")
    if labels.isna().any():
        raise ValueError(f"item {int(np.flatnonzero(labels.isna().to_numpy())[0])} has no cluster label")
    codes, uniques = pd.factorize(labels, sort=True)
    if len(uniques) < 2:
        raise ValueError(f"clustered standard errors need at least 2 clusters, got {len(uniques)}")
    return codes.astype(np.intp), len(uniques)


def _scores(scores: object) -> np.ndarray:
    s = np.asarray(scores, dtype=float)
    if s.ndim != 1 or s.size < 2:
        raise ValueError(f"scores must be a vector of at least 2 item scores, got shape {s.shape}")
    if not np.isfinite(s).all():
        raise ValueError(f"item {int(np.flatnonzero(~np.isfinite(s))[0])} has a NaN or infinite score")
    return s


def _from_codes(s: np.ndarray, codes: np.ndarray, n_clusters: int) -> ClusteredSE:
    n = s.size
    mean = float(s.mean())
    e = s - mean
    ss = float(e @ e)
    totals = np.bincount(codes, weights=e, minlength=n_clusters)
    meat = float(totals @ totals)
    se_miller = math.sqrt(meat) / n
    return ClusteredSE(
        estimate=mean,
        n=n,
        n_clusters=n_clusters,
        se=math.sqrt(ss / (n * (n - 1))),
        se_clustered=se_miller,
        se_clustered_finite=se_miller * math.sqrt(n_clusters / (n_clusters - 1)),
        design_effect=meat / ss if ss > 0 else 1.0,
    )


def clustered_se(scores: object, clusters: object) -> ClusteredSE:
    """The mean of item scores with its plain and clustered standard errors.

    Parameters
    ----------
    scores : array of n item scores (0/1, pass rates, any real scores)
    clusters : n cluster labels (strings, integers: any hashable), at least two distinct

    Returns
    -------
    ClusteredSE
        estimate, n, C, ``se``, ``se_clustered`` (Miller), ``se_clustered_finite`` (C / (C - 1)),
        ``design_effect``.

    Notes
    -----
    Miller's App. A form is the sandwich (cluster-robust) variance of a sample mean; the C / (C - 1)
    factor is the small-sample correction statsmodels and Stata apply
    (their (N - 1) / (N - K) factor is 1 for an intercept alone). A design effect d means the test
    set holds the information of n / d independent items.

    References
    ----------
    .. [1] E. Miller, "Adding Error Bars to Evals", arXiv 2411.00640 (2024), Appendix A.
    .. [2] A. C. Cameron, D. L. Miller, "A Practitioner's Guide to Cluster-Robust Inference",
       J. Human Resources 50(2), 2015.

    Examples
    --------
    Inspect's test of ``stderr(cluster=...)``: scores 0..19 clustered by i mod 4.

    >>> r = clustered_se(np.arange(20.0), np.arange(20) % 4)
    >>> round(r.se_clustered_finite, 3), round(r.se_clustered, 3)
    (0.645, 0.559)
    """
    s = _scores(scores)
    codes, n_clusters = cluster_codes(clusters, s.size)
    return _from_codes(s, codes, n_clusters)


@dataclass(frozen=True)
class ClusteredMany:
    """K models' means and, for every pair (i, j), the paired difference mean_i - mean_j, with plain
    and clustered standard errors, from two K x K products (as
    [`clustered_se`][holdout.stats.clustered.clustered_se] gives them one at a time). Arrays of
    shape (K,) for the models and (K, K) for the pairs; ``n_clusters`` C."""

    n: int
    n_clusters: int
    mean: np.ndarray
    se: np.ndarray
    se_clustered: np.ndarray
    se_clustered_finite: np.ndarray
    design_effect: np.ndarray
    se_diff: np.ndarray
    se_diff_clustered: np.ndarray
    se_diff_clustered_finite: np.ndarray
    design_effect_diff: np.ndarray


def clustered_many(values: object, clusters: object) -> ClusteredMany:
    """Clustered standard errors of every row of a K x n matrix and of every paired difference.

    With residuals E (K x n) and their cluster totals T = E G (G the n x C indicator matrix), the
    sums of squares of row i and of the difference i - j are (E E^T)_ii and
    (E E^T)_ii + (E E^T)_jj - 2 (E E^T)_ij, and Miller's meat sum_c E_c^2 is the same form in
    T T^T: the whole table from two K x K products, no loop over pairs. Pairs whose differences
    are all 0 get design effect 1.
    """
    v = np.asarray(values, dtype=float)
    if v.ndim != 2 or v.shape[1] < 2 or not np.isfinite(v).all():
        raise ValueError(f"values must be a finite K x n matrix with n >= 2, got shape {v.shape}")
    n = v.shape[1]
    codes, n_clusters = cluster_codes(clusters, n)
    e = v - v.mean(axis=1, keepdims=True)
    totals = np.zeros((v.shape[0], n_clusters))
    np.add.at(totals.T, codes, e.T)
    gram, meat = e @ e.T, totals @ totals.T
    ss, mt = np.diag(gram), np.diag(meat)
    ss_d = np.maximum(ss[:, None] + ss[None, :] - 2 * gram, 0.0)
    mt_d = np.maximum(mt[:, None] + mt[None, :] - 2 * meat, 0.0)
    factor = math.sqrt(n_clusters / (n_clusters - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        deff = np.where(ss > 0, mt / ss, 1.0)
        deff_d = np.where(ss_d > 1e-12 * max(1.0, float(ss.max())), mt_d / ss_d, 1.0)
    return ClusteredMany(
        n=n,
        n_clusters=n_clusters,
        mean=v.mean(axis=1),
        se=np.sqrt(ss / (n * (n - 1))),
        se_clustered=np.sqrt(mt) / n,
        se_clustered_finite=np.sqrt(mt) / n * factor,
        design_effect=deff,
        se_diff=np.sqrt(ss_d / (n * (n - 1))),
        se_diff_clustered=np.sqrt(mt_d) / n,
        se_diff_clustered_finite=np.sqrt(mt_d) / n * factor,
        design_effect_diff=deff_d,
    )


@dataclass(frozen=True)
class ClusteredPairedResult:
    """A paired difference mean(a - b) under clustering: its standard errors (``se``, a
    [`ClusteredSE`][holdout.stats.ClusteredSE] of d = a - b), the two-sided p-value and which test
    gave it: ``method`` 'normal' (z = diff / the finite-cluster SE, with ``n_clusters`` >=
    ``MIN_CLUSTERS_NORMAL``), 'sign-flip exact' (all 2^C sign patterns of the clusters) or
    'sign-flip monte carlo' (``n_resamples`` random patterns, p = (1 + hits) / (1 + B)).
    ``statistic``: |z|, or |t| = |diff| / SE (Miller's form; the finite-cluster factor cancels in the
    randomization test). ``interval``: the ``confidence_level`` interval of the difference from the
    same test: diff -+ t_{C-1} SE (finite-cluster form) with the normal test, the inverted
    randomization test otherwise (``interval_method`` says which)."""

    se: ClusteredSE
    statistic: float
    pvalue: float
    method: str
    n_resamples: int
    interval: ConfidenceInterval
    interval_method: str

    @property
    def diff(self) -> float:
        return self.se.estimate


def clustered_paired_test(
    a: object,
    b: object,
    clusters: object,
    *,
    confidence_level: float = 0.95,
    min_clusters: int = MIN_CLUSTERS_NORMAL,
    n_resamples: int = 9999,
    rng: int | np.random.Generator = 0,
) -> ClusteredPairedResult:
    """Two models on the same clustered items: mean(a - b), its clustered standard errors, a
    two-sided p-value of mean(a - b) = 0 and an interval.

    With C >= ``min_clusters``: z = diff / SE (finite-cluster form), normal reference, and the
    interval diff -+ t_{C-1} SE. Below: a cluster sign-flip randomization test of the studentized
    statistic t = diff / SE_C: each cluster's differences d_i change sign together, t is recomputed
    (its clustered SE too), and p is the share of patterns with |t| at least the observed one. Valid
    when under H0 each cluster's differences are symmetric about 0 jointly (exchangeable models
    within a cluster), for any number of clusters (Canay, Romano & Shaikh 2017, Econometrica
    85:1013; it is the wild cluster bootstrap-t with Rademacher weights of Cameron, Gelbach & Miller
    2008, enumerated). Exact (all 2^C patterns) when 2^C <= ``n_resamples``, else Monte Carlo with
    p = (1 + hits) / (1 + B) >= 1 / (B + 1) (Phipson & Smyth 2010). The interval then inverts the
    same test: the differences delta whose test on d - delta (the same sign patterns) keeps
    p > 1 - ``confidence_level``, ends found by bisection (Roodman, MacKinnon, Nielsen & Webb 2019,
    Stata Journal 19(1), 4-60); where the test cannot reject even at the edge of the scale (too few
    clusters for the level: 2 / 2^C > 1 - confidence_level), the end is that edge (-1 or 1 for
    scores in [0, 1]).
    """
    from scipy import stats

    x, y = _scores(a), _scores(b)
    if x.shape != y.shape:
        raise ValueError(f"a paired test needs two results on the same items, got {x.size} and {y.size} items")
    if int(min_clusters) < 2:
        raise ValueError(f"min_clusters must be >= 2, got {min_clusters!r}")
    if not 0 < confidence_level < 1:
        raise ValueError(f"confidence_level must lie in (0, 1), got {confidence_level!r}")
    d = x - y
    codes, n_clusters = cluster_codes(clusters, d.size)
    se = _from_codes(d, codes, n_clusters)
    if n_clusters >= min_clusters:
        s = se.se_clustered_finite
        z = abs(se.estimate) / s if s > 0 else (0.0 if se.estimate == 0 else math.inf)
        p = float(min(1.0, 2 * stats.norm.sf(z)))
        return ClusteredPairedResult(se, z, p, "normal", 0, se.confidence_interval(confidence_level), "t")
    totals = np.bincount(codes, weights=d, minlength=n_clusters)
    sizes = np.bincount(codes, minlength=n_clusters).astype(float)
    exact = 2**n_clusters <= n_resamples
    if exact:
        signs = 1.0 - 2.0 * ((np.arange(2**n_clusters)[:, None] >> np.arange(n_clusters)) & 1)
    else:
        signs = np.random.default_rng(rng).choice([-1.0, 1.0], size=(n_resamples, n_clusters))
    flip = _FlipTest(signs, exact, totals, sizes)
    span = float(max(1.0, x.max() - y.min(), y.max() - x.min()))  # |mean(a - b)| <= span
    low, high = flip.interval(se.estimate, 1 - confidence_level, (-span, span))
    return ClusteredPairedResult(
        se,
        flip.statistic(0.0),
        flip.pvalue(0.0),
        "sign-flip exact" if exact else "sign-flip monte carlo",
        len(signs),
        ConfidenceInterval(low, high),
        "sign-flip inverted",
    )


@dataclass(frozen=True)
class _FlipTest:
    """The cluster sign-flip test of mean(d) = delta on fixed sign patterns (rows of ``signs``)."""

    signs: np.ndarray
    exact: bool
    totals: np.ndarray
    sizes: np.ndarray

    def statistic(self, delta: float) -> float:
        return float(_flip_t(np.ones((1, self.totals.size)), self.totals - delta * self.sizes, self.sizes)[0])

    def pvalue(self, delta: float) -> float:
        observed = self.statistic(delta)
        hits = int(_at_least(_flip_t(self.signs, self.totals - delta * self.sizes, self.sizes), observed).sum())
        return hits / len(self.signs) if self.exact else (1 + hits) / (1 + len(self.signs))

    def interval(self, estimate: float, alpha: float, bounds: tuple[float, float]) -> tuple[float, float]:
        """The ends of {delta: p(delta) > alpha} on each side of the estimate, by bisection; a bound
        of the scale itself where the test does not reject there."""
        ends = []
        for far in bounds:
            if self.pvalue(far) > alpha:
                ends.append(far)
                continue
            inside, outside = estimate, far
            for _ in range(40):
                mid = (inside + outside) / 2
                inside, outside = (mid, outside) if self.pvalue(mid) > alpha else (inside, mid)
            ends.append(inside)
        return ends[0], ends[1]


def _flip_t(signs: np.ndarray, totals: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """|t| = |diff| / SE_C for each row of cluster signs (P x C): diff = sum_c s_c T_c / n, residual
    totals s_c T_c - n_c diff; t = +inf where SE is 0 and diff is not, 0 where both are."""
    flipped = signs * totals
    diff = flipped.sum(axis=1) / sizes.sum()
    resid = flipped - diff[:, None] * sizes
    se = np.sqrt((resid**2).sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, np.abs(diff) / se, np.where(np.abs(diff) > 0, np.inf, 0.0))
    return t * sizes.sum()  # |diff| / (sqrt(sum resid^2) / n): the studentized statistic


def _at_least(t: np.ndarray, observed: float) -> np.ndarray:
    """t >= observed, with equal values in floating point counted as ties."""
    return t >= observed - 1e-9 * max(1.0, observed) if math.isfinite(observed) else t == observed
