"""ROC AUC against counting pairs, and precision and agreement on small cases."""

from __future__ import annotations

import numpy as np

from holdout.items.evaluate import agreement, precision, roc_auc


def test_auc_counts_pairs_with_half_ties():
    rng = np.random.default_rng(0)
    s = rng.integers(0, 5, 60).astype(float)
    y = rng.random(60) < 0.3
    pairs = [(a > b) + 0.5 * (a == b) for a in s[y] for b in s[~y]]
    assert abs(roc_auc(s, y) - np.mean(pairs)) < 1e-12
    assert np.isnan(roc_auc(s, np.zeros(60, bool)))


def test_precision_and_agreement():
    assert precision([True, True, False], [True, False, True]) == 0.5
    assert np.isnan(precision([False], [True]))
    assert agreement(np.array([1, 2], object), np.array([1, 3], object)) == 0.5
