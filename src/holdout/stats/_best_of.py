"""The inflation of the best of N variants scored on the same test set, by resampling items.

When one entry is the best of N variants tried on the same n items (Singh et al. 2025 report up to
27 private variants per provider), its score is the maximum of N correlated accuracies. Under the
null that all N have the same true accuracy mu, the selected score exceeds mu by
max_i (acc_i - mu_i); resampling the items (the same draw for every variant, so their correlation is
kept) estimates the distribution of that maximum. The bounds of Mania et al. (2019) on the same
quantity are theorems; this is a measurement of the variants at hand.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from holdout.stats._ranks import _bootstrap_deviations

__all__ = ["BestOfNResampled", "best_of_n_resampled"]


@dataclass(frozen=True)
class BestOfNResampled:
    """``expected``: mean of max_i (acc*_i - acc_i) over the item resamples; ``upper``: its 1 - delta
    quantile (fractions of accuracy); N ``variants`` on ``n`` items."""

    variants: int
    n: int
    expected: float
    upper: float
    delta: float
    resamples: int


def best_of_n_resampled(
    x: np.ndarray, delta: float = 0.05, *, resamples: int = 2000, seed: int | np.random.Generator = 0
) -> BestOfNResampled:
    """Expected and 1 - delta upper inflation of the best of the N variants in the N x n matrix ``x``
    (0/1 or pass rates), under the null of equal true accuracies (bootstrap over items, Efron &
    Tibshirani 1993; each variant centred at its own test accuracy)."""
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < 1:
        raise ValueError(f"best_of_n_resampled needs an N x n matrix of variants, got shape {x.shape}")
    dev = _bootstrap_deviations(x, resamples, np.random.default_rng(seed))
    top = dev.max(axis=0)
    return BestOfNResampled(
        x.shape[0], x.shape[1], float(top.mean()), float(np.quantile(top, 1 - delta)), float(delta), int(resamples)
    )
