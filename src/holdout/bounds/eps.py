"""The bounds of Mania et al. (2019) read the other way round: the smallest eps at which k models are
all estimated within eps with probability 1 - delta.

Under the union bound (2), the similarity bound (3)+(8) and the naive-Bayes bound (A1), that is the
smallest eps whose failure probability for k models of error rate ``error`` and pairwise similarity
``similarity`` on n points is at most delta
([`eps_needed`][holdout.bounds.eps.eps_needed]). The bounds hold for models that all have error rate
``error`` and every pair similarity at least ``similarity``; measured values plugged in make them a
theorem at those plug-in values.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from holdout.bounds.core import naive_bayes_bound_k, similarity_bound_k, union_bound_probability
from holdout.stats.ranks import PLUG_IN

__all__ = ["K_CAP", "BestOfNBounds", "EpsNeeded", "best_of_n_bounds", "capped_count", "eps_needed", "smallest_eps"]

#: the k searches of the bounds stop here; a count of K_CAP reads "at least 2^1020 models"
K_CAP = float(2**1020)


@dataclass(frozen=True)
class EpsNeeded:
    """Smallest eps (a fraction of accuracy) at which all ``models`` are estimated within eps with
    probability 1 - delta, under each bound; None where the bound does not apply (models less
    similar than independent errors: the coupling of Mania et al. App. B needs at least that)."""

    models: int
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


def capped_count(bound: Callable[..., int], **kw: float) -> float:
    """``bound(**kw)``, or `K_CAP` where the count overflows (the bound holds for every k to 2^1020)."""
    try:
        return bound(**kw)
    except OverflowError:  # the bound holds for every k up to 2^1020
        return K_CAP


def eps_needed(n: int, error: float, similarity: float, models: int, delta: float) -> EpsNeeded:
    """Smallest eps at which the union bound (2), the similarity bound (3)+(8) and the naive-Bayes
    bound (A1) of Mania et al. are at most delta for k = ``models`` models of error rate ``error``
    and pairwise similarity at least ``similarity`` on ``n`` points. The two sharper bounds are
    searched between the eps of a single model and the union bound's eps for K (both are at most
    the union bound and at least the probability that one model deviates). The deviation events
    change only where n(mu +- eps) crosses an integer, so eps is found to 1 / (2n)."""
    from holdout.stats import independent_similarity

    tol = 0.5 / int(n)
    kw = {"n": int(n), "error": float(error)}
    one = smallest_eps(lambda e: union_bound_probability(eps=e, k=1, **kw) <= delta, tol=tol)
    union = smallest_eps(lambda e: union_bound_probability(eps=e, k=int(models), **kw) <= delta, tol=tol)
    if similarity < independent_similarity(error):
        return EpsNeeded(int(models), union, None, None)
    kw |= {"similarity": float(similarity), "delta": float(delta)}
    lo = max(0.0, one - tol)
    # k >= K rather than P(K models) <= delta: the same event (both bounds grow with k), and the
    # k search prunes the anchor thresholds at delta, which is much faster near the lower end
    sim = smallest_eps(lambda e: capped_count(similarity_bound_k, eps=e, **kw) >= models, lo, union, tol)
    nb = smallest_eps(lambda e: capped_count(naive_bayes_bound_k, eps=e, **kw) >= models, lo, union, tol)
    return EpsNeeded(int(models), union, sim, nb)


@dataclass(frozen=True)
class BestOfNBounds:
    """How far the best of ``variants`` tries on ``n`` items can exceed its population accuracy with
    probability 1 - ``delta`` (fractions of accuracy), each number with its label: ``union`` (bound
    (2) at k = N and ``error``) and ``similarity_bound`` (bound (3)+(8) at ``error`` and
    ``similarity``; None below the independent-errors similarity, where it does not apply)."""

    variants: int
    n: int
    error: float
    similarity: float
    union: float
    union_label: str
    similarity_bound: float | None
    similarity_label: str
    delta: float


def best_of_n_bounds(
    n: int, variants: int, error: float, similarity: float, delta: float = 0.05, *, pass_rates: bool = False
) -> BestOfNBounds:
    """Mania et al.'s (2019) union bound (2) and similarity bound (3)+(8) for the best of ``variants``
    at the plug-in ``error`` and ``similarity`` (from
    [`least_favourable_plug_ins`][holdout.stats.ranks.least_favourable_plug_ins] when the variants'
    results are at hand): the smallest eps with failure probability at most ``delta``, to 1/(2n).
    Labels: "theorem at plug-in values" (the bounds are theorems for N models at that common error
    and at least that pairwise similarity; the values are measured), the similarity bound of pass
    rates a "heuristic" (expected agreement in place of agreement)."""
    if variants < 2:
        raise ValueError(f"the best of N needs N >= 2 variants, got {variants}")
    need = eps_needed(int(n), float(error), float(similarity), int(variants), float(delta))
    sim_label = "heuristic at plug-in values (pass rates: expected agreement)" if pass_rates else PLUG_IN
    return BestOfNBounds(
        int(variants), int(n), float(error), float(similarity), need.union, PLUG_IN, need.similarity, sim_label, delta
    )
