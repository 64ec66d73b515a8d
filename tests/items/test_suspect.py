"""Suspect-key scores against independent dense computations, and on planted wrong keys."""

from __future__ import annotations

import numpy as np
import pytest

from holdout.items import answer_groups, dawid_skene, disagreement, encode_answers, weighted_agreement
from holdout.items.alternatives import dawid_skene_confusion, top_agreement


def planted(k: int = 15, n: int = 300, c: int = 4, wrong: int = 12, seed: int = 1):
    """Models of accuracy 0.5-0.95 answering the truth, a key wrong on the first ``wrong`` items."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, c, n)
    acc = np.linspace(0.5, 0.95, k)
    ok = rng.random((k, n)) < acc[:, None]
    ans = np.where(ok, truth, (truth + rng.integers(1, c, (k, n))) % c)
    key = truth.copy()
    key[:wrong] = (truth[:wrong] + 1) % c
    return ans, key, truth


def dense_dawid_skene(ans: np.ndarray, key: np.ndarray, c: int, iters: int) -> np.ndarray:
    """One-coin Dawid-Skene written out over all C classes (n x C posteriors), the key as annotator K + 1."""
    x = np.vstack([ans, key[None]])
    p = np.append((ans == key).mean(axis=1), 0.9)
    onehot = x[:, :, None] == np.arange(c)  # (K + 1, n, C)
    for _ in range(iters):
        pc = np.clip(p, 1 / c + 1e-6, 1 - 1e-6)
        loglik = np.where(onehot, np.log(pc)[:, None, None], np.log((1 - pc) / (c - 1))[:, None, None]).sum(axis=0)
        post = np.exp(loglik - loglik.max(axis=1, keepdims=True))
        post /= post.sum(axis=1, keepdims=True)
        p = (post[None] * onehot).sum(axis=(1, 2)) / x.shape[1]
    return 1 - post[np.arange(x.shape[1]), key]


def test_dawid_skene_equals_the_dense_em():
    ans, key, _ = planted(k=6, n=80, c=3, wrong=5)
    m = encode_answers(ans, key, num_classes=3)
    r = dawid_skene(m, answer_groups(m), max_iter=7, tol=0.0)
    assert r.iterations == 7
    np.testing.assert_allclose(r.score, dense_dawid_skene(ans, key, 3, 7), atol=1e-9)


def test_weighted_agreement_equals_a_loop():
    ans, key, _ = planted(k=5, n=50, seed=4)
    ans[0, :10] = -1
    m = encode_answers(ans, key, num_classes=4)
    r = weighted_agreement(m, answer_groups(m))
    acc = (ans == key).mean(axis=1)
    for i in range(50):
        votes = {}
        for k in range(5):
            if ans[k, i] >= 0:
                votes[ans[k, i]] = votes.get(ans[k, i], 0.0) + acc[k]
        alt = max((v for a, v in votes.items() if a != key[i]), default=0.0)
        expect = (alt - votes.get(key[i], 0.0)) / sum(votes.values())
        assert abs(r.score[i] - expect) < 1e-12


def test_planted_wrong_keys_rank_first_and_get_the_truth_proposed():
    ans, key, truth = planted()
    m = encode_answers(ans, key, num_classes=4)
    g = answer_groups(m)
    for fn in (weighted_agreement, dawid_skene, disagreement):
        r = fn(m, g)
        top = np.argsort(-r.score, kind="stable")[:12]
        assert set(top) == set(range(12)), fn.__name__
        np.testing.assert_array_equal(r.proposed[:12], truth[:12])
        assert (r.models_for_proposed[:12] > r.models_for_key[:12]).all()


def test_item_every_model_keys_has_no_proposal():
    ans = np.array([[0, 1], [0, 2]])
    m = encode_answers(ans, np.array([0, 1]), num_classes=3)
    r = weighted_agreement(m, answer_groups(m))
    assert r.proposed[0] == -1 and r.models_for_proposed[0] == 0 and r.score[0] == -1.0
    # item 1: the key has model 0 (accuracy 1), answer 2 model 1 (accuracy 1/2): (1/2 - 1) / (3/2)
    assert r.proposed[1] == 2 and abs(r.score[1] + 1 / 3) < 1e-12


def test_top_agreement_equals_a_loop_over_the_best_models():
    ans, key, _ = planted(k=7, n=60, c=4, wrong=6, seed=4)
    m = encode_answers(ans, key, num_classes=4)
    got = top_agreement(m, answer_groups(m), fraction=0.5)
    acc = (ans == key).mean(axis=1)
    best = np.argsort(-acc, kind="stable")[:4]
    for i in range(ans.shape[1]):
        votes = np.bincount(ans[best, i], minlength=4).astype(float)
        on_key = votes[key[i]]
        votes[key[i]] = -1
        want = (max(votes.max(), 0) - on_key) / len(best) if votes.max() > 0 else -1.0
        assert abs(got[i] - want) < 1e-12


def dense_full_dawid_skene(ans, key, c, iters, smoothing=0.01):
    """Full Dawid-Skene written with explicit loops over annotators, items and classes."""
    x = np.vstack([ans, key[None]])
    r, n = x.shape
    t = np.zeros((n, c))
    for i in range(n):
        for k in range(r - 1):
            t[i, x[k, i]] += 1
    t /= t.sum(axis=1, keepdims=True)
    for _ in range(iters):
        pi = np.full((r, c, c), smoothing)
        for k in range(r):
            for i in range(n):
                pi[k, :, x[k, i]] += t[i]
        pi /= pi.sum(axis=2, keepdims=True)
        prior = t.mean(axis=0)
        post = np.tile(np.log(prior), (n, 1))
        for i in range(n):
            for k in range(r):
                post[i] += np.log(pi[k, :, x[k, i]])
        t = np.exp(post - post.max(axis=1, keepdims=True))
        t /= t.sum(axis=1, keepdims=True)
    return 1 - t[np.arange(n), key]


def test_full_dawid_skene_equals_the_loops_and_finds_planted_keys():
    ans, key, truth = planted(k=6, n=50, c=3, wrong=5, seed=2)
    m = encode_answers(ans, key, num_classes=3)
    got = dawid_skene_confusion(m, max_iter=5, tol=0.0)
    assert np.allclose(got, dense_full_dawid_skene(ans, key, 3, 5), atol=1e-9)
    ans, key, truth = planted(k=15, n=300, c=4, wrong=12, seed=1)
    m = encode_answers(ans, key, num_classes=4)
    score = dawid_skene_confusion(m)
    assert set(np.argsort(-score)[:12]) == set(range(12))


def test_full_dawid_skene_refuses_many_classes():
    m = encode_answers(np.zeros((2, 3), int), np.array([0, 1, 99]), num_classes=100)
    with pytest.raises(ValueError, match="num_classes"):
        dawid_skene_confusion(m)
