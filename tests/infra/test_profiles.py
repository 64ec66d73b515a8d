"""Profiles: what `--profile profiles/slurm` and `--profile profiles/local` resolve to.

Dry runs (no cluster needed): the SLURM profile's resources (attempt scaling,
partition/account from the user's environment, never from the file), and the
real workflow's jobs under that profile: every job gets memory and runtime, and
no CPU-only job (a rule in envs/analysis.yaml) asks for a GPU.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest
import yaml
from infra_workflow import run, snakemake_cmd

pytestmark = pytest.mark.slow  # starts Snakemake

EXECUTOR_KEYS = {
    "executor",
    "cores",
    "jobs",
    "resources",
    "default-resources",
    "set-resources",
    "latency-wait",
    "retries",
    "keep-going",
}


def load_profile(repo: Path, name: str) -> dict:
    data = yaml.safe_load((repo / "profiles" / name / "config.yaml").read_text())
    assert isinstance(data, dict)
    return data


def dry_run_jobs(stdout: str) -> list[tuple[str, dict[str, str]]]:
    """(rule, resources) of every job a `snakemake -n` printed."""
    jobs: list[tuple[str, dict[str, str]]] = []
    rule = None
    for line in stdout.splitlines():
        m = re.match(r"^(?:local)?rule (\w+):", line)
        if m:
            rule = m.group(1)
            jobs.append((rule, {}))
        m = re.match(r"^\s+resources: (.*)$", line)
        if m and rule is not None:
            jobs[-1] = (rule, dict(kv.split("=", 1) for kv in m.group(1).split(", ")))
    return jobs


def rule_envs(repo: Path) -> dict[str, str]:
    """rule name -> conda env stem, read from workflow/rules/*.smk."""
    out = {}
    for smk in (repo / "workflow" / "rules").glob("*.smk"):
        blocks = re.split(r"^rule (\w+):", smk.read_text(), flags=re.M)
        for name, body in zip(blocks[1::2], blocks[2::2]):
            m = re.search(r'conda:\s*\n?\s*"[^"]*envs/(\w+)\.yaml"', body)
            if m:
                out[name] = m.group(1)
    return out


def test_workflow_profile_holds_no_executor_settings(repo):
    # profiles/default is applied to every run and wins key by key over --profile
    assert not set(load_profile(repo, "default")) & EXECUTOR_KEYS


def test_workflow_profile_keeps_snakemakes_job_rate_with_fewer_wakeups(repo):
    # Snakemake's default is 100 jobs per 1 s; a timer per scheduling round re-checks the limit. The
    # profile keeps the rate and makes the timers 10 s long (docs/performance.md: where the seconds go).
    from snakemake.settings.types import MaxJobsPerTimespan

    limit = MaxJobsPerTimespan.parse_choice(str(load_profile(repo, "default")["max-jobs-per-timespan"]))
    assert limit.max_jobs / limit.timespan == 100 and limit.timespan == 10


def test_slurm_profile_settings(repo):
    p = load_profile(repo, "slurm")
    assert p["executor"] == "slurm"
    assert p["retries"] >= 1 and p["jobs"] >= 1 and p["latency-wait"] >= 30
    res = p["default-resources"]
    assert "attempt" in str(res["mem_mb"]) and "attempt" in str(res["runtime"])
    text = (repo / "profiles/slurm/config.yaml").read_text()
    assert "HOLDOUT_SLURM_PARTITION" in res["slurm_partition"]
    assert "HOLDOUT_SLURM_ACCOUNT" in res["slurm_account"]
    assert not re.search(r"^\s*(slurm_partition|slurm_account):\s*['\"]?\w+['\"]?\s*$", text, re.M)
    assert "gpu" not in res and "gres" not in res  # CPU jobs request no GPU by default
    local = load_profile(repo, "local")
    assert local["cores"] == "all" and local["resources"]["gpu"] >= 1


@pytest.fixture(scope="module")
def slurm_plugin():
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        pytest.skip("snakemake-executor-plugin-slurm not installed (pip install -e '.[slurm]')")


def test_slurm_profile_resolves_resources_from_environment(repo, slurm_plugin, tmp_path):
    import os

    env = dict(os.environ, HOLDOUT_SLURM_PARTITION="gpuq", HOLDOUT_SLURM_ACCOUNT="proj42")
    out = run(
        snakemake_cmd(tmp_path / "w", tmp_path / "m", "-n", "--profile", str(repo / "profiles/slurm")), repo, env=env
    ).stdout
    jobs = dry_run_jobs(out)
    assert {r for r, _ in jobs} >= {
        "infra_simulate",
        "infra_accuracy",
        "infra_summary",
        "infra_figure",
        "infra_flaky",
    }, out
    for rule, res in jobs:
        if rule == "infra_all":
            continue
        assert res["slurm_partition"] == "gpuq" and res["slurm_account"] == "proj42", (rule, res)
        assert "gpu" not in res and "gres" not in res
    flaky = dict(jobs)["infra_flaky"]
    assert (flaky["mem_mb"], flaky["runtime"]) == ("4000", "60")  # profile default, attempt 1
    assert dict(jobs)["infra_simulate"]["mem_mb"] == "500"  # the rule's own value wins


def _offline_here(repo: Path, shared_data: Path, tmp_path: Path) -> list[str]:
    """--configfile options: config/offline.yaml with its mirror (relative to the repository,
    not to ``tmp_path``, the working directory of these runs) made absolute."""
    mirror = tmp_path / "mirror.yaml"
    mirror.write_text(yaml.safe_dump({"data": {"mirror": str(shared_data)}}))
    return ["--configfile", str(repo / "config/offline.yaml"), str(mirror)]


def test_real_workflow_under_slurm_profile(repo, shared_data, slurm_plugin, tmp_path):
    """Every job of the real workflow resolves memory/runtime; CPU jobs request no GPU."""
    # offline.yaml's mirror ../shared/data is relative to the working directory (-d): give it absolute
    proc = run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "-s",
            str(repo / "Snakefile"),
            "-d",
            str(tmp_path),
            "-n",
            "--profile",
            str(repo / "profiles/slurm"),
            *_offline_here(repo, shared_data, tmp_path),
        ],
        repo,
    )
    jobs = dry_run_jobs(proc.stdout)
    assert jobs, proc.stdout[-3000:]
    envs = rule_envs(repo)
    for rule, res in jobs:
        if rule == "all":
            continue
        assert int(res["mem_mb"]) > 0 and int(res["runtime"]) > 0, (rule, res)
        if envs.get(rule) == "analysis":
            assert "gpu" not in res and "gres" not in res, f"CPU rule {rule} asks for a GPU: {res}"


def test_real_workflow_under_local_profile(repo, shared_data, tmp_path):
    proc = run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "-s",
            str(repo / "Snakefile"),
            "-d",
            str(tmp_path),
            "-n",
            "--profile",
            str(repo / "profiles/local"),
            "--resources",
            "gpu=2",
            *_offline_here(repo, shared_data, tmp_path),
        ],
        repo,
    )
    assert "dry-run" in proc.stdout
