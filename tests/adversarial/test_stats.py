"""Statistics of Werpachowski et al. (2019), Sec. 2.2 and 3: estimators, the empirical
Bernstein bound (6), its inverse (7), and the interval, pairwise and N-model tests."""

from __future__ import annotations

import math

import numpy as np
import pytest

from holdout.adversarial import stats
from holdout.adversarial.stats import (
    adversarial_risk,
    bernstein_bound,
    interval_test,
    n_model_test,
    pairwise_test,
    t_statistic,
)


def test_estimators_on_hand_example():
    losses = np.array([0, 0, 1, 0, 1])
    adv = np.array([1, 0, 1, 1, 0])
    dens = np.array([0.5, np.nan, 0.25, 1.0, np.nan])  # NaN allowed where adv loss is 0
    assert stats.empirical_error(losses) == pytest.approx(0.4)
    assert adversarial_risk(adv, dens) == pytest.approx((0.5 + 0.25 + 1.0) / 5)
    np.testing.assert_allclose(t_statistic(losses, adv, dens), [0.5, 0.0, -0.75, 1.0, -1.0])


def test_bernstein_bound_formula():
    m, var, delta, U = 1000, 0.09, 0.05, 2.0
    lt = math.log(3 / delta)
    expected = math.sqrt(2 * var * lt / m) + 3 * U * lt / m
    assert bernstein_bound(m, var, delta, U) == pytest.approx(expected, rel=1e-15)
    # U = 1 is the bound of (3)-(4)
    assert bernstein_bound(m, var, delta, 1.0) == pytest.approx(math.sqrt(2 * var * lt / m) + 3 * lt / m)


def _paper_eq7(m, var, t, U):
    """Eq. (7) exactly as printed (with the possible cancellation)."""
    s = math.sqrt(var)
    return min(1.0, 3 * math.exp(-m / (9 * U * U) * (var + 3 * U * abs(t) - s * math.sqrt(var + 6 * U * abs(t)))))


@pytest.mark.parametrize("U", [1.0, 1.5, 2.0])
@pytest.mark.parametrize("m", [50, 1000, 100_000])
def test_p_value_is_exact_inverse_of_bound(m, U):
    """Eq. (7): plugging the p-value back into B (6) gives |T| to 1e-10 relative."""
    rng = np.random.default_rng(m + int(10 * U))
    n_checked = 0
    for _ in range(200):
        var = float(rng.uniform(0, 0.5)) * float(rng.choice([1e-6, 1e-2, 1.0]))
        t = float(rng.uniform(-0.6, 0.6)) * float(rng.choice([1e-3, 1e-1, 1.0]))
        p, log_p = stats.bernstein_p_value(m, var, t, U)
        assert 0.0 <= p <= 1.0
        assert p == pytest.approx(_paper_eq7(m, var, t, U), rel=1e-8, abs=1e-300)
        if p < 1.0 and p > 0.0:
            assert bernstein_bound(m, var, p, U) == pytest.approx(abs(t), rel=1e-10)
            n_checked += 1
        if p < 1.0:
            # log-space inverse holds even when p underflows
            lt = math.log(3) - log_p
            b = math.sqrt(2 * var * lt / m) + 3 * U * lt / m
            assert b == pytest.approx(abs(t), rel=1e-10)
    assert n_checked > 20


def test_p_value_capped_at_one():
    assert stats.bernstein_p_value(100, 0.2, 0.0, 2.0) == (1.0, 0.0)
    p, log_p = stats.bernstein_p_value(100, 0.2, 1e-3, 2.0)  # loose bound: 3 e^{-small} > 1
    assert p == 1.0 and log_p == 0.0
    res = pairwise_test(np.zeros(10), 2.0)
    assert res.p_value == 1.0 and res.statistic == 0.0 and res.variance == 0.0


def test_p_value_zero_variance():
    # sigma = 0: B = 3U ln(3/delta)/m, so delta = 3 exp(-m|T|/(3U))
    p, log_p = stats.bernstein_p_value(600, 0.0, 0.1, 2.0)
    assert log_p == pytest.approx(math.log(3) - 600 * 0.1 / 6)
    assert bernstein_bound(600, 0.0, p, 2.0) == pytest.approx(0.1, rel=1e-12)


def _draw_independent(rng, n_draws, m):
    """T_i under (H): the classifier errs with prob. r; an AEG attacks a correct point
    successfully with prob. s and the density is chosen so that E[L h] = r
    (unbiasedness of R_g under independence), giving E[T_i] = 0 and T_i in [-1, 1]."""
    r, s = 0.2, 0.5
    # misclassified points keep their loss; their density at g(x)=x is h0; successful
    # adversarial points get density h1; E[L h] = r h0 + (1-r) s h1 = r
    h0 = 0.6
    h1 = r * (1 - h0) / ((1 - r) * s)
    loss = rng.random((n_draws, m)) < r
    success = (~loss) & (rng.random((n_draws, m)) < s)
    t = np.where(loss, h0 - 1.0, 0.0) + np.where(success, h1, 0.0)
    return t


@pytest.mark.parametrize("alpha", [0.05, 0.2, 0.5])
def test_valid_under_independence(alpha):
    """Under (H) the fraction of p-values <= alpha is at most alpha (within Monte Carlo error)."""
    rng = np.random.default_rng(7)
    n_draws, m = 4000, 200
    t = _draw_independent(rng, n_draws, m)
    assert abs(t.mean()) < 5e-3  # E[T_i] = 0
    p = np.array([pairwise_test(row, 2.0).p_value for row in t])
    frac = float(np.mean(p <= alpha))
    mc_se = math.sqrt(alpha * (1 - alpha) / n_draws)
    assert frac <= alpha + 3 * mc_se
    # not vacuous: the same draws with R_S biased down by 0.1 (a model fit to S)
    # are rejected at level 1/2 in most draws
    p_dep = np.array([pairwise_test(np.clip(row + 0.1, -1, 1), 2.0).p_value for row in t[:500]])
    assert float(np.mean(p_dep <= 0.5)) > 0.7
    # the interval test as well
    p_int = np.array([interval_test(*_split_t(row)).p_value for row in t[:500]])
    assert float(np.mean(p_int <= alpha)) <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / 500)


def _split_t(row):
    """Losses, adversarial losses and densities that produce the T_i of _draw_independent."""
    loss = (row < 0).astype(float)
    adv = (row != 0).astype(float)
    dens = np.where(row < 0, row + 1.0, np.where(row > 0, row, np.nan))
    np.testing.assert_allclose(t_statistic(loss, adv, dens), row)
    return loss, adv, dens


def test_small_p_value_when_fit_to_test_set():
    """A model fit to S (no test errors) whose adversarial estimate still sees its true
    error rate is rejected at a tiny p-value by both tests."""
    rng = np.random.default_rng(3)
    m = 1000
    losses = np.zeros(m)  # memorised the test set
    adv = (rng.random(m) < 0.6).astype(float)  # attack succeeds often
    dens = rng.uniform(0.3, 0.7, m)  # R_g ~ 0.3 ~ true risk
    t = t_statistic(losses, adv, dens)
    res = pairwise_test(t, 2.0)
    assert res.p_value < 1e-10
    assert res.log_p_value < math.log(1e-10)
    it = interval_test(losses, adv, dens)
    assert it.p_value < 1e-6 and it.disjoint
    assert it.p_value >= res.p_value  # the pairwise test is the stronger one (Sec. 3.2)


def test_interval_test_smallest_delta():
    rng = np.random.default_rng(5)
    m = 400
    losses = (rng.random(m) < 0.1).astype(float)
    adv = (rng.random(m) < 0.5).astype(float)
    dens = rng.uniform(0.2, 1.0, m)
    it = interval_test(losses, adv, dens)
    assert 0 < it.delta < 0.5
    b = bernstein_bound(m, it.variance_test, it.delta, 1) + bernstein_bound(m, it.variance_adversarial, it.delta, 1)
    assert b == pytest.approx(abs(it.adversarial_risk - it.test_error), rel=1e-10)
    assert it.p_value == pytest.approx(2 * it.delta)
    # slightly larger delta: disjoint; slightly smaller: overlapping
    gap = abs(it.adversarial_risk - it.test_error)
    for d, disjoint in [(it.delta * 1.01, True), (it.delta * 0.99, False)]:
        b = bernstein_bound(m, it.variance_test, d, 1) + bernstein_bound(m, it.variance_adversarial, d, 1)
        assert (gap > b) == disjoint


def test_n_identical_copies_equal_single_model():
    rng = np.random.default_rng(11)
    t = _draw_independent(rng, 1, 300)[0] + 0.05 * (rng.random(300) < 0.5)
    single = pairwise_test(t, 2.0)
    for n in (1, 2, 7, 100):
        multi = n_model_test(np.tile(t, (n, 1)), 2.0)
        assert multi.n_models == n
        assert multi.p_value == pytest.approx(single.p_value, rel=1e-12, abs=1e-300)
        assert multi.statistic == pytest.approx(single.statistic, rel=1e-12)
        assert multi.variance == pytest.approx(single.variance, rel=1e-12)


def test_n_model_test_averages_rows():
    t = np.array([[0.5, -1.0, 0.0], [0.0, 0.0, 0.25]])
    res = n_model_test(t, 2.0)
    ref = pairwise_test(t.mean(axis=0), 2.0)
    assert res.p_value == ref.p_value and res.statistic == pytest.approx(-0.125 / 3)


def test_range_check():
    t = np.array([-1.0, 0.0, 0.9])  # width 1.9: fits U = 2, not U = 3/2
    pairwise_test(t, 2.0)
    with pytest.raises(ValueError, match="exceeds the claimed range U = 1.5"):
        pairwise_test(t, 1.5)
    # width fits 3/2 but a density > 1/2 at a successful point leaves [-1, 1/2]
    t2 = np.array([-0.2, 0.0, 0.9])
    pairwise_test(t2, 1.5)
    with pytest.raises(ValueError, match="leave the expected range"):
        pairwise_test(t2, 1.5, expected_range=(-1.0, 0.5))
    with pytest.raises(ValueError, match="has width"):
        pairwise_test(t2, 1.0, expected_range=(-1.0, 0.5))
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        pairwise_test(np.array([0.0, 1.5]), 2.0)
    with pytest.raises(ValueError, match="model 1 of t_matrix"):
        n_model_test(np.array([[0.0, 0.0], [-1.0, 0.9]]), 1.5)


def test_bad_inputs():
    with pytest.raises(ValueError, match="zero-one losses"):
        stats.empirical_error([0, 2])
    with pytest.raises(ValueError, match="densities h_g must lie"):
        adversarial_risk([1, 0], [1.5, 0.2])
    with pytest.raises(ValueError, match="densities h_g must lie"):
        adversarial_risk([1, 0], [np.nan, 0.2])
    with pytest.raises(ValueError, match="1-D"):
        pairwise_test(np.zeros((2, 2)), 2.0)
    with pytest.raises(ValueError, match="delta"):
        bernstein_bound(10, 0.1, 0.0, 1.0)
    with pytest.raises(ValueError, match="U"):
        pairwise_test(np.zeros(3), 0.0)
    with pytest.raises(ValueError, match="shape"):
        n_model_test(np.zeros(3), 2.0)
