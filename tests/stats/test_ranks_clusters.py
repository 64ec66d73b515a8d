"""Simultaneous rank sets with item clusters (rank_confidence_sets(..., clusters=)): the item
bootstrap, draw for draw, with one item per cluster; on items copied five times and clustered by
copy, the sets of the original items; without the clusters, those copies make the sets too narrow."""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest

from holdout.stats import rank_confidence_sets


def _leaderboard(k: int = 8, n: int = 200, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.random((k, n)) < np.linspace(0.55, 0.7, k)[:, None]).astype(float)


def _same(a, b) -> None:
    assert a.critical_value == pytest.approx(b.critical_value, rel=1e-12)  # pass rates: X X^T summed in another order
    np.testing.assert_array_equal(a.rank_low, b.rank_low)
    np.testing.assert_array_equal(a.rank_high, b.rank_high)


@pytest.mark.parametrize("pass_rates", [False, True])
def test_one_item_per_cluster_is_the_item_bootstrap(pass_rates: bool) -> None:
    x = _leaderboard()
    if not pass_rates:  # 0/1: every sum exact, so the same to the last bit
        labels = [str(j) for j in range(x.shape[1])]
        a, b = rank_confidence_sets(x, resamples=200, clusters=labels), rank_confidence_sets(x, resamples=200)
        assert all(np.array_equal(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))
    if pass_rates:
        x = np.round(x * 0.6 + np.random.default_rng(1).integers(0, 5, x.shape) / 10, 1)
    labels = [f"item-{j}" for j in range(x.shape[1])]  # sorted by text, '10' before '2': codes by first seen
    _same(rank_confidence_sets(x, resamples=200, clusters=labels), rank_confidence_sets(x, resamples=200))


def test_copies_clustered_by_item_give_the_original_sets() -> None:
    x = _leaderboard(n=120)
    copies = np.repeat(x, 5, axis=1)  # each item five times: clusters of identical items
    clustered = rank_confidence_sets(copies, resamples=200, clusters=np.repeat(np.arange(120), 5))
    original = rank_confidence_sets(x, resamples=200)
    assert clustered.critical_value == pytest.approx(original.critical_value, rel=1e-12)
    np.testing.assert_array_equal(clustered.rank_low, original.rank_low)
    np.testing.assert_array_equal(clustered.rank_high, original.rank_high)
    naive = rank_confidence_sets(copies, resamples=200)  # the copies taken as independent items
    width = lambda s: (s.rank_high - s.rank_low).sum()  # noqa: E731
    assert width(naive) < width(original)


def test_clusters_of_the_wrong_length_are_refused() -> None:
    with pytest.raises(ValueError, match="one label per item"):
        rank_confidence_sets(_leaderboard(), resamples=50, clusters=np.arange(10))
