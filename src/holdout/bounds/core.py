"""Mania et al. (2019), *Model similarity mitigates test set overuse*: the bounds, exact.

All functions take the paper's quantities as keyword arguments:

- ``n``: test-set size; ``error``: population error rate mu = E_D[q];
- ``similarity``: eta = P(q_i(z) = q_j(z)), the probability that two models' 0-1 losses agree;
- ``eps``: the tolerated deviation |E_S[q] - E_D[q]|; ``delta``: the failure probability.

Tail convention (one helper, [`deviation_thresholds`][holdout.bounds.core.deviation_thresholds], used by every bound).
With
X the number of test errors of a model, a deviation is ``X >= n(mu + eps)`` on the right
and ``X < n(mu - eps)`` on the left, where ``n(mu +- eps)`` is taken as the nearest integer
when floating point lands within a hair (1e-9 relative) of it. This is the convention that
reproduces the paper's k = 257,397 for the union bound at the ImageNet setting (Sec. 5.1;
``X <= n(mu - eps)`` on the left gives 251,165, ``X > n(mu + eps)`` on the right 265,636,
both 259,004).
The similarity and naive-Bayes bounds use the same events, so their gains over the union
bound compare like with like.

Numerics (`holdout.bounds._binomial`): every probability that can be tiny is handled in log space; sums over the
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

from holdout.bounds._binomial import (  # noqa: F401  (private helpers, re-exported for the tests)
    _LOG_NEGLIGIBLE,
    _ceil,
    _floor,
    _log,
    _log_binom_pmf,
    _log_cdf,
    _log_cdf_block,
    _log_pair_counts,
    _log_pmf_grid,
    _log_sf,
    _log_sf_block,
    _log_weights,
    _logsumexp_rows,
    deviation_thresholds,
)
from holdout.bounds._checks import (  # noqa: F401
    _check_cover,
    _check_delta,
    _check_eps,
    _check_k,
    _check_k_real,
    _check_n,
    _check_open_unit,
    _check_unit,
)
from holdout.bounds._coupling import PairCoupling
from holdout.bounds._theorem2 import (
    Corollary4,
    corollary4,
    corollary4_eps,
    similarity_cover_bound,
    similarity_cover_eps,
    theorem2_eps,
    theorem2_eps_high_similarity,
    theorem2_max_similarity,
    theorem2_min_similarity_high,
    theorem2_probability,
)
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

# The k search stops here (2^1020 ~ 1e307): beyond, k is not representable as a float.
_K_CAP = 2**1020

SimilarityForm = Literal["literal", "partition"]


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


def pair_coupling(error_1: float, error_2: float, similarity: float) -> PairCoupling:
    """The coupling of Appendix B for two losses with these error rates and similarity.

    P(X_1 = 1) = p11/(p01 + p11), P(X_2 = 1) = p11/(p10 + p11),
    P(W = 1) = (p10 + p11)(p01 + p11)/p11, which exists iff p11 >= p1 p2 (the losses are
    not negatively correlated, i.e. similarity >=
    [`independent_similarity`][holdout.bounds.core.independent_similarity]).
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
    Mania et al. Sec. 5.1 and Fig. 1b). See
    [`similarity_bound_probability`][holdout.bounds.core.similarity_bound_probability] for
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
