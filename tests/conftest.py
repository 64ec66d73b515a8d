"""Shared fixtures: the repository, the offline data mirror, and a workflow runner."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # snakemake_runner
from snakemake_runner import REPO, run_workflow


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The offline mirror ``../shared/data`` (CI and developers always have it).

    ``HOLDOUT_SHARED_DATA`` overrides the location. A missing mirror is an error,
    not a skip: the tests that use it must run.
    """
    path = Path(os.environ.get("HOLDOUT_SHARED_DATA", REPO.parent / "shared" / "data"))
    if not (path / "SHA256SUMS").is_file():
        pytest.fail(f"offline data mirror not found at {path} (set HOLDOUT_SHARED_DATA)")
    return path.resolve()


@pytest.fixture(scope="session")
def workflow_runner():
    """The :func:`run_workflow` function, for tests that run the Snakefile."""
    return run_workflow
