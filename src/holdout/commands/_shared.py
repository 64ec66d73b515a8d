"""What ``holdout power`` and ``holdout compare`` share: reading a correctness matrix or evaluation
logs, the item clusters (a CSV or a pattern on the item ids), one-line errors and atomic writes."""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import numpy as np
import pandas as pd

from holdout.leaderboards.correctness import CorrectnessError, read_correctness
from holdout.logs import FORMATS, LogError, read_logs

__all__ = [
    "Matrix",
    "UsageError",
    "add_alpha",
    "add_cluster_options",
    "add_input_options",
    "add_log_options",
    "add_out",
    "cluster_labels",
    "parser",
    "read_matrix",
    "run_main",
    "write_atomic",
]


class UsageError(ValueError):
    """Bad input: one line naming the file or option and what to do (exit 2)."""


class _Parser(argparse.ArgumentParser):
    """An option error is one line, like every other bad input."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class _Help(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults shown for options that have one; description and examples kept as written."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        return action.help if action.default in (None, False) else super()._get_help_string(action)


def parser(prog: str, description: str, examples: str) -> argparse.ArgumentParser:
    """An argparse parser with one-line errors and an ``examples:`` epilog kept verbatim."""
    return _Parser(prog=prog, description=description, epilog="examples:\n" + examples, formatter_class=_Help)


def add_input_options(p: argparse.ArgumentParser, *, nargs: str, help: str) -> None:
    """The input PATHs (``nargs`` and ``help`` as the command reads them), then how to read them
    (``add_log_options``)."""
    p.add_argument("paths", nargs=nargs, metavar="PATH", help=help)
    add_log_options(p)


def add_alpha(g: argparse._ArgumentGroup, help: str) -> None:
    """--alpha, the two-sided level of the command's paired test (0.05 by default in every command)."""
    g.add_argument("--alpha", type=float, default=0.05, help=help)


def add_out(g: argparse._ArgumentGroup, files: str) -> None:
    """--out DIR, the folder the command writes ``files`` into (nothing is written without it)."""
    g.add_argument("--out", type=Path, help=f"folder for {files} (nothing written without it)")


def add_log_options(p: argparse.ArgumentParser) -> None:
    """How to read the inputs: a correctness matrix (--correctness) or evaluation logs."""
    g = p.add_argument_group("reading the input (a correctness matrix, or evaluation logs by default)")
    g.add_argument(
        "--correctness",
        action="store_true",
        help="the input is a correctness matrix (.csv: model name, then one column per item; or .npy K x n)",
    )
    g.add_argument("--samples", type=int, help="a matrix of pass rates over this many samples per item")
    g.add_argument("--rows", choices=("models", "items"), help="a matrix with one row per item: --rows items")
    g.add_argument("--format", choices=list(FORMATS), help="read every log as this format (default: from content)")
    g.add_argument("--task", help="the task to read, when the logs hold several")
    g.add_argument("--metric", help="the per-item metric or scorer to read, when a log holds several")
    g.add_argument("--filter", help="the lm-eval filter (or HELM split) to read, when a log holds several")


def add_cluster_options(p: argparse.ArgumentParser) -> None:
    """--clusters FILE, --cluster-pattern REGEX and --cluster-by FIELD (one of them)."""
    g = p.add_argument_group("clustered items (questions that share a passage, a source, a repository)")
    x = g.add_mutually_exclusive_group()
    x.add_argument("--clusters", type=Path, metavar="CSV", help="CSV of item id, cluster (a header row is allowed)")
    x.add_argument(
        "--cluster-pattern",
        metavar="REGEX",
        help="each item's cluster from its id: the first group of REGEX (or its whole match), e.g. '^(.+)-[0-9]+$' "
        "gives a SWE-bench instance id's repository",
    )
    x.add_argument(
        "--cluster-by",
        metavar="FIELD",
        help="each item's cluster from a per-item field of the logs (an lm-eval doc field, an Inspect sample's "
        "metadata key, a HELM instance field, LiveCodeBench's contest_id); the error lists the fields there are",
    )


@dataclass(frozen=True)
class Matrix:
    """K x n scores in [0, 1] with model names and item ids; ``binary`` when all are 0 or 1;
    ``notes``: what reading did (items dropped, runs renamed)."""

    model_names: tuple[str, ...]
    values: np.ndarray
    item_ids: tuple[str, ...]
    samples: int | None
    binary: bool
    notes: tuple[str, ...] = ()
    fields: dict[str, tuple[str | None, ...]] | None = None


def read_matrix(paths: Sequence[str], args: argparse.Namespace) -> Matrix:
    """The K x n matrix of ``paths``: a correctness file with --correctness, else evaluation logs."""
    try:
        if args.correctness:
            if len(paths) != 1:
                raise UsageError(f"--correctness reads one matrix file, got {len(paths)} paths")
            c = read_correctness(paths[0], samples=args.samples, rows=args.rows)
            n = c.values.shape[1]
            ids = c.item_names or tuple(str(j + 1) for j in range(n))
            return Matrix(c.model_names, c.values, ids, c.samples, c.binary, (c.read_as,) if c.read_as else ())
        for flag in ("samples", "rows"):
            if getattr(args, flag) is not None:
                raise UsageError(f"--{flag} is for a correctness matrix (--correctness); logs say it themselves")
        m = read_logs(list(paths), format=args.format, task=args.task, metric=args.metric, filter=args.filter)
        fields = getattr(m, "item_fields", None)
        return Matrix(m.model_names, m.values, tuple(m.item_ids), m.samples, m.binary, tuple(m.notes), fields)
    except (CorrectnessError, LogError) as exc:
        raise UsageError(str(exc)) from None


def _read_cluster_csv(path: Path) -> dict[str, str]:
    if not path.is_file():
        raise UsageError(f"--clusters {path}: file not found")
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            rows = [r for r in csv.reader(fh) if any(cell.strip() for cell in r)]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise UsageError(f"--clusters {path}: cannot read ({exc})") from None
    out: dict[str, str] = {}
    for line, row in enumerate(rows, 1):
        if len(row) < 2:
            raise UsageError(f"--clusters {path}: line {line} has {len(row)} field; expected item id, cluster")
        item, cluster = row[0].strip(), row[1].strip()
        if item in out and out[item] != cluster:
            raise UsageError(f"--clusters {path}: item {item!r} is in two clusters ({out[item]!r}, {cluster!r})")
        out[item] = cluster
    return out


def cluster_labels(
    args: argparse.Namespace, item_ids: Sequence[str], fields: dict[str, tuple[str | None, ...]] | None = None
) -> tuple[np.ndarray | None, str]:
    """Each item's cluster from --clusters, --cluster-pattern or --cluster-by (None without them),
    and a note on what was read (ids of the file no item has; a header row skipped). ``fields``:
    the logs' per-item fields, aligned with ``item_ids``."""
    if args.cluster_by is not None:
        return _field_labels(args.cluster_by, item_ids, fields), f"clusters from the item field {args.cluster_by!r}"
    if args.clusters is None and args.cluster_pattern is None:
        return None, ""
    if args.cluster_pattern is not None:
        try:
            pattern = re.compile(args.cluster_pattern)
        except re.error as exc:
            raise UsageError(f"--cluster-pattern {args.cluster_pattern!r}: not a regular expression ({exc})") from None
        labels = []
        for item in item_ids:
            hit = pattern.search(item)
            if hit is None:
                raise UsageError(f"--cluster-pattern {args.cluster_pattern!r} does not match item id {item!r}")
            labels.append(hit.group(1) if pattern.groups else hit.group(0))
        return np.asarray(labels, dtype=object), f"clusters from the item ids by {args.cluster_pattern!r}"
    table = _read_cluster_csv(args.clusters)
    known = set(item_ids)
    first = next(iter(table), None)
    if first is not None and first not in known:  # a header row (item, cluster)
        del table[first]
    missing = [i for i in item_ids if i not in table]
    if missing and len(missing) == len(item_ids):
        raise UsageError(
            f"--clusters {args.clusters}: none of its item ids is an item here (first item here: {item_ids[0]!r}, "
            f"first in the file: {first!r})"
        )
    if missing:
        raise UsageError(
            f"--clusters {args.clusters}: {len(missing):,} of {len(item_ids):,} items have no cluster "
            f"(first: {missing[0]!r}); give every item one"
        )
    extra = len(set(table) - known)
    note = f"clusters from {args.clusters}" + (f" ({extra:,} ids there are not items here, ignored)" if extra else "")
    return np.asarray([table[i] for i in item_ids], dtype=object), note


def _field_labels(field: str, item_ids: Sequence[str], fields: dict | None) -> np.ndarray:
    """The values of one per-item field (the logs' --cluster-by), refused naming the fields there
    are, or the first item without a value."""
    from types import SimpleNamespace

    from holdout.logs import cluster_labels

    if fields is None:
        raise UsageError(f"--cluster-by {field}: a correctness matrix has no per-item fields; give --clusters FILE")
    view = SimpleNamespace(item_ids=tuple(item_ids), item_fields=fields)
    return np.asarray(cluster_labels(view, field), dtype=object)


def write_atomic(out: Path, files: dict[str, Callable[[Path], None]]) -> None:
    """Write each named file into ``out`` through a temporary file and a rename, so a file there is
    either the old one or the whole new one."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot create the folder ({exc.strerror})") from None
    for name, write in files.items():
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=out)
        os.close(fd)
        try:
            write(Path(tmp))
            os.replace(tmp, out / name)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)


def write_json(data: dict[str, object]) -> Callable[[Path], None]:
    """A writer of ``data`` as indented JSON (NaN and inf as null)."""

    def clean(x: object) -> object:
        if isinstance(x, float) and not np.isfinite(x):
            return None
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        return x

    return lambda path: path.write_text(json.dumps(clean(data), indent=2) + "\n", encoding="utf-8")


def write_csv(frame: pd.DataFrame) -> Callable[[Path], None]:
    return lambda path: frame.to_csv(path, index=False, float_format="%.10g")


def run_main(body: Callable[[], int]) -> int:
    """Run a command: bad input is one line on stderr and exit 2; Ctrl-C exit 130."""
    try:
        return body()
    except (UsageError, CorrectnessError, LogError) as exc:
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
