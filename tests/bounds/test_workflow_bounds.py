"""The bounds stage of the workflow on a small config: outputs exist and match the library."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml
from small_configs import load_small_config

from holdout.bounds import core as B

pytestmark = pytest.mark.slow  # starts Snakemake

# .test/config-bounds/config.yaml: used as is (two tests change bounds.setting_from)
SMALL = load_small_config("bounds")


def _run(workflow_runner, tmp_path, config, targets):
    cfg = tmp_path / "small.yaml"
    cfg.write_text(yaml.safe_dump(config))
    # A flag after --configfile ends its list of files (conftest puts targets right after it).
    return workflow_runner(tmp_path, *targets, configfiles=[cfg], cores=1, extra=["--printshellcmds"])


def test_bounds_stage_small_config(workflow_runner, tmp_path):
    """Every output of the stage is made, and its numbers are the library's."""
    _run(
        workflow_runner,
        tmp_path,
        SMALL,
        ["results/bounds/table1.md", "results/bounds/figure2.pdf", "results/bounds/figure1b.pdf"],
    )
    out = tmp_path / "results" / "bounds"
    for name in [
        "figure1b.csv",
        "figure1b.png",
        "figure1b.pdf",
        "figure2_similarity.csv",
        "figure2_eps.csv",
        "figure2.png",
        "figure2.pdf",
        "table1.csv",
        "table1.md",
    ]:
        assert (out / name).stat().st_size > 0, name
    for rule in ["setting", "figure1b", "figure2_similarity", "figure2_eps", "figure2", "table1"]:
        assert (tmp_path / "logs" / "bounds" / f"{rule}.log").is_file()
        assert (tmp_path / "logs" / "bounds" / f"{rule}.benchmark.tsv").is_file()

    fig1b = pd.read_csv(out / "figure1b.csv")
    assert list(fig1b["setting_source"].unique()) == ["config"]
    kw = dict(n=4000, error=1 - 0.8, eps=0.02, delta=0.05)
    assert fig1b["testable_models"].tolist() == [
        B.union_bound_k(**kw),
        B.similarity_bound_k(similarity=0.9, **kw),
        B.naive_bayes_bound_k(similarity=0.9, **kw),
    ]

    left = pd.read_csv(out / "figure2_similarity.csv")
    assert left["similarity"].tolist() == pytest.approx([0.7, 0.8, 0.9])
    for row in left.to_dict("records"):
        assert row["similarity_k"] == B.similarity_bound_k(similarity=row["similarity"], **kw)
        assert row["naive_bayes_k"] == B.naive_bayes_bound_k(similarity=row["similarity"], **kw)
        assert row["similarity_gain"] == pytest.approx(row["similarity_k"] / row["union_k"])
    right = pd.read_csv(out / "figure2_eps.csv", dtype={"union_k": str, "similarity_k": str, "naive_bayes_k": str})
    assert right["eps"].tolist() == pytest.approx([0.02, 0.03])
    for row in right.to_dict("records"):
        kw_e = dict(n=4000, error=1 - 0.8, eps=row["eps"], delta=0.05)
        assert int(row["union_k"]) == B.union_bound_k(**kw_e)
        assert int(row["naive_bayes_k"]) == B.naive_bayes_bound_k(similarity=0.9, **kw_e)

    t1 = pd.read_csv(out / "table1.csv")
    kw_t = dict(n=3000, error=1 - 0.9, eps=0.02, delta=0.05)
    union = B.union_bound_k(**kw_t)
    assert t1["sb_gain"].iloc[0] == pytest.approx(B.similarity_bound_k(similarity=0.95, **kw_t) / union)
    assert t1["nbb_gain"].iloc[0] == pytest.approx(B.naive_bayes_bound_k(similarity=0.95, **kw_t) / union)
    md = (out / "table1.md").read_text()
    assert "| small | 3,000 | 90.0% | 95.0% |" in md
    assert "Inputs are rounded" in md


def test_bounds_stage_measured_setting(workflow_runner, tmp_path):
    """bounds.setting_from: measured reads results/similarity/imagenet/setting.json."""
    measured = tmp_path / "results" / "similarity" / "imagenet"
    measured.mkdir(parents=True)
    (measured / "setting.json").write_text(json.dumps({"n": 3000, "mean_accuracy": 0.75, "mean_similarity": 0.88}))
    config = json.loads(json.dumps(SMALL))
    config["bounds"]["setting_from"] = "measured"
    _run(workflow_runner, tmp_path, config, ["results/bounds/figure1b.csv", "results/bounds/figure2_eps.csv"])
    out = tmp_path / "results" / "bounds"
    setting = json.loads((out / "setting.json").read_text())
    assert setting["n"] == 3000 and setting["similarity"] == 0.88
    assert setting["source"].endswith("results/similarity/imagenet/setting.json")
    fig1b = pd.read_csv(out / "figure1b.csv")
    assert set(fig1b["n"]) == {3000}
    assert fig1b["setting_source"].iloc[0].endswith("setting.json")
    kw = dict(n=3000, error=0.25, eps=0.02, delta=0.05)
    assert fig1b["testable_models"].iloc[1] == B.similarity_bound_k(similarity=0.88, **kw)
    right = pd.read_csv(out / "figure2_eps.csv")
    assert set(right["similarity"]) == {0.88} and set(right["n"]) == {3000}


def test_bounds_stage_bad_config_value_names_the_key(workflow_runner, tmp_path):
    config = json.loads(json.dumps(SMALL))
    config["bounds"]["setting_from"] = "guessed"
    proc = _run_nocheck(workflow_runner, tmp_path, config)
    assert proc.returncode != 0
    assert "setting_from" in proc.stdout + proc.stderr


def _run_nocheck(workflow_runner, tmp_path, config):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(yaml.safe_dump(config))
    return workflow_runner(
        tmp_path, "results/bounds/setting.json", configfiles=[cfg], cores=1, extra=["-n"], check=False
    )  # -n also ends the --configfile list
