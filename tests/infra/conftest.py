"""Fixtures of the infrastructure tests: the small test workflow and its runs."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # slurm_cluster, report_browser, infra_workflow
from infra_workflow import run, snakemake_cmd  # noqa: E402


@pytest.fixture(scope="session")
def local_run(repo, tmp_path_factory) -> Path:
    """The test workflow run locally (2 cores, one retry); returns its workdir."""
    root = tmp_path_factory.mktemp("local_run")
    run(snakemake_cmd(root / "work", root / "markers", "--cores", "2", "--retries", "1"), repo)
    return root / "work"
