"""The contamination study through Snakemake on the mirrored files: ConStat's tables redone, the
anchors recomputed (ALine needs the data stage's prediction sets: its library test covers it)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml


@pytest.mark.slow
def test_contamination_workflow(tmp_path, repo, shared_data, workflow_runner):
    cfg = tmp_path / "test.yaml"
    settings = {"data": {"mirror": str(shared_data)}, "contamination": {"constat": {"tables": ["gsm8k_synthetic"]}}}
    cfg.write_text(yaml.safe_dump(settings))
    workflow_runner(
        tmp_path,
        "contamination_constat",
        "contamination_anchors",
        configfiles=[repo / "config/offline.yaml", cfg],
        extra=["--"],
    )
    out = tmp_path / "results/contamination"
    summary = pd.read_csv(out / "constat/summary.csv").iloc[0]
    assert summary["table"] == "gsm8k_synthetic" and summary["max_abs_delta_diff_points"] < 1
    assert summary["flagged_published"] == summary["flagged_ours"] == 27
    rows = pd.read_csv(out / "constat/gsm8k_synthetic.csv").set_index("model")
    assert rows.loc["mistralai/Mistral-7B-v0.1", "flag_ours"]
    anchors = json.loads((out / "anchors/summary.json").read_text())
    assert anchors["numbers"]["gsm1k"]["spearman_r"] == pytest.approx(0.2876, abs=1e-4)
    assert anchors["numbers"]["mmlu_cf_5shot"]["positive"] == 29
    assert any("sign disagrees" in f for f in anchors["findings"]["mmlu_cf"])
    for name in ("gsm1k_gap", "mmlu_cf_gaps", "obsscaling_lens", "matharena_dates"):
        assert (out / f"anchors/{name}.png").stat().st_size > 0 and (out / f"anchors/{name}.csv").is_file()
