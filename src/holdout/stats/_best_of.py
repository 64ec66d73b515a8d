"""The inflation of the best of N variants scored on the same test set, by resampling items.

When one entry is the best of N variants tried on the same n items (Singh et al. 2025 report up to
27 private variants per provider), its score is the maximum of N correlated accuracies. Under the
null that all N have the same true accuracy mu, the selected score exceeds mu by
max_i (acc_i - mu_i); resampling the items (the same draw for every variant, so their correlation is
kept) estimates the distribution of that maximum. The bounds of Mania et al. (2019) on the same
quantity are theorems for N models that share one error rate and whose every pair has at least a
given similarity; [`best_of_n_bounds`][holdout.bounds.eps.best_of_n_bounds] evaluates them at the
least favourable values the variants show (the error closest to 1/2, the least similar pair), which
makes them theorems at plug-in values, not theorems about the unknown population values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from holdout.stats._ranks import _bootstrap_deviations

__all__ = [
    "PLUG_IN",
    "BestOfNResampled",
    "best_of_n_resampled",
    "least_favourable_plug_ins",
    "pairwise_similarity",
]

#: the label of a bound evaluated at measured values
PLUG_IN = "theorem at plug-in values"


@dataclass(frozen=True)
class BestOfNResampled:
    """``expected``: mean of max_i (acc*_i - acc_i) over the item resamples; ``upper``: its 1 - delta
    quantile (fractions of accuracy); N ``variants`` on ``n`` items; ``label``: "measured" (a
    resampling estimate of the variants at hand, not a theorem)."""

    variants: int
    n: int
    expected: float
    upper: float
    delta: float
    resamples: int
    label: str = "measured"


def best_of_n_resampled(
    x: np.ndarray, delta: float = 0.05, *, resamples: int = 2000, seed: int | np.random.Generator = 0
) -> BestOfNResampled:
    """Expected and 1 - delta upper inflation of the best of the N variants in the N x n matrix ``x``
    (0/1 or pass rates), under the null of equal true accuracies (bootstrap over items, Efron &
    Tibshirani 1993; each variant centred at its own test accuracy)."""
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < 1:
        raise ValueError(f"best_of_n_resampled needs an N x n matrix of variants, got shape {x.shape}")
    dev = _bootstrap_deviations(x, resamples, np.random.default_rng(seed))  # float64 (exact float32 products)
    top = dev.max(axis=0)
    return BestOfNResampled(
        x.shape[0], x.shape[1], float(top.mean()), float(np.quantile(top, 1 - delta)), float(delta), int(resamples)
    )


def pairwise_similarity(x: np.ndarray) -> np.ndarray:
    """N x N similarity of the rows of ``x``: the fraction of items on which two 0/1 rows agree
    (Mania et al. 2019, Sec. 3), 1 - a_i - a_j + 2 (X X^T)_ij / n with a the row means; for pass
    rates the expected agreement of one sampled answer of each."""
    x = np.asarray(x, dtype=float)
    a = x.mean(axis=1)
    return 1.0 - a[:, None] - a[None, :] + 2.0 * (x @ x.T) / x.shape[1]


def least_favourable_plug_ins(x: np.ndarray) -> tuple[float, float]:
    """(error, similarity) to evaluate Mania et al.'s bounds at for the N variants in the rows of
    ``x``: the variants' error closest to 1/2 (the largest binomial variance: the least favourable
    for both bounds) and the minimum similarity over pairs (bound (3)+(8) assumes every pair has at
    least that similarity; the mean overstates it). The error is kept inside [1/(2n), 1 - 1/(2n)]."""
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[0] < 2:
        raise ValueError(f"least_favourable_plug_ins needs an N x n matrix with N >= 2 variants, got {x.shape}")
    n = x.shape[1]
    errors = 1.0 - x.mean(axis=1)
    error = float(errors[np.argmin(np.abs(errors - 0.5))])
    sim = pairwise_similarity(x)[np.triu_indices(x.shape[0], k=1)]
    return min(max(error, 0.5 / n), 1 - 0.5 / n), float(sim.min())
