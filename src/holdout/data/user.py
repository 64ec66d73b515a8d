"""A user's own models' predictions and labels (CSV or NPY) into the predictions format."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from holdout.data.errors import LOG, DataError
from holdout.predictions import Predictions, PredictionsError

__all__ = ["convert_user_predictions", "read_user_labels", "read_user_predictions"]

# Class indices are stored as int16 or int32 (holdout.predictions): larger ones are data errors.
_MAX_CLASS_INDEX = int(np.iinfo(np.int32).max)


def _read_csv_rows(path: Path) -> list[list[str]]:
    """Non-empty rows of a CSV; a UTF-8 byte-order mark (spreadsheets' "CSV UTF-8") is dropped."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            rows = [r for r in csv.reader(fh) if r and any(c.strip() for c in r)]
    except UnicodeDecodeError as exc:
        raise DataError(
            f'{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8 ("CSV UTF-8")'
        ) from exc
    except OSError as exc:
        raise DataError(f"{path}: unreadable CSV ({exc})") from exc
    if not rows:
        raise DataError(f"{path}: empty CSV")
    return rows


def _to_int_matrix(cells: list[list[str]], path: Path, what: str) -> np.ndarray:
    if not cells:
        raise DataError(f"{path}: a header but no data rows: write one row per test point")
    width = len(cells[0])
    for i, row in enumerate(cells):
        if len(row) != width:
            raise DataError(f"{path}: data row {i + 1} has {len(row)} cells, expected {width}")
    try:
        arr = np.array([[float(c) if c.strip() else np.nan for c in row] for row in cells])
    except ValueError as exc:
        sep = next((c for c in (";", "\t") if any(c in cell for row in cells for cell in row)), None)
        hint = (
            f"; the file seems {sep!r}-separated: save it comma-separated"
            if sep
            else "; class names? write both files as class indices 0..C-1, the same mapping in each"
        )
        raise DataError(f"{path}: {what} must be numbers ({exc}){hint}") from exc
    return _check_whole(arr, path, what)


def _check_whole(arr: np.ndarray, path: Path, what: str) -> np.ndarray:
    """``arr`` as int64 class indices; NaN, infinity, fractions, booleans and indices beyond int32 raise."""
    if arr.dtype.kind == "b":
        raise DataError(f"{path}: {what} are booleans (a right/wrong matrix?); class indices (integers) are needed")
    if arr.dtype.kind == "f":
        bad = np.argwhere(~np.isfinite(arr))
        if bad.size:
            raise DataError(
                f"{path}: {what} contain NaN or empty cells, or infinity ({len(bad)}; first "
                f"{arr[tuple(bad[0])]} at index {tuple(int(i) for i in bad[0])})"
            )
        if not np.all(arr == np.round(arr)):
            raise DataError(f"{path}: {what} must be whole class indices")
    elif arr.dtype.kind not in "iu":
        raise DataError(f"{path}: {what} must be integers, got dtype {arr.dtype}")
    big = np.argwhere(np.abs(arr) >= _MAX_CLASS_INDEX) if arr.size else np.zeros((0, arr.ndim))
    if big.size:
        raise DataError(
            f"{path}: {what} contain class index {arr[tuple(big[0])]:.0f} at index "
            f"{tuple(int(i) for i in big[0])}, beyond the largest supported {_MAX_CLASS_INDEX - 1}"
        )
    return arr.astype(np.int64)


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


_INDEX_HEADERS = ("", "unnamed: 0", "index")


def _drop_index_column(header: list[str], rows: list[list[str]], path: Path) -> tuple[list[str], list[list[str]]]:
    """Drop a leading index column as pandas writes it (``df.to_csv()``: an unnamed or named first
    column holding 0..n-1), with a warning; refuse an unnamed first column holding anything else."""
    if len(header) < 2:
        return header, rows
    first = [r[0].strip() if r else "" for r in rows[1:]]
    is_range = first == [str(i) for i in range(len(first))]
    if header[0].lower() in _INDEX_HEADERS or (is_range and _beyond_other_columns(rows, len(first) - 1)):
        if not is_range:
            raise DataError(
                f"{path}: the first column has no model name ({header[0]!r}) and does not hold 0..n-1 (an index): "
                "name it or remove it"
            )
        LOG.warning(
            "%s: first column %r holds 0..%d (an index, as pandas writes it): dropped, not audited as a model "
            "(save with df.to_csv(index=False) to avoid it)",
            path,
            header[0],
            len(first) - 1,
        )
        return header[1:], [r[1:] for r in rows]
    return header, rows


def _beyond_other_columns(rows: list[list[str]], top: int) -> bool:
    """A named first column 0..n-1 is an index, not a model, when n >= 10 and n - 1 is above every
    class in the other columns (no model predicts a class that no other model ever predicts, in order)."""
    if top < 9:
        return False
    try:
        return all(float(c) < top for r in rows[1:] for c in r[1:] if c.strip())
    except ValueError:
        return False


def read_user_labels(path: str | Path) -> np.ndarray:
    """True labels from ``.npy`` (vector) or ``.csv`` (one column, optional header row)."""
    path = Path(path)
    if path.is_dir():
        raise DataError(f"{path}: is a directory, not a labels file (give the .npy or .csv inside)")
    if not path.is_file():
        raise DataError(f"{path}: labels file not found")
    if path.suffix.lower() == ".npy":
        try:
            arr = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise DataError(f"{path}: unreadable .npy ({exc})") from exc
        arr = arr.reshape(-1) if arr.ndim == 2 and 1 in arr.shape else arr
        if arr.ndim != 1:
            raise DataError(f"{path}: labels must be a vector, got shape {arr.shape}")
        return _check_whole(arr, path, "labels")
    if path.suffix.lower() == ".csv":
        rows = _read_csv_rows(path)
        if not all(_is_number(c) or not c.strip() for c in rows[0]):
            rows = rows[1:]
        if any(len(r) != 1 for r in rows):
            raise DataError(f"{path}: labels CSV must have exactly one column")
        return _to_int_matrix(rows, path, "labels")[:, 0]
    raise DataError(f"{path}: labels must be a .npy or .csv file")


def read_user_predictions(path: str | Path, model_names: Sequence[str] | None = None) -> tuple[np.ndarray, list[str]]:
    """Predicted labels K x n and model names from ``.csv`` or ``.npy``.

    CSV: a header row of model names, then one row per example, one column per model.
    NPY: a K x n integer array (one row per model); names from ``model_names`` or
    ``model_0`` .. ``model_{K-1}``.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: predictions file not found")
    suffix = path.suffix.lower()
    if suffix == ".csv":
        rows = _read_csv_rows(path)
        header = [c.strip() for c in rows[0]]
        numeric_names = model_names is not None and [str(m) for m in model_names] == header
        if all(_is_number(c) for c in header) and not numeric_names:
            raise DataError(
                f"{path}: the first row must be a header of model names (numeric names such as seeds 0, 1, 2: "
                "pass the same names as --model-names / model_names to say the first row is the header)"
            )
        if len(rows) < 2:
            raise DataError(f"{path}: no prediction rows below the header")
        header, rows = _drop_index_column(header, rows, path)
        if any(not c for c in header):
            last = header[-1] == "" and all(len(r) < len(header) or not r[-1].strip() for r in rows[1:])
            raise DataError(
                f"{path}: empty model name in the header"
                + (" (its last column is empty: a comma at the end of each line? remove it)" if last else "")
            )
        preds = _to_int_matrix(rows[1:], path, "predictions").T
        names = header
        if model_names is not None and list(model_names) != names:
            raise DataError(f"{path}: model_names in config {list(model_names)} differ from the CSV header {names}")
    elif suffix == ".npy":
        try:
            arr = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise DataError(f"{path}: unreadable .npy ({exc})") from exc
        if arr.ndim == 1:
            arr = arr[None, :]
        if arr.ndim != 2:
            raise DataError(f"{path}: predictions must be a K x n array, got shape {arr.shape}")
        preds = _check_whole(arr, path, "predictions")
        names = list(model_names) if model_names is not None else [f"model_{k}" for k in range(preds.shape[0])]
        if len(names) != preds.shape[0]:
            raise DataError(f"{path}: {preds.shape[0]} models (rows) but {len(names)} model_names in config")
    else:
        raise DataError(f"{path}: predictions must be a .csv or .npy file")
    seen: set[str] = set()
    dups = sorted({m for m in names if m in seen or seen.add(m)})  # type: ignore[func-returns-value]
    if dups:
        raise DataError(f"{path}: duplicate model names: {', '.join(dups)}")
    return preds, names


def convert_user_predictions(
    predictions_path: str | Path,
    labels_path: str | Path,
    *,
    test_set: str,
    model_names: Sequence[str] | None = None,
    num_classes: int | None = None,
) -> Predictions:
    """A user's models in the predictions format (see
    [`read_user_predictions`][holdout.data.user.read_user_predictions]).

    Errors name the file at fault: wrong lengths, labels or predictions out of
    ``[0, num_classes)``, NaNs or empty cells, duplicate model names.
    """
    predictions_path, labels_path = Path(predictions_path), Path(labels_path)
    preds, names = read_user_predictions(predictions_path, model_names)
    labels = read_user_labels(labels_path)
    if preds.shape[1] != labels.shape[0]:
        raise DataError(
            f"{predictions_path}: {preds.shape[1]} predictions per model but {labels_path} has "
            f"{labels.shape[0]} labels (lengths must match)"
        )
    if num_classes is None:
        num_classes = int(max(preds.max(initial=0), labels.max(initial=0))) + 1
    for arr, path, what in ((labels, labels_path, "labels"), (preds, predictions_path, "predictions")):
        if arr.size and (arr.min() < 0 or arr.max() >= num_classes):
            hint = (
                f" ({int((arr < 0).sum())} negative: an abstention? write a class index instead, one that is not "
                "the label to count it wrong)"
                if arr.min() < 0
                else ""
            )
            raise DataError(f"{path}: {what} out of range [0, {num_classes}): min {arr.min()}, max {arr.max()}{hint}")
    meta = [{"source": "user", "file": predictions_path.name, "test_set": test_set} for _ in names]
    try:
        return Predictions.create(
            preds,
            labels,
            names,
            num_classes=num_classes,
            test_set=test_set,
            metadata=meta,
            source=str(predictions_path),
        )
    except PredictionsError as exc:
        raise DataError(str(exc)) from exc
