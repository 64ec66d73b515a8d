"""Agreement on the line: the pieces against brute force and closed forms, and CIFAR-10.1, where the
truth is known."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from holdout.contamination.aline import _aline_d, agreement_rates, aline, aline_summary


def test_agreement_rates_match_a_double_loop():
    rng = np.random.default_rng(0)
    p = rng.integers(0, 4, (6, 50))
    brute = [np.mean(p[i] == p[j]) for i in range(6) for j in range(i + 1, 6)]
    np.testing.assert_allclose(agreement_rates(p), brute)
    with pytest.raises(ValueError, match="K >= 2"):
        agreement_rates(p[:1])


def test_aline_d_is_the_closed_form_least_squares_solution():
    """min sum_{i<j} ((u_i + u_j) / 2 - t_ij)^2 has u_i = (2 T_i - S) / (K - 2), S = 2 T / (K - 1)."""
    rng = np.random.default_rng(1)
    k = 7
    z_acc, z_o, z_n = rng.normal(size=k), rng.normal(size=k * (k - 1) // 2), rng.normal(size=k * (k - 1) // 2)
    iu, ju = np.triu_indices(k, 1)
    t = z_n + 0.8 * ((z_acc[iu] + z_acc[ju]) / 2 - z_o)
    t_i = np.array([t[(iu == i) | (ju == i)].sum() for i in range(k)])
    s = 2 * t.sum() / (k - 1)
    np.testing.assert_allclose(_aline_d(z_acc, z_o, z_n, 0.8, k), (2 * t_i - s) / (k - 2))


def test_no_shift_predicts_the_original_accuracy():
    rng = np.random.default_rng(2)
    labels = rng.integers(0, 10, 3000)
    preds = np.where(rng.random((5, 3000)) < np.linspace(0.5, 0.9, 5)[:, None], labels, rng.integers(0, 10, (5, 3000)))
    r = aline(list("abcde"), preds, labels, preds, labels)
    assert r.agreement.slope == pytest.approx(1.0) and r.agreement.bias == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(r.models["aline_s"], r.models["accuracy_original"], atol=1e-12)
    np.testing.assert_allclose(r.models["aline_d"], r.models["accuracy_original"], atol=1e-12)
    assert (r.models["error_naive"] == 0).all()
    assert "accuracy_new" not in aline(list("abcde"), preds, labels, preds).models


def _cifar(shared_data, split: str, names: list[str]) -> np.ndarray:
    root = shared_data / "CIFAR-10.1" / "model_predictions" / f"{split}_predictions"
    return np.array([json.loads((root / f"{n}_predictions.json").read_text()) for n in names])


def test_cifar10_1_v6_estimates_beat_the_naive_one(shared_data):
    """CIFAR-10.1 v6, the 30 published models: ALine-S and ALine-D within about 1.1 points of the
    true new accuracy on average (measured here), the naive 'same as original' 7.8 points off."""
    root = shared_data / "CIFAR-10.1" / "model_predictions" / "v6_predictions"
    names = sorted(p.name.removesuffix("_predictions.json") for p in root.glob("*_predictions.json"))
    labels = np.load(shared_data / "anchors" / "agreement_on_the_line" / "Y_cifar10.npy")
    new_labels = np.load(shared_data / "CIFAR-10.1" / "datasets" / "cifar10.1_v6_labels.npy")
    r = aline(names, _cifar(shared_data, "original", names), labels, _cifar(shared_data, "v6", names), new_labels)
    s = aline_summary({"v6": r}).iloc[0]
    assert s["models"] == 30 and s["agreement_r2"] > 0.95
    assert s["mae_s_points"] < 1.5 and s["mae_d_points"] < 1.5 and s["mae_naive_points"] > 7
    truth_line = stats.linregress(
        stats.norm.ppf(r.models["accuracy_original"]), stats.norm.ppf(r.models["accuracy_new"])
    )
    assert r.accuracy.slope == pytest.approx(truth_line.slope) and r.accuracy.bias == pytest.approx(
        truth_line.intercept
    )


def test_trajectory_anchor_accuracies_recomputed(shared_data):
    """kebaek/Agreement-on-the-line (commit 99cb46e): the ResNet-18 trajectory's CIFAR-10.1 accuracy
    runs 0.4495 (epoch 0) to 0.8585 (epoch 145); recomputed from the argmax predictions and labels."""
    root = shared_data / "anchors" / "agreement_on_the_line"
    preds = pd.read_csv(root / "resnet18_trajectory_cifar10.1_argmax_preds.csv", index_col="epoch")
    acc = pd.read_csv(root / "resnet18_trajectory_cifar10.1_accuracy.csv", index_col="epoch")
    ours = (preds.to_numpy() == np.load(root / "Y_cifar10.1.npy")[None, :]).mean(axis=1)
    np.testing.assert_allclose(ours, acc.loc[preds.index, "cifar10.1_accuracy"], atol=1e-12)
    assert ours[0] == pytest.approx(0.4495) and ours[-1] == pytest.approx(0.8585)
