"""Reading a predictions input (2-D classes, 3-D scores / top-k, or holdout's .npz) for the audit, with
the data stage's warnings collected for the report."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import numpy as np

from holdout.audit.engines.aline_lens import read_unlabeled
from holdout.audit.engines.core import AuditError, load_audit_predictions
from holdout.audit.evidence import Evidence
from holdout.audit.inputs import check_input_path, check_label_base, read_array_predictions
from holdout.audit.safe_text import terminal_text
from holdout.predictions import Predictions

__all__ = ["evidence_from_predictions", "is_npz", "load_predictions_input", "new_set_args", "read_predictions"]


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
        print(f"holdout audit: note: {terminal_text(notice)}", file=sys.stderr)
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


def evidence_from_predictions(preds: Predictions, source: str = "", notes: tuple[str, ...] = ()) -> Evidence:
    """Predictions and their labels as the audit's evidence: the 0/1 correctness matrix, the answers
    (each model's predicted class) and the keys (the labels)."""
    correct = (preds.predictions == preds.labels[None, :]).astype(np.float64)
    return Evidence(
        matrix=correct,
        model_ids=tuple(preds.model_names),
        item_ids=tuple(str(i) for i in range(preds.num_examples)),
        predictions=preds,
        test_set=preds.test_set,
        sources=(source,) if source else (),
        notes=notes,
        answers=preds.predictions,
        keys=preds.labels,
    )


def read_predictions(
    path: str | Path,
    labels: str | Path | None = None,
    *,
    model_names: list[str] | None = None,
    num_classes: int | None = None,
    new: str | Path | None = None,
    new_labels: str | Path | None = None,
) -> Evidence:
    """K models' predictions (.csv, .npy or holdout's .npz; labels inside a .npz) as the audit's evidence,
    with ``new``: the same models on a newer test set (``evidence.new``; unlabeled predictions need
    ``new_labels`` here)."""
    preds = load_audit_predictions(path, labels, model_names=model_names, num_classes=num_classes)
    check_label_base(preds, str(labels or path))
    later = None
    if new is not None and new_labels is None and not is_npz(str(new)):  # agreement on the line only
        answers = read_unlabeled(new, preds, model_names)
        later = Evidence(None, tuple(preds.model_names), sources=(str(new),), answers=answers)
    elif new is not None:
        names = list(preds.model_names) if Path(new).suffix.lower() == ".npy" else model_names
        later = evidence_from_predictions(load_audit_predictions(new, new_labels, model_names=names), str(new))
    return replace(evidence_from_predictions(preds, str(path)), new=later)
