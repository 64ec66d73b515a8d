"""python -m holdout.training.calibration throughput: eager, graph and fused rows of one cell (CPU: no graph)."""

from __future__ import annotations

import json
from dataclasses import asdict

from holdout.training.calibration import main as calibration_main
from holdout.training.calibration import plan_cells
from holdout.training.models import ResNetPreactConfig
from holdout.training.optim import TrainConfig


def test_throughput_rows_join_an_existing_calibration(tmp_path):
    cells = tmp_path / "cells.json"
    (cell,) = plan_cells([(ResNetPreactConfig(depth=8, base_channels=4), TrainConfig(batch_size=8))])
    cells.write_text(json.dumps({"cells": [asdict(cell)]}))
    into = tmp_path / "calibration.json"
    into.write_text(json.dumps({"format": "holdout-calibration/1", "cells": {"x": 1}}))
    args = ["throughput", "--cells", str(cells), "--into", str(into), "--device", "cpu"]
    assert calibration_main([*args, "--members", "2", "--seconds", "0.02"]) == 0
    out = json.loads(into.read_text())
    assert out["cells"] == {"x": 1} and out["format"] == "holdout-calibration/1"
    rows = out["throughput"]
    assert [(r["mode"], r["members"]) for r in rows] == [("eager", 1), ("fused", 2)]  # CUDA graphs: CUDA only
    for r in rows:
        assert r["cell"] == cell.key and r["seconds_per_step"] > 0
        assert abs(r["images_per_s"] - r["members"] * 8 / r["seconds_per_step"]) < 1e-6 * r["images_per_s"]
        assert abs(r["images_per_s_per_model"] * r["members"] - r["images_per_s"]) < 1e-6 * r["images_per_s"]


def test_unknown_cell_is_refused_in_one_line(tmp_path, capsys):
    cells = tmp_path / "cells.json"
    (cell,) = plan_cells([(ResNetPreactConfig(depth=8, base_channels=4), TrainConfig(batch_size=8))])
    cells.write_text(json.dumps({"cells": [asdict(cell)]}))
    args = ["throughput", "--cells", str(cells), "--into", str(tmp_path / "c.json"), "--cell", "nope"]
    assert calibration_main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--cell 'nope'" in err[0] and not (tmp_path / "c.json").exists()
