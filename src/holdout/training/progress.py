"""tqdm progress bars written to a logger (so to a Snakemake rule's ``log:`` file), one line per refresh."""

from __future__ import annotations

import io
import logging

from tqdm import tqdm

__all__ = ["LogStream", "log_progress"]


class LogStream(io.TextIOBase):
    """A text stream that sends each non-empty write to ``log`` at ``level``.

    tqdm redraws a bar in place with ``"\\r"`` and pads it with spaces; stripped, each redraw
    becomes one log line, and the blank clearing write of a closed bar is dropped.
    """

    def __init__(self, log: logging.Logger, level: int = logging.INFO) -> None:
        super().__init__()
        self.log = log
        self.level = level

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        text = s.strip("\r\n ")
        if text:
            self.log.log(self.level, "%s", text)
        return len(s)


def log_progress(log: logging.Logger, total: int, *, initial: int = 0, desc: str = "", unit: str = "it") -> tqdm:
    """A tqdm bar over ``total`` units that writes a log line at every ``update`` call.

    The caller decides the cadence by how often it calls ``update`` (e.g. ten times per
    epoch); ``initial`` continues a resumed run's count. ASCII, fixed width, no terminal needed.
    """
    return tqdm(
        total=total,
        initial=initial,
        desc=desc,
        unit=unit,
        unit_scale=False,
        file=LogStream(log),
        mininterval=0.0,
        miniters=1,
        ascii=True,
        ncols=120,
        leave=False,
        dynamic_ncols=False,
    )
