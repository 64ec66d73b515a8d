"""The one way the tests run Snakemake (and other commands): with this repository's ``src`` on
PYTHONPATH, failing with both output streams. Used by the ``workflow_runner`` fixture
(tests/conftest.py) and the infrastructure tests (tests/infra/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_command(
    cmd: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` in ``cwd`` with the repository's ``src`` first on PYTHONPATH; with ``check``, a
    non-zero exit fails the test showing the command and the ends of stdout and stderr."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("MPLBACKEND", "Agg")
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    if check and proc.returncode != 0:
        raise AssertionError(
            f"command failed ({proc.returncode}): {' '.join(map(str, cmd))}\n"
            f"--- stdout ---\n{proc.stdout[-6000:]}\n--- stderr ---\n{proc.stderr[-8000:]}"
        )
    return proc


def snakemake_command(
    workdir: Path,
    *targets: str,
    snakefile: Path = REPO / "Snakefile",
    config: dict[str, object] | None = None,
    configfiles: list[Path] | None = None,
    cores: int | None = 2,
    nolock: bool = True,
    extra: list[str] | None = None,
) -> list[str]:
    """``python -m snakemake`` on ``snakefile`` with ``workdir`` as working directory.

    ``config`` values are passed with ``--config key=value`` (use YAML syntax for nested values,
    e.g. ``{"bounds": "{enabled: true}"}``). --configfile and --config take several values: each
    is followed by an option, so that the targets at the end are never read as their values.
    """
    cmd = [sys.executable, "-m", "snakemake"]
    # One --configfile flag with every file: Snakemake's argparse keeps only the LAST of repeated
    # --configfile flags (``--configfile a --configfile b`` silently drops a).
    if configfiles:
        cmd += ["--configfile", *(str(cf) for cf in configfiles)]
    if config:
        cmd += ["--config"] + [f"{k}={v}" for k, v in config.items()]
    cmd += ["-s", str(snakefile), "-d", str(workdir)]
    cmd += ["--cores", str(cores)] if cores is not None else []
    cmd += ["--nolock"] if nolock else []
    return cmd + list(extra or []) + list(targets)


def run_workflow(
    workdir: Path,
    *targets: str,
    config: dict[str, object] | None = None,
    configfiles: list[Path] | None = None,
    cores: int = 2,
    extra: list[str] | None = None,
    check: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Run the repository's Snakefile in ``workdir`` (see :func:`snakemake_command`)."""
    cmd = snakemake_command(workdir, *targets, config=config, configfiles=configfiles, cores=cores, extra=extra)
    return run_command(cmd, workdir, check=check)
