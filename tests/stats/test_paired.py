"""Paired tests of two models on the same items, each against an independent computation:
scipy.stats (binomtest, ttest_rel, permutation_test), exact rational sums in mpmath, brute-force
enumeration, and a published worked example (Fagerland, Lydersen & Laake 2017)."""

from __future__ import annotations

import itertools

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

from holdout.stats import (
    mcnemar,
    newcombe_paired_ci,
    paired_bootstrap_ci,
    paired_t_test,
    sign_flip_test,
)
from holdout.stats._tails import log_binom_half_cdf, log_t_sf
from holdout.stats.paired import mcnemar_log_pvalue

mp.mp.dps = 50


@pytest.mark.parametrize("b", [0, 1, 2, 5, 13, 40])
@pytest.mark.parametrize("c", [0, 1, 3, 7, 40, 61])
def test_mcnemar_equals_scipy_binomtest(b: int, c: int) -> None:
    want = 1.0 if b + c == 0 else stats.binomtest(b, b + c, 0.5).pvalue
    assert mcnemar(b, c).pvalue == pytest.approx(want, rel=1e-12)
    assert mcnemar(c, b).pvalue == pytest.approx(want, rel=1e-12)  # symmetric in the two models


def _mp_log_cdf(k: int, n: int) -> mp.mpf:
    return mp.log(mp.fsum(mp.binomial(n, j) for j in range(k + 1))) - n * mp.log(2)


@pytest.mark.parametrize(("b", "c"), [(0, 2000), (3, 4000), (3000, 9000), (120, 900), (7, 30)])
def test_mcnemar_log_p_exact_far_below_float_range(b: int, c: int) -> None:
    """2 P(X <= min(b, c)) summed exactly in mpmath; p reaches 1e-1200 (0 in floats)."""
    k, n = min(b, c), b + c
    want = float(min(mp.mpf(0), mp.log(2) + _mp_log_cdf(k, n)))
    assert float(mcnemar_log_pvalue(b, c)) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize(("b", "c"), [(6, 16), (1, 7), (0, 0), (5, 5), (0, 9), (300, 900), (11, 3)])
def test_mcnemar_mid_p_against_its_definition(b: int, c: int) -> None:
    """mid-p = 2 P(X < k) + P(X = k), k = min(b, c) (Fagerland et al. 2013, eq. 3), in exact rationals."""
    k, n = min(b, c), b + c
    below = mp.fsum(mp.binomial(n, j) for j in range(k)) / mp.mpf(2) ** n
    at = mp.binomial(n, k) / mp.mpf(2) ** n
    want = float(min(mp.mpf(1), 2 * below + at))
    assert mcnemar(b, c, mid_p=True).pvalue == pytest.approx(want, rel=1e-12)
    assert mcnemar(b, c, mid_p=True).pvalue <= mcnemar(b, c).pvalue


def test_mcnemar_refuses_counts_that_are_not_whole() -> None:
    with pytest.raises(ValueError, match="whole"):
        mcnemar(2.5, 3)  # type: ignore[arg-type]


def test_newcombe_published_example() -> None:
    """Fagerland, Lydersen & Laake (2017), Statistical Analysis of Contingency Tables, Ch. 8: complete
    response before and after consolidation therapy (Cavo et al. 2012), table [[59, 6], [16, 80]]:
    Newcombe square-and-add estimate -0.0621, 95% CI -0.1186 to -0.0046."""
    low, high = newcombe_paired_ci(59, 6, 16, 80)
    assert (round(float(low), 4), round(float(high), 4)) == (-0.1186, -0.0046)


def _wilson_by_root(k: int, n: int) -> tuple[float, float]:
    """Wilson's limits as the roots of (k/n - p)^2 = z^2 p (1 - p) / n (his definition), by brentq."""
    from scipy.optimize import brentq

    z = stats.norm.isf(0.025)
    f = lambda p: (k / n - p) ** 2 - z**2 * p * (1 - p) / n  # noqa: E731
    lo = 0.0 if k == 0 else brentq(f, 1e-15, k / n)
    hi = 1.0 if k == n else brentq(f, k / n, 1 - 1e-15)
    return lo, hi


def test_newcombe_against_an_independent_recomputation() -> None:
    """Wilson limits as roots of the score equation (brentq), phi from the 2x2 table by np.corrcoef on
    the expanded 0/1 data, Newcombe's correction applied by hand."""
    rng = np.random.default_rng(3)
    for _ in range(40):
        a, b, c, d = rng.integers(0, 40, size=4) + np.array([1, 0, 0, 1])
        n = a + b + c + d
        p1, p2 = (a + b) / n, (a + c) / n
        (l1, u1), (l2, u2) = _wilson_by_root(a + b, n), _wilson_by_root(a + c, n)
        x1 = np.repeat([1, 1, 0, 0], [a, b, c, d])
        x2 = np.repeat([1, 0, 1, 0], [a, b, c, d])
        det = a * d - b * c
        if min(a + b, c + d, a + c, b + d) == 0:
            phi = 0.0
        elif det > n / 2:
            phi = np.corrcoef(x1, x2)[0, 1] * (det - n / 2) / det
        elif det >= 0:
            phi = 0.0
        else:
            phi = np.corrcoef(x1, x2)[0, 1]
        lo = p1 - p2 - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2))
        hi = p1 - p2 + np.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1))
        got = newcombe_paired_ci(a, b, c, d)
        assert float(got[0]) == pytest.approx(max(lo, -1), abs=1e-9)
        assert float(got[1]) == pytest.approx(min(hi, 1), abs=1e-9)


def test_paired_t_equals_scipy_ttest_rel() -> None:
    rng = np.random.default_rng(0)
    for n in (2, 5, 30, 400):
        x = rng.integers(0, 11, n) / 10
        y = np.clip(x + rng.integers(-3, 4, n) / 10, 0, 1)
        got, want = paired_t_test(x, y), stats.ttest_rel(x, y)
        if np.all(x == y):
            continue
        assert got.statistic == pytest.approx(want.statistic, rel=1e-10)
        assert got.pvalue == pytest.approx(want.pvalue, rel=1e-9)
        ci = want.confidence_interval(0.95)
        assert (got.low, got.high) == pytest.approx((ci.low, ci.high), rel=1e-9)


@pytest.mark.parametrize(("t", "df"), [(50.0, 399.0), (200.0, 399.0), (40.0, 20000.0), (1e4, 3.0), (2.5, 9.0)])
def test_t_tail_exact_far_below_float_range(t: float, df: float) -> None:
    """P(T > t) = I_x(df/2, 1/2) / 2, x = df / (df + t^2), by mpmath's incomplete beta at 50 digits."""
    x = mp.mpf(df) / (df + mp.mpf(t) ** 2)
    want = float(mp.log(mp.betainc(mp.mpf(df) / 2, mp.mpf(1) / 2, 0, x, regularized=True) / 2))
    assert float(log_t_sf(t, df)) == pytest.approx(want, rel=1e-12)


def test_binomial_tail_array_shapes_and_edges() -> None:
    got = log_binom_half_cdf(np.array([[-1, 0], [5, 10]]), np.array([[10, 0], [10, 10]]))
    assert got.shape == (2, 2)
    assert got[0, 0] == -np.inf and got[0, 1] == 0.0 and got[1, 1] == 0.0
    assert got[1, 0] == pytest.approx(np.log(stats.binom.cdf(5, 10, 0.5)), rel=1e-14)


def test_sign_flip_exact_against_brute_force_and_scipy() -> None:
    rng = np.random.default_rng(1)
    x, y = rng.random(11), rng.random(11)
    d = x - y
    hits = sum(abs(np.dot(s, d)) >= abs(d.sum()) - 1e-12 for s in itertools.product([-1, 1], repeat=11))
    got = sign_flip_test(x, y)
    assert got.exact and got.pvalue == pytest.approx(hits / 2**11, abs=1e-15)
    ref = stats.permutation_test(
        (x, y), lambda a, b: np.mean(a - b), permutation_type="samples", n_resamples=np.inf
    ).pvalue
    assert got.pvalue == pytest.approx(ref, abs=1e-12)


def test_sign_flip_monte_carlo_close_to_exact() -> None:
    rng = np.random.default_rng(2)
    x = rng.integers(0, 11, 300) / 10
    y = np.clip(x - rng.integers(-2, 4, 300) / 10, 0, 1)
    mc = sign_flip_test(x, y, n_resamples=20000, seed=5)
    assert not mc.exact
    # with 300 items the permutation distribution is close to normal: compare with the paired t
    assert mc.pvalue == pytest.approx(max(paired_t_test(x, y).pvalue, 1 / 20001), abs=0.01)
    assert sign_flip_test(x, x).pvalue == 1.0


def test_paired_bootstrap_against_the_exact_bootstrap_distribution() -> None:
    """n = 5: all 5^5 equally likely ordered resamples enumerated; percentiles agree to within the
    Monte Carlo error of 40,000 resamples."""
    x = np.array([1.0, 0.9, 0.3, 0.0, 0.6])
    y = np.array([0.2, 0.9, 0.5, 0.0, 0.1])
    d = x - y
    means = np.array([d[list(idx)].mean() for idx in itertools.product(range(5), repeat=5)])
    lo, hi = np.quantile(means, [0.1, 0.9])
    got = paired_bootstrap_ci(x, y, alpha=0.2, n_resamples=40000, seed=0)
    assert got == pytest.approx((lo, hi), abs=0.03)
