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
    assert summary["bound_holds"] and (tmp_path / "out" / "adaptive" / "overfit.png").exists()
