"""The repeated-samples variance split (Miller 2024, Sec. 3) against a hand computation, the pass-
rate form against the per-sample form, and the rule for the number of samples."""

from __future__ import annotations

import math

import numpy as np
import pytest

from holdout.stats import sample_variance_split, sample_variance_split_from_rates


def test_split_by_hand() -> None:
    x = np.array([[1, 1, 1], [0, 0, 1], [1, 0, 0], [0, 0, 0], [1, 1, 0]], dtype=float)
    s = sample_variance_split(x)
    means = x.mean(axis=1)
    within = np.mean([np.var(r, ddof=1) for r in x])
    total = np.var(means, ddof=1)
    assert s.var_within == pytest.approx(within, rel=1e-14)
    assert s.var_between == pytest.approx(total - within / 3, rel=1e-14)
    assert s.se == pytest.approx(math.sqrt(total / 5), rel=1e-14)
    assert s.share_within == pytest.approx(within / 3 / total, rel=1e-14)
    # the rule: within / m <= 0.1 between
    assert s.m_negligible == math.ceil(within / (0.1 * (total - within / 3)))
    assert within / s.m_negligible <= 0.1 * s.var_between < within / (s.m_negligible - 1)


def test_pass_rates_give_the_same_split_as_the_samples() -> None:
    rng = np.random.default_rng(4)
    x = (rng.random((300, 10)) < rng.random((300, 1))).astype(float)
    a = sample_variance_split(x)
    b = sample_variance_split_from_rates(x.mean(axis=1), 10)
    for field in ("var_between", "var_within", "se", "share_within", "m_negligible"):
        assert getattr(a, field) == pytest.approx(getattr(b, field), rel=1e-12)


def test_split_recovers_known_components_on_simulated_data() -> None:
    # true item pass rates ~ Beta(2, 2): sigma_b^2 = 1/20; sigma_w^2 = E[p(1-p)] = 1/5
    rng = np.random.default_rng(0)
    p = rng.beta(2, 2, 20_000)
    x = (rng.random((20_000, 4)) < p[:, None]).astype(float)
    s = sample_variance_split(x)
    assert s.var_between == pytest.approx(1 / 20, abs=0.003)
    assert s.var_within == pytest.approx(1 / 5, abs=0.003)
    assert 36 <= s.m_negligible <= 44  # 0.2 / (0.1 * 0.05) = 40, up to the estimates' noise


def test_no_between_item_spread_gives_no_finite_m() -> None:
    x = np.array([[1, 0], [0, 1], [1, 0], [0, 1]], dtype=float)
    assert sample_variance_split(x).m_negligible is None


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: sample_variance_split(np.ones((5, 1))), "m >= 2 samples"),
        (lambda: sample_variance_split_from_rates([0.5, 0.25], 3), "not a multiple of 1/3"),
        (lambda: sample_variance_split_from_rates([0.5, 1.0], 1), "m >= 2"),
    ],
)
def test_bad_input(call, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()
