"""The adversarial lens's verdict: the N-model test first, Holm over the K pairwise tests, the G3 caveat.

Was: one uncorrected pairwise rejection among K models read "evidence of dependence", and the
verdict never said that density preservation (G3) excludes centred data sets such as CIFAR-10
(Werpachowski et al. 2019, Sec. 5.1, footnote 4).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from holdout.audit.engines.adversarial_lens import AdversarialLens, _with_holm, adversarial_verdict
from holdout.stats import holm


def _lens(p_values: list[float], n_model_p: float, alpha: float = 0.05) -> AdversarialLens:
    k = len(p_values)
    pairwise = pd.DataFrame(
        {
            "model": [f"m{i}" for i in range(k)],
            "aeg": "strongest",
            "m": 2000,
            "R_S": 0.1,
            "R_g": 0.1,
            "T": 0.0,
            "variance": 0.01,
            "U": 1.5,
            "p_value": p_values,
            "log_p_value": np.log(p_values),
            "rejected": np.asarray(p_values) <= alpha,
        }
    )
    n_model = pd.DataFrame(
        [{"aeg": "strongest", "n_models": k, "statistic": 0.0, "variance": 0.0, "U": 1.5, "p_value": n_model_p}]
    )
    return AdversarialLens("t.npz", 1.0, "max", alpha, _with_holm(pairwise, alpha), n_model, ())


def test_one_uncorrected_rejection_among_30_models_is_not_evidence():
    p = [0.03] + [0.5] * 29  # Holm: 30 * 0.03 = 0.9
    text = adversarial_verdict(_lens(p, n_model_p=0.6))
    assert "evidence of dependence between" not in text
    assert "0 of 30 at 0.05 after Holm's correction" in text and "(1 uncorrected" in text
    assert text.index("N-model test over all 30 models gives p = 0.6") < text.index("pairwise test")


def test_holm_rejection_or_n_model_rejection_is_evidence():
    assert "evidence of dependence between" in adversarial_verdict(_lens([1e-5] + [0.5] * 29, n_model_p=0.6))
    assert "evidence of dependence between" in adversarial_verdict(_lens([0.5] * 30, n_model_p=0.001))


def test_every_verdict_states_the_g3_caveat():
    for lens in (_lens([0.5] * 4, 0.9), _lens([1e-9] * 4, 1e-9)):
        text = adversarial_verdict(lens)
        assert "density preservation, G3" in text and "CIFAR-10" in text and "footnote 4" in text


@pytest.mark.parametrize("seed", range(5))
def test_holm_matches_its_definition(seed):
    """max over i <= j of min(1, (K - i + 1) p_(i)), by brute force over the sorted order."""
    rng = np.random.default_rng(seed)
    p = np.concatenate([rng.uniform(0, 0.2, 6), [1e-320, 0.5, 0.5]])
    rng.shuffle(p)
    order = np.argsort(p, kind="stable")
    expected = np.empty_like(p)
    for j, idx in enumerate(order):
        expected[idx] = max(min(1.0, (p.size - i) * p[order[i]]) for i in range(j + 1))
    with np.errstate(divide="ignore"):
        got = np.exp(holm(np.log(p)))
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_holm_keeps_p_values_below_the_smallest_double():
    assert holm(np.array([-2000.0, -1.0]))[0] == pytest.approx(-2000.0 + np.log(2))
