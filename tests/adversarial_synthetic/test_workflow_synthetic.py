"""The adversarial stage's synthetic study (Werpachowski et al. Figure 4, 7, 8) end to end
through the real Snakefile, with a small config."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from small_configs import load_small_config

pytestmark = pytest.mark.slow  # starts Snakemake

# .test/config-adversarial_synthetic/config.yaml: used as is (one test moves an eps off the grid)
SMALL = load_small_config("adversarial_synthetic")
TARGET = "results/adversarial_synthetic/figure4.png"
# --configfile takes several values: an option after it keeps the target from being read as one
END_CONFIGFILES = ["--rerun-incomplete"]


def _write(tmp_path: Path, cfg: dict) -> Path:
    path = tmp_path / "small.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def test_synthetic_stage_small(tmp_path, workflow_runner):
    workflow_runner(tmp_path, TARGET, configfiles=[_write(tmp_path, SMALL)], extra=END_CONFIGFILES)
    out = tmp_path / "results/adversarial_synthetic"
    for name in ("figure4", "figure7_pvalues", "figure7_risks", "figure7_densities", "figure7_histograms", "figure8"):
        assert (out / f"{name}.png").stat().st_size > 1000
        assert (out / f"{name}.pdf").is_file()
    f4 = pd.read_csv(out / "figure4.csv")
    assert list(f4.columns[:6]) == ["case", "N", "eps", "p_value_mean", "p_value_lo", "p_value_hi"]
    n_eps = 6  # 5 log-spaced values + 6
    assert len(f4) == 2 * 4 * n_eps
    assert set(f4.case) == {"independent", "dependent"}
    assert ((f4.p_value_lo <= f4.p_value_mean + 1e-12) & (f4.p_value_mean <= f4.p_value_hi + 1e-12)).all()
    assert f4.p_value_mean.between(0, 1).all()
    assert (f4.loc[f4.N <= 2, "band"] == "empirical_95").all() and (f4.loc[f4.N > 2, "band"] == "min_max").all()
    assert (f4.loc[f4.N == 10, "n_groups"] == 1).all() and (f4.loc[f4.N == 1, "n_groups"] == 10).all()
    # the N = 1 mean equals the mean of the per-run p-values written by the evaluation
    per_run = pd.read_csv(out / "dependent/per_run.csv")
    m = per_run.groupby("eps").p_value.mean().to_numpy()
    np.testing.assert_allclose(f4[(f4.case == "dependent") & (f4.N == 1)].p_value_mean.to_numpy(), m)
    risks = pd.read_csv(out / "figure7_risks.csv")
    assert set(risks.quantity) == {"test_error", "adversarial_risk", "adversarial_error", "true_risk"}
    dens = pd.read_csv(out / "figure7_densities.csv")
    vals = dens[["mean", "lo", "hi"]].to_numpy().ravel()
    assert np.all((vals[np.isfinite(vals)] >= 0) & (vals[np.isfinite(vals)] <= 1))
    assert np.isfinite(vals).mean() > 0.8  # NaN only where no such points exist
    hist = pd.read_csv(out / "figure7_histograms.csv")
    assert hist.groupby(["case", "eps"])["count"].sum().eq(10).all()
    f8 = pd.read_csv(out / "figure8.csv")
    # panels: independent eps = 10, dependent eps = 6, and the eps matching the paper's regime
    assert set(f8.N) == {1, 2} and set(f8.panel) in ({0, 1}, {0, 1, 2})
    training = pd.read_csv(out / "independent/training.csv")
    assert len(training) == 10 and training.train_accuracy.between(0, 1).all()
    assert (tmp_path / "logs/adversarial_synthetic/train_dependent.log").read_text().count("step") >= 1
    assert (out / "summary.csv").is_file()


def test_synthetic_stage_rejects_eps_off_grid(tmp_path, workflow_runner):
    cfg = yaml.safe_load(yaml.safe_dump(SMALL))
    cfg["adversarial"]["synthetic"]["figure8"]["eps_dependent"] = [7.0]
    proc = workflow_runner(tmp_path, TARGET, configfiles=[_write(tmp_path, cfg)], extra=END_CONFIGFILES, check=False)
    assert proc.returncode != 0
    # at start-up, before any job
    assert "adversarial.synthetic.figure8.eps_dependent: eps = 7 is not on the eps grid" in proc.stderr + proc.stdout
    assert not (tmp_path / "results").exists()
