"""The site stage in the workflow: rule site_build builds the SPEC's site into results/site/shipped/
from data.mirror and puts its index beside it for the report."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

pytestmark = pytest.mark.slow


def test_site_build_rule(tmp_path, repo, shared_data, workflow_runner):
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        yaml.safe_dump(
            {
                "title": "Two logs",
                "benchmarks": {
                    "helm_bbq": {"logs": "evallogs/helm_safety_bbq", "options": {"eps": 0.05}},
                    "asdiv": {"logs": "evallogs/lmeval_asdiv_llama3"},
                },
            },
            sort_keys=False,
        )
    )
    cfg = tmp_path / "test.yaml"
    cfg.write_text(yaml.safe_dump({"data": {"mirror": str(shared_data)}, "site": {"enabled": True, "spec": str(spec)}}))
    workflow_runner(tmp_path, "results/site/shipped_index.csv", configfiles=[repo / "config/offline.yaml", cfg])
    site = tmp_path / "results/site/shipped"
    meta = json.loads((site / "site.json").read_text())
    assert [b["name"] for b in meta["benchmarks"]] == ["helm_bbq", "asdiv"]
    index = pd.read_csv(tmp_path / "results/site/shipped_index.csv")
    assert index["k"].tolist() == [9, 3] and (site / "bench-helm_bbq.html").is_file()
    assert (site / "helm_bbq" / "ranks.csv").is_file() and (tmp_path / "logs/site/build.log").is_file()
