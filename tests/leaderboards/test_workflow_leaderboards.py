"""The leaderboards study through Snakemake on the mirrored files, checked against independent
computations from the mirror's own files."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats


@pytest.mark.slow
def test_leaderboards_workflow(tmp_path, repo, shared_data, workflow_runner):
    cfg = tmp_path / "test.yaml"
    cfg.write_text(yaml.safe_dump({"data": {"mirror": str(shared_data)}, "imagenetv2": {"enabled": False}}))
    workflow_runner(
        tmp_path,
        "leaderboards_fits",
        "leaderboards_livecodebench",
        configfiles=[repo / "config/offline.yaml", cfg],
        extra=["--"],
    )
    out = tmp_path / "results/leaderboards"
    # timm ImageNet -> ImageNetV2: 1,556 models; the probit fit by least squares on Phi^-1 of the raw CSVs
    raw = shared_data / "pytorch-image-models/results"
    o, n = (pd.read_csv(raw / f"results-{s}.csv") for s in ("imagenet", "imagenetv2-matched-frequency"))
    both = o.merge(n, on=["model", "img_size"], suffixes=("_o", "_n"))
    a = np.column_stack([stats.norm.ppf(both["top1_o"] / 100), np.ones(len(both))])
    coef, *_ = np.linalg.lstsq(a, stats.norm.ppf(both["top1_n"] / 100), rcond=None)
    summary = json.loads((out / "fits/timm_imagenetv2/summary.json").read_text())
    assert summary["n_models"] == 1556 == summary["probit_fit"]["n_models"]
    assert (summary["probit_fit"]["slope"], summary["probit_fit"]["intercept"]) == pytest.approx(tuple(coef), rel=1e-9)
    lin = np.polyfit(both["top1_o"], both["top1_n"], 1)
    assert (summary["linear_fit"]["slope"], summary["linear_fit"]["intercept"]) == pytest.approx(tuple(lin), rel=1e-9)
    table = pd.read_csv(out / "fits.csv")
    # per pair: the linear fit, the linear fit above 70%, the probit fit; the four timm pairs' ImageNet-only baseline
    assert len(table) == 3 * 9 + 4
    assert table["variance_ratio"].notna().sum() == 9 + 4  # every probit line carries its lack of fit
    # HumanEval+ grades the same problems with more tests: pass@1 can only drop
    he = pd.read_csv(out / "fits/evalplus_humaneval/models.csv")
    assert (he["gap"] >= 0).all()
    # LiveCodeBench: 45 models x 400 problems; the split leaves 32 models on the line
    acc = pd.read_csv(out / "livecodebench/accuracies.csv")
    assert len(acc) == 45 and (acc["n"] == 400).all()
    cont = json.loads((out / "livecodebench/contamination.json").read_text())
    assert cont["line_models"] == 32 and cont["placed_models"] == 13
    assert cont["n_original_items"] + cont["n_new_items"] == 400
    assert "DSCoder-33b-Ins" in cont["below_line"]
    checks = pd.read_csv(out / "livecodebench/contamination_checks.csv").set_index("check")
    assert checks.loc["items: atcoder", "below_line"] == 0 and checks.loc["items: leetcode", "below_line"] == 11
    lenses = json.loads((out / "livecodebench/lenses.json").read_text())
    assert lenses["similarity"]["num_models"] == 45 and lenses["testable_models"]["union_k"] >= 1
    # paired comparisons: GPT-4-Turbo-1106's simultaneous rank interval reaches 1, so it is tied with
    # GPT-4-Turbo-2024-04-09 (docs/measurements/pairs_leaderboards.json); every pair
    ranks = pd.read_csv(out / "livecodebench/ranks.csv")
    assert ranks["model"].iloc[0] == "GPT-4-Turbo-2024-04-09" and ranks["tied_with_best"].sum() == 2
    assert len(pd.read_csv(out / "livecodebench/pairs.csv")) == 990
