"""The SLURM profile on a real SLURM: a single-node cluster on loopback.

Runs tests/infra/slurm_workflow through ``snakemake --profile profiles/slurm``
(the real snakemake-executor-plugin-slurm: sbatch to submit, squeue to poll),
compares its outputs with a local run, and checks the retry of the job that
fails on its first attempt. Skipped, with the reason, where SLURM cannot run
(no slurmctld/slurmd installed -- `.ci/run` installs them where apt exists --,
not root, or the plugin missing); a cluster that is installed but does not come
up is a failure.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import numpy as np
import pytest
import slurm_cluster
from infra_workflow import run, snakemake_cmd

from holdout.predictions import load_predictions

pytestmark = [pytest.mark.slurm, pytest.mark.slow]


def _skip_reason() -> str | None:
    if not sys.platform.startswith("linux"):
        return "SLURM test needs Linux"
    missing = slurm_cluster.missing_commands()
    if missing:
        return (
            f"SLURM not installed (missing {', '.join(missing)}); "
            "`.ci/run` installs Debian's slurmctld/slurmd/slurm-client where apt is available"
        )
    if os.geteuid() != 0:
        return "slurmd must run as root to start jobs; run the tests as root (CI does)"
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        return "snakemake-executor-plugin-slurm not installed (pip install -e '.[slurm]')"
    return None


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    root = tmp_path_factory.mktemp("slurm")
    c = slurm_cluster.start_cluster(root, cpus=min(os.cpu_count() or 1, 2))
    try:
        yield c
    finally:
        c.stop()
        assert all(p.poll() is not None for p in c.procs), "SLURM daemons still running"


def _outputs(workdir: Path) -> dict[str, Path]:
    return {str(p.relative_to(workdir)): p for p in sorted((workdir / "results").rglob("*")) if p.is_file()}


def test_slurm_profile_matches_local_run_and_retries(repo, cluster, local_run, tmp_path):
    root = tmp_path
    proc = run(
        snakemake_cmd(
            root / "work",
            root / "markers",
            "--profile",
            str(repo / "profiles/slurm"),
            "--jobs",
            "4",
            # the test cluster has no accounting daemon: poll with squeue
            # (MinJobAge=3600 keeps finished jobs visible) and start polling early
            "--slurm-status-command",
            "squeue",
            "--slurm-init-seconds-before-status-checks",
            "2",
        ),
        repo,
        env=cluster.env,
        timeout=420,
    )
    work = root / "work"

    # every rule instance ran as a SLURM job (the plugin names jobs by the run id
    # and puts the rule into the comment)
    jobs = cluster.run("squeue", "--states=all", "--noheader", "--format=%i|%k|%m|%l|%T").stdout
    rows = [line.split("|") for line in jobs.splitlines() if line.strip()]
    by_rule: dict[str, list[list[str]]] = {}
    for jobid, comment, mem, limit, state in rows:
        rule = comment.removeprefix("rule_").split("_wildcards")[0]
        by_rule.setdefault(rule, []).append([int(jobid), mem, limit, state])
    assert sorted((r, len(v)) for r, v in by_rule.items()) == [
        ("infra_accuracy", 2),
        ("infra_figure", 1),
        ("infra_flaky", 2),
        ("infra_simulate", 2),
        ("infra_summary", 1),
    ], jobs
    for rule, entries in by_rule.items():
        if rule != "infra_flaky":
            assert all(e[3] == "COMPLETED" for e in entries), jobs
            assert all(e[1] == "500M" and e[2] == "5:00" for e in entries), jobs

    # the flaky job failed once, was resubmitted, and got the profile's
    # default resources scaled by attempt (mem_mb 4000 * attempt, runtime 60 * attempt)
    first, second = sorted(by_rule["infra_flaky"])
    assert first[1:] == ["4000M", "1:00:00", "FAILED"], jobs
    assert second[1:] == ["8000M", "2:00:00", "COMPLETED"], jobs
    assert (root / "markers" / "infra_flaky.failed-once").is_file()
    assert "mem_mb=8000 runtime=120" in (work / "logs" / "flaky.log").read_text()
    assert "first attempt fails on purpose" in proc.stderr + proc.stdout or any(
        "first attempt fails on purpose" in p.read_text() for p in (work / ".snakemake" / "slurm_logs").rglob("*.log")
    )

    # same outputs as the local run
    local, remote = _outputs(local_run), _outputs(work)
    assert sorted(local) == sorted(remote)
    assert len(local) == 7  # 2 predictions, 2 accuracy tables, summary, figure, flaky
    for name, path in local.items():
        if name.endswith(".npz"):
            a, b = load_predictions(path), load_predictions(remote[name])
            assert np.array_equal(a.predictions, b.predictions)
            assert np.array_equal(a.labels, b.labels)
            assert a.model_names == b.model_names and a.test_set == b.test_set
        else:
            assert path.read_bytes() == remote[name].read_bytes(), name
