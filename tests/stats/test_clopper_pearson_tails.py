"""clopper_pearson for tiny alpha, against Beta quantiles computed in mpmath at 60 digits.

Was: the interval came from ``binomtest(...).proportion_ci(1 - alpha)``; for alpha below ~1e-16 the
float 1 - alpha is 1 and the interval was (0, 1), and near 1e-12 it lost digits.
"""

from __future__ import annotations

import mpmath as mp
import pytest

from holdout.stats import clopper_pearson

mp.mp.dps = 60


def _log_cdf(x: mp.mpf, a: int, b: int) -> mp.mpf:
    return mp.log(mp.betainc(a, b, 0, x, regularized=True))


def _bisect(f, lo: mp.mpf, hi: mp.mpf, steps: int = 120) -> mp.mpf:
    """Root of the increasing function f on [lo, hi] by bisection (robust where Newton is not).

    120 halvings of [-2000, 0] leave 2000 / 2^120 < 2e-33 in log x: a relative error below 1e-30
    in the quantile, far inside the tests' 1e-9 and 1e-13 (more halvings only split 60-digit ties)."""
    for _ in range(steps):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    return (lo + hi) / 2


def _reference(k: int, n: int, alpha: float) -> tuple[float, float]:
    """B(alpha/2; k, n-k+1) and the upper alpha/2 quantile of B(k+1, n-k), solved in log x / log(1-x)."""
    target = mp.log(mp.mpf(alpha) / 2)
    low = mp.mpf(0)
    if k > 0:  # P(X <= x) = alpha/2, x = exp(t), increasing in t
        low = mp.exp(_bisect(lambda t: _log_cdf(mp.exp(t), k, n - k + 1) - target, mp.mpf(-2000), mp.mpf(0)))
    high = mp.mpf(1)
    if k < n:  # P(X > x) = alpha/2 with X ~ Beta(k+1, n-k), i.e. P(1 - X <= 1 - x) with 1 - X ~ Beta(n-k, k+1)
        high = 1 - mp.exp(_bisect(lambda u: _log_cdf(mp.exp(u), n - k, k + 1) - target, mp.mpf(-2000), mp.mpf(0)))
    return float(low), float(high)


@pytest.mark.parametrize("alpha", [0.05, 1e-6, 1e-12, 1e-16, 1e-17, 1e-50, 1e-100, 1e-300])
@pytest.mark.parametrize(("k", "n"), [(5, 10), (0, 10), (10, 10), (930, 1000), (1, 2000), (1999, 2000)])
def test_clopper_pearson_matches_mpmath_down_to_1e_300(k, n, alpha):
    low, high = clopper_pearson(k, n, alpha)
    ref_low, ref_high = _reference(k, n, alpha)
    assert low == pytest.approx(ref_low, rel=1e-9, abs=1e-300)
    assert high == pytest.approx(ref_high, rel=1e-13)


def test_clopper_pearson_tiny_alpha_is_not_the_unit_interval():
    """At alpha = 1e-20 the interval for 930 / 1000 is far narrower than (0, 1)."""
    low, high = clopper_pearson(930, 1000, 1e-20)
    assert 0.8 < low < 0.93 < high < 0.99
