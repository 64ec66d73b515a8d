"""Theorem 2 and Corollary 4 of Mania et al. (2019) in closed form (similarity covers, adaptive analyst)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from holdout.bounds._checks import (
    _check_cover,
    _check_delta,
    _check_eps,
    _check_k,
    _check_k_real,
    _check_n,
    _check_unit,
)

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

    Valid (holds with probability 1 - delta) for eta <=
    [`theorem2_max_similarity`][holdout.bounds._theorem2.theorem2_max_similarity];
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

    eps is that of [`theorem2_eps_high_similarity`][holdout.bounds._theorem2.theorem2_eps_high_similarity] (same
    ``as_printed``); the
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
    """The eps of (6), valid for eta >=
    [`theorem2_min_similarity_high`][holdout.bounds._theorem2.theorem2_min_similarity_high].

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
