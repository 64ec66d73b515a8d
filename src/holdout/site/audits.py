"""Run ``holdout audit`` on every benchmark through its public entry point (no second
implementation): in this process one after another, or in a small pool of processes."""

from __future__ import annotations

import contextlib
import io
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context

__all__ = ["AuditRun", "run_audit", "run_audits"]


@dataclass(frozen=True)
class AuditRun:
    """One audit: the benchmark ``name``, its ``argv``, exit code ``rc``, what it printed
    (``output``) and its wall time in seconds."""

    name: str
    argv: tuple[str, ...]
    rc: int
    output: str
    seconds: float

    @property
    def error(self) -> str:
        """The audit's one-line error (its last line starting 'holdout'), '' when it succeeded."""
        if self.rc == 0:
            return ""
        said = self.output.strip().splitlines()
        lines = [ln for ln in said if ln.startswith("holdout")] or said or [f"exit code {self.rc}"]
        return lines[-1]


def run_audit(name: str, argv: Sequence[str]) -> AuditRun:
    """``holdout audit *argv`` (its public entry point), its printed lines captured."""
    from holdout.audit.cli import main

    buf = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            rc = main(list(argv))
        except SystemExit as exc:  # argparse's usage errors
            rc = exc.code if isinstance(exc.code, int) else 2
    return AuditRun(name, tuple(argv), int(rc), buf.getvalue(), time.perf_counter() - start)


def _star(job: tuple[str, Sequence[str]]) -> AuditRun:
    os.environ.setdefault("MPLBACKEND", "Agg")
    return run_audit(*job)


def run_audits(
    jobs: Sequence[tuple[str, Sequence[str]]], workers: int = 1, progress: Callable[[AuditRun], None] | None = None
) -> list[AuditRun]:
    """Every ``(name, argv)`` audited, in the order given; ``workers`` > 1 runs them in a process pool."""
    runs: list[AuditRun] = []
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            runs.append(run_audit(*job))
            if progress:
                progress(runs[-1])
        return runs
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=get_context("fork")) as pool:
        for run in pool.map(_star, jobs):
            runs.append(run)
            if progress:
                progress(run)
    return runs
