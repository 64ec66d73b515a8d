"""benchmarks/gpu/gpu_check.sh end to end on the CPU (GPU_CHECK_TINY=1: every step in seconds), so
that on a lent GPU it runs first time: every step runs, the results are at most 8 files under $OUT."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # minutes on 2 cores: several Python processes import torch, the plan counts 16 networks
def test_gpu_check_runs_every_step_in_tiny_mode(tmp_path):
    out = tmp_path / "out"
    env = {**os.environ, "OUT": str(out), "GPU_CHECK_TINY": "1", "GPU_CHECK_SECONDS": "600", "PYTHON": sys.executable}
    r = subprocess.run(["bash", "benchmarks/gpu/gpu_check.sh"], cwd=REPO, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    files = sorted(p.name for p in out.iterdir())
    assert files == ["calibration.json", "gpu_check.json", "logs.tar.gz", "plan.txt", "resnet20_state.tar"]
    summary = json.loads((out / "gpu_check.json").read_text())
    steps = {s["step"]: s["exit_code"] for s in summary["steps"]}
    assert steps["pytest_gpu"] == 0 and steps["throughput"] == 0 and steps["plan"] == 0 and "resnet20" in steps
    assert summary["pytest_gpu"]["skipped"] == len(summary["pytest_gpu"]["cases"]) > 0  # no CUDA here
    assert [(r["mode"], r["members"]) for r in summary["throughput"]] == [("eager", 1), ("fused", 2)]  # no graph on CPU
    assert any("fused groups" in line and "seeds" in line for line in summary["plan"])
    assert [e["epoch"] for e in summary["resnet20_epochs"]] == [1.0, 2.0]
    cal = json.loads((out / "calibration.json").read_text())
    assert len(cal["cells"]) > 1 and len(cal["throughput"]) == 2  # the committed calibration plus this run's rows
