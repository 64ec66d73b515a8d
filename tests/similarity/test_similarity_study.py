"""holdout.similarity.study: the tables of one test set and the Mania-Table-1-like rows, on hand cases."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from holdout.bounds.study import count_testable_models
from holdout.predictions import Predictions
from holdout.similarity.study import (
    analyse_set,
    drop_excluded,
    eta_grid,
    measured_setting,
    table1_markdown,
    table1_rows,
    write_analysis,
)

# 3 models on 8 points, labels all 0: model a errs on 0-1, b on 0 and 2, c on 0-3
LABELS = np.zeros(8, dtype=int)
PREDS = np.array(
    [
        [1, 1, 0, 0, 0, 0, 0, 0],
        [1, 0, 1, 0, 0, 0, 0, 0],
        [1, 1, 1, 1, 0, 0, 0, 0],
    ]
)


def _preds() -> Predictions:
    return Predictions.create(PREDS, LABELS, ["a", "b", "c"], num_classes=2, test_set="toy")


def test_analyse_set_hand_case(tmp_path):
    etas = eta_grid(0.5, 1.0, 3)
    res = analyse_set(_preds(), test_set="toy", source="toy.npz", etas=etas, quantiles=(0.5,))
    assert list(res.models.accuracy) == [0.75, 0.75, 0.5]
    pairs = res.pairs.set_index(["model_i", "model_j"])
    assert pairs.loc[("a", "b"), "similarity"] == 6 / 8
    assert pairs.loc[("a", "c"), "similarity"] == 6 / 8
    assert pairs.loc[("a", "b"), "independent_similarity"] == pytest.approx(0.25 * 0.25 + 0.75 * 0.75)
    assert list(res.difficulty.num_points_misclassified_by_exactly_m) == [4, 1, 2, 1]
    s = res.summary
    assert (s["n"], s["num_models"], s["num_pairs"]) == (8, 3, 3)
    assert s["mean_similarity"] == pytest.approx(0.75)
    assert s["fraction_correct_by_all"] == 0.5 and s["fraction_wrong_by_all"] == 1 / 8
    assert list(res.covering.eta) == [0.5, 0.75, 1.0]
    assert res.covering.covering_number_upper_bound.iloc[-1] == 3  # eta = 1: every model covers itself only
    out = {k: tmp_path / f"{k}.csv" for k in ("models", "pairs", "covering", "difficulty")}
    out["summary"] = tmp_path / "summary.json"
    write_analysis(res, out)
    assert json.loads(out["summary"].read_text())["num_pairs"] == 3
    assert len(pd.read_csv(out["pairs"])) == 3


def test_analyse_set_needs_two_models_and_a_valid_eta_range():
    one, excluded = drop_excluded(_preds(), ["a", "b", "not-there"])
    assert excluded == ["a", "b"] and one.model_names == ("c",)
    with pytest.raises(ValueError, match="toy.npz: need at least 2 models"):
        analyse_set(one, test_set="toy", source="toy.npz", etas=eta_grid(0.5, 1, 2))
    with pytest.raises(ValueError, match="similarity.eta: min=0.9 is above max=0.5"):
        eta_grid(0.9, 0.5, 3)


def test_measured_setting_names_its_source():
    summary = {
        "n": 8,
        "mean_accuracy": 0.6,
        "mean_similarity": 0.4,
        "mean_independent_similarity": 0.5,
        "num_models": 3,
        "test_set": "toy",
        "source": "toy.npz",
        "excluded_models": [],
    }
    setting = measured_setting(summary)
    assert setting["mean_similarity"] == 0.4 and setting["test_set"] == "toy"
    assert setting["source"] == "measured by the similarity study on toy (toy.npz); excluded models: none"


def test_table1_rows_use_the_bounds_study():
    rows = table1_rows(
        _preds(), test_set="toy", subsets=[{"name": "top 2", "top": 2}], eps_values=[0.05], delta=0.05, n=1000
    )
    assert list(rows.models) == ["all 3 models", "top 2"]
    top2 = rows.iloc[1]
    assert top2.model_names == "a b" and top2.mean_accuracy == 0.75 and top2.mean_similarity == 0.75
    tm = count_testable_models(1000, 0.25, 0.75, 0.05, 0.05)
    assert (top2.k_union, top2.k_similarity, top2.k_naive_bayes) == (tm.union_k, tm.similarity_k, tm.naive_bayes_k)
    with pytest.raises(ValueError, match="'one' selects fewer than 2 models on toy"):
        table1_rows(_preds(), test_set="toy", subsets=[{"name": "one", "top": 1}], eps_values=[0.05], delta=0.05)


def test_table1_markdown_prints_as_the_paper():
    table = pd.DataFrame(
        [
            {
                "test_set": "t",
                "models": "m",
                "num_models": 20,
                "n": 10000,
                "eps": 0.01,
                "delta": 0.05,
                "mean_accuracy": 0.968,
                "mean_similarity": 0.975,
                "mean_independent_similarity": 0.938,
                "k_union": 1234,
                "gain_similarity": 9.63,
                "gain_naive_bayes": 15500.0,
            },
            {
                "test_set": "t",
                "models": "m0",
                "num_models": 2,
                "n": 100,
                "eps": 0.01,
                "delta": 0.05,
                "mean_accuracy": 0.5,
                "mean_similarity": 0.5,
                "mean_independent_similarity": 0.5,
                "k_union": 0,
                "gain_similarity": float("nan"),
                "gain_naive_bayes": float("nan"),
            },
        ]
    )
    md = table1_markdown(table).splitlines()
    assert md[1] == "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    assert md[2] == "| t | m | 20 | 10,000 | 0.01 | 96.8% | 97.5% | 93.8% | 1,234 | 9.6x | 1.6e4x |"
    assert md[3].endswith("| 0 | n/a (k_UB = 0) | n/a (k_UB = 0) |")
    assert md[5].startswith("delta = 0.05. SB, NBB:")
