"""Risk estimates, empirical Bernstein bounds and independence tests of
Werpachowski, György & Szepesvári (2019), *Detecting overfitting via adversarial
examples* (NeurIPS), Sections 2.2 and 3.

Notation (the paper's): a test set S of m examples, a classifier f, an
adversarial example generator (AEG) g. For example i,

- ``losses[i]``     = L(f, X_i), the zero-one loss on the original point;
- ``adv_losses[i]`` = L(f, g(X_i)), the loss on the adversarial point;
- ``densities[i]``  = h_g(g(X_i)) = dP/dP_g at the adversarial point, only needed
  where ``adv_losses[i] > 0`` (it multiplies the loss); elsewhere it is ignored
  and may be NaN.

Pure numpy. Tiny p-values are also returned in log space (``log_p_value``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = [
    "IntervalTestResult",
    "OverfittingTestResult",
    "adversarial_risk",
    "bernstein_bound",
    "bernstein_p_value",
    "empirical_variance",
    "interval_test",
    "n_model_test",
    "pairwise_test",
    "t_statistic",
    "empirical_error",
]

#: relative slack when comparing an observed range with the claimed U
_RANGE_RTOL = 1e-12


# ---------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------
def _as_1d(x: object, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of per-example values, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty: a test needs at least one example")
    return arr


def _check_losses(arr: np.ndarray, name: str) -> np.ndarray:
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if arr.min() < 0.0 or arr.max() > 1.0:
        raise ValueError(f"{name} must be zero-one losses in [0, 1], got values in [{arr.min():g}, {arr.max():g}]")
    return arr


def _check_m(m: int) -> int:
    if isinstance(m, bool) or not math.isfinite(float(m)) or int(m) != m or m < 1:
        raise ValueError(f"m (number of examples) must be a positive integer, got {m!r}")
    return int(m)


def _check_u(U: float) -> float:
    U = float(U)
    if not math.isfinite(U) or U <= 0.0:
        raise ValueError(f"U (range of the variables) must be positive and finite, got {U!r}")
    return U


def _check_variance(variance: float) -> float:
    variance = float(variance)
    if not math.isfinite(variance) or variance < 0.0:
        raise ValueError(f"variance must be finite and >= 0, got {variance!r}")
    return variance


# ---------------------------------------------------------------------------
# estimators (Sec. 2.2)
# ---------------------------------------------------------------------------
def weighted_adversarial_losses(adv_losses: object, densities: object) -> np.ndarray:
    """Per-example terms L(f, g(X_i)) h_g(g(X_i)) of eq. (2).

    The density only matters where the adversarial loss is positive; elsewhere
    the term is 0 whatever ``densities`` holds (NaN allowed there). Where the
    loss is positive the density must lie in [0, 1] (h_g <= 1 on the error set,
    Sec. 2.1).
    """
    lg = _check_losses(_as_1d(adv_losses, "adv_losses"), "adv_losses")
    h = _as_1d(densities, "densities")
    if h.shape != lg.shape:
        raise ValueError(f"densities has shape {h.shape}, adv_losses has shape {lg.shape}")
    need = lg > 0
    hn = h[need]
    if hn.size and (not np.all(np.isfinite(hn)) or hn.min() < 0.0 or hn.max() > 1.0):
        raise ValueError(
            "densities h_g must lie in [0, 1] wherever the adversarial loss is positive "
            f"(got {int(np.sum(~np.isfinite(hn)))} NaN/inf values and "
            f"{int(np.sum((hn < 0) | (hn > 1)))} values outside [0, 1])"
        )
    out = np.zeros_like(lg)
    out[need] = lg[need] * hn
    return out


def empirical_error(losses: object) -> float:
    """Empirical test error R_S(f) = (1/m) sum_i L(f, X_i) (Sec. 2)."""
    return float(np.mean(_check_losses(_as_1d(losses, "losses"), "losses")))


def adversarial_risk(adv_losses: object, densities: object) -> float:
    """Importance-weighted adversarial risk estimate of eq. (2):
    R_g(f) = (1/m) sum_i L(f, g(X_i)) h_g(g(X_i)).
    """
    return float(np.mean(weighted_adversarial_losses(adv_losses, densities)))


def t_statistic(losses: object, adv_losses: object, densities: object) -> np.ndarray:
    """Per-example statistic of eq. (5): T_i = L(f, g(X_i)) h_g(g(X_i)) - L(f, X_i).

    Their mean is T_{S,g}(f) = R_g(f) - R_S(f); each T_i lies in [-1, 1].
    """
    ls = _check_losses(_as_1d(losses, "losses"), "losses")
    lh = weighted_adversarial_losses(adv_losses, densities)
    if ls.shape != lh.shape:
        raise ValueError(f"losses has shape {ls.shape}, adv_losses has shape {lh.shape}")
    return lh - ls


def empirical_variance(values: object) -> float:
    """Empirical variance (1/m) sum_i (v_i - mean)^2 used in (3), (4) and (6)."""
    v = _as_1d(values, "values")
    return float(np.mean((v - v.mean()) ** 2))


# ---------------------------------------------------------------------------
# empirical Bernstein bound and its inverse (eqs. 3, 4, 6, 7)
# ---------------------------------------------------------------------------
def bernstein_bound(m: int, variance: float, delta: float, U: float) -> float:
    """Empirical Bernstein bound of eq. (6) (Mnih et al. 2008):

        B(m, sigma^2, delta, U) = sqrt(2 sigma^2 ln(3/delta) / m) + 3 U ln(3/delta) / m.

    With U = 1 it is the bound of (3) and (4). Holds with probability >= 1 - delta
    for m i.i.d. variables of range U with empirical variance ``variance``.
    """
    m = _check_m(m)
    variance = _check_variance(variance)
    U = _check_u(U)
    delta = float(delta)
    if not 0.0 < delta <= 1.0:
        raise ValueError(f"delta must be in (0, 1], got {delta!r}")
    log_term = math.log(3.0) - math.log(delta)
    return math.sqrt(2.0 * variance * log_term / m) + 3.0 * U * log_term / m


def _log_inverse(m: int, variance: float, gap: float, U: float) -> float:
    """ln(3/delta) solving B(m, variance, delta, U) = gap for delta (gap >= 0).

    Eq. (7) writes the solution as m (sigma^2 + 3U|T| - sigma sqrt(sigma^2 + 6U|T|)) / (9U^2);
    we use the algebraically equal form m |T|^2 / (sigma^2 + 3U|T| + sigma sqrt(sigma^2 + 6U|T|)),
    which has no cancellation when |T| << sigma^2 / U.
    """
    if gap == 0.0:
        return 0.0
    sigma = math.sqrt(variance)
    denom = variance + 3.0 * U * gap + sigma * math.sqrt(variance + 6.0 * U * gap)
    return m * gap * gap / denom


def bernstein_p_value(m: int, variance: float, statistic: float, U: float) -> tuple[float, float]:
    """p-value of eq. (7) and its natural log: the delta at which B(m, sigma^2, delta, U) = |T|,

        delta = min(1, 3 exp(-m (sigma^2 + 3U|T| - sigma sqrt(sigma^2 + 6U|T|)) / (9 U^2))),

    capped at 1. Returns ``(p_value, log_p_value)``; the log stays finite when the
    p-value underflows to 0.
    """
    m = _check_m(m)
    variance = _check_variance(variance)
    U = _check_u(U)
    gap = abs(float(statistic))
    if not math.isfinite(gap):
        raise ValueError(f"statistic must be finite, got {statistic!r}")
    log_p = min(0.0, math.log(3.0) - _log_inverse(m, variance, gap, U))
    return math.exp(log_p), log_p


# ---------------------------------------------------------------------------
# tests (Sec. 3)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class OverfittingTestResult:
    """Outcome of the pairwise test (6)-(7) or the N-model test (Sec. 3.3).

    ``statistic`` is T_{S,g}(f) = R_g - R_S (signed; the test uses its absolute
    value), ``variance`` the empirical variance sigma_T^2 of the T_i, ``U`` the
    range used in the bound, ``p_value`` the delta of eq. (7) (capped at 1) and
    ``log_p_value`` its natural log. ``n_models`` is N (1 for the pairwise test).
    """

    __test__ = False  # not a pytest test class

    statistic: float
    p_value: float
    m: int
    variance: float
    U: float
    log_p_value: float = 0.0
    n_models: int = 1

    def rejects(self, alpha: float) -> bool:
        """True when independence (H) is rejected at level ``alpha`` (p-value <= alpha)."""
        return self.p_value <= alpha


def _check_range(t: np.ndarray, U: float, expected_range: tuple[float, float] | None) -> None:
    tol = _RANGE_RTOL * max(1.0, U)
    if expected_range is not None:
        lo, hi = (float(v) for v in expected_range)
        if not lo <= hi:
            raise ValueError(f"expected_range must be (low, high) with low <= high, got {expected_range!r}")
        if hi - lo > U + tol:
            raise ValueError(
                f"expected_range {expected_range!r} has width {hi - lo:g} > U = {U:g}: U must bound its width"
            )
    lo_t, hi_t = float(t.min()), float(t.max())
    if lo_t < -1.0 - tol or hi_t > 1.0 + tol:
        raise ValueError(f"T_i of eq. (5) must lie in [-1, 1], got values in [{lo_t:g}, {hi_t:g}]")
    if hi_t - lo_t > U + tol:
        raise ValueError(
            f"observed T_i span [{lo_t:g}, {hi_t:g}] (width {hi_t - lo_t:g}) exceeds the claimed "
            f"range U = {U:g}; U must bound sup T_i - inf T_i (U = 2 always holds)"
        )
    if expected_range is not None and (lo_t < lo - tol or hi_t > hi + tol):
        raise ValueError(
            f"observed T_i in [{lo_t:g}, {hi_t:g}] leave the expected range [{lo:g}, {hi:g}] "
            "(for example U = 3/2 assumes h_g <= 1/2 at every successful adversarial point)"
        )


def pairwise_test(t: object, U: float, expected_range: tuple[float, float] | None = None) -> OverfittingTestResult:
    """Pairwise independence test of Sec. 3.2: reject (H) when |T_{S,g}| > B(m, sigma_T^2, delta, U)
    (eq. 6); the p-value is the delta of eq. (7), capped at 1.

    ``t`` holds the T_i of eq. (5). ``U`` must bound sup T_i - inf T_i: U = 2 always
    holds; U = 3/2 holds for deterministic density-preserving AEGs (Sec. 5.1, where
    T_i lies in [-1, 1/2]). The observed T_i are checked against U, and against
    ``expected_range = (low, high)`` when given; a violation raises ``ValueError``.
    """
    tt = _as_1d(t, "t")
    if not np.all(np.isfinite(tt)):
        raise ValueError("t contains NaN or infinite values")
    U = _check_u(U)
    _check_range(tt, U, expected_range)
    m = tt.size
    mean = float(tt.mean())
    variance = float(np.mean((tt - mean) ** 2))
    p, log_p = bernstein_p_value(m, variance, mean, U)
    return OverfittingTestResult(statistic=mean, p_value=p, m=m, variance=variance, U=U, log_p_value=log_p)


def n_model_test(
    t_matrix: object, U: float, expected_range: tuple[float, float] | None = None
) -> OverfittingTestResult:
    """N-model test of Sec. 3.3: average the statistics of N independently trained
    models per example, Tbar_i = (1/N) sum_j T_{i,g_j}(f_j), then apply the pairwise
    test (6)-(7) to the Tbar_i (their range is at most that of the T_i, so the same
    U applies).

    ``t_matrix`` has shape (N, m): row j holds the T_i of model j on the same test set.
    """
    tm = np.asarray(t_matrix, dtype=np.float64)
    if tm.ndim != 2:
        raise ValueError(f"t_matrix must have shape (N models, m examples), got shape {tm.shape}")
    if tm.shape[0] < 1 or tm.shape[1] < 1:
        raise ValueError(f"t_matrix must have at least one model and one example, got shape {tm.shape}")
    if not np.all(np.isfinite(tm)):
        raise ValueError("t_matrix contains NaN or infinite values")
    U = _check_u(U)
    for j in range(tm.shape[0]):
        try:
            _check_range(tm[j], U, expected_range)
        except ValueError as err:
            raise ValueError(f"model {j} of t_matrix: {err}") from None
    res = pairwise_test(tm.mean(axis=0), U, expected_range)
    return OverfittingTestResult(
        statistic=res.statistic,
        p_value=res.p_value,
        m=res.m,
        variance=res.variance,
        U=res.U,
        log_p_value=res.log_p_value,
        n_models=tm.shape[0],
    )


@dataclass(frozen=True)
class IntervalTestResult:
    """Outcome of the confidence-interval test of Sec. 3.1.

    ``delta`` is the smallest delta at which the intervals (3) and (4)
    [R_S -+ B(m, sigma_S^2, delta, 1)] and [R_g -+ B(m, sigma_g^2, delta, 1)] are
    disjoint (capped at 1); ``p_value`` = min(1, 2 delta). ``bound_test`` and
    ``bound_adversarial`` are the half-widths at ``confidence_delta`` (the level at
    which intervals are drawn, e.g. 0.025 for two 97.5% intervals), and
    ``disjoint`` says whether those two intervals are disjoint.
    """

    test_error: float
    adversarial_risk: float
    variance_test: float
    variance_adversarial: float
    m: int
    delta: float
    p_value: float
    log_p_value: float
    confidence_delta: float
    bound_test: float
    bound_adversarial: float
    disjoint: bool


def interval_test(
    losses: object,
    adv_losses: object,
    densities: object,
    *,
    confidence_delta: float = 0.025,
) -> IntervalTestResult:
    """Confidence-interval test of Sec. 3.1.

    Under (H) the intervals of (3) and (4) (both with range 1: the losses and
    L h_g lie in [0, 1]) each contain R(f) with probability >= 1 - delta, so they
    intersect with probability >= 1 - 2 delta; disjoint intervals reject (H) with
    p-value 2 delta. The smallest such delta solves
    |R_g - R_S| = B(m, sigma_S^2, delta, 1) + B(m, sigma_g^2, delta, 1), a quadratic
    in sqrt(ln(3/delta)/m): with c = sqrt(2)(sigma_S + sigma_g) and a = |R_g - R_S|,
    sqrt(ln(3/delta)/m) = (sqrt(c^2 + 24 a) - c) / 12.
    """
    ls = _check_losses(_as_1d(losses, "losses"), "losses")
    lh = weighted_adversarial_losses(adv_losses, densities)
    if ls.shape != lh.shape:
        raise ValueError(f"losses has shape {ls.shape}, adv_losses has shape {lh.shape}")
    m = ls.size
    r_s, r_g = float(ls.mean()), float(lh.mean())
    var_s = float(np.mean((ls - r_s) ** 2))
    var_g = float(np.mean((lh - r_g) ** 2))
    gap = abs(r_g - r_s)
    c = math.sqrt(2.0) * (math.sqrt(var_s) + math.sqrt(var_g))
    # stable root of 6 s^2 + c s - gap = 0
    s = 2.0 * gap / (c + math.sqrt(c * c + 24.0 * gap)) if gap > 0 else 0.0
    log_delta = min(0.0, math.log(3.0) - m * s * s)
    log_p = min(0.0, math.log(2.0) + log_delta)
    b_s = bernstein_bound(m, var_s, confidence_delta, 1.0)
    b_g = bernstein_bound(m, var_g, confidence_delta, 1.0)
    return IntervalTestResult(
        test_error=r_s,
        adversarial_risk=r_g,
        variance_test=var_s,
        variance_adversarial=var_g,
        m=m,
        delta=math.exp(log_delta),
        p_value=math.exp(log_p),
        log_p_value=log_p,
        confidence_delta=float(confidence_delta),
        bound_test=b_s,
        bound_adversarial=b_g,
        disjoint=gap > b_s + b_g,
    )
