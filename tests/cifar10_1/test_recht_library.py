"""holdout.cifar10_1.recht on synthetic inputs: intervals, ranks, tables, the linear fit and its band."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from holdout.cifar10_1.recht import (
    accuracy_table,
    clopper_pearson,
    delta_rank,
    fit_band,
    format_interval,
    linear_fit,
    table1,
    table1_markdown,
    table4,
    table5,
    table5_markdown,
)
from holdout.predictions import Predictions


def test_clopper_pearson_paper_example():
    """Recht et al. Sec. 3.2: 90% accuracy with n = 2,000 has the 95% interval [88.6%, 91.3%]."""
    lo, hi = clopper_pearson(1800, 2000)
    assert (round(100 * lo, 1), round(100 * hi, 1)) == (88.6, 91.3)


def test_clopper_pearson_matches_beta_quantiles_and_edges():
    for k, n in ((0, 10), (3, 10), (10, 10), (977, 1000)):
        lo, hi = clopper_pearson(k, n, alpha=0.1)
        exp_lo = 0.0 if k == 0 else stats.beta.ppf(0.05, k, n - k + 1)
        exp_hi = 1.0 if k == n else stats.beta.ppf(0.95, k + 1, n - k)
        assert lo == pytest.approx(exp_lo, abs=1e-12) and hi == pytest.approx(exp_hi, abs=1e-12)
    with pytest.raises(ValueError):
        clopper_pearson(5, 4)
    with pytest.raises(ValueError):
        clopper_pearson(1, 4, alpha=1.5)


def test_delta_rank_sign_and_ties():
    # model b drops from 2nd to 3rd, c rises; d and e tie on the new set and share rank 4
    orig = [0.97, 0.96, 0.95, 0.94, 0.93]
    new = [0.93, 0.90, 0.91, 0.85, 0.85]
    assert delta_rank(orig, new).tolist() == [0, -1, 1, 0, 1]


def _preds(correct_per_model, n, names):
    labels = np.zeros(n, dtype=int)
    rows = [np.where(np.arange(n) < k, 0, 1) for k in correct_per_model]
    return Predictions.create(np.array(rows), labels, names, num_classes=2)


def test_tables_on_synthetic_counts():
    names = ["a", "b", "c"]
    orig = accuracy_table(_preds([950, 970, 900], 1000, names))
    new = accuracy_table(_preds([180, 190, 150], 200, names))
    t1 = table1(orig, new)
    assert t1["model"].tolist() == ["b", "a", "c"]  # sorted by original accuracy
    np.testing.assert_allclose(t1["gap"], [97 - 95, 95 - 90, 90 - 75])
    assert t1["delta_rank"].tolist() == [0, 0, 0]
    t4 = table4(t1)
    np.testing.assert_allclose(t4["error_ratio"], [5 / 3, 10 / 5, 25 / 10])
    assert (t4["orig_error_ci_low"] < t4["orig_error"]).all() and (t4["orig_error"] < t4["orig_error_ci_high"]).all()
    md = table1_markdown(t1)
    assert "| b | 97.0 [" in md and "| Δ Rank |" in md


def test_table5_correct_and_paper_style_intervals():
    names = ["a", "b"]
    v4 = accuracy_table(_preds([1879, 1800], 2021, names))
    v6 = accuracy_table(_preds([1862, 1790], 2000, names))
    t5 = table5(v4, v6)
    lo, hi = clopper_pearson(1862, 2000)
    assert t5.loc[0, "v6_ci_low"] == pytest.approx(100 * lo) and t5.loc[0, "v6_ci_high"] == pytest.approx(100 * hi)
    lo21, hi21 = clopper_pearson(1862, 2021)
    assert t5.loc[0, "paper_style_ci_high"] == pytest.approx(100 * hi21)
    assert t5.loc[0, "delta_acc"] == pytest.approx(100 * (1862 / 2000 - 1879 / 2021))
    assert t5["orig_accuracy"].isna().all()
    md = table5_markdown(t5)
    assert "n = 2,021" in md and "n/a" in md
    orig = accuracy_table(_preds([9000, 9500], 10000, names))
    t5o = table5(v4, v6, orig)
    assert t5o["model"].tolist() == ["b", "a"]
    assert t5o.set_index("model").loc["a", "gap"] == pytest.approx(90 - 93.1)


def test_linear_fit_standard_errors_and_band():
    rng = np.random.default_rng(0)
    x = np.linspace(80, 97, 30)
    y = 1.6 * x - 65 + rng.normal(0, 0.8, x.size)
    fit = linear_fit(x, y)
    X = np.column_stack([x, np.ones_like(x)])
    beta, res, *_ = np.linalg.lstsq(X, y, rcond=None)
    s2 = res[0] / (x.size - 2)
    cov = s2 * np.linalg.inv(X.T @ X)
    assert (fit.slope, fit.intercept) == pytest.approx(tuple(beta))
    assert fit.slope_se == pytest.approx(np.sqrt(cov[0, 0]))
    assert fit.intercept_se == pytest.approx(np.sqrt(cov[1, 1]))
    grid = np.linspace(78, 100, 50)
    yhat, lo, hi = fit_band(fit, grid, 0.95)
    width = hi - lo
    assert (lo < yhat).all() and (yhat < hi).all()
    assert grid[np.argmin(width)] == pytest.approx(x.mean(), abs=0.5)
    # at the mean of x the half-width is t * s / sqrt(n)
    _, l0, h0 = fit_band(fit, [x.mean()], 0.95)
    assert (h0 - l0)[0] / 2 == pytest.approx(stats.t.ppf(0.975, 28) * np.sqrt(s2 / x.size))


def test_format_interval():
    assert format_interval(97.06, 96.75, 97.38) == "97.1 [96.8, 97.4]"
    assert format_interval(float("nan"), 1, 2) == "n/a"


def test_figure2_data_and_linear_fit_markdown():
    """Eq. (3) on a line y = 2x - 100 with noise-free points: slope 2, the band collapses onto it."""
    from holdout.cifar10_1.recht import figure2_data, linear_fit_markdown

    orig = np.array([90.0, 92.0, 94.0, 96.0])
    t1 = pd.DataFrame(
        {
            "model": list("abcd"),
            "orig_accuracy": orig,
            "orig_ci_low": orig - 1,
            "orig_ci_high": orig + 1,
            "new_accuracy": 2 * orig - 100,
            "new_ci_low": 2 * orig - 102,
            "new_ci_high": 2 * orig - 98,
            "gap": 100 - orig,
        }
    )
    fit, points, line = figure2_data(t1, 0.95)
    assert fit.slope == pytest.approx(2.0) and fit.intercept == pytest.approx(-100.0)
    assert list(points.columns)[:2] == ["model", "orig_accuracy"] and "gap" not in points
    assert len(line) == 201 and line.x.iloc[0] == 88.0 and line.x.iloc[-1] == 100.0
    assert np.allclose(line.fit, 2 * line.x - 100) and np.allclose(line.band_low, line.fit, atol=1e-6)
    md = linear_fit_markdown(fit).splitlines()
    assert md[0] == "| | slope | intercept (%) | R^2 | models |"
    assert md[2].startswith("| this run | 2.00 ± 0.00 | -100.00 ± 0.00 | 1.000 | 4 |")
    assert md[3] == "| Recht et al. (2018), Eq. (3) | 1.62 ± 0.04 | -65.51 ± 3.16 | | 30 |"
