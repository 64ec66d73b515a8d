"""Shared fixtures: the repository, the offline data mirror, and a workflow runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


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


def run_workflow(
    workdir: Path,
    *targets: str,
    config: dict[str, object] | None = None,
    configfiles: list[Path] | None = None,
    cores: int = 2,
    extra: list[str] | None = None,
    check: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Run the repository's Snakefile with ``workdir`` as working directory.

    ``config`` values are passed with ``--config key=value`` (use YAML syntax
    for nested values, e.g. ``{"bounds": "{enabled: true}"}``).
    """
    cmd = [sys.executable, "-m", "snakemake"]
    # One --configfile flag with every file: Snakemake's argparse keeps only the LAST of
    # repeated --configfile flags (``--configfile a --configfile b`` silently drops a).
    # --configfile and --config take several values: each is followed by an option
    # (-s below), so that the targets at the end are never read as their values.
    if configfiles:
        cmd += ["--configfile", *(str(cf) for cf in configfiles)]
    if config:
        cmd += ["--config"] + [f"{k}={v}" for k, v in config.items()]
    cmd += [
        "-s", str(REPO / "Snakefile"),
        "-d", str(workdir),
        "--cores", str(cores),
        "--nolock",
    ]
    cmd += list(extra or [])
    cmd += list(targets)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(cmd, check=False, cwd=workdir, env=env, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(
            f"snakemake failed ({proc.returncode}):\n{' '.join(cmd)}\n"
            f"--- stdout ---\n{proc.stdout[-6000:]}\n--- stderr ---\n{proc.stderr[-6000:]}"
        )
    return proc


@pytest.fixture(scope="session")
def workflow_runner():
    """The :func:`run_workflow` function, for tests that run the Snakefile."""
    return run_workflow
