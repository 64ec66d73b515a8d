"""Logging helpers shared by the workflow scripts.

Every rule has a ``log:`` file; scripts call [`script_logger`][holdout.runlog.script_logger] first so that
progress, timings and warnings land in that file (and never as bare prints).
"""

from __future__ import annotations

import contextlib
import logging
import statistics
import sys
import time
from collections.abc import Callable, Iterator
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
    return logger


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
