"""Workflow scripts (holdout.runlog.script_logger): a bad-input error is one line on stderr naming
the input, its traceback in the job's log file only; other errors keep their traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _script(tmp_path: Path, raise_line: str) -> subprocess.CompletedProcess[str]:
    code = (
        f"from holdout.runlog import script_logger\nlog = script_logger({str(tmp_path / 'job.log')!r})\n{raise_line}\n"
    )
    env = {"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)


@pytest.mark.parametrize("exc", ["ValueError", "TypeError", "OverflowError"])
def test_bad_input_is_one_line(tmp_path, exc):
    out = _script(tmp_path, f"raise {exc}('resources/raw/x.npy: class id 12 at position 3 is outside 0..9')")
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].endswith(
        "error: resources/raw/x.npy: class id 12 at position 3 is outside 0..9"
    )
    log = (tmp_path / "job.log").read_text()
    assert "Traceback" in log and "x.npy" in log


def test_other_errors_keep_their_traceback(tmp_path):
    out = _script(tmp_path, "raise KeyError('bug')")
    assert out.returncode == 1 and "Traceback" in out.stderr


def test_every_job_log_ends_with_its_own_account(tmp_path):
    """The last line of a job's log is its process's CPU account (user, system, peak memory), parsed
    back by holdout.runlog.JobResources; a failed job writes it too, and stderr stays one line."""
    from holdout.runlog import JobResources

    ok = _script(tmp_path, "sum(i * i for i in range(3_000_000))")
    assert ok.returncode == 0 and ok.stderr == ""
    last = (tmp_path / "job.log").read_text().strip().splitlines()[-1]
    account = JobResources.parse(last)
    assert account is not None and account.user_s > 0.05 and account.max_rss_mb > 5
    bad = _script(tmp_path, "raise ValueError('x.csv: bad')")
    assert len(bad.stderr.strip().splitlines()) == 1
    assert JobResources.parse((tmp_path / "job.log").read_text()) is not None


def test_jobs_keep_freed_memory_instead_of_faulting_it_in_again(tmp_path):
    """holdout.runlog.keep_freed_memory (glibc mallopt): buffers freed and allocated again, as a
    training step does with its activations, come back from the heap instead of being mapped and
    page-faulted in every time."""
    code = (
        "import sys, resource, numpy as np\n"
        "from holdout.runlog import keep_freed_memory\n"
        "ok = keep_freed_memory() if sys.argv[1] == '1' else None\n"
        "r0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt\n"
        "for i in range(60):\n"
        "    a = np.ones(1_000_000 + (i % 7) * 100_000); b = np.ones(300_000); del a, b\n"
        "print(ok, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - r0)\n"
    )
    env = {"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"}
    runs = [
        subprocess.run(
            [sys.executable, "-c", code, f], capture_output=True, text=True, env=env, check=True
        ).stdout.split()
        for f in ("0", "1")
    ]
    if runs[1][0] != "True":
        pytest.skip("not glibc: mallopt unavailable")
    assert int(runs[1][1]) * 2 < int(runs[0][1])
