"""The audit stage in the workflow: every data.user_predictions entry gets its report; a set's
newer test set comes from another user set (audit.user.<name>.new_set)."""

from __future__ import annotations

import json

import pytest
import yaml

pytestmark = pytest.mark.slow


def test_audit_user_sets(tmp_path, repo, shared_data, workflow_runner):
    cfg = tmp_path / "test.yaml"
    entries = yaml.safe_load((repo / "config/examples/user_models.yaml").read_text())["data"]["user_predictions"]
    for entry in entries:
        for key in ("predictions", "labels"):
            entry[key] = str(repo / entry[key])
    cfg.write_text(
        yaml.safe_dump(
            {
                "data": {"mirror": str(shared_data), "user_predictions": entries},
                "audit": {"eps": 0.05, "user": {"example_csv": {"new_set": "example_npy", "search_size": 3}}},
            }
        )
    )
    targets = [f"results/audit/user_{n}/report.html" for n in ("example_csv", "example_npy")]
    workflow_runner(tmp_path, *targets, configfiles=[repo / "config/offline.yaml", cfg], extra=["--"])
    csv = json.loads((tmp_path / "results/audit/user_example_csv/summary.json").read_text())
    npy = json.loads((tmp_path / "results/audit/user_example_npy/summary.json").read_text())
    assert csv["new"]["mean_gap"] == 0.0  # the example's two layouts hold the same predictions
    assert csv["new"]["fit"]["slope"] == pytest.approx(1.0) and csv["rvw"]["bits"] == 2
    assert "new" not in npy and "rvw" not in npy and npy["bounds"]["eps"] == 0.05
    for name in ("new_vs_original.png", "new_vs_original.csv", "new_vs_original_fit.csv", "linear_fit.csv"):
        assert (tmp_path / "results/audit/user_example_csv" / name).is_file(), name
