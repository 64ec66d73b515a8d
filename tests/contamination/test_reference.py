"""The reference-benchmark lens on data with a known answer, and its pieces against brute force."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from holdout.contamination.reference import (
    binomial_draws,
    bootstrap_p_bound,
    bootstrap_summary,
    fit_curve,
    format_bootstrap_p,
    item_draws,
    one_sided_lower,
    reference_lens,
)


def _constat_p(ps: np.ndarray) -> float:
    """ConStat's p-value as its code states it (a loop over levels), for one model."""
    m = np.mean(ps)
    levels = [2 * m - np.quantile(ps, 1 - j / len(ps)) >= 0 for j in range(len(ps))]
    return 1.0 if not any(levels) else int(np.argmax(levels)) / len(ps)


def test_p_value_and_interval_match_the_definitions():
    rng = np.random.default_rng(1)
    d = rng.normal(0.03, 0.02, (400, 6)) + np.linspace(-0.05, 0.05, 6)
    mean, low, high, p = bootstrap_summary(d, 0.1)
    assert p == pytest.approx([_constat_p(d[:, i]) for i in range(6)])
    np.testing.assert_allclose(mean, d.mean(axis=0))
    np.testing.assert_allclose(high, 2 * mean - np.quantile(d, 0.05, axis=0))
    np.testing.assert_allclose(low, 2 * mean - np.quantile(d, 0.95, axis=0))


def test_draws_have_the_binomial_spread():
    rng = np.random.default_rng(2)
    d = binomial_draws([0.3] * 5, [0.6] * 5, [0.5], [0.2], (400, 1000), 4000, rng)
    assert d.x_ref.std() == pytest.approx(np.sqrt(0.3 * 0.7 / 400), rel=0.05)
    assert d.y_test.std() == pytest.approx(np.sqrt(0.2 * 0.8 / 1000), rel=0.05)
    scores = (rng.random((6, 500)) < 0.4).astype(float)
    scores[1] = scores[0]
    items = item_draws(scores, scores, 5, 3000, rng)
    observed = scores.mean(axis=1)
    np.testing.assert_allclose(items.x_ref.mean(axis=0), observed[:5], atol=0.003)
    expected = np.sqrt(observed * (1 - observed) / 500)  # the item bootstrap's variance p(1-p)/n
    np.testing.assert_allclose(items.x_ref.std(axis=0), expected[:5], rtol=0.08)
    np.testing.assert_array_equal(items.x_ref[:, 0], items.x_ref[:, 1])  # same items for every model
    assert abs(np.corrcoef(items.x_ref[:, 0], items.y_ref[:, 0])[0, 1]) < 0.1  # the benchmarks apart


def test_probit_curve_recovers_a_probit_line():
    x = np.linspace(0.3, 0.9, 8)
    y = stats.norm.cdf(1.2 * stats.norm.ppf(x) - 0.3)
    f = fit_curve(x, y, "probit", sizes=(10**6, 10**6))
    assert f(np.array([0.5, 0.95])) == pytest.approx(stats.norm.cdf(1.2 * stats.norm.ppf([0.5, 0.95]) - 0.3), abs=1e-6)
    g = fit_curve(0.25 + 0.75 * x, 0.25 + 0.75 * y, "probit", (0.25, 0.25), (10**6, 10**6))
    assert g(np.array([0.25 + 0.75 * 0.5])) == pytest.approx(0.25 + 0.75 * stats.norm.cdf(-0.3), abs=1e-6)


def _table(offset: float, k: int = 12) -> tuple[np.ndarray, ...]:
    """k reference models on y = x^1.5, two tested models: one on the curve, one ``offset`` above."""
    x = np.r_[np.linspace(0.3, 0.8, k), 0.55, 0.6]
    y = x**1.5
    y[-1] += offset
    return x, y, np.r_[np.ones(k, bool), False, False]


@pytest.mark.parametrize("fit", ["spline", "probit"])
def test_a_model_above_the_curve_is_flagged_and_one_on_it_is_not(fit):
    x, y, is_ref = _table(0.10)
    rng = np.random.default_rng(0)
    draws = binomial_draws(x[is_ref], y[is_ref], x[~is_ref], y[~is_ref], (2000, 1300), 400, rng)
    lens = reference_lens([f"m{i}" for i in range(x.size)], x, y, is_ref, draws, fit)
    on, above = lens.models.itertuples()
    assert abs(on.delta) < 0.02 and on.p_value > 0.05 and not on.significant
    assert above.delta == pytest.approx(0.10, abs=0.02) and above.p_holm < 0.01 and above.significant
    assert above.delta_low < above.delta < above.delta_high
    assert above.predicted == pytest.approx(above.benchmark - above.delta)
    assert list(lens.curve.columns) == ["x", "fit", "band_low", "band_high"]


def test_fewer_than_five_reference_models_are_refused():
    x, y, is_ref = _table(0.0, k=4)
    draws = binomial_draws(x[is_ref], y[is_ref], x[~is_ref], y[~is_ref], (100, 100), 10, np.random.default_rng(0))
    with pytest.raises(ValueError, match="at least 5"):
        reference_lens(list("abcdef"), x, y, is_ref, draws)
    with pytest.raises(ValueError, match="fit must be"):
        fit_curve(x, y, "loess")


def test_a_replicate_with_tied_reference_accuracies_is_redrawn_as_constat_does():
    """Six reference models on 50 items, accuracies two points apart: some replicates have fewer than
    5 distinct reference accuracies. ConStat redraws such a replicate (``detection.py``: ``i -= 1;
    continue``); the lens used to abort with "4 distinct reference accuracies; the spline needs 5"."""
    x = np.array([0.50, 0.52, 0.54, 0.56, 0.58, 0.60, 0.55])
    y = np.array([0.40, 0.43, 0.46, 0.49, 0.52, 0.55, 0.60])
    is_ref = np.arange(7) < 6
    rng = np.random.default_rng(0)
    draws = binomial_draws(x[is_ref], y[is_ref], x[~is_ref], y[~is_ref], (50, 50), 300, rng)
    lens = reference_lens(list("abcdefg"), x, y, is_ref, draws, seed=0)
    assert lens.redrawn > 0 and lens.n_bootstrap == 300
    assert np.isfinite(lens.models["delta"]).all()


def test_one_sided_lower_bound_agrees_with_the_p_value():
    """The p-value is one-sided (H0: delta <= 0): its interval is the one-sided 1 - alpha lower bound
    2 mean - q*(1 - alpha), which is >= 0 exactly when p <= alpha (ConStat's min_delta)."""
    rng = np.random.default_rng(1)
    d = rng.normal(0.0, 0.02, (999, 40)) + np.linspace(-0.03, 0.06, 40)
    mean, low, high, p = bootstrap_summary(d, 0.05)
    lower = one_sided_lower(d, 0.05)
    np.testing.assert_allclose(lower, 2 * mean - np.quantile(d, 0.95, axis=0))
    assert ((lower >= 0) == (p <= 0.05)).all()
    assert ((low > 0) != (p <= 0.05)).any()  # the two-sided interval disagrees with the test somewhere


def test_a_bootstrap_p_of_0_is_said_as_below_1_over_b():
    assert bootstrap_p_bound(np.array([0.0, 0.004, 0.5]), 1000).tolist() == [0.001, 0.004, 0.5]
    assert [format_bootstrap_p(p, 1000) for p in (0.0, 0.004, 0.5)] == ["< 0.001", "0.004", "0.5"]
    assert format_bootstrap_p(0.0, 2000) == "< 0.0005"
