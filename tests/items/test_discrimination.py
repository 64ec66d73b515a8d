"""Rest-score discrimination against scipy's point-biserial correlation."""

from __future__ import annotations

import numpy as np
from scipy.stats import pointbiserialr

from holdout.items import encode_answers, rest_score_discrimination
from holdout.items.discrimination import point_biserial


def test_point_biserial_equals_scipy_on_the_rest_score():
    rng = np.random.default_rng(2)
    correct = rng.random((12, 30)) < np.linspace(0.3, 0.9, 12)[:, None]
    got = point_biserial(correct)
    rest = (correct.sum(axis=1, keepdims=True) - correct) / 29
    for i in range(30):
        if correct[:, i].all() or not correct[:, i].any():
            assert np.isnan(got[i])
        else:
            assert abs(got[i] - pointbiserialr(correct[:, i], rest[:, i]).statistic) < 1e-12


def test_item_right_only_for_weak_models_is_negative():
    ans = np.tile(np.arange(10) % 2, (6, 1))  # models answer 0/1 alternately; key below
    key = ans[0].copy()
    ans[3:, 1:] = 1 - key[1:]  # models 3-5 miss everything but item 0 ...
    ans[:3, 0] = 1 - key[0]  # ... which only they get right
    d = rest_score_discrimination(encode_answers(ans, key, num_classes=2))
    assert d[0] < -0.9 and (d[1:] > 0.9).all()
