"""The audit stage in the workflow: every data.user_predictions entry gets its report; a set's
newer test set comes from another user set (audit.user.<name>.new_set)."""

from __future__ import annotations

import json

import pytest
import yaml
from small_configs import in_folder, load_small_config

pytestmark = pytest.mark.slow


def test_audit_user_sets(tmp_path, repo, shared_data, workflow_runner):
    cfg = tmp_path / "test.yaml"
    # .test/config-audit/config.yaml with the mirror and the files' paths made absolute (the run is
    # in a temporary folder; the file's paths are relative to its folder)
    small = load_small_config("audit")
    small["data"]["mirror"] = str(shared_data)
    for entry in small["data"]["user_predictions"]:
        for key in ("predictions", "labels"):
            entry[key] = in_folder("audit", entry[key])
    cfg.write_text(yaml.safe_dump(small))
    targets = [f"results/audit/user_{n}/report.html" for n in ("example_csv", "example_npy")]
    workflow_runner(tmp_path, *targets, configfiles=[repo / "config/offline.yaml", cfg], extra=["--"])
    csv = json.loads((tmp_path / "results/audit/user_example_csv/summary.json").read_text())
    npy = json.loads((tmp_path / "results/audit/user_example_npy/summary.json").read_text())
    assert csv["new"]["mean_gap"] == 0.0  # the example's two layouts hold the same predictions
    assert csv["new"]["fit"]["slope"] == pytest.approx(1.0) and csv["rvw"]["bits"] == 2
    assert "new" not in npy and "rvw" not in npy and npy["bounds"]["eps"] == 0.05
    for name in ("new_vs_original.png", "new_vs_original.csv", "new_vs_original_fit.csv", "linear_fit.csv"):
        assert (tmp_path / "results/audit/user_example_csv" / name).is_file(), name
