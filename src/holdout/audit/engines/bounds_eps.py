"""The bounds lens read the other way round: the smallest eps at which all K models are guaranteed.

A researcher with K models and n test points asks: within how much of its population accuracy is
every one of my models' test accuracies, with probability 1 - delta? Under each bound of Mania
et al. (2019), the union bound (2), the similarity bound (3)+(8) and the naive-Bayes bound (A1),
that is the smallest eps whose failure probability for k = K models is at most delta. The same
bounds also give the number of models the test set supports at a few standard eps
([`supported_models`][holdout.audit.engines.bounds_eps.supported_models]). The eps search itself is
[`holdout.bounds.eps`][holdout.bounds.eps] (re-exported here: ``eps_needed``, ``smallest_eps``,
``EpsNeeded``, ``K_CAP``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from holdout.bounds.core import naive_bayes_bound_k, similarity_bound_k, union_bound_k
from holdout.bounds.eps import K_CAP, EpsNeeded, capped_count, eps_needed, smallest_eps
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

#: the numbers of models for which the audit reports the smallest eps the test set supports
EPS_FOR_MODELS = (1, 10, 100)

#: the accuracy tolerances at which the audit reports the number of supported models (in this order)
STANDARD_EPS = (0.005, 0.01, 0.02, 0.05)


@dataclass(frozen=True)
class SupportedModels:
    """Models supported at ``eps`` under each bound (`K_CAP`: at
    least 2^1020 models; None: the bound does not apply)."""

    eps: float
    union: float
    similarity: float | None
    naive_bayes: float | None


def _applies(error: float, similarity: float) -> bool:
    return similarity >= independent_similarity(error)


def _row(n: int, error: float, similarity: float, delta: float, eps: float) -> SupportedModels:
    kw = {"n": int(n), "error": float(error), "eps": float(eps), "delta": float(delta)}
    union = capped_count(union_bound_k, **kw)
    if not _applies(error, similarity):
        return SupportedModels(float(eps), union, None, None)
    sim = capped_count(similarity_bound_k, similarity=similarity, **kw)
    return SupportedModels(float(eps), union, sim, capped_count(naive_bayes_bound_k, similarity=similarity, **kw))


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
