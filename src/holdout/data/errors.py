"""The errors of the data stage (each message names the file and the fix) and its logger."""

from __future__ import annotations

import logging

__all__ = ["ChecksumError", "DataError", "FetchError"]

#: The data stage's logger (its name kept from before the split of ``holdout.data.core``).
LOG = logging.getLogger("holdout.data.core")


class DataError(ValueError):
    """A data input is missing or malformed (the message names the file and the fix)."""


class FetchError(DataError):
    """A file could not be copied or downloaded."""


class ChecksumError(DataError):
    """A file's checksum differs from the one in config."""
