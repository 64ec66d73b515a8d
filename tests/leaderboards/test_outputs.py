"""The files of the leaderboards study and of the CLI: summaries, fits table, figures with CSVs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from small_configs import read_yaml

from holdout.leaderboards import accuracy_table_audit, contamination
from holdout.leaderboards.correctness import check_correctness
from holdout.leaderboards.lenses import correctness_lenses
from holdout.leaderboards.outputs import TABLE_FILES, fits_table, write_contamination, write_lenses, write_table
from holdout.leaderboards.sources import evalplus_table, pair_table, timm_table


def _audit():
    x = np.linspace(0.5, 0.9, 12)
    y = stats.norm.cdf(0.9 * stats.norm.ppf(x) - 0.3) + np.tile([0.003, -0.003], 6)
    return accuracy_table_audit([f"m{i}" for i in range(12)], x, y, 50_000, 10_000)


def test_write_table_and_fits_table(tmp_path):
    audit = _audit()
    summary = write_table(audit, tmp_path / "p", "made", "orig", "new", name="made", source="timm")
    assert sorted(p.name for p in (tmp_path / "p").iterdir()) == sorted(TABLE_FILES)
    saved = json.loads((tmp_path / "p" / "summary.json").read_text())
    assert saved == summary
    assert saved["probit_fit"]["slope"] == pytest.approx(0.9, abs=0.02)
    assert set(saved["linear_fit"]) >= {"slope", "intercept", "slope_se", "intercept_se", "n_models"}
    pd.DataFrame(
        [
            {
                "models": "all 3 models",
                "slope": 1.1,
                "slope_se": 0.1,
                "intercept": -2.0,
                "intercept_se": 1.0,
                "r_squared": 0.9,
                "n": 3,
                "x_mean": 70,
                "sxx": 10,
                "residual_std": 1,
            }
        ]
    ).to_csv(tmp_path / "iv2.csv", index=False)
    table = fits_table([tmp_path / "p" / "summary.json"], [tmp_path / "iv2.csv"])
    assert table["scale"].tolist() == ["linear (%)", "linear (%), original >= 70%", "probit", "linear (%)"]
    assert table.loc[3, "n_models"] == 3 and table.loc[2, "slope"] == saved["probit_fit"]["slope"]
    # the probit row carries its lack of fit
    assert table.loc[2, "variance_ratio"] == saved["lack_of_fit"]["variance_ratio"]


def test_write_lenses_and_contamination(tmp_path):
    rng = np.random.default_rng(2)
    values = (rng.random((6, 300)) < np.linspace(0.2, 0.7, 6)[:, None]).astype(float)
    c = check_correctness(values, [f"m{i}" for i in range(6)], "made")
    lenses = correctness_lenses(c, [0.5, 0.8, 1.0], 0.05, 0.05)
    assert lenses.covering["covering_number"].iloc[-1] <= 6
    out = write_lenses(lenses, tmp_path / "a.csv", tmp_path / "s.json", tmp_path / "c.csv", tmp_path / "sim.png", "t")
    assert out["testable_models"]["union_k"] == lenses.testable[0]
    assert len(pd.read_csv(tmp_path / "sim.csv")) == 15
    items = np.array(["2023-01-01"] * 150 + ["2023-06-01"] * 150, dtype="datetime64[D]")
    models = np.array(["2022-01-01"] * 5 + ["2023-03-01"], dtype="datetime64[D]")
    res = contamination(c, items, models, np.datetime64("2023-03-01"))
    summary = write_contamination(res, tmp_path / "contamination.png", "t")
    assert summary["line_models"] == 5 and summary["placed_models"] == 1
    assert (tmp_path / "contamination_line.csv").is_file() and (tmp_path / "contamination.csv").is_file()


def test_readers_on_made_files(tmp_path):
    for name, top1 in (("a", [80.0, 70.0]), ("b", [70.0, 55.5])):
        pd.DataFrame({"model": ["x", "y"], "img_size": [224, 224], "top1": top1}).to_csv(
            tmp_path / f"{name}.csv", index=False
        )
    t = timm_table({"a": tmp_path / "a.csv", "b": tmp_path / "b.csv"})
    assert t["model"].tolist() == ["x@224", "y@224"] and t["b"].tolist() == pytest.approx([0.7, 0.555])
    (tmp_path / "e.json").write_text(
        json.dumps(
            {
                "m": {"pass@1": {"humaneval": 50.0, "humaneval+": 40.0}},
                "n": {"pass@1": {"humaneval": 60.0, "humaneval+": None}},
            }
        )
    )
    e = evalplus_table(tmp_path / "e.json", "humaneval", "humaneval+")
    assert e["model"].tolist() == ["m"] and e["humaneval+"].tolist() == [0.4]
    assert pair_table("evalplus", {"evalplus": tmp_path / "e.json"}, "humaneval", "humaneval+").shape == (1, 3)


def test_every_input_has_a_pinned_url_and_the_mirrors_checksum(shared_data):
    """config/config.yaml: each leaderboard file resolves to its repository at the pinned commit, and
    its checksum is the one in the mirror's SHA256SUMS."""

    from holdout.data.fetch import resolve_url

    lb = read_yaml(Path(__file__).resolve().parents[2] / "config/config.yaml")["leaderboards"]
    sums = dict(
        (path.removeprefix("./"), f"sha256:{digest}")
        for digest, path in (line.split() for line in (shared_data / "SHA256SUMS").read_text().splitlines())
    )
    commits = {
        "pytorch-image-models": "huggingface/pytorch-image-models/aa4b5850c1543fa488abf260f18390eda46cf85d",
        "imagenet-testbed": "modestyachts/imagenet-testbed/0170eec658d664289d9f61de8f90f967f49abca0",
        "livecodebench": "LiveCodeBench/livecodebench.github.io/8ed5690cdc26265076a803380e84f5c5848a0ce1",
        "evalplus": "evalplus/evalplus.github.io/87418456d3a8c2bc6265f24ff91d2dd0e7993f4b",
    }
    assert len(lb["checksums"]) == 8
    for relpath, checksum in lb["checksums"].items():
        top, rest = relpath.split("/", 1)
        assert resolve_url(relpath, lb["urls"]) == f"https://raw.githubusercontent.com/{commits[top]}/{rest}"
        assert checksum == sums[relpath]
