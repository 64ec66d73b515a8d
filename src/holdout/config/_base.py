"""What every config checker shares: the error, the logger, the name lookups (imports no study)."""

from __future__ import annotations

import difflib
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: Warnings go to Snakemake's logger (shown with its other start-up messages).
LOG = logging.getLogger("snakemake.holdout.config")

#: Folders (relative to the working directory) the workflow writes into.
OUTPUT_FOLDERS = ("results", "resources", "logs")

Config = Mapping[str, Any]


class ConfigError(ValueError):
    """A configuration value (or a file or folder it names) is unusable; the message names it."""


ConfigError.__module__ = "holdout.config"  # its public home: tracebacks and pickles name it there


def closest(word: str, known: Iterable[str]) -> str:
    match = difflib.get_close_matches(str(word), [str(k) for k in known], n=1, cutoff=0.6)
    return f"; did you mean {match[0]!r}?" if match else ""


def as_mapping(value: Any) -> Mapping[Any, Any]:
    return value if isinstance(value, Mapping) else {}  # another type: the schema names it


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def check_known_sets(key: str, names: Iterable[str], known: Sequence[str], hint: str) -> None:
    for name in names:
        if name not in known:
            raise ConfigError(f"{key}: {name!r} is not {hint}{closest(name, known)} (known: {', '.join(known)})")


def check_names_among(key: str, names: Sequence[str], allowed: Sequence[str], what: str) -> None:
    unknown = [n for n in names if n not in allowed]
    if unknown:
        raise ConfigError(f"{key}: {', '.join(map(repr, unknown))} not among {what} ({', '.join(allowed)})")
