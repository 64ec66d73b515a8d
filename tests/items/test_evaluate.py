"""ROC AUC against counting pairs, and precision and agreement on small cases."""

from __future__ import annotations

import numpy as np

from holdout.items.evaluate import agreement, answer_patterns, auc_ceiling, precision, roc_auc, vote_count_cells


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


def test_auc_ceiling_is_the_auc_of_the_in_sample_share_of_positives():
    """The ceiling, computed by cumulative sums, equals the pairwise AUC of the score 'share of positives in
    the item's cell' (the likelihood-ratio order), and no other score of the cells beats it."""
    rng = np.random.default_rng(3)
    cells = rng.integers(0, 7, 200)
    pos = rng.random(200) < np.array([0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9])[cells]
    neg = ~pos
    share = np.array([pos[cells == c].mean() for c in range(7)])[cells]
    pairs = [(a > b) + 0.5 * (a == b) for a in share[pos] for b in share[neg]]
    assert abs(auc_ceiling(cells, pos, neg) - np.mean(pairs)) < 1e-12
    for _ in range(20):  # any other order of the cells scores no higher
        other = rng.permutation(7)[cells].astype(float)
        assert roc_auc(other, pos) <= auc_ceiling(cells, pos, neg) + 1e-12


def test_vote_count_cells_read_key_votes_and_the_leading_other_answer():
    codes = np.array(
        [
            [0, 1, 2, 0, -1],
            [0, 1, 2, 1, 3],
            [1, 2, 3, 2, 3],
            [0, 1, 3, 3, 3],  # the key
        ]
    )
    # item 0: 2 on key, lead other 1; item 1: 2 on key, 1; item 2: 1 on key, 2 (answer 2); item 3: 0, 1; item 4: 2, 0
    cells = vote_count_cells(codes)
    k1 = 4
    assert cells.tolist() == [2 * k1 + 1, 2 * k1 + 1, 1 * k1 + 2, 0 * k1 + 1, 2 * k1 + 0]
    patterns = answer_patterns(codes)  # items 0 and 1: the same model misses, to the same kind of answer
    assert patterns[0] == patterns[1] and len(set(patterns.tolist())) == 4
