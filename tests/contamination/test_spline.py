"""The smoothing spline against scipy's independent implementation (make_smoothing_spline)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.interpolate import make_smoothing_spline

from holdout.contamination.spline import gcv_lambda, smoothing_spline


@pytest.mark.parametrize("lam", [1e-6, 1e-3, 0.1, 5.0])
def test_fixed_lambda_and_weights_match_scipy(lam):
    rng = np.random.default_rng(3)
    x = np.sort(rng.uniform(0, 1, 23))
    y = np.sin(3 * x) + rng.normal(0, 0.1, x.size)
    w = rng.uniform(0.5, 2, x.size)
    grid = np.linspace(x[0], x[-1], 200)
    ours = smoothing_spline(x, y, w, lam)
    np.testing.assert_allclose(ours(grid), make_smoothing_spline(x, y, w, lam)(grid), atol=1e-7)


def test_gcv_choice_matches_scipy():
    rng = np.random.default_rng(0)
    for _ in range(60):
        n = int(rng.integers(5, 40))
        x = np.sort(rng.uniform(0, 1, n))
        y = np.sin(3 * x) + rng.normal(0, 0.1, n)
        grid = np.linspace(x[0], x[-1], 50)
        np.testing.assert_allclose(smoothing_spline(x, y)(grid), make_smoothing_spline(x, y)(grid), atol=1e-5)


def test_linear_beyond_the_knots_and_continuous():
    x = np.array([0.1, 0.2, 0.4, 0.5, 0.8, 0.9])
    s = smoothing_spline(x, x**2, lam=1e-3)
    left = s(np.array([-0.3, -0.2, -0.1]))
    right = s(np.array([1.1, 1.2, 1.3]))
    assert np.diff(left, 2) == pytest.approx([0.0], abs=1e-12)
    assert np.diff(right, 2) == pytest.approx([0.0], abs=1e-12)
    for k in (x[0], x[-1]):
        assert s(k - 1e-9) == pytest.approx(s(k + 1e-9), abs=1e-7)


def test_large_lambda_is_the_least_squares_line():
    x = np.linspace(0, 1, 9)
    y = 2 * x + 1 + np.array([0.1, -0.1, 0.05, 0, -0.05, 0.1, -0.1, 0.02, -0.02])
    slope, intercept = np.polyfit(x, y, 1)
    np.testing.assert_allclose(smoothing_spline(x, y, lam=1e6)(x), slope * x + intercept, atol=1e-5)


def test_bad_knots_are_refused():
    with pytest.raises(ValueError, match="at least 5"):
        smoothing_spline([0, 1, 2, 3], [0, 1, 2, 3])
    with pytest.raises(ValueError, match="strictly increasing"):
        gcv_lambda([0, 1, 1, 2, 3], [0, 1, 2, 3, 4])
    with pytest.raises(ValueError, match="weights"):
        smoothing_spline([0, 1, 2, 3, 4], [0, 1, 2, 3, 4], w=[1, 1, 0, 1, 1], lam=1.0)
