"""Fixtures of the infrastructure tests: the small test workflow and its runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # slurm_cluster, report_browser

TEST_WORKFLOW = HERE / "slurm_workflow" / "Snakefile"
SEEDS = "[0,1]"


def snakemake_cmd(workdir: Path, marker_dir: Path, *extra: str,
                  snakefile: Path = TEST_WORKFLOW) -> list[str]:
    return [sys.executable, "-m", "snakemake", "-s", str(snakefile), "-d", str(workdir),
            "--config", f"marker_dir={marker_dir}", f"seeds={SEEDS}", *extra]


def run(cmd: list[str], repo: Path, env: dict[str, str] | None = None,
        timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` from the repository root; fail with both output streams."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = str(repo / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("MPLBACKEND", "Agg")
    proc = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise AssertionError(
            f"command failed ({proc.returncode}): {' '.join(cmd)}\n"
            f"--- stdout ---\n{proc.stdout[-5000:]}\n--- stderr ---\n{proc.stderr[-8000:]}"
        )
    return proc


@pytest.fixture(scope="session")
def local_run(repo, tmp_path_factory) -> Path:
    """The test workflow run locally (2 cores, one retry); returns its workdir."""
    root = tmp_path_factory.mktemp("local_run")
    run(snakemake_cmd(root / "work", root / "markers", "--cores", "2", "--retries", "1"), repo)
    return root / "work"
