"""Logging helpers shared by the workflow scripts.

Every rule has a ``log:`` file; scripts call [`script_logger`][holdout.runlog.script_logger] first so that
progress, timings and warnings land in that file (and never as bare prints). The last line of every
job's log is its process's own CPU account ([`job_resources`][holdout.runlog.job_resources]), which
`benchmarks/bench_workflow.py` sums per rule.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import logging
import re
import resource
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def script_logger(log_path: str | Path | None, name: str = "holdout") -> logging.Logger:
    """Return a logger writing to ``log_path`` (and stderr), capturing warnings.

    Uncaught exceptions are logged with their traceback before the script exits,
    so a failed job's log says why it failed. A ``ValueError`` / ``TypeError`` / ``OverflowError``
    (bad input: the library's messages name the file or key) is one line on stderr, its traceback
    in the log file only.
    """
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_path is not None:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(log_path, mode="w"))
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
        force=True,
    )
    logging.captureWarnings(True)
    logger = logging.getLogger(name)

    def _excepthook(exc_type, exc, tb):  # pragma: no cover - exercised by failing jobs
        if issubclass(exc_type, (ValueError, TypeError, OverflowError)):  # bad input: one line on stderr
            logger.error("error: %s", " ".join(str(exc).split()) or exc_type.__name__)
            for h in handlers[1:]:  # the traceback in the log file only
                h.emit(logger.makeRecord(logger.name, logging.DEBUG, "", 0, "traceback", (), (exc_type, exc, tb)))
            raise SystemExit(1)
        logger.error("uncaught exception", exc_info=(exc_type, exc, tb))
        sys.__excepthook__(exc_type, exc, tb)

    sys.excepthook = _excepthook
    keep_freed_memory()
    atexit.register(_log_job_resources, handlers, name)
    return logger


def _log_job_resources(handlers: list[logging.Handler], name: str) -> None:
    """At exit: the job's own account as the last line of its log file (not on stderr: a failed
    job's error stays one line there)."""
    record = logging.LogRecord(name, logging.INFO, __file__, 0, "%s", (job_resources().line(),), None)
    for handler in handlers:
        stream = getattr(handler, "stream", None)
        if isinstance(handler, logging.FileHandler) and stream is not None and not stream.closed:
            handler.handle(record)


# mallopt(3) parameters (glibc's malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def keep_freed_memory(trim_mb: int = 1024, mmap_mb: int = 32) -> bool:
    """Keep freed memory in the process (glibc ``mallopt``): blocks up to ``mmap_mb`` come from the
    heap instead of fresh ``mmap`` calls, and up to ``trim_mb`` of free heap is not returned to the
    system. A training step frees and reallocates the same activation buffers every step; with
    glibc's defaults each of them is mapped, page-faulted in (system time) and unmapped again. The
    job's peak memory is unchanged; it is only given back at exit. Returns False where the C library
    is not glibc (nothing changed)."""
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own symbols: libc's, without a library search
    except (OSError, AttributeError, TypeError):
        return False
    return bool(mallopt(_M_TRIM_THRESHOLD, trim_mb << 20)) and bool(mallopt(_M_MMAP_THRESHOLD, mmap_mb << 20))


JOB_RESOURCES_PREFIX = "job resources:"
_JOB_RESOURCES = re.compile(
    re.escape(JOB_RESOURCES_PREFIX)
    + r" user (?P<user>[\d.]+) s, system (?P<system>[\d.]+) s,"
    + r" max RSS (?P<rss>[\d.]+) MB, (?P<faults>\d+) minor page faults"
)


@dataclass(frozen=True)
class JobResources:
    """CPU-seconds (user, system), peak resident memory and minor page faults of one job's process
    and its reaped children, from the process's start (interpreter, Snakemake's script preamble and
    every import included)."""

    user_s: float
    system_s: float
    max_rss_mb: float
    minor_faults: int

    @property
    def cpu_s(self) -> float:
        return self.user_s + self.system_s

    def line(self) -> str:
        return (
            f"{JOB_RESOURCES_PREFIX} user {self.user_s:.2f} s, system {self.system_s:.2f} s, "
            f"max RSS {self.max_rss_mb:.0f} MB, {self.minor_faults} minor page faults"
        )

    @classmethod
    def parse(cls, text: str) -> JobResources | None:
        """The last account in a log's ``text`` (None when the job wrote none)."""
        found = list(_JOB_RESOURCES.finditer(text))
        if not found:
            return None
        m = found[-1]
        return cls(float(m["user"]), float(m["system"]), float(m["rss"]), int(m["faults"]))


def job_resources() -> JobResources:
    """This process's own account so far (``getrusage`` of itself plus its reaped children)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return JobResources(
        user_s=own.ru_utime + kids.ru_utime,
        system_s=own.ru_stime + kids.ru_stime,
        max_rss_mb=max(own.ru_maxrss, kids.ru_maxrss) / 1024,  # Linux: kilobytes
        minor_faults=own.ru_minflt + kids.ru_minflt,
    )


@contextlib.contextmanager
def timed(logger: logging.Logger, what: str) -> Iterator[None]:
    """Log the wall time of a block: ``with timed(log, "similarity matrix"): ...``."""
    start = time.perf_counter()
    logger.info("%s: started", what)
    try:
        yield
    finally:
        logger.info("%s: done in %.3f s", what, time.perf_counter() - start)


def median_time(fn: Callable[[], T], repeats: int) -> tuple[float, T]:
    """Median wall time in seconds of ``repeats`` calls of ``fn``, and the last result (benchmarks)."""
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result
