"""All pairs at once, ranks and the best of N, against loops over the two-model functions, explicit
Holm, brute-force rank counting and simulation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from holdout.stats import (
    holm,
    mcnemar,
    newcombe_paired_ci,
    paired_comparisons,
    paired_t_test,
    rank_confidence_sets,
)
from holdout.stats.ranks import best_of_n_resampled, holm_vs_best, tie_groups


def _matrix(binary: bool, k: int = 6, n: int = 80, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    skill = np.linspace(0.8, 0.3, k)[:, None]
    hard = rng.random(n)[None, :]
    p = np.clip(skill + 0.6 * (0.5 - hard) + 0.1 * rng.standard_normal((k, n)), 0, 1)
    return (rng.random((k, n)) < p).astype(float) if binary else np.round(p * 10) / 10


@pytest.mark.parametrize("binary", [True, False])
def test_every_pair_equals_the_two_model_functions(binary: bool) -> None:
    x = _matrix(binary)
    names = [f"m{i}" for i in range(x.shape[0])]
    df = paired_comparisons(x, names)
    assert len(df) == 15 and (df["diff"] >= -1e-15).all()
    for row in df.itertuples():
        a, b = x[names.index(row.model_a)], x[names.index(row.model_b)]
        if binary:
            only_a, only_b = int(((a == 1) & (b == 0)).sum()), int(((a == 0) & (b == 1)).sum())
            both, neither = int(((a == 1) & (b == 1)).sum()), int(((a == 0) & (b == 0)).sum())
            assert (row.b, row.c) == (only_a, only_b)
            assert row.p_value == pytest.approx(mcnemar(only_a, only_b).pvalue, rel=1e-12)
            lo, hi = newcombe_paired_ci(both, only_a, only_b, neither)
            if row.p_value > 0.05:  # the interval reaches 0 where the test does not reject
                lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
            assert (row.diff_low, row.diff_high) == pytest.approx((float(lo), float(hi)), abs=1e-12)
            assert row.test == "exact McNemar"
        else:
            t = paired_t_test(a, b)
            assert row.b == pytest.approx((a * (1 - b)).sum()) and row.c == pytest.approx((b * (1 - a)).sum())
            assert row.p_value == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-9)
            assert (row.diff_low, row.diff_high) == pytest.approx((t.low, t.high), rel=1e-9)
        assert row.diff == pytest.approx(a.mean() - b.mean(), abs=1e-12)
    # Holm by hand: sorted p times (m - i + 1), running maximum, capped at 1
    p = df["p_value"].to_numpy()
    order = np.argsort(p)
    adj = np.minimum(1, np.maximum.accumulate((len(p) - np.arange(len(p))) * p[order]))
    want = np.empty_like(adj)
    want[order] = adj
    assert df["p_holm"].to_numpy() == pytest.approx(want, rel=1e-9)


def test_mid_p_option_and_tiny_p_values() -> None:
    x = np.vstack([np.ones(3000), np.zeros(3000)])
    df = paired_comparisons(x, ["always", "never"])
    assert df["p_value"].iloc[0] == 0.0  # 2^-2999: below the float range
    assert df["log10_p_value"].iloc[0] == pytest.approx(np.log10(2) - 3000 * np.log10(2), rel=1e-12)
    mid = paired_comparisons(_matrix(True), mid_p=True)
    assert (mid["test"] == "McNemar mid-p").all()
    assert (mid["p_value"] <= paired_comparisons(_matrix(True))["p_value"] + 1e-15).all()


def test_holm_vs_best_is_holm_over_k_minus_1() -> None:
    p = np.array([0.001, 0.02, 0.03, 0.5])
    # Holm: 4 * 0.001 = 0.004, 3 * 0.02 = 0.06, max(0.06, 2 * 0.03) = 0.06, 0.5
    assert holm_vs_best(np.log(p), 0.05).tolist() == [True, False, True, True, True]
    assert holm_vs_best(np.log(p), 0.1).tolist() == [True, False, False, False, True]
    assert np.exp(holm(np.log(p))) == pytest.approx([0.004, 0.06, 0.06, 0.5])


def test_the_old_tie_groups_form_on_three_clear_tiers() -> None:
    log_p = np.log(
        np.array(
            [
                [1, 0.5, 1e-9, 1e-9],
                [0.5, 1, 1e-9, 1e-9],
                [1e-9, 1e-9, 1, 1e-9],
                [1e-9, 1e-9, 1e-9, 1],
            ]
        )
    )
    with pytest.warns(DeprecationWarning):
        assert tie_groups(log_p).tolist() == [1, 1, 2, 3]


def test_rank_sets_against_their_definition() -> None:
    """The sets recomputed by counting, pair by pair, with the critical value the function used."""
    x = _matrix(True, k=7, n=300, seed=4)
    r = rank_confidence_sets(x, resamples=400, seed=1)
    mean = x.mean(axis=1)
    k, n = x.shape
    for j in range(k):
        better_than_j = worse_than_j = 0
        for m in range(k):
            if m == j:
                continue
            d = x[m] - x[j]
            se = np.sqrt((d**2).sum()) / n  # the standard error under no difference
            better_than_j += d.mean() > r.critical_value * se + 1e-12
            worse_than_j += -d.mean() > r.critical_value * se + 1e-12
        assert r.rank_low[j] == 1 + better_than_j
        assert r.rank_high[j] == k - worse_than_j
        assert r.rank[j] == 1 + (mean > mean[j]).sum()
        assert r.rank_low[j] <= r.rank[j] <= r.rank_high[j]
    # the critical value exceeds the pointwise normal quantile (it is a maximum over 21 pairs)
    assert r.critical_value > stats.norm.isf(0.025)


def test_rank_sets_identical_and_dominating_models() -> None:
    ones, zeros = np.ones(50), np.zeros(50)
    r = rank_confidence_sets(np.vstack([ones, ones, zeros]), resamples=50)
    assert r.rank.tolist() == [1, 1, 3]
    assert r.rank_low.tolist() == [1, 1, 3] and r.rank_high.tolist() == [2, 2, 3]


def _simulated_leaderboard(rng: np.random.Generator, k: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Models with abilities theta on items with shared difficulty: correct when theta + z_t + e > 0,
    so errors are correlated across models; true accuracy Phi(theta / sqrt(2))."""
    theta = np.linspace(0.9, -0.9, k)
    z = rng.standard_normal(n)
    x = (theta[:, None] + z[None, :] + rng.standard_normal((k, n)) > 0).astype(float)
    true_rank = np.arange(1, k + 1)
    return x, true_rank


def _covered(seed: int, draws: int, k: int, n: int, resamples: int) -> int:
    """How many of ``draws`` simulated leaderboards have every true rank inside its set."""
    rng = np.random.default_rng(seed)
    covered = 0
    for rep in range(draws):
        x, truth = _simulated_leaderboard(rng, k=k, n=n)
        r = rank_confidence_sets(x, resamples=resamples, seed=rep)
        covered += bool(np.all((r.rank_low <= truth) & (truth <= r.rank_high)))
    return covered


@pytest.mark.slow
def test_rank_sets_cover_the_true_ranks_in_95_percent_of_1000_leaderboards() -> None:
    covered = _covered(2026, 1000, k=8, n=400, resamples=300)
    assert covered >= 950, covered


def test_rank_sets_cover_in_a_small_simulation() -> None:
    """The fast version of the slow coverage test: 60 draws, at least 54 covered (binomial 5%-tail of 0.95)."""
    covered = _covered(7, 60, k=6, n=300, resamples=200)
    assert covered >= 54, covered


def test_best_of_n_resampled_against_the_expected_maximum_of_normals() -> None:
    """N independent variants at accuracy 1/2: max_i (acc_i - mu) ~ sd * max of N standard normals,
    sd = 0.5 / sqrt(n); E max of 27 normals by numerical integration."""
    rng = np.random.default_rng(11)
    n, big_n = 2000, 27
    x = (rng.random((big_n, n)) < 0.5).astype(float)
    got = best_of_n_resampled(x, resamples=3000, seed=2)
    grid = np.linspace(-8, 8, 20001)
    density = big_n * stats.norm.pdf(grid) * stats.norm.cdf(grid) ** (big_n - 1)
    e_max = np.trapezoid(grid * density, grid)
    sd = np.sqrt(x.mean(axis=1) * (1 - x.mean(axis=1))).mean() / np.sqrt(n)
    assert got.expected == pytest.approx(e_max * sd, rel=0.06)
    assert got.upper > got.expected
    # identical variants: the maximum is one accuracy's deviation, mean about 0
    same = best_of_n_resampled(np.repeat(x[:1], 5, axis=0), resamples=3000, seed=2)
    assert abs(same.expected) < 3 * sd / np.sqrt(3000) + 1e-9


def _table(a: int, b: int, c: int, d: int) -> np.ndarray:
    """Two 0/1 rows with a items both right, b only the first, c only the second, d neither."""
    return np.array([[1] * a + [1] * b + [0] * c + [0] * d, [1] * a + [0] * b + [1] * c + [0] * d], dtype=float)


@pytest.mark.parametrize(("a", "b", "c", "d"), [(12, 5, 0, 6), (300, 40, 24, 136)])
def test_the_interval_reaches_0_where_the_exact_test_does_not_reject(a: int, b: int, c: int, d: int) -> None:
    """Newcombe's interval excludes 0 at b = 5, c = 0, n = 23 ([2.67, 38.12] points) and at b = 40,
    c = 24, n = 500, while the exact McNemar p is 0.0625 and 0.0599: the printed interval reaches 0,
    and its label says so and that it is per comparison."""
    row = paired_comparisons(_table(a, b, c, d), ["x", "y"]).iloc[0]
    lo, hi = newcombe_paired_ci(a, b, c, d)
    assert float(lo) > 0 and row.p_value == pytest.approx(mcnemar(b, c).pvalue) and row.p_value > 0.05
    assert row.diff_low == 0.0 and row.diff_high == pytest.approx(float(hi))
    assert row.interval == "Newcombe, widened to 0 (the exact test does not reject); per comparison, unadjusted"
    plain = paired_comparisons(_table(a, b + 30, c, d), ["x", "y"]).iloc[0]
    assert plain.interval == "Newcombe; per comparison, unadjusted" and plain.diff_low > 0


def test_few_differing_items_get_the_exact_sign_flip_test() -> None:
    """n = 400 pass rates, the two models differ on 4 items by +0.1 (the t test's size there is
    0.125): the p-value is the exact sign-flip test's, 2 / 16 = 0.125, not the t test's."""
    x = np.full((2, 400), 0.5)
    x[0, :4] = 0.6
    row = paired_comparisons(x, ["x", "y"]).iloc[0]
    assert paired_t_test(x[0], x[1]).pvalue < 0.05  # what was printed before: "significant"
    assert row.p_value == pytest.approx(0.125) and row.test == "sign-flip (exact)"
    assert row.diff_low == 0.0 and row.diff_high == pytest.approx(paired_t_test(x[0], x[1]).high)
    assert row.interval == "paired t, widened to 0 (the test does not reject); per comparison, unadjusted"


def test_a_constant_difference_on_every_item_has_an_exact_p_and_no_zero_width_interval() -> None:
    """30 items, 0.6 against 0.5 on each: not "[10.00, 10.00], p < 1e-300" but the exact sign-flip
    p = 2 / 2^30 and no interval (the differences have no spread)."""
    x = np.vstack([np.full(30, 0.6), np.full(30, 0.5)])
    row = paired_comparisons(x, ["x", "y"]).iloc[0]
    assert row.p_value == pytest.approx(2.0**-29, rel=1e-9) and row.test == "sign-flip (exact)"
    assert np.isnan(row.diff_low) and np.isnan(row.diff_high)
    assert row.interval.startswith("none")


def test_many_differing_items_keep_the_t_test() -> None:
    x = _matrix(False)
    df = paired_comparisons(x)
    assert (df["test"] == "paired t").all() and (df["interval"] == "paired t; per comparison, unadjusted").all()


def test_many_pairs_with_few_differences_get_the_vectorized_exact_sign_test(monkeypatch) -> None:
    """Beyond SIGN_FLIP_MAX_PAIRS such pairs the loop of sign-flip tests would take hours (about 10 ms
    a pair): the exact sign test, the binomial test of the counts of items each model scores higher."""
    import holdout.stats._pairs as pairs_module

    x = np.full((4, 200), 0.5)
    x[0, :6], x[1, :3], x[2, 10:12] = 0.9, 0.7, 0.2
    monkeypatch.setattr(pairs_module, "SIGN_FLIP_MAX_PAIRS", 2)
    df = paired_comparisons(x, list("abcd")).set_index(["model_a", "model_b"])
    assert (df["test"] == "sign test (exact)").all()
    assert df.loc[("a", "b"), "p_value"] == pytest.approx(mcnemar(6, 0).pvalue)  # a above b on 6 items
    assert df.loc[("a", "c"), "p_value"] == pytest.approx(mcnemar(8, 0).pvalue)  # and on c's 2 low items
