"""The bounds lens read the other way round: the smallest eps at which all K models are guaranteed.

A researcher with K models and n test points asks: within how much of its population accuracy is
every one of my models' test accuracies, with probability 1 - delta? Under each bound of Mania
et al. (2019), the union bound (2), the similarity bound (3)+(8) and the naive-Bayes bound (A1),
that is the smallest eps whose failure probability for k = K models is at most delta. The same
bounds also give the number of models the test set supports at a few standard eps
([`supported_models`][holdout.audit.bounds_eps.supported_models]).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from holdout.bounds.core import (
    naive_bayes_bound_k,
    similarity_bound_k,
    union_bound_k,
    union_bound_probability,
)
from holdout.stats import independent_similarity

__all__ = [
    "EPS_FOR_MODELS",
    "K_CAP",
    "STANDARD_EPS",
    "EpsNeeded",
    "SupportedModels",
    "eps_needed",
    "smallest_eps",
    "supported_models",
]

#: the k searches of the bounds stop here; a count of K_CAP reads "at least 2^1020 models"
K_CAP = float(2**1020)

#: the numbers of models for which the audit reports the smallest eps the test set supports
EPS_FOR_MODELS = (1, 10, 100)

#: the accuracy tolerances at which the audit reports the number of supported models (in this order)
STANDARD_EPS = (0.005, 0.01, 0.02, 0.05)


@dataclass(frozen=True)
class EpsNeeded:
    """Smallest eps (a fraction of accuracy) at which all ``models`` are estimated within eps with
    probability 1 - delta, under each bound; None where the bound does not apply (models less
    similar than independent errors: the coupling of Mania et al. App. B needs at least that)."""

    models: int
    union: float
    similarity: float | None
    naive_bayes: float | None


@dataclass(frozen=True)
class SupportedModels:
    """Models supported at ``eps`` under each bound (`K_CAP`: at
    least 2^1020 models; None: the bound does not apply)."""

    eps: float
    union: float
    similarity: float | None
    naive_bayes: float | None


def smallest_eps(holds: Callable[[float], bool], lo: float = 0.0, hi: float = 1.0 - 1e-7, tol: float = 1e-7) -> float:
    """Smallest eps in (``lo``, ``hi``] with ``holds(eps)``, for a ``holds`` monotone in eps and false
    at ``lo``, to ``tol``: steps down from ``hi`` by doubling distances until ``holds`` fails, then
    bisects (few calls when the answer lies near ``hi``, as the sharper bounds' eps do).

    Returns the upper end of the final bracket, so ``holds`` is true at the value returned;
    ``math.nan`` when it is false even at ``hi``.
    """
    if not holds(hi):
        return math.nan
    step = tol
    while hi - step > lo:
        if not holds(hi - step):
            lo = hi - step
            break
        hi, step = hi - step, 2 * step
    while hi - lo > tol:
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if holds(mid) else (mid, hi)
    return hi


def _applies(error: float, similarity: float) -> bool:
    return similarity >= independent_similarity(error)


def eps_needed(n: int, error: float, similarity: float, models: int, delta: float) -> EpsNeeded:
    """Smallest eps at which the union bound (2), the similarity bound (3)+(8) and the naive-Bayes
    bound (A1) of Mania et al. are at most delta for k = ``models`` models of error rate ``error``
    and mean pairwise similarity ``similarity`` on ``n`` points. The two sharper bounds are
    searched between the eps of a single model and the union bound's eps for K (both are at most
    the union bound and at least the probability that one model deviates). The deviation events
    change only where n(mu +- eps) crosses an integer, so eps is found to 1 / (2n)."""
    tol = 0.5 / int(n)
    kw = {"n": int(n), "error": float(error)}
    one = smallest_eps(lambda e: union_bound_probability(eps=e, k=1, **kw) <= delta, tol=tol)
    union = smallest_eps(lambda e: union_bound_probability(eps=e, k=int(models), **kw) <= delta, tol=tol)
    if not _applies(error, similarity):
        return EpsNeeded(int(models), union, None, None)
    kw |= {"similarity": float(similarity), "delta": float(delta)}
    lo = max(0.0, one - tol)
    # k >= K rather than P(K models) <= delta: the same event (both bounds grow with k), and the
    # k search prunes the anchor thresholds at delta, which is much faster near the lower end
    sim = smallest_eps(lambda e: _count(similarity_bound_k, eps=e, **kw) >= models, lo, union, tol)
    nb = smallest_eps(lambda e: _count(naive_bayes_bound_k, eps=e, **kw) >= models, lo, union, tol)
    return EpsNeeded(int(models), union, sim, nb)


def _count(bound: Callable[..., int], **kw: float) -> float:
    try:
        return bound(**kw)
    except OverflowError:  # the bound holds for every k up to 2^1020
        return K_CAP


def _row(n: int, error: float, similarity: float, delta: float, eps: float) -> SupportedModels:
    kw = {"n": int(n), "error": float(error), "eps": float(eps), "delta": float(delta)}
    union = _count(union_bound_k, **kw)
    if not _applies(error, similarity):
        return SupportedModels(float(eps), union, None, None)
    sim = _count(similarity_bound_k, similarity=similarity, **kw)
    return SupportedModels(float(eps), union, sim, _count(naive_bayes_bound_k, similarity=similarity, **kw))


def supported_models(
    n: int, error: float, similarity: float, delta: float, models: int, extra: Sequence[float] = ()
) -> tuple[SupportedModels, ...]:
    """Largest k under each bound (Mania et al. Sec. 5, bounds (2), (3)+(8), (A1)) at the standard
    eps of `STANDARD_EPS` up to the first at which the union
    bound supports ``models`` (beyond it every bound does, and the counts only grow), and at each eps
    of ``extra``; sorted by eps."""
    rows = {}
    for eps in STANDARD_EPS:
        rows[eps] = _row(n, error, similarity, delta, eps)
        if rows[eps].union >= models:
            break
    for eps in extra:
        if float(eps) not in rows:
            rows[float(eps)] = _row(n, error, similarity, delta, eps)
    return tuple(rows[e] for e in sorted(rows))
