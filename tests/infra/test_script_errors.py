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
