"""holdout.adversarial.synthetic.study: the paper's intermediate regime, the summary beside the paper,
and one small trained case (Werpachowski et al. 2019, Appendix A.2-A.3)."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest

from holdout.adversarial import synthetic as syn
from holdout.adversarial.synthetic import study


def _groups() -> pd.DataFrame:
    rows = []
    for eps, p in ((1.0, 0.95), (6.0, 0.7), (10.0, 0.55), (50.0, 0.0)):
        rows += [{"case": "dependent", "N": 1, "eps": eps, "p_value": p + d} for d in (-0.01, 0.01)]
        rows.append({"case": "dependent", "N": 25, "eps": eps, "p_value": p / 2})
    rows.append({"case": "independent", "N": 1, "eps": 6.0, "p_value": 0.99})
    return pd.DataFrame(rows)


def test_paper_comparison_rows():
    training = pd.DataFrame(
        {
            "case": ["dependent", "independent"],
            "train_loss": [0.26, 0.0],
            "train_accuracy": [1.0, 1.0],
            "true_risk": [0.49, 0.1],
        }
    )
    figure4 = pd.DataFrame({"case": ["independent", "independent"], "p_value_mean": [0.97, 0.99]})
    per_run = _groups().assign(p_value=lambda d: d.p_value)
    table = study.paper_comparison(training, figure4, per_run, _groups(), [6.0]).set_index("quantity")
    assert table.loc["dependent: final penalized training loss (mean over runs)", "paper"] == 0.25
    assert table.loc["independent: smallest average p-value over all eps and N", "ours"] == 0.97
    assert table.loc["dependent, 10 <= eps <= 50: largest single-run p-value", "ours"] == pytest.approx(0.56)
    assert table.loc["dependent, eps = 6: mean single-run p-value (N = 1)", "ours"] == pytest.approx(0.7)
    assert table.loc["dependent, eps = 6: N = 25 p-value(s)", "ours"] == "0.3500"
    # compared at the paper's eps only; the transition is described (means 0.95, 0.7, 0.55, 0.0)
    assert "dependent, eps = 10: mean single-run p-value (N = 1)" not in table.index
    assert table.loc["dependent: smallest eps with mean single-run p-value < 0.05", "ours"] == 50.0
    assert (
        table.loc["dependent: largest eps below the rejection range with mean single-run p-value >= 0.5", "ours"]
        == 10.0
    )
    assert "dependent, eps = 1: mean single-run p-value (N = 1)" not in table.index


def test_train_case_small(tmp_path):
    cfg = {
        "dim": 5,
        "mean": 1.0,
        "std": 2.0,
        "margin": 0.025,
        "learning_rate": 0.01,
        "steps": 20,
        "batch_size": 8,
        "penalty_dependent": 1.0,
        "repetitions": 3,
        "n_test_independent": 40,
        "n_test_dependent": 40,
        "n_train": 16,
        "seed": 1,
        "dependent_train_fraction": 0.5,
        "dependent_mode": "replace",
    }
    runs = study.train_case(cfg, "independent", 1, logging.getLogger("test"))
    assert runs.models.w.shape == (3, 5) and runs.x_test.shape == (40, 5) and len(runs.run_seeds) == 3
    assert np.all((runs.true_risk >= 0) & (runs.true_risk <= 1))
    runs.save(tmp_path / "t.npz", tmp_path / "m.npz", tmp_path / "training.csv")
    frame = pd.read_csv(tmp_path / "training.csv")
    assert list(frame.run) == [0, 1, 2] and set(frame.case) == {"independent"}
    assert np.array_equal(np.load(tmp_path / "m.npz")["w"], runs.models.w)
    again = study.train_case(cfg, "independent", 1, logging.getLogger("test"))
    assert np.array_equal(again.models.w, runs.models.w)  # seeded
    ecfg = {**cfg, "eps_grid": {"min": 0.1, "max": 1.0, "num": 2}, "U": 2.0, "n_models": [1, 3]}
    per_run, groups = study.evaluate_case(
        ecfg, "independent", tmp_path / "t.npz", tmp_path / "m.npz", logging.getLogger("t")
    )
    ref_runs, ref_groups = syn.evaluate_grid(
        syn.mixture_from_config(cfg), runs.x_test, runs.y_test, runs.models.w, runs.models.b, [0.1, 1.0], [1, 3], 2.0
    )
    assert list(per_run.columns) == ["case", *ref_runs.columns] and set(per_run.case) == {"independent"}
    pd.testing.assert_frame_equal(per_run.drop(columns="case"), ref_runs)
    pd.testing.assert_frame_equal(groups.drop(columns="case"), ref_groups)
