"""holdout.leaderboards on small made data with known answers."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from holdout.leaderboards import (
    CorrectnessError,
    CorrectnessMatrix,
    accuracy_intervals,
    accuracy_table_audit,
    contamination,
    effective_robustness,
    holm,
    probit_fit,
    read_correctness,
    similarity_matrix,
    similarity_summary,
)
from holdout.leaderboards.correctness import check_correctness, difficulty
from holdout.leaderboards.dates import read_dates
from holdout.leaderboards.fits import clopper_pearson_many, probit
from holdout.similarity.core import pairwise_similarity
from holdout.stats import clopper_pearson


def test_clopper_pearson_many_equals_the_scalar_function():
    k = np.array([0, 1, 7, 50, 99, 100])
    low, high = clopper_pearson_many(k, 100, 0.05)
    for i, ki in enumerate(k):
        assert (low[i], high[i]) == pytest.approx(clopper_pearson(int(ki), 100, 0.05), abs=1e-12)


def test_holm_known_values():
    # p = (0.01, 0.04, 0.03, 0.5): sorted 0.01*4 = 0.04, 0.03*3 = 0.09, 0.04*2 = 0.08 -> 0.09, 0.5
    assert holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert holm([0.9, 0.8]) == pytest.approx([1.0, 1.0])


def test_probit_fit_against_lstsq_on_transformed_values():
    rng = np.random.default_rng(0)
    x = rng.uniform(0.3, 0.9, 40)
    y = stats.norm.cdf(0.9 * stats.norm.ppf(x) - 0.3 + rng.normal(0, 0.05, 40))
    fit = probit_fit(x, y, 50_000, 10_000)
    a = np.column_stack([stats.norm.ppf(x), np.ones_like(x)])
    coef, res, *_ = np.linalg.lstsq(a, stats.norm.ppf(y), rcond=None)
    cov = res[0] / (40 - 2) * np.linalg.inv(a.T @ a)
    assert (fit.slope, fit.intercept) == pytest.approx(tuple(coef), rel=1e-10)
    assert (fit.slope_se, fit.intercept_se) == pytest.approx(tuple(np.sqrt(np.diag(cov))), rel=1e-8)


def test_probit_clips_zero_and_one():
    z = probit([0.0, 1.0], 100)
    assert z == pytest.approx([stats.norm.ppf(0.005), stats.norm.ppf(0.995)])


def test_models_on_the_line_have_no_effective_robustness_and_an_outlier_has():
    x = np.linspace(0.5, 0.9, 30)
    y = stats.norm.cdf(1.1 * stats.norm.ppf(x) - 0.4)
    y_noisy = y + np.tile([0.002, -0.002], 15)
    y_noisy[10] += 0.08  # one model 8 points above the line
    audit = accuracy_table_audit([f"m{i}" for i in range(30)], x, y_noisy, 50_000, 10_000)
    t = audit.models
    assert audit.probit.slope == pytest.approx(1.1, abs=0.05)
    assert t["er_significant"].tolist() == [i == 10 for i in range(30)]
    assert t.loc[10, "effective_robustness"] == pytest.approx(8, abs=0.6)
    assert (t["er_ci_low"] <= t["effective_robustness"]).all() and (t["effective_robustness"] <= t["er_ci_high"]).all()
    assert t["gap"].to_numpy() == pytest.approx(100 * (x - y_noisy))
    assert audit.linear.n == 30


def test_effective_robustness_zero_on_an_exact_line():
    x = np.linspace(0.2, 0.8, 10)
    fit = probit_fit(x, stats.norm.cdf(0.8 * stats.norm.ppf(x) + 0.1), 10**6, 10**6)
    er = effective_robustness(fit, x, stats.norm.cdf(0.8 * stats.norm.ppf(x) + 0.1), 10**6, 10**6)
    assert np.abs(er.value).max() < 1e-9 and not er.significant.any()


# ---------------------------------------------------------------------------
# correctness matrices
# ---------------------------------------------------------------------------


def _binary() -> CorrectnessMatrix:
    v = np.array([[1, 1, 0, 0], [1, 0, 1, 0], [1, 1, 1, 1]], dtype=float)
    return check_correctness(v, ["a", "b", "c"], "made")


def test_binary_accuracy_is_exact_clopper_pearson():
    acc = accuracy_intervals(_binary())
    assert acc["accuracy"].tolist() == [50.0, 50.0, 100.0]
    lo, hi = clopper_pearson(2, 4)
    assert (acc.loc[0, "ci_low"], acc.loc[0, "ci_high"]) == pytest.approx((100 * lo, 100 * hi))


def test_binary_similarity_is_agreement_of_losses():
    sim = similarity_matrix(_binary())
    # a vs b agree on items 1 and 4; a vs c on items 1, 2
    assert sim[0, 1] == 0.5 and sim[0, 2] == 0.5 and sim[1, 2] == 0.5
    assert np.array_equal(sim, pairwise_similarity(_binary().values == 0))


def test_fraction_similarity_is_the_expected_agreement():
    p = np.array([[0.5, 1.0], [0.5, 0.0]])
    c = check_correctness(p, ["a", "b"], "made", samples=2)
    # item 1: .25 + .25 = .5 ; item 2: 0 + 0 = 0 -> 0.25
    assert similarity_matrix(c)[0, 1] == pytest.approx(0.25)
    # expectation over independent samples
    rng = np.random.default_rng(1)
    draws = rng.random((20000, 2, 2)) < p
    mc = np.mean(draws[:, 0, :] == draws[:, 1, :])
    assert mc == pytest.approx(0.25, abs=0.01)


def test_fraction_interval_reduces_to_exact_and_covers():
    c = check_correctness(np.array([[0.3, 0.7, 0.5, 0.5]]), ["a"], "made", samples=10)
    acc = accuracy_intervals(c)
    assert acc.loc[0, "accuracy"] == pytest.approx(50.0)
    low, high = stats.beta.ppf(0.025, 2.0, 3.0), stats.beta.ppf(0.975, 3.0, 2.0)
    assert (acc.loc[0, "ci_low"], acc.loc[0, "ci_high"]) == pytest.approx((100 * low, 100 * high))
    # coverage on made data: items with per-item success p_t ~ Beta, 10 samples each
    rng = np.random.default_rng(3)
    n, m, reps = 60, 10, 400
    pt = rng.beta(0.6, 0.9, size=n)
    true = pt.mean() * 100
    rates = rng.binomial(m, np.broadcast_to(pt, (reps, n))) / m
    rows = accuracy_intervals(check_correctness(rates, [str(i) for i in range(reps)], "made", samples=m))
    coverage = np.mean((rows["ci_low"] <= true) & (true <= rows["ci_high"]))
    assert coverage >= 0.94


def test_similarity_summary_and_difficulty():
    c = _binary()
    s = similarity_summary(c, similarity_matrix(c))
    assert s.num_pairs == 3 and s.mean_similarity == pytest.approx(0.5)
    assert s.mean_accuracy == pytest.approx(2 / 3)
    # failures per item: 0, 1, 1, 2 -> at most 0: 1/4, at most 1: 3/4, at most 2: 1
    assert difficulty(c).tolist() == [0.25, 0.75, 1.0, 1.0]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("model,i1,i2\na,1,0\nb,1,2\n", "outside [0, 1]"),
        ("model,i1,i2\na,1,0\nb,1\n", "row 3 has 1 values, expected 2"),
        ("model,i1,i2\na,1,0\nb,1,0,1\n", "row 3 has 3 values, expected 2"),
        ("model,i1,i2\na,1,0\na,1,0\n", "duplicate model name 'a'"),
        ("model,i1,i2\na,1,0\nb,1,nan\n", "NaN or missing value for model 'b', item 'i2'"),
        ("model,i1,i2\na,1,0\nb,1,x\n", "must be a number"),
    ],
)
def test_bad_csv_gives_one_line_naming_the_file(tmp_path, text, message):
    path = tmp_path / "c.csv"
    path.write_text(text)
    with pytest.raises(CorrectnessError, match=re.escape(message)) as err:
        read_correctness(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_samples_granularity_and_npy(tmp_path):
    np.save(tmp_path / "c.npy", np.array([[0.1, 0.25]]))
    with pytest.raises(CorrectnessError, match="not a multiple of 1/10"):
        read_correctness(tmp_path / "c.npy", samples=10)
    c = read_correctness(tmp_path / "c.npy", ["only"], samples=20)
    assert c.model_names == ("only",) and not c.binary


# ---------------------------------------------------------------------------
# contamination by date
# ---------------------------------------------------------------------------


def _dated():
    rng = np.random.default_rng(5)
    k, n = 12, 2000
    skill = np.r_[np.linspace(0.2, 0.8, 10), 0.4, 0.6]
    item_dates = np.array(["2023-01-01"] * 1000 + ["2023-07-01"] * 1000, dtype="datetime64[D]")
    values = (rng.random((k, n)) < skill[:, None]).astype(float)
    values[10:, :500] = 1.0  # the two late models memorized half of the early items
    model_dates = np.array(["2022-06-01"] * 10 + ["2023-05-01"] * 2, dtype="datetime64[D]")
    names = [f"m{i}" for i in range(k)]
    return check_correctness(values, names, "made"), item_dates, model_dates


def test_contamination_flags_models_that_saw_the_early_items():
    c, items, models = _dated()
    res = contamination(c, items, models, np.datetime64("2023-04-01"))
    t = res.models
    assert (res.n_original, res.n_new) == (1000, 1000)
    assert res.fit.n == 10 and res.fit.slope == pytest.approx(1.0, abs=0.15)
    assert t["role"].tolist() == ["line"] * 10 + ["placed"] * 2
    assert t["below_line"].tolist() == [False] * 10 + [True, True]


def test_contamination_needs_items_on_both_sides_and_three_clean_models():
    c, items, models = _dated()
    with pytest.raises(CorrectnessError, match="needs items both before"):
        contamination(c, items, models, np.datetime64("2022-01-01"))
    late = np.array(["2023-05-01"] * 12, dtype="datetime64[D]")
    with pytest.raises(CorrectnessError, match="the line needs 3"):
        contamination(c, items, late, np.datetime64("2023-04-01"))


def test_read_dates(tmp_path):
    (tmp_path / "d.csv").write_text("model,date\na,2023-01-02\nb,2024-03-04\n")
    d = read_dates(tmp_path / "d.csv", ("b", "a"), "model")
    assert d.tolist() == list(np.array(["2024-03-04", "2023-01-02"], dtype="datetime64[D]").tolist())
    with pytest.raises(CorrectnessError, match="no date for model 'c'"):
        read_dates(tmp_path / "d.csv", ("c",), "model")
    (tmp_path / "e.csv").write_text("model,date\na,yesterday\n")
    with pytest.raises(CorrectnessError, match="is not a date"):
        read_dates(tmp_path / "e.csv", ("a",), "model")


def test_table_shapes():
    audit = accuracy_table_audit(["a", "b", "c"], [0.5, 0.6, 0.7], [0.4, 0.52, 0.61], 1000, 1000)
    assert isinstance(audit.band, pd.DataFrame) and len(audit.models) == 3


def test_pair_similarity_figure_rasterizes_millions_of_pairs():
    """Many pairs: the scatter is an image inside the PDF (vector markers of 2M pairs took minutes)."""
    from holdout.similarity.plots import plot_pair_similarities, plot_similarity_scatter

    s = np.linspace(0.5, 1.0, 30_000)
    pixels = [ln for ln in plot_pair_similarities(s, s * 0.9, "t", 246).axes[0].lines if ln.get_marker() == ","]
    assert len(pixels) == 2 and all(ln.get_rasterized() for ln in pixels)
    assert all(c.get_rasterized() for c in plot_similarity_scatter(s, s * 0.9, "t").axes[0].collections)
    small = plot_pair_similarities(s[:100], s[:100], "t", 15)
    assert not any(c.get_rasterized() for c in small.axes[0].collections)
