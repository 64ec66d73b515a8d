"""Audit inputs as researchers have them: K x n x C score arrays and K x n x k top-k arrays,
and the sanity checks that catch common mistakes before any lens runs.

- scores (probabilities or logits, floats): predicted class = argmax over the last axis (the
  first maximum on ties), the scores kept in `holdout.predictions.Predictions.scores`;
- top-k (integers, ImageNet testbed style): predicted class = column 0;
- 1-based labels (1..C) against 0-based predictions: refused with the likely cause;
- accuracies at or below chance (1 / C): a warning shown in red at the top of the report.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from holdout.audit.errors import AuditError
from holdout.data.core import DataError, read_user_labels
from holdout.predictions import Predictions, PredictionsError

__all__ = [
    "KINDS",
    "chance_warnings",
    "check_input_path",
    "check_label_base",
    "check_memory",
    "check_out_dir",
    "estimate_memory",
    "one_line",
    "peek_shape",
    "read_array_predictions",
    "user_input",
]

#: how a .npy predictions array is read: auto (2-D: classes; 3-D: floats = scores, integers = top-k)
KINDS = ("auto", "labels", "scores", "topk")


def one_line(exc: BaseException) -> str:
    """An exception's message on one line (whitespace runs, newlines included, become one space)."""
    return " ".join(str(exc).split()) or type(exc).__name__


@contextmanager
def user_input(option: str, path: object) -> Iterator[None]:
    """Turn a library ``ValueError`` / ``TypeError`` / ``OverflowError`` (``UnicodeDecodeError``
    included) raised on a user's input into one [`AuditError`][holdout.audit.inputs.AuditError] line naming ``option``
    and
    ``path``; an [`AuditError`][holdout.audit.inputs.AuditError] passes unchanged."""
    try:
        yield
    except AuditError:
        raise
    except UnicodeDecodeError as exc:
        reason = f"{exc.reason} at byte {exc.start}"
        raise AuditError(f"{option} {path}: not UTF-8 text ({reason}); save it as UTF-8") from None
    except (ValueError, TypeError, OverflowError) as exc:
        raise AuditError(f"{option} {path}: {one_line(exc)}") from None


#: the rank intervals' bootstrap draws its item resamples this many at a time (holdout.stats ranks)
RESAMPLE_BLOCK = 64
#: the interpreter with the CLI's libraries imported (164 MiB peak resident measured, rounded up)
_INTERPRETER = 256 * 2**20
#: bytes per item per resample of that block: the drawn indices, their offset copy, the counts (int64
#: each) and the counts as floats
_RESAMPLE_BYTES = 32


def estimate_memory(num_models: int, num_examples: int) -> int:
    """Peak bytes of the lenses, a heuristic: four float64 K x n arrays (errors and their products),
    eight float64 K x K matrices (similarities, baselines, covering and pair tables), the paired
    lens's table of K(K-1)/2 pairs ([`pairs_memory_bytes`][holdout.stats.paired.pairs_memory_bytes])
    and the rank intervals' block of 64 item resamples (32 bytes per item each: at n = 2,000,000 3.8 GiB,
    more than everything else at K = 4); 10% more for numpy's temporaries, and the
    interpreter with its libraries (256 MiB). At 6,000 x 50 and 4 x 2,000,000 it is above the peak
    measured by ``benchmarks/bench_audit_scale.py`` (``docs/measurements/audit_scale.json``)."""
    from holdout.stats.paired import pairs_memory_bytes

    k, n = int(num_models), int(num_examples)
    resamples = _RESAMPLE_BYTES * RESAMPLE_BLOCK * n
    arrays = 8 * (4 * k * n + 8 * k**2) + pairs_memory_bytes(k, n) + resamples
    return int(1.1 * arrays) + _INTERPRETER


def _available_memory() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def peek_shape(path: str | Path) -> tuple[int, int] | None:
    """(K, n) of a predictions file without reading it whole (``.npy``: its header; ``.csv``: the
    header row and the line count), or None where that is not cheap (``.npz``) or the file is unreadable."""
    p = Path(path)
    try:
        if p.suffix.lower() == ".npy":
            shape = np.load(p, mmap_mode="r", allow_pickle=False).shape
            return (1, shape[0]) if len(shape) == 1 else (shape[0], shape[1]) if len(shape) >= 2 else None
        if p.suffix.lower() == ".csv":
            with open(p, "rb") as fh:
                k = fh.readline().count(b",") + 1
                n = sum(1 for line in fh if line.strip())
            return k, n
    except (OSError, ValueError):
        return None  # the reader names the problem
    return None


def check_memory(
    num_models: int, num_examples: int, force: bool = False, source: str = "predictions", available: int | None = None
) -> None:
    """Refuse (unless ``force``) an input whose [`estimate_memory`][holdout.audit.inputs.estimate_memory]
    exceeds the memory available now, before reading it whole and before the lenses spend minutes on it."""
    need = estimate_memory(num_models, num_examples)
    have = _available_memory() if available is None else available
    if force or have is None or need <= have:
        return
    raise AuditError(
        f"{source}: {num_models:,} models x {num_examples:,} test points need about {need / 2**30:.1f} GiB, "
        f"{have / 2**30:.1f} GiB is available: audit fewer models at a time (or pass --force to try anyway)"
    )


def check_input_path(path: str | Path, option: str) -> Path:
    """``path`` as a Path when it is a file; [`AuditError`][holdout.audit.inputs.AuditError] naming ``option``
    otherwise."""
    p = Path(path)
    if p.is_dir():
        raise AuditError(f"{option} {p}: is a directory, not a predictions file (give the .csv, .npy or .npz inside)")
    if not p.exists():
        raise AuditError(f"{option} {p}: file not found")
    return p


def check_out_dir(out: str | Path) -> Path:
    """Check that ``--out`` can be created beside its siblings: its parent folder is created (with
    parents) and must accept a new file (the audit writes there first, then moves its folder into
    place); [`AuditError`][holdout.audit.inputs.AuditError] naming --out otherwise."""
    p = Path(out)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        probe = p.parent / f".{p.name}.holdout-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise AuditError(f"--out {p}: cannot create or write this folder ({reason})") from None
    return p


def read_array_predictions(
    path: str | Path,
    labels_path: str | Path,
    kind: str = "auto",
    *,
    model_names: list[str] | None = None,
    num_classes: int | None = None,
) -> tuple[Predictions, str]:
    """A 3-D ``.npy`` of scores (K x n x C) or top-k classes (K x n x k) as
    [`Predictions`][holdout.audit.inputs.Predictions],
    and one sentence saying what was read. ``kind``: see `KINDS` (``labels`` refuses 3-D)."""
    path = Path(path)
    try:
        arr = np.load(path, allow_pickle=False)
        labels = read_user_labels(labels_path)
    except (OSError, ValueError) as exc:
        raise AuditError(f"{path}: unreadable .npy ({exc})") from None
    except DataError as exc:
        raise AuditError(str(exc)) from None
    if arr.ndim != 3:
        raise AuditError(f"{path}: expected a K x n x C score or K x n x k top-k array, got shape {arr.shape}")
    if kind == "auto":
        kind = "scores" if arr.dtype.kind == "f" else "topk" if arr.dtype.kind in "iu" else ""
        if not kind:
            raise AuditError(f"{path}: dtype {arr.dtype} is neither float scores nor integer top-k classes")
    K, n, width = arr.shape
    if n != labels.shape[0]:
        raise AuditError(f"{path}: {n} test points per model but {labels_path} has {labels.shape[0]} labels")
    names = list(model_names) if model_names is not None else [f"model_{k}" for k in range(K)]
    if len(names) != K:
        raise AuditError(f"{path}: {K} models but {len(names)} --model-names")
    if kind == "scores":
        if not np.all(np.isfinite(arr)):
            raise AuditError(f"{path}: scores contain NaN or infinity")
        preds, scores, C = arr.argmax(axis=2), arr, width
        if num_classes is not None and num_classes != C:
            raise AuditError(f"{path}: {C} score columns but --num-classes {num_classes}")
        what = f"{K} x {n} x {C} float scores (probabilities or logits): predicted class = argmax, scores kept"
    elif kind == "topk":
        if arr.dtype.kind not in "iu":
            raise AuditError(f"{path}: --topk needs integer class indices, got dtype {arr.dtype}")
        preds, scores = arr[:, :, 0], None
        C = num_classes or int(max(arr.max(), labels.max())) + 1
        what = f"{K} x {n} x {width} top-{width} class indices: predicted class = column 0 (top-1)"
    else:
        raise AuditError(f"{path}: a 3-D array needs --scores or --topk (got kind {kind!r})")
    try:
        preds_obj = Predictions.create(
            preds, labels, names, num_classes=C, test_set=path.stem, scores=scores, source=str(path)
        )
    except PredictionsError as exc:
        raise AuditError(str(exc)) from None
    return preds_obj, f"Read {path.name}: {what}."


def check_label_base(preds: Predictions, labels_source: str) -> None:
    """Refuse 1-based labels against 0-based predictions: no label 0, some prediction 0, and the
    mean accuracy against labels - 1 at least 3 times the one as given and above 1.5 / C."""
    y, p = preds.labels, preds.predictions
    if y.size == 0 or y.min() < 1 or not np.any(p == 0):
        return
    raw = (p == y[None]).mean(axis=1)
    shifted = (p == (y - 1)[None]).mean(axis=1)
    if shifted.mean() >= max(3 * raw.mean(), 1.5 / preds.num_classes):
        raise AuditError(
            f"{labels_source}: labels look 1-based ({y.min()}..{y.max()}, no 0) while the predictions are 0-based: "
            f"mean accuracy {100 * raw.mean():.1f}% as given, {100 * shifted.mean():.1f}% with labels - 1 "
            "(subtract 1 from the labels)"
        )


def chance_warnings(preds: Predictions) -> list[str]:
    """Models whose accuracy is at or below chance (1 / C): one warning sentence, or none."""
    acc = preds.accuracies()
    chance = 1.0 / preds.num_classes
    low = [m for m, a in zip(preds.model_names, acc) if a <= chance]
    if not low:
        return []
    return [
        f"{len(low)} of {len(acc)} models are at or below chance accuracy ({100 * chance:.1f}% for "
        f"{preds.num_classes} classes): {', '.join(low[:5])}{' ...' if len(low) > 5 else ''}. Check that "
        "labels and predictions use the same class indices and the same order of test points."
    ]
