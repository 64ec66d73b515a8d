"""How many items a paired comparison needs: sample size and minimum detectable difference.

Two models on the same n items, per-item difference d_i = a_i - b_i with mean delta. A two-sided
level-alpha test of delta = 0 has power 1 - beta at delta when

    sqrt(n) |delta| = z_{1-alpha/2} sigma_0 + z_{1-beta} sigma_1,

sigma_0 and sigma_1 the standard deviations of d_i under the null and at delta. For 0/1 correctness
with discordance psi = P(a != b) (the share of items exactly one model gets right), sigma_0^2 = psi
and sigma_1^2 = psi - delta^2: Connor's (1987) sample size of McNemar's test,

    n = (z_{1-alpha/2} sqrt(psi) + z_{1-beta} sqrt(psi - delta^2))^2 / delta^2.

For pass rates or other scores, sigma_0 = sigma_1 = the standard deviation of d_i (the paired
z / t approximation). Clustered items: the variance of the mean is the design effect D times the
independent one (Miller 2024, App. A), so n grows by D and the detectable difference by sqrt(D),
with the clusters keeping their sizes as the test set grows (as in the design effect of
cluster-randomised trials, Donner & Klar 2000).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "discordance_from_correlation",
    "mcnemar_mde",
    "mcnemar_sample_size",
    "paired_mde",
    "paired_sample_size",
]


def _z(alpha: float, power: float) -> tuple[float, float]:
    from scipy import stats

    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    if not 0.5 <= power < 1:
        raise ValueError(f"power must lie in [0.5, 1), got {power!r}")
    return float(stats.norm.isf(alpha / 2)), float(stats.norm.isf(1 - power))


def _design_effect(design_effect: float) -> float:
    if not (design_effect > 0 and math.isfinite(design_effect)):
        raise ValueError(f"design_effect must be a positive number, got {design_effect!r}")
    return float(design_effect)


def _check_discordance(discordance: float) -> float:
    if not 0 <= discordance <= 1:
        raise ValueError(
            f"discordance must lie in [0, 1] (the share of items exactly one model solves), got {discordance!r}"
        )
    return float(discordance)


def mcnemar_sample_size(
    diff: float, discordance: float, *, alpha: float = 0.05, power: float = 0.8, design_effect: float = 1.0
) -> float:
    """Items needed for McNemar's test to detect a paired difference ``diff`` in accuracy.

    Connor (1987, Biometrics 43:207-211): n = (z_{1-alpha/2} sqrt(psi) + z_{1-beta}
    sqrt(psi - delta^2))^2 / delta^2 with psi the ``discordance`` (p10 + p01) and delta = p10 - p01,
    times the ``design_effect`` for clustered items. Real-valued (round up for a count); inf at
    delta = 0. ValueError when |delta| > psi, a pair of models no 2 x 2 table can hold.

    >>> round(mcnemar_sample_size(0.02, 0.15), 1)
    2941.0
    """
    za, zb = _z(alpha, power)
    psi, delta = _check_discordance(discordance), abs(float(diff))
    if delta > psi + 1e-12:
        raise ValueError(f"|diff| = {delta:g} exceeds the discordance {psi:g}: no paired 2 x 2 table has both")
    if delta == 0:
        return math.inf
    root = za * math.sqrt(psi) + zb * math.sqrt(max(psi - delta**2, 0.0))
    return root**2 / delta**2 * _design_effect(design_effect)


def mcnemar_mde(
    n: float, discordance: float, *, alpha: float = 0.05, power: float = 0.8, design_effect: float = 1.0
) -> float:
    """The smallest |p10 - p01| McNemar's test detects on n items at discordance psi.

    Connor's equation solved for delta: the larger root of (m + z_b^2) delta^2 - 2 z_a sqrt(psi m)
    delta + (z_a^2 - z_b^2) psi = 0, delta = (z_a sqrt(psi m) + z_b sqrt(psi (m + z_b^2 - z_a^2)))
    / (m + z_b^2), with m = n / ``design_effect`` the effective number of items. inf when no
    delta <= psi reaches the power."""
    za, zb = _z(alpha, power)
    psi = _check_discordance(discordance)
    m = float(n) / _design_effect(design_effect)
    if not m > 0:
        raise ValueError(f"n must be positive, got {n!r}")
    spread = m + zb**2 - za**2
    if spread < 0:
        return math.inf
    delta = (za * math.sqrt(psi * m) + zb * math.sqrt(psi * spread)) / (m + zb**2)
    return delta if delta <= psi + 1e-12 else math.inf


def paired_sample_size(
    diff: float, sd_diff: float, *, alpha: float = 0.05, power: float = 0.8, design_effect: float = 1.0
) -> float:
    """Items needed to detect a mean paired difference ``diff`` of scores whose per-item differences
    have standard deviation ``sd_diff``: ((z_{1-alpha/2} + z_{1-beta}) sd / diff)^2 times the
    ``design_effect`` (the normal approximation of the paired t test; Chow, Shao & Wang 2008,
    Sample Size Calculations in Clinical Research, one-sample mean). inf at diff = 0."""
    za, zb = _z(alpha, power)
    if not sd_diff >= 0:
        raise ValueError(f"sd_diff must be >= 0, got {sd_diff!r}")
    if diff == 0:
        return math.inf
    return ((za + zb) * float(sd_diff) / abs(float(diff))) ** 2 * _design_effect(design_effect)


def paired_mde(
    n: float, sd_diff: float, *, alpha: float = 0.05, power: float = 0.8, design_effect: float = 1.0
) -> float:
    """The smallest |mean paired difference| detected on n items: (z_{1-alpha/2} + z_{1-beta}) sd
    sqrt(``design_effect`` / n)."""
    za, zb = _z(alpha, power)
    if not n > 0:
        raise ValueError(f"n must be positive, got {n!r}")
    return (za + zb) * float(sd_diff) * math.sqrt(_design_effect(design_effect) / float(n))


def discordance_from_correlation(accuracy_a: float, accuracy_b: float, correlation: float) -> float:
    """The discordance p10 + p01 of two 0/1 outcomes with accuracies p_a, p_b and Pearson (phi)
    correlation rho: p11 = p_a p_b + rho sqrt(p_a (1 - p_a) p_b (1 - p_b)), psi = p_a + p_b - 2 p11.
    ValueError when rho puts p11 outside [max(0, p_a + p_b - 1), min(p_a, p_b)] (the Frechet bounds:
    no 2 x 2 table has these margins and this correlation)."""
    pa, pb, rho = float(accuracy_a), float(accuracy_b), float(correlation)
    for name, p in (("accuracy_a", pa), ("accuracy_b", pb)):
        if not 0 < p < 1:
            raise ValueError(f"{name} must lie in (0, 1), got {p!r}")
    if not -1 <= rho <= 1:
        raise ValueError(f"correlation must lie in [-1, 1], got {rho!r}")
    p11 = pa * pb + rho * math.sqrt(pa * (1 - pa) * pb * (1 - pb))
    low, high = max(0.0, pa + pb - 1), min(pa, pb)
    if not low - 1e-12 <= p11 <= high + 1e-12:
        rho_max = (high - pa * pb) / math.sqrt(pa * (1 - pa) * pb * (1 - pb))
        raise ValueError(
            f"correlation {rho:g} is impossible for accuracies {pa:g} and {pb:g} "
            f"(at most {rho_max:.4f} for 0/1 outcomes)"
        )
    return float(np.clip(pa + pb - 2 * p11, 0.0, 1.0))
