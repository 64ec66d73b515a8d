"""Shared fixtures: the repository, the offline data mirror, and a workflow runner."""

from __future__ import annotations

import copy
import os
import sys
from pathlib import Path

import pytest

# One OpenMP/BLAS thread for torch and numpy in the test process and the CLIs it starts, set before
# either is imported: the tests' arrays and models are tiny, and on a shared 2-core machine two
# threads spin-wait on each other (tests/adversarial_translation: 6.9 s with two, 2.3 s with one).
# A value already in the environment wins; numba's threads (NUMBA_NUM_THREADS) are left alone.
os.environ.setdefault("OMP_NUM_THREADS", "1")

sys.path.insert(0, str(Path(__file__).resolve().parent))  # snakemake_runner
from small_configs import read_yaml  # noqa: E402
from snakemake_runner import REPO, run_workflow  # noqa: E402


def _parse_each_schema_once(load):
    """Snakemake's schema reader, remembering each file by path, size and modification time."""
    parsed: dict[tuple[Path, int, int], object] = {}

    def load_once(source, filetype="Config"):
        if filetype != "Schema" or not isinstance(source, str | Path) or not Path(source).is_file():
            return load(source, filetype=filetype)
        stat = Path(source).stat()
        key = (Path(source).resolve(), stat.st_size, stat.st_mtime_ns)
        if key not in parsed:
            parsed[key] = load(source, filetype=filetype)
        return copy.deepcopy(parsed[key])

    return load_once


@pytest.fixture(scope="session", autouse=True)
def schema_parsed_once():
    """``snakemake.utils.validate`` parses config/schema.yaml (85 kB, through yte) on each call:
    0.2 s, and the tests validate some sixty configs. Each schema file is parsed once per session
    and validate gets a fresh copy; a file changed on disk is parsed again."""
    import snakemake.utils

    load = snakemake.utils._load_configfile
    snakemake.utils._load_configfile = _parse_each_schema_once(load)
    yield
    snakemake.utils._load_configfile = load


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


def load_workflow_config(*configfiles: str) -> dict:
    """config/config.yaml, then ``configfiles`` (Snakemake's merge), with the schema's defaults
    filled in: the configuration the workflow sees (config.yaml sets only what differs)."""
    from snakemake.utils import update_config, validate

    cfg = read_yaml(REPO / "config" / "config.yaml")
    for name in configfiles:
        update_config(cfg, read_yaml(REPO / name))
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
