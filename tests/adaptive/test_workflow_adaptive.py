"""The adaptive stage end to end with the offline config on the real mirror (CIFAR-10.1 v4, small grid)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml
from small_configs import load_small_config

pytestmark = pytest.mark.slow  # starts Snakemake


def test_adaptive_stage_offline(tmp_path, repo, shared_data, workflow_runner):
    cfg = tmp_path / "test.yaml"
    small = load_small_config("adaptive")  # .test/config-adaptive/config.yaml
    small["data"]["mirror"] = str(shared_data)  # absolute: the run is in a temporary folder
    cfg.write_text(yaml.safe_dump(small))
    base = "results/adaptive/cifar10_1_v4"
    targets = [f"{base}/{f}" for f in ("overfit.png", "overfit.pdf", "overfit.csv", "table.md", "summary.json")]
    workflow_runner(tmp_path, *targets, configfiles=[repo / "config" / "offline.yaml", cfg], extra=["--"])
    table = pd.read_csv(tmp_path / base / "table.csv")
    assert set(table["mechanism"]) == {"trivial", "ladder", "ladder_free", "thresholdout", "trivial_half"}
    assert set(table["attack"]) == {"boosting", "boosting_random", "ensemble", "selection"}
    assert (table["margin"] > 0).all()  # below the alpha = 0 bound (a theorem: a check of the code)
    summary = json.loads((tmp_path / base / "summary.json").read_text())
    assert summary["num_models"] == 30 and summary["n"] == 2021 and summary["below_theorem_bound"]
    # Blum & Hardt's attack under the trivial mechanism overfits more with more queries
    boost = table[(table["attack"] == "boosting") & (table["mechanism"] == "trivial")].set_index("k")
    assert boost.loc[50, "overfit_mean"] > boost.loc[1, "overfit_mean"]
