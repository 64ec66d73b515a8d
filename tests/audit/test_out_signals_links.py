"""--out of holdout audit as users meet it: a symlink is followed (its target replaced, the link
kept), the report is readable by the user's group like any file they write, and SIGTERM (kill, a
scheduler's time limit) is handled like Ctrl-C: nothing half-written is left, and it is said."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from holdout.audit.cli import main

REPO = Path(__file__).resolve().parents[2]


def _matrix(folder: Path) -> list[str]:
    rng = np.random.default_rng(0)
    v = (rng.random((4, 60)) < np.linspace(0.4, 0.8, 4)[:, None]).astype(int)
    pd.DataFrame(v, index=pd.Index(list("abcd"), name="model")).add_prefix("q").to_csv(folder / "c.csv")
    return ["audit", str(folder / "c.csv"), "--correctness", "--lenses", "accuracy"]


def test_a_symlinked_out_is_followed_not_replaced(tmp_path, capsys):
    target, link = tmp_path / "results" / "audit", tmp_path / "audit"
    target.mkdir(parents=True)
    link.symlink_to(target, target_is_directory=True)
    argv = _matrix(tmp_path)
    assert main([*argv, "--out", str(link)]) == 0
    assert link.is_symlink() and (target / "summary.json").is_file()
    assert main([*argv, "--out", str(link)]) == 0  # a rerun replaces the target's report again
    assert link.is_symlink() and (target / "summary.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["audit", "c.csv", "results"]
    mode = stat.S_IMODE(target.stat().st_mode)
    assert mode == 0o777 & ~_umask(), oct(mode)  # not mkdtemp's 0700
    capsys.readouterr()


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@pytest.mark.slow  # over a second of the fast loop (the whole suite runs it)
def test_sigterm_mid_write_is_handled_like_ctrl_c(tmp_path):
    argv = _matrix(tmp_path) + ["--out", str(tmp_path / "o")]
    script = (
        "import os, signal, sys\n"
        "from holdout.audit import leaderboard_cli\n"
        "real = leaderboard_cli._write_all\n"
        "def killed(*args, **kwargs):\n"
        "    real(*args, **kwargs)\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "leaderboard_cli._write_all = killed\n"
        "from holdout.audit.cli import main\n"
        f"sys.exit(main({argv!r}))\n"
    )
    env = os.environ | {"PYTHONPATH": str(REPO / "src"), "MPLBACKEND": "Agg"}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 130, run.stderr
    assert "interrupted" in run.stderr and "nothing written" in run.stderr and "Traceback" not in run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.csv"]  # no .o.partial-* left
