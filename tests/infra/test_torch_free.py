"""The analysis imports without torch (issue: a user who only audits predictions installs a small package).

A subprocess makes ``import torch`` (and torchvision) fail, as in a venv without the ``[train]``
extra, then imports every analysis package and runs one function of each.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from torch_blocker import BLOCK_TORCH

ANALYSIS = """
import holdout.bounds, holdout.similarity, holdout.cifar10_1, holdout.rvw, holdout.data, holdout.predictions
import holdout.adversarial, holdout.plotting, holdout.tables
assert holdout.bounds.union_bound_k(50_000, 0.244, 0.01, 0.05) == 257_397
assert "torch" not in sys.modules
print("ok")
"""


@pytest.mark.slow  # a fresh interpreter importing scipy, matplotlib, pandas: > 2 s on the 2-core AVX2 machine
def test_analysis_imports_without_torch():
    proc = subprocess.run([sys.executable, "-c", BLOCK_TORCH + ANALYSIS], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("ok")


def test_blocker_really_blocks_torch():
    proc = subprocess.run(
        [sys.executable, "-c", BLOCK_TORCH + "from holdout.training import train"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode != 0 and "blocked" in proc.stderr
