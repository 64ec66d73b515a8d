"""Worst-case curves beside the measured overfit: sqrt(k/n) and Mania et al.'s Section 4 bound."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from holdout.bounds import corollary4

__all__ = ["heldout_deviation", "overfit_bound", "section4_bound", "sqrt_k_over_n"]


def sqrt_k_over_n(k: int, n: int) -> float:
    """sqrt(k/n): the bias a simple adaptive strategy can reach with k queries (Mania et al. Sec. 1)."""
    if k < 1 or n < 1:
        raise ValueError(f"k and n must be >= 1, got k={k}, n={n}")
    return math.sqrt(k / n)


@lru_cache(maxsize=4096)
def section4_bound(n: int, k: int, similarity: float, delta: float, num_alpha: int = 1001) -> tuple[float, float]:
    """Mania et al. (2019) Corollary 4, eq. (7), at a measured similarity: (eps, alpha).

    For alpha in [0, 1], eps(alpha) = sqrt(4 (k^(1-alpha) log(n+1) + log(2/delta)) / n) holds with
    probability 1 - delta when N_eta(F) <= (n+1)^(k^(1-alpha)) at eta(alpha) = 1 - eps / (4 (e^(eps k^alpha) - 1))
    ([`holdout.bounds.corollary4`][holdout.bounds.corollary4]). We take the smallest eps over a grid of alpha whose
    required
    eta(alpha) is at most ``similarity``, i.e. we read the measured similarity as the eta at which
    the covering-number condition holds (an assumption the data cannot check). alpha = 0 needs no
    assumption: N_eta(F) <= |F| <= (n+1)^(k-1), so eps(0) is always a valid bound.
    """
    if not 0.0 <= similarity <= 1.0:
        raise ValueError(f"similarity must lie in [0, 1], got {similarity}")
    best_eps, best_alpha = corollary4(n, k, 0.0, delta).eps, 0.0
    for alpha in np.linspace(0.0, 1.0, num_alpha)[1:]:
        result = corollary4(n, k, float(alpha), delta)
        if result.similarity <= similarity and result.eps < best_eps:
            best_eps, best_alpha = result.eps, float(alpha)
    return best_eps, best_alpha


def heldout_deviation(n_heldout: int, delta: float) -> float:
    """Hoeffding: |E_H[q] - E_D[q]| <= sqrt(log(2/delta) / (2 n_H)) w.p. 1 - delta for one fixed-in-advance q.

    The submitted classifier does not depend on the held-out half, so one query's bound applies.
    """
    if n_heldout < 1 or not 0.0 < delta < 1.0:
        raise ValueError(f"need n_heldout >= 1 and delta in (0, 1), got {n_heldout}, {delta}")
    return math.sqrt(math.log(2.0 / delta) / (2.0 * n_heldout))


def overfit_bound(n_attack: int, n_heldout: int, k: int, similarity: float, delta: float) -> float:
    """Bound on attack-half minus held-out accuracy of the submission after k queries, w.p. 1 - delta.

    The submission counts as query k + 1 of Corollary 4 on the attack half (at delta / 2), plus
    the held-out half's Hoeffding deviation (at delta / 2): triangle inequality through E_D.
    """
    eps, _ = section4_bound(n_attack, k + 1, similarity, delta / 2.0)
    return eps + heldout_deviation(n_heldout, delta / 2.0)
