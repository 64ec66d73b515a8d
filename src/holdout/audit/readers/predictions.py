"""Reading a predictions input (2-D classes, 3-D scores / top-k, or holdout's .npz) for the audit, with
the data stage's warnings collected for the report."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from holdout.audit.core import AuditError, load_audit_predictions
from holdout.audit.inputs import check_input_path, check_label_base, read_array_predictions
from holdout.predictions import Predictions

__all__ = ["is_npz", "load_predictions_input", "new_set_args"]


def is_npz(path: str) -> bool:
    return Path(path).suffix.lower() == ".npz"


def new_set_args(args: argparse.Namespace, preds: Predictions) -> argparse.Namespace:
    """The options as they apply to --new-predictions: a .npy has no names (its rows are PREDICTIONS'
    models, in order); a .npz holds its names and classes (--model-names, --scores, --topk are
    PREDICTIONS' options there)."""
    new = args.new_predictions or ""
    names = list(preds.model_names) if Path(new).suffix.lower() == ".npy" else args.model_names
    if is_npz(new):
        return argparse.Namespace(
            **{**vars(args), "model_names": None, "num_classes": None, "scores": False, "topk": False}
        )
    return argparse.Namespace(**{**vars(args), "model_names": names})


def load_predictions_input(
    args: argparse.Namespace, path: str, labels: str | None, option: str
) -> tuple[Predictions, tuple[str, ...]]:
    """One predictions input (2-D classes, 3-D scores / top-k, or .npz), checked for 1-based labels;
    returns it and what was read (for the report)."""
    p = check_input_path(path, option)
    kind = "scores" if args.scores else "topk" if args.topk else "auto"
    if p.suffix.lower() == ".npz":
        given = [o for o, v in (("--model-names", args.model_names), ("--num-classes", args.num_classes)) if v]
        if given or kind != "auto":
            flags = ", ".join(given + (["--scores / --topk"] if kind != "auto" else []))
            raise AuditError(f"{option} {p}: {flags} do not apply to a .npz file (names and classes are inside)")
    with _data_warnings() as notices:
        preds, what = _read(args, p, labels, option, kind)
    for notice in notices:
        print(f"holdout audit: note: {notice}", file=sys.stderr)
    return preds, tuple(x for x in (what, *notices) if x)


def _read(args: argparse.Namespace, p: Path, labels: str | None, option: str, kind: str) -> tuple[Predictions, str]:
    if p.suffix.lower() == ".npy" and labels is not None and (kind != "auto" or _ndim(p) == 3):
        preds, what = read_array_predictions(
            p, labels, kind, model_names=args.model_names, num_classes=args.num_classes
        )
    else:
        if kind != "auto":
            raise AuditError(f"{option} {p}: --scores / --topk need a 3-D .npy array (with --labels)")
        preds = load_audit_predictions(p, labels, model_names=args.model_names, num_classes=args.num_classes)
        what = ""
    check_label_base(preds, str(labels or p))
    return preds, what


@contextmanager
def _data_warnings() -> Iterator[list[str]]:
    """The data stage's warnings while reading (an index column dropped, ...), collected for the report."""
    notes: list[str] = []

    class _Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            notes.append(record.getMessage())

    handler, logger = _Collect(logging.WARNING), logging.getLogger("holdout.data.core")
    logger.addHandler(handler)
    try:
        yield notes
    finally:
        logger.removeHandler(handler)


def _ndim(path: Path) -> int:
    try:
        return int(np.load(path, mmap_mode="r", allow_pickle=False).ndim)
    except (OSError, ValueError):
        return -1  # the reader names the problem
