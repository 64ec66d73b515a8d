"""The search_analysis rules end to end on generated files of the search study's contract
(results/search/predictions/{cifar10_test,cifar10_1_v4}.npz), without training."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from small_configs import small_config_path

from holdout.predictions import save_predictions

pytestmark = pytest.mark.slow

FIG3 = [
    "figure3_similarity.png",
    "figure3_similarity.pdf",
    "figure3_similarity.csv",
    "figure3_covering.png",
    "figure3_covering.pdf",
    "figure3_covering.csv",
    "figure3_summary.json",
    "checkpoints.csv",
]
RECHT = [
    "table1.csv",
    "table1.md",
    "linear_fit.csv",
    "linear_fit.md",
    "figure2.png",
    "figure2.pdf",
    "figure2.csv",
    "figure2_fit.csv",
]


# the generated contract files stand in for the search study's outputs: run the analysis rules only
ANALYSIS_ONLY = ["--allowed-rules", "search_analysis_figure3", "search_analysis_table1", "search_analysis_recht", "--"]


def test_search_analysis_rules(tmp_path, workflow_runner, search_predictions):
    orig = search_predictions("cifar10_test", num_models=8, n=1000)
    new = search_predictions("cifar10_1_v4", num_models=8, n=800, seed=1, difficulty_shift=0.1)
    save_predictions(tmp_path / "results/search/predictions/cifar10_test.npz", orig)
    save_predictions(tmp_path / "results/search/predictions/cifar10_1_v4.npz", new)
    cfg = small_config_path("search_analysis")  # as is: the paper's 50% filter, a 26-point eta grid
    out = "results/search_analysis"
    targets = [f"{out}/{f}" for f in FIG3 + ["table1.csv", "table1.md"]]
    targets += [f"{out}/recht_cifar10_1_v4/{f}" for f in RECHT]
    workflow_runner(tmp_path, *targets, configfiles=[cfg], extra=["--nolock", *ANALYSIS_ONLY])
    res = tmp_path / out
    acc = orig.accuracies()
    kept = int((acc >= 0.5).sum())
    summary = json.loads((res / "figure3_summary.json").read_text())
    assert (summary["num_checkpoints"], summary["num_kept"], summary["num_models"]) == (32, kept, 8)
    assert kept < 32 and summary["mean_similarity"] > summary["mean_independent_similarity"]
    pairs = pd.read_csv(res / "figure3_similarity.csv")
    assert len(pairs) == kept * (kept - 1) // 2 and (pairs[["accuracy_i", "accuracy_j"]] >= 0.5).all().all()
    cover = pd.read_csv(res / "figure3_covering.csv")
    assert len(cover) == 26 and cover["covering_number_upper_bound"].between(1, kept).all()
    assert len(pd.read_csv(res / "checkpoints.csv")) == 32
    t1 = pd.read_csv(res / "table1.csv")
    assert t1["name"].tolist() == [f"all {kept}", "5 random", "5 highest scoring"]
    assert t1["num_models"].tolist() == [kept, 5, 5] and (t1["n"] == 10000).all()  # search_analysis.table1.n
    assert (t1["sb_gain"] >= 1).all() and (t1["eps"] == 0.02).all()
    top5 = np.sort(acc)[-5:].mean()
    assert t1.loc[2, "mean_accuracy"] == pytest.approx(top5)
    assert "| 5 highest scoring |" in (res / "table1.md").read_text()
    recht = pd.read_csv(res / "recht_cifar10_1_v4/table1.csv")
    assert len(recht) == kept and (recht["new_n"] == 800).all()
    fit = pd.read_csv(res / "recht_cifar10_1_v4/linear_fit.csv").iloc[0]
    assert fit["n"] == kept and fit["slope"] > 0
    assert len(pd.read_csv(res / "recht_cifar10_1_v4/figure2.csv")) == kept
    log = (tmp_path / "logs/search_analysis/figure3.log").read_text()
    assert f"{kept} of 32 checkpoints (8 models) have accuracy >= 0.5" in log
    # a second run has nothing to do
    again = workflow_runner(tmp_path, *targets, configfiles=[cfg], extra=["-n", *ANALYSIS_ONLY])
    assert "Nothing to be done" in again.stdout + again.stderr


def test_search_analysis_stops_on_too_few_checkpoints(tmp_path, workflow_runner, search_predictions):
    """All checkpoints below the threshold: the job fails with the file and the count in the log."""
    save_predictions(
        tmp_path / "results/search/predictions/cifar10_test.npz",
        search_predictions("cifar10_test", num_models=3, n=300),
    )
    cfg = tmp_path / "test.yaml"
    cfg.write_text(yaml.safe_dump({"search_analysis": {"min_accuracy": 0.99}}))
    proc = workflow_runner(
        tmp_path,
        "results/search_analysis/figure3_summary.json",
        configfiles=[cfg],
        extra=["--nolock", *ANALYSIS_ONLY],
        check=False,
    )
    assert proc.returncode != 0
    log = (tmp_path / "logs/search_analysis/figure3.log").read_text()
    assert "0 of 12 checkpoints reach accuracy >= 0.99" in log
