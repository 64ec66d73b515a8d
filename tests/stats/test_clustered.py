"""Clustered standard errors and the clustered paired test, each against an independent computation:
statsmodels' cluster-robust OLS of an intercept (the finite-cluster form), Inspect's own test of
``stderr(cluster=...)``, brute-force enumeration of the sign patterns, and (slow) the coverage of
the 95% interval under a known cluster structure."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from holdout.stats import clustered_paired_test, clustered_se


def _statsmodels_cluster_se(y: np.ndarray, groups: np.ndarray) -> float:
    sm = pytest.importorskip("statsmodels.api")
    fit = sm.OLS(y, np.ones((y.size, 1))).fit(cov_type="cluster", cov_kwds={"groups": groups})
    return float(fit.bse[0])


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("n_clusters", [2, 7, 40])
def test_finite_form_equals_statsmodels_cluster_robust_ols(seed: int, n_clusters: int) -> None:
    rng = np.random.default_rng(seed)
    n = 300
    groups = rng.integers(0, n_clusters, n)
    groups[:n_clusters] = np.arange(n_clusters)  # every cluster present
    y = (rng.random(n) < 0.3 + 0.4 * rng.random(n_clusters)[groups]).astype(float)
    r = clustered_se(y, groups)
    assert r.n_clusters == n_clusters
    assert r.se_clustered_finite == pytest.approx(_statsmodels_cluster_se(y, groups), rel=1e-9, abs=1e-12)
    assert r.se_clustered == pytest.approx(r.se_clustered_finite * np.sqrt((n_clusters - 1) / n_clusters), rel=1e-12)


def test_paired_difference_equals_statsmodels_on_the_differences() -> None:
    rng = np.random.default_rng(5)
    groups = np.repeat(np.arange(25), 8)
    a, b = rng.integers(0, 2, 200), rng.integers(0, 2, 200)
    r = clustered_paired_test(a, b, [f"repo{g}" for g in groups])
    assert r.diff == pytest.approx((a - b).mean(), abs=1e-15)
    assert r.se.se_clustered_finite == pytest.approx(_statsmodels_cluster_se((a - b).astype(float), groups), rel=1e-9)


def test_inspect_example_scores_0_to_19_clustered_by_i_mod_4() -> None:
    # Inspect AI, tests/scorer/test_metric.py, test_clustered_stderr: stderr(cluster=...) on scores
    # 0..19 with cluster i % 4 gives round(se, 3) == 0.645 (with C / (C - 1)); Miller's form without
    # the factor is sqrt(125) / 20 = 0.559 (cluster residual totals -7.5, -2.5, 2.5, 7.5).
    r = clustered_se(np.arange(20.0), np.arange(20) % 4)
    assert round(r.se_clustered_finite, 3) == 0.645
    assert round(r.se_clustered, 3) == 0.559
    assert r.se_clustered == pytest.approx(np.sqrt(125) / 20, rel=1e-15)


def test_singleton_clusters_give_the_plain_standard_error_and_design_effect_one() -> None:
    rng = np.random.default_rng(3)
    y = rng.random(50)
    r = clustered_se(y, np.arange(50))
    assert r.se_clustered_finite == pytest.approx(r.se, rel=1e-12)  # C / (C - 1) = n / (n - 1)
    assert r.design_effect == pytest.approx(1.0, rel=1e-12)
    assert r.se == pytest.approx(y.std(ddof=1) / np.sqrt(50), rel=1e-12)


def test_identical_clusters_have_design_effect_of_the_cluster_size() -> None:
    # every item of a cluster has the same score: the mean holds the information of C items, D = n / C
    y = np.repeat([0.0, 1.0, 1.0, 0.0, 1.0], 6)
    assert clustered_se(y, np.repeat(np.arange(5), 6)).design_effect == pytest.approx(6.0, rel=1e-12)


def _brute_force_cluster_flip(d: np.ndarray, groups: np.ndarray) -> float:
    # every sign pattern of the clusters, the studentized statistic recomputed from scratch
    def t(x: np.ndarray) -> float:
        r = clustered_se(x, groups)
        return abs(r.estimate) / r.se_clustered

    obs = t(d)
    k = groups.max() + 1
    hits = [t(d * np.asarray(s)[groups]) >= obs * (1 - 1e-9) for s in itertools.product([-1, 1], repeat=k)]
    return float(np.mean(hits))


def test_few_clusters_use_the_exact_sign_flip_test() -> None:
    rng = np.random.default_rng(11)
    groups = np.repeat(np.arange(8), 10)
    a = (rng.random(80) < 0.7).astype(float)
    b = (rng.random(80) < 0.4).astype(float)
    r = clustered_paired_test(a, b, groups)
    assert r.method == "sign-flip exact"
    assert r.n_resamples == 256
    assert r.statistic == pytest.approx(abs(r.diff) / r.se.se_clustered, rel=1e-12)
    assert r.pvalue == pytest.approx(_brute_force_cluster_flip(a - b, groups), abs=1e-12)
    assert r.pvalue < 0.05  # a 30-point gap in every cluster


def test_monte_carlo_when_the_patterns_are_too_many_and_p_at_least_one_over_b_plus_one() -> None:
    groups = np.repeat(np.arange(20), 5)
    a, b = np.ones(100), np.zeros(100)
    a[::5] = 0  # every cluster total is +4 with some spread: the most extreme pattern
    r = clustered_paired_test(a, b, groups, n_resamples=999)
    assert r.method == "sign-flip monte carlo"
    assert r.n_resamples == 999
    assert r.pvalue >= 1 / 1000
    assert r.pvalue == pytest.approx(1 / 1000, abs=2 / 1000)


def test_many_clusters_use_the_normal_test() -> None:
    from scipy import stats

    rng = np.random.default_rng(2)
    groups = np.repeat(np.arange(40), 5)
    a, b = rng.integers(0, 2, 200), rng.integers(0, 2, 200)
    r = clustered_paired_test(a, b, groups)
    assert r.method == "normal"
    z = abs(r.diff) / r.se.se_clustered_finite
    assert r.pvalue == pytest.approx(2 * stats.norm.sf(z), rel=1e-12)


@pytest.mark.parametrize(
    ("scores", "clusters", "match"),
    [
        (np.arange(5.0), [0, 0, 0, 0, 0], "at least 2 clusters"),
        (np.arange(5.0), [0, 1, 0], "3 labels for 5 items"),
        (np.array([1.0, np.nan, 0.0]), [0, 1, 1], "item 1 has a NaN"),
        (np.arange(3.0), [0, None, 1], "item 1 has no cluster label"),
    ],
)
def test_bad_input_names_the_problem(scores: np.ndarray, clusters: list, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        clustered_se(scores, clusters)


def test_interval_refuses_an_unknown_form() -> None:
    with pytest.raises(ValueError, match="form must be 'finite' or 'miller', got 'stata'"):
        clustered_se(np.arange(20.0), np.arange(20) % 4).confidence_interval(form="stata")


@pytest.mark.slow
@pytest.mark.parametrize("n_clusters", [10, 50])
def test_clustered_interval_covers_at_its_level_and_the_plain_one_does_not(n_clusters: int) -> None:
    # items in clusters of 20 share a random cluster effect (intra-cluster correlation about 0.2):
    # the t_{C-1} interval with the finite-cluster form covers the true mean about 95% of the time,
    # the plain interval far less often
    rng = np.random.default_rng(0)
    size, reps, true_mean = 20, 2000, 0.6
    groups = np.repeat(np.arange(n_clusters), size)
    truth = float(np.mean(np.clip(true_mean + rng.normal(0.0, 0.2, 2_000_000), 0.0, 1.0)))  # E[p], +- 1e-4
    cover_clustered = cover_plain = 0
    for _ in range(reps):
        effect = rng.normal(0.0, 0.2, n_clusters)[groups]
        p = np.clip(true_mean + effect, 0.0, 1.0)
        y = (rng.random(groups.size) < p).astype(float)
        r = clustered_se(y, groups)
        ci = r.confidence_interval(0.95)
        cover_clustered += ci.low <= truth <= ci.high
        cover_plain += abs(r.estimate - truth) <= 1.96 * r.se
    assert 0.93 <= cover_clustered / reps <= 0.975
    assert cover_plain / reps < 0.85


@pytest.mark.slow
def test_cluster_sign_flip_test_holds_its_level_with_few_unequal_clusters() -> None:
    # two exchangeable models on 10 clusters of unequal size with a shared cluster effect: under H0
    # the randomization test (and its inverted interval) rejects at most 5% of the time (plus
    # simulation noise), while the plain normal test on the items, ignoring the clusters, rejects far
    # more often, and the t_{C-1} interval too often
    from scipy import stats

    rng = np.random.default_rng(7)
    sizes = np.array([60, 30, 20, 15, 10, 8, 6, 5, 4, 2])
    groups = np.repeat(np.arange(sizes.size), sizes)
    reps, reject, reject_plain, reject_t = 1000, 0, 0, 0
    for _ in range(reps):
        shift = rng.normal(0.0, 0.3, sizes.size)  # a cluster favours one model or the other, symmetric
        p_a = np.clip(0.6 + shift / 2, 0.02, 0.98)[groups]
        p_b = np.clip(0.6 - shift / 2, 0.02, 0.98)[groups]
        a, b = (rng.random(groups.size) < p_a).astype(float), (rng.random(groups.size) < p_b).astype(float)
        r = clustered_paired_test(a, b, groups, n_resamples=1023)
        reject += r.pvalue <= 0.05
        reject_plain += 2 * stats.norm.sf(abs(r.diff) / r.se.se) <= 0.05 if r.se.se > 0 else 0
        t_ci = r.se.confidence_interval(0.95)
        reject_t += not t_ci.low <= 0 <= t_ci.high
        reject_inverted = not r.interval.low <= 0 <= r.interval.high
        assert reject_inverted == (r.pvalue <= 0.05)
    assert reject / reps <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps)
    assert reject_plain / reps > 0.2
    assert reject_t / reps > 0.08  # the t_{C-1} interval of the finite-cluster form over-rejects here


def test_randomization_interval_inverts_the_test() -> None:
    # the ends of the interval are where the test of mean(d) = delta starts to reject
    rng = np.random.default_rng(12)
    groups = np.repeat(np.arange(9), 12)
    a = (rng.random(108) < 0.75).astype(float)
    b = (rng.random(108) < 0.45).astype(float)
    r = clustered_paired_test(a, b, groups, confidence_level=0.9)
    assert r.interval_method == "sign-flip inverted"
    assert r.interval.low < r.diff < r.interval.high
    assert (r.pvalue <= 0.1) == (r.interval.low > 0)  # the interval excludes 0 exactly when the test rejects

    def p_at(delta: float) -> float:  # the test of mean(d) = delta, brute force: shift a
        return clustered_paired_test(a - delta, b, groups, confidence_level=0.9).pvalue

    for end, step in ((r.interval.low, -1e-6), (r.interval.high, 1e-6)):
        assert p_at(end - step) > 0.1 >= p_at(end + step)


def test_too_few_clusters_give_the_edge_of_the_scale() -> None:
    # 4 clusters: the smallest two-sided p is 2/16 > 0.05, so no difference is ever rejected
    groups = np.repeat(np.arange(4), 10)
    r = clustered_paired_test(np.ones(40), np.zeros(40), groups)
    assert r.pvalue == pytest.approx(2 / 16)
    assert (r.interval.low, r.interval.high) == (-1.0, 1.0)


def test_clustered_many_equals_clustered_se_per_row_and_per_pair() -> None:
    from holdout.stats.clustered import clustered_many

    rng = np.random.default_rng(21)
    groups = rng.integers(0, 9, 150)
    v = (rng.random((5, 150)) < rng.random((5, 1))).astype(float)
    v[3] = v[2]  # a pair that never differs
    many = clustered_many(v, groups)
    for i in range(5):
        r = clustered_se(v[i], groups)
        got = (many.se[i], many.se_clustered[i], many.se_clustered_finite[i], many.design_effect[i])
        assert got == pytest.approx((r.se, r.se_clustered, r.se_clustered_finite, r.design_effect), rel=1e-10)
        for j in range(5):
            if i == j or (i, j) in ((2, 3), (3, 2)):
                continue
            d = clustered_se(v[i] - v[j], groups)
            got = (many.se_diff[i, j], many.se_diff_clustered_finite[i, j], many.design_effect_diff[i, j])
            assert got == pytest.approx((d.se, d.se_clustered_finite, d.design_effect), rel=1e-9)
    assert many.se_diff[2, 3] == 0 and many.design_effect_diff[2, 3] == 1.0
