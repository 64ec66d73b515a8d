"""Fetching and converting the public inputs: CIFAR-10, CIFAR-10.1, the ImageNet testbed.

Three jobs, all small pure functions:

* :func:`fetch` copies one file from a mirror folder or downloads it from its URL, to a
  temporary name beside the destination, verifies its checksum (``md5:<hex>`` or
  ``sha256:<hex>``) and only then renames it into place (:func:`os.replace`), so a
  half-finished or corrupt file never appears under the destination name.
* Converters into the one predictions format (:mod:`holdout.predictions`):
  :func:`convert_cifar10_1_predictions` (the published per-image predictions of the
  30 CIFAR-10 models of Recht et al. 2018, Table 1), :func:`convert_imagenet_testbed`
  (top-1 of the 67 models of the ImageNetV2 testbed, Mania et al. 2019 Sec. 5.1) and
  :func:`convert_user_predictions` (a user's own models, CSV or NPY).
* :func:`load_cifar10` reads the python-pickle CIFAR-10 archive (Krizhevsky 2009).
"""

from __future__ import annotations

import csv
import glob
import hashlib
import io
import json
import logging
import os
import pickle
import shutil
import tarfile
import time
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from holdout.predictions import Predictions, PredictionsError

__all__ = [
    "CIFAR10",
    "CIFAR10_CLASSES",
    "ChecksumError",
    "DataError",
    "FetchError",
    "checksum_of",
    "convert_cifar10_1_predictions",
    "convert_imagenet_testbed",
    "convert_user_predictions",
    "describe",
    "fetch",
    "imagenet_labels",
    "load_cifar10",
    "parse_checksum",
    "read_cifar10_1_prediction_file",
    "read_user_labels",
    "read_user_predictions",
    "remove_stale_partials",
    "resolve_url",
    "source_of",
    "verify_checksum",
]

LOG = logging.getLogger("holdout.data.core")

CIFAR10_CLASSES = (
    "airplane",
    "automobile",
    "bird",
    "cat",
    "deer",
    "dog",
    "frog",
    "horse",
    "ship",
    "truck",
)
_CHUNK = 1 << 20
_ALGORITHMS = {"md5": 32, "sha256": 64}
# Class indices are stored as int16 or int32 (holdout.predictions): larger ones are data errors.
_MAX_CLASS_INDEX = int(np.iinfo(np.int32).max)


class DataError(ValueError):
    """A data input is missing or malformed (the message names the file and the fix)."""


class FetchError(DataError):
    """A file could not be copied or downloaded."""


class ChecksumError(DataError):
    """A file's checksum differs from the one in config."""


# ---------------------------------------------------------------------------
# checksums and fetching
# ---------------------------------------------------------------------------


def parse_checksum(checksum: str) -> tuple[str, str]:
    """Split ``"sha256:<64 hex>"`` or ``"md5:<32 hex>"`` into ``(algorithm, hexdigest)``."""
    algo, sep, digest = str(checksum).partition(":")
    algo = algo.strip().lower()
    digest = digest.strip().lower()
    if not sep or algo not in _ALGORITHMS:
        raise DataError(f"checksum {checksum!r}: must look like 'sha256:<hex>' or 'md5:<hex>'")
    if len(digest) != _ALGORITHMS[algo] or any(c not in "0123456789abcdef" for c in digest):
        raise DataError(f"checksum {checksum!r}: {algo} needs {_ALGORITHMS[algo]} hex digits")
    return algo, digest


def checksum_of(path: str | Path, algorithm: str = "sha256") -> str:
    """Hex digest of a file (streamed, 1 MiB at a time)."""
    h = hashlib.new(algorithm)
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def verify_checksum(path: str | Path, checksum: str, *, name: str | None = None) -> None:
    """Raise :class:`ChecksumError` unless ``path`` has ``checksum``.

    ``name`` is the file's name in the message (defaults to ``path``).
    """
    algo, expected = parse_checksum(checksum)
    actual = checksum_of(path, algo)
    if actual != expected:
        raise ChecksumError(
            f"checksum mismatch for {name or path}: expected {algo}:{expected}, got {algo}:{actual}. "
            "The file is corrupt, incomplete or a different version: delete it and fetch it again; "
            "if you trust this version (e.g. a documented rebuild), put its checksum in config "
            "(data.checksums) instead."
        )


def resolve_url(relpath: str, urls: Mapping[str, str]) -> str:
    """URL of the mirror-relative path ``relpath``: the longest matching prefix in ``urls``.

    ``urls`` maps a path prefix (``"CIFAR-10.1/"``) or a whole path to a URL prefix
    (or the whole URL); the rest of ``relpath`` is appended.
    """
    matches = [p for p in urls if relpath.startswith(p)]
    if not matches:
        raise DataError(f"no URL configured for {relpath} (add a prefix of it to data.urls)")
    prefix = max(matches, key=len)
    return urls[prefix] + relpath[len(prefix) :]


def source_of(relpath: str, mirror: str | Path | None, urls: Mapping[str, str]) -> str:
    """Where the mirror-relative file ``relpath`` comes from: ``mirror/relpath`` when a mirror
    folder is configured (a relative one is taken from the working directory), else its URL."""
    if mirror:
        return str(Path(mirror).expanduser().resolve() / relpath)
    return resolve_url(relpath, urls)


def _is_url(source: str) -> bool:
    return source.startswith(("http://", "https://", "ftp://", "file://"))


def _download(url: str, dest: Path, log: logging.Logger, timeout: float) -> None:
    request = urllib.request.Request(url, headers={"User-Agent": "holdout-fetch/0.1"})
    with urllib.request.urlopen(request, timeout=timeout) as resp, open(dest, "wb") as out:
        total = int(resp.headers.get("Content-Length") or 0)
        done = 0
        start = last = time.perf_counter()
        while chunk := resp.read(_CHUNK):
            out.write(chunk)
            done += len(chunk)
            now = time.perf_counter()
            if now - last >= 5.0:
                last = now
                pct = f" ({100 * done / total:.0f}% of {total / 1e6:.1f} MB)" if total else ""
                log.info(
                    "downloading %s: %.1f MB%s, %.1f MB/s", url, done / 1e6, pct, done / 1e6 / max(now - start, 1e-9)
                )
        if total and done != total:
            raise FetchError(f"download of {url} stopped after {done} of {total} bytes; run again")
    log.info("downloaded %s: %.1f MB in %.1f s", url, done / 1e6, time.perf_counter() - start)


def remove_stale_partials(dest: str | Path, log: logging.Logger | None = None) -> list[Path]:
    """Delete the ``.<name>.partial-<pid>`` files of ``dest`` left by fetches that were killed.

    Called at the start of every :func:`fetch` of ``dest``; Snakemake runs at most one job per
    output, so a partial file of ``dest`` found then belongs to no running fetch. Returns the
    removed paths.
    """
    dest = Path(dest)
    removed = []
    for stale in dest.parent.glob(f".{glob.escape(dest.name)}.partial-*"):
        stale.unlink(missing_ok=True)
        (log or LOG).warning("removed %s, left by an interrupted fetch of %s", stale, dest.name)
        removed.append(stale)
    return removed


def fetch(
    source: str | Path,
    dest: str | Path,
    checksum: str,
    *,
    log: logging.Logger | None = None,
    timeout: float = 60.0,
) -> Path:
    """Copy (mirror path) or download (URL) ``source`` to ``dest`` and verify ``checksum``.

    The data go to a temporary name beside ``dest`` and are renamed with :func:`os.replace`
    only after the checksum matched; on any failure the temporary file is removed, so
    ``dest`` either does not exist or is complete and verified.
    """
    log = log or LOG
    dest = Path(dest)
    parse_checksum(checksum)  # fail early on a malformed config value
    src = str(source)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.partial-{os.getpid()}")
    remove_stale_partials(dest, log)
    try:
        if _is_url(src):
            try:
                _download(src, tmp, log, timeout)
            except OSError as exc:
                raise FetchError(
                    f"could not download {src} to {dest}: {exc}. Check the network, or set "
                    "data.mirror to a folder holding a copy (e.g. --configfile config/offline.yaml)"
                ) from exc
        else:
            path = Path(src)
            if not path.is_file():
                raise FetchError(
                    f"{path} not found in the mirror: add the file there, or unset data.mirror to "
                    "download it from its URL"
                )
            shutil.copyfile(path, tmp)
            log.info("copied %s (%.1f MB) from the mirror", path, path.stat().st_size / 1e6)
        verify_checksum(tmp, checksum, name=f"{dest.name} (from {src})")
        os.replace(tmp, dest)
    finally:
        if tmp.exists():
            tmp.unlink()
    log.info("verified %s (%s)", dest, checksum)
    return dest


# ---------------------------------------------------------------------------
# CIFAR-10 (python pickle archive)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CIFAR10:
    """CIFAR-10 images (uint8, N x 32 x 32 x 3, HWC, RGB) and labels (int64, N), in file order.

    ``test_*`` follow ``test_batch`` order, the order of the published "original"
    predictions of CIFAR-10.1; ``train_*`` are ``data_batch_1`` .. ``data_batch_5``.
    """

    train_images: np.ndarray
    train_labels: np.ndarray
    test_images: np.ndarray
    test_labels: np.ndarray
    classes: tuple[str, ...]


_CIFAR_DIR = "cifar-10-batches-py"
_TRAIN_BATCHES = tuple(f"data_batch_{i}" for i in range(1, 6))


def _read_batch(tar: tarfile.TarFile, member: str, archive: Path) -> tuple[np.ndarray, np.ndarray]:
    try:
        fh = tar.extractfile(f"{_CIFAR_DIR}/{member}")
    except KeyError:
        fh = None
    if fh is None:
        raise DataError(f"{archive}: missing {_CIFAR_DIR}/{member} (not a CIFAR-10 python archive)")
    batch = pickle.load(io.BytesIO(fh.read()), encoding="bytes")
    try:
        data = np.asarray(batch[b"data"], dtype=np.uint8)
        labels = np.asarray(batch[b"labels"], dtype=np.int64)
    except KeyError as exc:
        raise DataError(f"{archive}: {member} lacks key {exc.args[0]!r}") from exc
    if data.ndim != 2 or data.shape[1] != 3072 or data.shape[0] != labels.shape[0]:
        raise DataError(f"{archive}: {member} has data {data.shape} and {labels.shape[0]} labels")
    if labels.size and (labels.min() < 0 or labels.max() > 9):
        raise DataError(f"{archive}: {member} has labels outside 0..9")
    # rows are 1024 R, then G, then B values, each 32 x 32 row-major
    return data.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1).copy(), labels


def load_cifar10(archive: str | Path) -> CIFAR10:
    """Read the CIFAR-10 python archive (``cifar-10-python.tar.gz``).

    Returns images as uint8 **N x 32 x 32 x 3** (height, width, RGB channel; the layout of
    ``torchvision.datasets.CIFAR10.data``) and int64 labels, for the 50,000 training
    images (batches 1..5 in order) and the 10,000 test images (``test_batch`` order).
    """
    archive = Path(archive)
    if not archive.is_file():
        raise DataError(f"{archive}: CIFAR-10 archive not found")
    try:
        with tarfile.open(archive, "r:*") as tar:
            train = [_read_batch(tar, b, archive) for b in _TRAIN_BATCHES]
            test_images, test_labels = _read_batch(tar, "test_batch", archive)
            classes = CIFAR10_CLASSES
            try:
                meta_fh = tar.extractfile(f"{_CIFAR_DIR}/batches.meta")
            except KeyError:
                meta_fh = None
            if meta_fh is not None:
                meta = pickle.load(io.BytesIO(meta_fh.read()), encoding="bytes")
                names = meta.get(b"label_names")
                if names:
                    classes = tuple(n.decode() if isinstance(n, bytes) else str(n) for n in names)
    except (tarfile.TarError, EOFError, OSError, pickle.UnpicklingError) as exc:
        raise DataError(f"{archive}: unreadable CIFAR-10 archive ({exc})") from exc
    return CIFAR10(
        train_images=np.concatenate([b[0] for b in train]),
        train_labels=np.concatenate([b[1] for b in train]),
        test_images=test_images,
        test_labels=test_labels,
        classes=classes,
    )


# ---------------------------------------------------------------------------
# converters into holdout.predictions
# ---------------------------------------------------------------------------


def read_cifar10_1_prediction_file(path: str | Path) -> np.ndarray:
    """One ``<model>_predictions.json`` of CIFAR-10.1: a JSON list of class indices."""
    path = Path(path)
    try:
        values = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(f"{path}: unreadable predictions json ({exc})") from exc
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise DataError(f"{path}: expected a flat JSON list of integer class indices")
    return arr


def convert_cifar10_1_predictions(
    files: Mapping[str, str | Path],
    labels: np.ndarray,
    *,
    test_set: str,
    labels_source: str,
    checkpoint_note: str = "published by Recht et al. (2018), github.com/modestyachts/CIFAR-10.1",
) -> Predictions:
    """Predictions of the published CIFAR-10 models on one test set.

    ``files`` maps the model's name in the paper's Table 1 to its json file (in the
    order wanted in the output); ``labels`` are the true labels of the same test set.
    Metadata records the file name each model came from.
    """
    names = list(files)
    rows = []
    meta = []
    n = int(np.asarray(labels).shape[0])
    for name in names:
        path = Path(files[name])
        arr = read_cifar10_1_prediction_file(path)
        if arr.shape[0] != n:
            raise DataError(f"{path}: {arr.shape[0]} predictions but {labels_source} has {n} labels")
        rows.append(arr)
        meta.append(
            {
                "source": checkpoint_note,
                "file": path.name,
                "file_model_name": path.name.removesuffix("_predictions.json"),
                "test_set": test_set,
            }
        )
    return Predictions.create(
        np.stack(rows) if rows else np.zeros((0, n), dtype=np.int16),
        labels,
        names,
        num_classes=10,
        test_set=test_set,
        metadata=meta,
        source=f"CIFAR-10.1 predictions ({test_set})",
    )


def imagenet_labels(dataset_json: str | Path, class_info_json: str | Path) -> np.ndarray:
    """True class ids of an ImageNetV2 testbed dataset: ``cid`` of each image's wnid."""
    dataset_json, class_info_json = Path(dataset_json), Path(class_info_json)
    try:
        images = json.loads(dataset_json.read_text())["image_filenames"]
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise DataError(f"{dataset_json}: expected a json object with 'image_filenames' ({exc})") from exc
    try:
        cid = {c["wnid"]: int(c["cid"]) for c in json.loads(class_info_json.read_text())}
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise DataError(f"{class_info_json}: expected a json list of {{cid, wnid}} ({exc})") from exc
    try:
        return np.array([cid[wnid] for _, wnid in images], dtype=np.int64)
    except KeyError as exc:
        raise DataError(f"{dataset_json}: wnid {exc.args[0]} not in {class_info_json}") from exc


def convert_imagenet_testbed(
    prediction_files: Mapping[str, str | Path],
    dataset_json: str | Path,
    class_info_json: str | Path,
    *,
    test_set: str,
    log: logging.Logger | None = None,
) -> Predictions:
    """Top-1 predictions of the ImageNetV2 testbed models (column 0 of each top-5 file).

    ``prediction_files`` maps model name to its ``(N, 5)`` int array of top-5 class ids
    (best first); row i is image i of ``dataset_json``'s ``image_filenames``.
    """
    log = log or LOG
    labels = imagenet_labels(dataset_json, class_info_json)
    n = labels.shape[0]
    preds = np.empty((len(prediction_files), n), dtype=np.int16)
    meta = []
    for k, (_name, path) in enumerate(prediction_files.items()):
        path = Path(path)
        try:
            top5 = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise DataError(f"{path}: unreadable .npy ({exc})") from exc
        if top5.ndim != 2 or top5.shape[0] != n or top5.dtype.kind not in "iu":
            raise DataError(f"{path}: expected an integer ({n}, 5) top-5 array, got {top5.dtype} {top5.shape}")
        preds[k] = top5[:, 0]
        meta.append(
            {
                "source": "ImageNetV2 model testbed (Recht et al. 2019), github.com/modestyachts/ImageNetV2",
                "file": path.name,
                "test_set": test_set,
                "top1_from": "column 0 of the top-5 predictions",
            }
        )
        if (k + 1) % 20 == 0:
            log.info("read %d of %d prediction files of %s", k + 1, len(prediction_files), test_set)
    return Predictions.create(
        preds,
        labels,
        list(prediction_files),
        num_classes=1000,
        test_set=test_set,
        metadata=meta,
        source=f"ImageNet testbed ({test_set})",
    )


def _read_csv_rows(path: Path) -> list[list[str]]:
    """Non-empty rows of a CSV; a UTF-8 byte-order mark (spreadsheets' "CSV UTF-8") is dropped."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            rows = [r for r in csv.reader(fh) if r and any(c.strip() for c in r)]
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: unreadable CSV ({exc})") from exc
    if not rows:
        raise DataError(f"{path}: empty CSV")
    return rows


def _to_int_matrix(cells: list[list[str]], path: Path, what: str) -> np.ndarray:
    width = len(cells[0])
    for i, row in enumerate(cells):
        if len(row) != width:
            raise DataError(f"{path}: data row {i + 1} has {len(row)} cells, expected {width}")
    try:
        arr = np.array([[float(c) if c.strip() else np.nan for c in row] for row in cells])
    except ValueError as exc:
        sep = next((c for c in (";", "\t") if any(c in cell for row in cells for cell in row)), None)
        hint = f"; the file seems {sep!r}-separated: save it comma-separated" if sep else ""
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


def read_user_labels(path: str | Path) -> np.ndarray:
    """True labels from ``.npy`` (vector) or ``.csv`` (one column, optional header row)."""
    path = Path(path)
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
        if all(_is_number(c) for c in header):
            raise DataError(f"{path}: the first row must be a header of model names")
        if any(not c for c in header):
            raise DataError(f"{path}: empty model name in the header")
        if len(rows) < 2:
            raise DataError(f"{path}: no prediction rows below the header")
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
    """A user's models in the predictions format (see :func:`read_user_predictions`).

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
            raise DataError(f"{path}: {what} out of range [0, {num_classes}): min {arr.min()}, max {arr.max()}")
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


def describe(preds: Predictions) -> dict[str, Any]:
    """Short summary of a predictions set, for logs."""
    acc = preds.accuracies()
    return {
        "test_set": preds.test_set,
        "models": preds.num_models,
        "examples": preds.num_examples,
        "num_classes": preds.num_classes,
        "mean_accuracy": float(acc.mean()) if acc.size else float("nan"),
    }
