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


def load_workflow_config(*configfiles: str) -> dict:
    """config/config.yaml, then ``configfiles`` (Snakemake's merge), with the schema's defaults
    filled in: the configuration the workflow sees (config.yaml sets only what differs)."""
    import yaml
    from snakemake.utils import update_config, validate

    cfg = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    for name in configfiles:
        update_config(cfg, yaml.safe_load((REPO / name).read_text()))
    validate(cfg, str(REPO / "config" / "schema.yaml"), set_default=True)
    return cfg


@pytest.fixture
def workflow_config() -> dict:
    """:func:`load_workflow_config` of config/config.yaml alone (a fresh copy per test)."""
    return load_workflow_config()


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
