"""Hand cases of the attacks and the sqrt(k/n) growth of Blum & Hardt's boosting attack."""

import numpy as np
import pytest

from holdout.adaptive import attacks as a
from holdout.adaptive import mechanisms as m


def test_kept_rules():
    ans = np.array([0.5, 0.1, 0.4, 0.6, np.nan])
    assert a.kept_queries(ans, "above_base").tolist() == [False, False, False, True, False]
    assert a.kept_queries(ans, "above_midpoint").tolist() == [False, False, True, True, False]
    assert a.kept_queries(np.array([0.5, 0.5, 0.6, 0.6]), "improved").tolist() == [False, False, True, False]


def test_boosting_submit_majority_by_hand():
    flips = np.array([[0, 0, 0], [1, 1, 1], [1, 0, 1], [1, 1, 0], [0, 0, 1]], bool)
    kept = np.array([False, False, True, True, False])
    # k = 3: kept {2}: flips (1,0,1); k = 5: kept {2,3}: counts (2,1,1) >= 1 -> all flipped
    out = a.boosting_submit(flips, kept, [1, 3, 5])
    assert out.tolist() == [[False] * 3, [True, False, True], [True, True, True]]


def test_boosting_queries_shape_and_alternatives():
    base = np.array([0, 1, 2, 2])
    flips, alt = a.boosting_queries(base, 3, 6, np.random.default_rng(0))
    assert flips.shape == (6, 4) and not flips[0].any() and flips[1].all()
    assert (alt != base).all() and ((alt >= 0) & (alt < 3)).all()


def _boosting_overfit(n, k, reps, rng):
    """Blum & Hardt's attack on random binary labels with a random base (C = 2): overfit of the vote."""
    out = []
    for _ in range(reps):
        y, base = rng.integers(0, 2, n), rng.integers(0, 2, n)
        flips, alt = a.boosting_queries(base, 2, k, rng)
        correct = np.where(flips, alt == y, base == y)
        kept = a.kept_queries(m.trivial(correct), "above_midpoint")
        sub = a.boosting_submit(flips, kept, [k])[0]
        out.append(np.where(sub, alt == y, base == y).mean() - 0.5)
    return float(np.mean(out))


def test_boosting_overfit_grows_like_sqrt_k_over_n():
    # Blum & Hardt Sec. 5: the bias of the vote is Theta(sqrt(k/n)) on random labels (the population
    # accuracy of any labelling is 1/2). Quadrupling k doubles it, up to sampling error.
    rng = np.random.default_rng(0)
    n = 2000
    small, large = _boosting_overfit(n, 50, 30, rng), _boosting_overfit(n, 200, 30, rng)
    assert 0.1 * np.sqrt(50 / n) < small < np.sqrt(50 / n)
    assert large / small == pytest.approx(2.0, rel=0.25)


def test_canonical_labels_and_plurality():
    preds = np.array([[0, 1, 2], [0, 2, 2], [1, 2, 0]])
    canon = a.canonical_labels(preds)
    assert canon.tolist() == [[0, 0, 0], [0, 1, 0], [2, 1, 2]]
    # votes per point: {0,0,2} -> 0; {0,1,1} -> 1; {0,0,2} -> 0
    assert a.plurality(canon, 3).tolist() == [0, 1, 0]


def test_ensemble_submit_falls_back_to_query_zero():
    queries = np.array([[0, 0], [1, 1], [2, 1], [2, 2]], np.int32)
    kept = np.array([False, False, True, True])
    out = a.ensemble_submit(queries, kept, [2, 4], 3)
    assert out.tolist() == [[0, 0], [2, 1]]


def test_selection_submits_highest_answer():
    assert a.selection_submit(np.array([0.5, 0.7, 0.7, np.nan, 0.9]), [1, 3, 4, 5]).tolist() == [0, 1, 1, 4]
    with pytest.raises(ValueError, match="grid"):
        a.selection_submit(np.array([0.5]), [2])
