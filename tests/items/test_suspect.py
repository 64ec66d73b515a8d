"""Suspect-key scores against independent dense computations, and on planted wrong keys."""

from __future__ import annotations

import numpy as np

from holdout.items import answer_groups, dawid_skene, disagreement, encode_answers, weighted_agreement


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
