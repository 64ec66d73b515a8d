"""Hand-computed cases of the mechanisms (Blum & Hardt 2015; Dwork et al. 2015)."""

import numpy as np
import pytest

from holdout.adaptive import mechanisms as m


def _correct(accs, n=10):
    """k x n correctness rows with the given accuracies (multiples of 1/n)."""
    return np.array([[i < round(a * n) for i in range(n)] for a in accs])


def test_trivial_is_exact_accuracy():
    assert m.trivial(_correct([0.3, 0.7])).tolist() == pytest.approx([0.3, 0.7])


def test_ladder_answer_sequence_by_hand():
    # losses 0.7, 0.65, 0.5, 0.48, 0.2 with eta = 0.1: R = [0.7]=0.7; 0.65 not < 0.6; 0.5 < 0.6 -> 0.5;
    # 0.48 not < 0.4; 0.2 < 0.4 -> 0.2. Answers are accuracies 1 - R.
    correct = _correct([0.3, 0.35, 0.5, 0.52, 0.8], n=100)
    assert m.ladder(correct, 0.1) == pytest.approx([0.3, 0.3, 0.5, 0.5, 0.8])


def test_ladder_rounds_to_step():
    # loss 0.63 -> [0.63]_0.1 = 0.6: the analyst sees 0.4, not 0.37
    assert m.ladder(_correct([0.37], n=100), 0.1) == pytest.approx([0.4])
    with pytest.raises(ValueError, match="step"):
        m.ladder(_correct([0.5]), 0.0)


def test_parameter_free_ladder_needs_a_standard_error():
    # n = 4: first submission accepted (loss 0.5); second identical -> paired sd 0, loss not lower -> kept;
    # third wins on one point only: diff (-1,0,0,0), sd 0.5, threshold 0.5/2 = 0.25 > 0.25 drop? 0.25 < 0.25 no
    c = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]], bool)
    # fourth: diff vs leader (row 0) (0,0,-1,-1): sd 0.577, threshold 0.289; loss 0 < 0.5 - 0.289 -> accepted
    assert m.ladder_parameter_free(c) == pytest.approx([0.5, 0.5, 0.5, 1.0])


def test_thresholdout_without_noise_is_its_definition():
    train = _correct([0.5, 0.5, 0.9], n=100)
    hold = _correct([0.52, 0.6, 0.7], n=100)
    params = m.ThresholdoutParams(threshold=0.05, sigma=0.0)
    out = m.thresholdout(train, hold, params, np.random.default_rng(0))
    # |diff| 0.02 <= T -> train 0.5; 0.1 > T -> holdout 0.6; 0.2 > T -> holdout 0.7
    assert out == pytest.approx([0.5, 0.6, 0.7])


def test_thresholdout_budget_stops_answering():
    train, hold = _correct([0.5, 0.5, 0.5], n=10), _correct([0.9, 0.9, 0.9], n=10)
    out = m.thresholdout(train, hold, m.ThresholdoutParams(0.05, 0.0, budget=2), np.random.default_rng(0))
    assert out[:2] == pytest.approx([0.9, 0.9]) and np.isnan(out[2])


def test_thresholdout_published_parameters():
    p = m.thresholdout_published(10_000)  # Dwork et al.'s experiment: n = 10,000, T = 0.04, sigma = 0.01
    assert (p.threshold, p.sigma) == pytest.approx((0.04, 0.01))


def test_thresholdout_noise_has_laplace_scale():
    train, hold = _correct([0.5] * 4000, n=10), _correct([0.9] * 4000, n=10)
    out = m.thresholdout(train, hold, m.ThresholdoutParams(0.05, 0.01), np.random.default_rng(1))
    # every answer is holdout + Lap(0.01): mean absolute deviation 0.01
    assert np.mean(np.abs(out - 0.9)) == pytest.approx(0.01, rel=0.1)
