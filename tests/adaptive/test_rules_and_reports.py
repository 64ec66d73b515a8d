"""The analyst's keep rule in each setting, and the score each mechanism would report for the
submission (brute force: the mechanism run again with the submission as one more query)."""

import numpy as np
import pytest

from holdout.adaptive import mechanisms as m
from holdout.adaptive import study
from holdout.predictions import Predictions


def _preds(n=400, k=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, n)
    preds = np.where(rng.random((k, n)) < 0.8, y, rng.integers(0, 4, (k, n)))
    return Predictions.create(preds, y, [f"m{i}" for i in range(k)], num_classes=4, test_set="toy")


def test_keep_rule_per_attack_and_mechanism():
    for attack in ("boosting", "boosting_random"):
        for mech in ("trivial", "thresholdout", "trivial_half"):
            assert study.keep_rule(mech, attack) == "above_midpoint"
    assert study.keep_rule("ladder", "boosting_random") == study.keep_rule("ladder_free", "boosting") == "improved"
    assert study.keep_rule("trivial", "ensemble") == "above_base"


def test_blum_hardt_setting_keeps_the_queries_above_one_half_not_above_the_base():
    """Blum & Hardt (2015) Sec. 5 keep the perturbations with loss <= 1/2. With k = 3 the only
    candidate is query 2, and the submission is query 2 when kept, the base (k = 1) otherwise: a
    submission that changed must score above 1/2 on A, and one below the base's score is kept when
    the base scored above 1/2 (the earlier rule, above the base's score, never kept one)."""
    params = study.StudyParams(n_splits=60, k_grid=(1, 3), attacks=("boosting_random",), mechanisms=("trivial",))
    runs = study.run_study(_preds(), params).pivot(index="split", columns="k", values="acc_attack")
    changed = runs[3] != runs[1]
    assert (runs[3][changed] > 0.5).all()
    assert (changed & (runs[3] < runs[1])).any()


@pytest.fixture(scope="module")
def setting():
    rng = np.random.default_rng(7)
    n, k = 600, 40
    correct = rng.random((k, n)) < np.linspace(0.3, 0.8, k)[:, None]  # scores that climb: leaders change
    split = study.seeded_split(n, rng)
    sub = rng.random((3, n)) < np.array([0.5, 0.9, 0.6])[:, None]
    return correct, split, sub, np.array([5, 20, 40])


@pytest.mark.parametrize("mech", ["trivial", "trivial_half", "ladder", "ladder_free", "thresholdout"])
def test_reported_score_is_the_mechanism_answering_the_submission_next(setting, mech):
    correct, split, sub, ks = setting
    p, seed = study.StudyParams(), [0, 1, 2, 3]
    a, t, h = split.attack, split.to_train, split.to_holdout
    thr = m.thresholdout_published(h.size)

    def run(rows: np.ndarray) -> np.ndarray:
        if mech == "trivial":
            return m.trivial(rows[:, a])
        if mech == "trivial_half":
            return m.trivial(rows[:, h])
        if mech == "ladder":
            return m.ladder(rows[:, a], p.ladder_step)
        if mech == "ladder_free":
            return m.ladder_parameter_free(rows[:, a])
        return m.thresholdout(rows[:, t], rows[:, h], thr, np.random.default_rng(seed))

    expected = [run(np.vstack([correct[:k], sub[g]]))[-1] for g, k in enumerate(ks)]
    got = study.reported_scores(mech, study.query_accuracies(correct, split), run(correct), sub, ks, split, p, seed)
    assert got == pytest.approx(expected, abs=1e-12)


def test_thresholdout_says_which_answers_came_from_its_holdout():
    out = m.thresholdout_from_accuracies([0.5, 0.5, 0.9], [0.52, 0.6, 0.7], m.ThresholdoutParams(0.05, 0.0), None)
    assert out.from_holdout.tolist() == [False, True, True] and out.answers == pytest.approx([0.5, 0.6, 0.7])


def test_study_reports_the_submission_beside_its_base_and_thresholdouts_share():
    params = study.StudyParams(n_splits=2, k_grid=(1, 50), attacks=("boosting",))
    table = study.summarize(study.run_study(_preds(), params), 0.05)
    last = table[table["k"] == 50].set_index("mechanism")
    assert 0 < last.loc["thresholdout", "frac_from_holdout"] < 1
    assert last.drop("thresholdout")["frac_from_holdout"].isna().all()
    # the base is the most accurate model; trivial reports the submission's score on A exactly
    triv = last.loc["trivial"]
    assert triv["reported_minus_heldout_mean"] == pytest.approx(triv["acc_attack"] - triv["acc_heldout"])
    assert triv["base_acc_attack"] > 0.7
