"""Sample size and minimum detectable difference of paired comparisons: Connor's (1987) closed form
recomputed by hand, round trips between n and the detectable difference, the correlation-to-
discordance map against a 2 x 2 table, and (slow) the promised power checked by simulating paired
0/1 data."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from holdout.stats import (
    discordance_from_correlation,
    mcnemar,
    mcnemar_mde,
    mcnemar_sample_size,
    paired_mde,
    paired_sample_size,
)


def test_connor_closed_form_by_hand() -> None:
    # Connor (1987), Biometrics 43:207-211: p10 = 0.085, p01 = 0.065 (psi = 0.15, delta = 0.02), alpha 0.05, power 0.8
    za, zb = stats.norm.isf(0.025), stats.norm.isf(0.2)
    want = (za * math.sqrt(0.15) + zb * math.sqrt(0.15 - 0.02**2)) ** 2 / 0.02**2
    assert mcnemar_sample_size(0.02, 0.15) == pytest.approx(want, rel=1e-14)
    assert math.ceil(mcnemar_sample_size(0.02, 0.15)) == 2941
    assert mcnemar_sample_size(-0.02, 0.15) == mcnemar_sample_size(0.02, 0.15)
    assert mcnemar_sample_size(0.02, 0.15, design_effect=2.5) == pytest.approx(2.5 * want, rel=1e-14)


@pytest.mark.parametrize(("n", "psi"), [(400, 0.3), (500, 0.12), (12_032, 0.05), (60, 0.6)])
@pytest.mark.parametrize("deff", [1.0, 1.7])
def test_mde_and_sample_size_are_inverse(n: int, psi: float, deff: float) -> None:
    mde = mcnemar_mde(n, psi, design_effect=deff)
    assert 0 < mde <= psi
    assert mcnemar_sample_size(mde, psi, design_effect=deff) == pytest.approx(n, rel=1e-9)
    sd = 0.37
    assert paired_sample_size(paired_mde(n, sd, design_effect=deff), sd, design_effect=deff) == pytest.approx(n)


def test_no_difference_needs_infinitely_many_items() -> None:
    assert mcnemar_sample_size(0.0, 0.2) == math.inf
    assert paired_sample_size(0.0, 0.3) == math.inf


def test_discordance_from_correlation_matches_a_2x2_table() -> None:
    # table p11 = 0.70, p10 = 0.10, p01 = 0.08, p00 = 0.12: accuracies 0.80 and 0.78
    p11, p10, p01 = 0.70, 0.10, 0.08
    pa, pb = p11 + p10, p11 + p01
    rho = (p11 - pa * pb) / math.sqrt(pa * (1 - pa) * pb * (1 - pb))
    assert discordance_from_correlation(pa, pb, rho) == pytest.approx(p10 + p01, rel=1e-12)
    assert discordance_from_correlation(0.8, 0.78, 0.0) == pytest.approx(0.8 * 0.22 + 0.78 * 0.2, rel=1e-12)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: mcnemar_sample_size(0.2, 0.1), "exceeds the discordance"),
        (lambda: mcnemar_sample_size(0.02, 1.5), "discordance must lie in"),
        (lambda: mcnemar_sample_size(0.02, 0.15, power=0.3), "power must lie in"),
        (lambda: mcnemar_sample_size(0.02, 0.15, alpha=0), "alpha must lie in"),
        (lambda: discordance_from_correlation(0.9, 0.2, 0.9), "impossible for accuracies"),
        (lambda: paired_mde(100, 0.3, design_effect=0), "design_effect must be"),
    ],
)
def test_bad_input_names_the_argument(call, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.slow
@pytest.mark.parametrize(("p10", "p01"), [(0.085, 0.065), (0.10, 0.05), (0.03, 0.01)])
def test_simulated_power_of_mcnemar_at_connors_n(p10: float, p01: float) -> None:
    # at n = Connor's sample size the asymptotic McNemar test (z = (b - c) / sqrt(b + c), the test
    # the closed form is derived for) rejects at alpha = 0.05 in about 80% of simulated test sets;
    # the exact test, more conservative, a little less
    rng = np.random.default_rng(0)
    n = math.ceil(mcnemar_sample_size(p10 - p01, p10 + p01))
    reps = 4000
    counts = rng.multinomial(n, [p10, p01, 1 - p10 - p01], size=reps)
    b, c = counts[:, 0].astype(float), counts[:, 1].astype(float)
    z = np.abs(b - c) / np.sqrt(np.maximum(b + c, 1))
    power = float(np.mean(z > stats.norm.isf(0.025)))
    assert power == pytest.approx(0.8, abs=0.025)  # 4000 draws: standard error 0.0063
    exact = np.mean([mcnemar(int(x), int(y)).pvalue < 0.05 for x, y in zip(b[:1000], c[:1000])])
    assert 0.70 <= exact <= 0.83
