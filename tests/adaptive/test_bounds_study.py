"""Section 4 bound against hand values; the study end to end on a small synthetic set."""

import math

import numpy as np
import pytest

from holdout.adaptive import bounds, study
from holdout.predictions import Predictions


def test_section4_bound_alpha_zero_hand_value():
    # Mania et al. Corollary 4 at alpha = 0: eps = sqrt(4 (k log(n+1) + log(2/delta)) / n);
    # n = 5000, k = 10, delta = 0.05: sqrt(4 (10 * 8.517393 + 3.688879) / 5000) = 0.266628
    eps, alpha = bounds.section4_bound(5000, 10, 0.0, 0.05)
    assert (eps, alpha) == (pytest.approx(0.266628, abs=1e-6), 0.0)


def test_section4_bound_tightens_with_similarity():
    loose, _ = bounds.section4_bound(5000, 10, 0.5, 0.05)
    tight, alpha = bounds.section4_bound(5000, 10, 0.99, 0.05)
    assert tight < loose and alpha > 0
    # at alpha = 1 eps = sqrt(4 (log(5001) + log(40)) / 5000) = 0.098818 (needs eta ~ 1 - 2e-4 here)
    assert tight == pytest.approx(math.sqrt(4 * (math.log(5001) + math.log(40)) / 5000), abs=1e-6)


def test_overfit_bound_adds_heldout_term():
    b = bounds.overfit_bound(1000, 1000, 4, 0.0, 0.1)
    eps = math.sqrt(4 * (5 * math.log(1001) + math.log(2 / 0.05)) / 1000)
    assert b == pytest.approx(eps + math.sqrt(math.log(2 / 0.05) / 2000))


def test_seeded_split_partitions():
    s = study.seeded_split(11, np.random.default_rng(0))
    assert sorted(np.concatenate([s.attack, s.heldout]).tolist()) == list(range(11))
    assert sorted(np.concatenate([s.to_train, s.to_holdout]).tolist()) == s.attack.tolist()


def test_run_study_small_set_below_the_theorem_bound():
    rng = np.random.default_rng(0)
    n, k_models = 400, 6
    y = rng.integers(0, 3, n)
    preds = np.where(rng.random((k_models, n)) < 0.7, y, rng.integers(0, 3, (k_models, n)))
    p = Predictions.create(preds, y, [f"m{i}" for i in range(k_models)], num_classes=3, test_set="toy")
    params = study.StudyParams(n_splits=2, k_grid=(1, 2, 5, 20), ensemble_k_max=5, subset_size=3)
    runs = study.run_study(p, params)
    assert set(runs["attack"]) == {"boosting", "boosting_random", "ensemble", "selection"}
    assert set(runs["mechanism"]) == set(study.MECHANISMS)
    table = study.summarize(runs, 0.05)
    assert (table["margin"] > 0).all()  # below the alpha = 0 bound, a theorem (a check of the code)
    assert np.allclose(runs["overfit"], runs["acc_attack"] - runs["acc_heldout"])
