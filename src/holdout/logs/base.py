"""What every reader returns, and the checks they share.

A reader turns one run's file(s) into a [`RunScores`][holdout.logs.base.RunScores]: the model, the
task, the metric and filter it read, and one score in [0, 1] per item id. Bad input is a
[`LogError`][holdout.logs.base.LogError]: one line naming the file and what to do.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "ANY",
    "LogError",
    "RunScores",
    "Selection",
    "check_scores",
    "check_unique",
    "choose",
    "clean_name",
    "score_value",
    "normalise_text",
    "scalar_fields",
    "fields_of",
    "first_line",
    "jsonl_rows",
    "load_json",
    "natural_key",
    "no_filter",
]

#: the first line of a Git LFS pointer file (the data itself was never downloaded)
LFS_HEADER = b"version https://git-lfs.github.com/spec/"


class LogError(ValueError):
    """Bad evaluation-log input; the message is one line naming the file (or option) and the fix."""


@dataclass(frozen=True)
class Selection:
    """What to read of a run: the task (None: any), the metric and the filter (None: the only one
    there is; a LogError listing the choices when there are several)."""

    task: str | None = None
    metric: str | None = None
    filter: str | None = None


#: no task, metric or filter chosen
ANY = Selection()


@dataclass(frozen=True)
class RunScores:
    """One run: ``scores[i]`` in [0, 1] is the model's score on item ``item_ids[i]`` (0/1, or a
    pass rate over ``samples`` samples, epochs or trials). ``date``: when the run was made (ISO
    text, None where the file does not say); ``item_dates``: each item's release date
    (``datetime64[D]``, LiveCodeBench's contest dates) or None; ``notes``: what the reader saw and
    the report should say (a cancelled run, items without a score ...).

    Optional, None where the format records none (each reader's docstring names the field it reads),
    each aligned with ``item_ids``: ``answers``, the model's chosen answer per item as text (None for
    an item without one); ``keys``, the answer key per item; ``item_text``, the question and choices
    lowercased with whitespace collapsed ([`normalise_text`][holdout.logs.base.normalise_text]);
    ``item_fields``, field name -> one short scalar value (as text) per item, for clustering.
    ``config``: what the file says about the run's configuration (task version or hash, few-shot
    count, generation settings, harness version ...), flat keys, JSON-able values.

    Control characters (ANSI escapes included) in the model, task, metric and filter names are
    removed or escaped here ([`clean_name`][holdout.logs.base.clean_name]), so that no name read from
    a file can drive a terminal."""

    model: str
    task: str
    metric: str
    filter: str | None
    item_ids: tuple[str, ...]
    scores: np.ndarray
    source: str
    format: str
    date: str | None = None
    samples: int | None = None
    item_dates: np.ndarray | None = None
    notes: tuple[str, ...] = ()
    answers: tuple[str | None, ...] | None = None
    keys: tuple[str | None, ...] | None = None
    item_text: tuple[str | None, ...] | None = None
    item_fields: dict[str, tuple[str | None, ...]] | None = None
    config: dict[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("model", "task", "metric", "filter"):
            value = getattr(self, name)
            if isinstance(value, str):
                object.__setattr__(self, name, clean_name(value))

    def rows(self) -> pd.DataFrame:
        """The run as (model, task, metric, filter, item, score) rows."""
        n = len(self.item_ids)
        return pd.DataFrame(
            {
                "model": [self.model] * n,
                "task": [self.task] * n,
                "metric": [self.metric] * n,
                "filter": [self.filter] * n,
                "item": list(self.item_ids),
                "score": self.scores,
            }
        )


_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def clean_name(text: str) -> str:
    """``text`` without ANSI escape sequences, other control characters written as ``\\xNN``
    (printable text, ``$`` included, is kept as it is)."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", _ANSI.sub("", text))


def normalise_text(*parts: object) -> str | None:
    """Question and choices as one comparable text: lowercased, whitespace collapsed, parts joined
    by `` | ``; None when no part is text."""
    out = []
    for p in parts:
        if isinstance(p, str):
            out.append(p)
        elif isinstance(p, (list, tuple)):
            out.extend(str(x) for x in p if isinstance(x, (str, int, float)))
    text = " | ".join(" ".join(t.lower().split()) for t in out if t.strip())
    return text or None


#: longest scalar text kept as a clustering field (longer ones are item text, not a group label)
FIELD_MAX_CHARS = 100


def scalar_fields(record: object, too_long: set[str] | None = None) -> dict[str, str]:
    """The short scalar values of a mapping (str, int, float, bool; at most ``FIELD_MAX_CHARS``
    characters), as text: the fields an item can be clustered by. The names of longer text values
    are added to ``too_long`` (a field long for one item is text, not a group label, for all)."""
    if not isinstance(record, dict):
        return {}
    out = {}
    for k, v in record.items():
        if isinstance(v, str) and len(v) > FIELD_MAX_CHARS:
            if too_long is not None:
                too_long.add(str(k))
        elif isinstance(v, (str, int, float, bool)):
            out[str(k)] = str(v)
    return out


def fields_of(
    records: Sequence[dict[str, str]], too_long: set[str] = frozenset()
) -> dict[str, tuple[str | None, ...]] | None:
    """Per-item field dicts as field name -> one value per item (None where an item lacks it),
    less the fields in ``too_long``; None when there is no field."""
    names = [k for k in dict.fromkeys(k for r in records for k in r) if k not in too_long]
    return {k: tuple(r.get(k) for r in records) for k in names} or None


#: spellings of a correct / incorrect / partial outcome (lowercased): Inspect's letters C, I, P, N,
#: and the words harnesses and hand-written converters use
_TRUE = frozenset({"c", "correct", "yes", "true", "pass", "passed", "1"})
_FALSE = frozenset({"i", "incorrect", "no", "false", "fail", "failed", "n", "noanswer", "0"})
_PARTIAL = frozenset({"p", "partial"})


def score_value(value: object, what: str) -> float:
    """One per-item score as a float: numbers and bools as they are; text ``C``/``correct``/``yes``/
    ``true``/``pass`` as 1, ``I``/``incorrect``/``no``/``false``/``fail``/``N`` as 0, ``P``/``partial``
    as 0.5, a number written as text as that number (any case, spaces ignored). Anything else is a
    LogError naming ``what`` (file and item): never read as 0."""
    if isinstance(value, (bool, int, float)) and not isinstance(value, complex):
        return float(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return 1.0
        if text in _FALSE:
            return 0.0
        if text in _PARTIAL:
            return 0.5
        try:
            return float(text)
        except ValueError:
            pass
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    raise LogError(f"{what} is {shown}, not a score (a number, true/false, or C/I/P/N, correct/incorrect)")


def natural_key(item: str) -> tuple[object, ...]:
    """Sort key that puts ``id9`` before ``id10`` and ``2`` before ``10``."""
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", item))


def choose(found: Iterable[str], given: str | None, what: str, option: str, source: str | Path) -> str:
    """The one ``what`` (metric, filter, scorer ...) to read: ``given`` when it is among ``found``, the
    only one found when ``given`` is None; otherwise a LogError listing the choices and the option."""
    options = sorted(set(found))
    if given is not None:
        if given not in options:
            raise LogError(f"{source}: no {what} {given!r} here; choose {option} from: {', '.join(options) or 'none'}")
        return given
    if len(options) == 1:
        return options[0]
    if not options:
        raise LogError(f"{source}: no {what} found (no per-item scores in this file)")
    raise LogError(f"{source}: {len(options)} {what}s ({', '.join(options)}): choose one with {option}")


def first_line(path: Path, limit: int = 1 << 26) -> bytes:
    """The file's first line (at most ``limit`` bytes), for detection; a Git LFS pointer or an empty
    file is a LogError."""
    try:
        with open(path, "rb") as fh:
            line = fh.readline(limit)
    except OSError as exc:
        raise LogError(f"{path}: cannot read ({exc.strerror or type(exc).__name__})") from None
    if line.startswith(LFS_HEADER):
        raise LogError(f"{path}: a Git LFS pointer, not the data (fetch it with `git lfs pull`)")
    if not line.strip():
        raise LogError(f"{path}: empty file (no run in it)")
    return line


def check_scores(values: Sequence[object], ids: Sequence[str], what: str, source: str | Path) -> np.ndarray:
    """Per-item scores as floats in [0, 1]; a LogError naming the first item that is not."""
    arr = np.asarray(values, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(arr) | (arr < 0) | (arr > 1))
    if bad.size:
        i = int(bad[0])
        raise LogError(
            f"{source}: {what} of item {ids[i]!r} is {values[i]!r}, not a score in [0, 1] "
            "(choose a correctness metric with --metric)"
        )
    return arr


def check_unique(ids: Sequence[str], source: str | Path, where: str = "") -> None:
    """Refuse a run that scores one item twice (naming the item id and the file)."""
    seen: set[str] = set()
    for i in ids:
        if i in seen:
            raise LogError(f"{source}: item id {i!r} appears twice{where}; one score per item and run")
        seen.add(i)


def no_filter(select: Selection, source: str | Path, fmt: str) -> None:
    """Refuse ``--filter`` for a format that has no filters (rather than ignore it)."""
    if select.filter is not None:
        raise LogError(f"{source}: --filter {select.filter}: {fmt} files have no filters; leave --filter out")


def load_json(path: Path) -> object:
    """A whole JSON file; a LogError naming the file when it cannot be read or is not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LogError(f"{path}: cannot read ({exc.strerror or type(exc).__name__})") from None
    except ValueError as exc:
        raise LogError(f"{path}: not JSON ({' '.join(str(exc).split())})") from None


def jsonl_rows(path: Path, is_row: Callable[[object], bool], what: str) -> Iterator[dict]:
    """The rows of a JSON-lines file one at a time (blank lines skipped); a line that is not JSON or
    for which ``is_row`` is false is a LogError naming the line."""
    with open(path, "rb") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except UnicodeDecodeError as exc:
                raise LogError(
                    f"{path}: line {number} is not UTF-8 (byte 0x{line[exc.start]:02x} at column {exc.start + 1}); "
                    "re-encode the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)"
                ) from None
            except ValueError as exc:
                msg = getattr(exc, "msg", str(exc))
                raise LogError(f"{path}: line {number} is not JSON ({msg}); is the file cut short?") from None
            if not is_row(row):
                raise LogError(f"{path}: line {number} is not {what}")
            yield row
