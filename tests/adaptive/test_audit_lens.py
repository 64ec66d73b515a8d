"""holdout audit --adaptive on a small synthetic set."""

import json

import numpy as np
import pytest

from holdout.audit.cli import main
from holdout.predictions import Predictions, save_predictions


@pytest.mark.slow
def test_audit_adaptive_lens(tmp_path):
    rng = np.random.default_rng(0)
    n, k = 600, 5
    y = rng.integers(0, 4, n)
    preds = np.where(rng.random((k, n)) < 0.8, y, rng.integers(0, 4, (k, n)))
    save_predictions(tmp_path / "p.npz", Predictions.create(preds, y, [f"m{i}" for i in range(k)], num_classes=4))
    assert main(["audit", str(tmp_path / "p.npz"), "--out", str(tmp_path / "out"), "--adaptive"]) == 0
    summary = json.loads((tmp_path / "out" / "adaptive" / "summary.json").read_text())
    assert summary["below_theorem_bound"] and (tmp_path / "out" / "adaptive" / "overfit.png").exists()
    # the lens is in the audit's own summary and report, with its figure and table
    top = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert top["adaptive"] == summary
    report = (tmp_path / "out" / "report.html").read_text()
    assert "How much an adaptive analyst could overfit" in report
    assert "alt='overfit'" in report or 'alt="overfit"' in report
    assert "boosting" in report and "thresholdout" in report


def test_audit_without_adaptive_has_no_adaptive_section(tmp_path):
    rng = np.random.default_rng(1)
    n, k = 200, 3
    y = rng.integers(0, 4, n)
    preds = np.where(rng.random((k, n)) < 0.8, y, rng.integers(0, 4, (k, n)))
    save_predictions(tmp_path / "p.npz", Predictions.create(preds, y, [f"m{i}" for i in range(k)], num_classes=4))
    assert main(["audit", str(tmp_path / "p.npz"), "--out", str(tmp_path / "out"), "--lenses", "accuracy"]) == 0
    assert "adaptive" not in json.loads((tmp_path / "out" / "summary.json").read_text())
    assert not (tmp_path / "out" / "adaptive").exists()
