"""Fetching and converting the public inputs: CIFAR-10, CIFAR-10.1, the ImageNet testbed.

Three jobs, all small pure functions:

* [`fetch`][holdout.data.core.fetch] copies one file from a mirror folder or downloads it from its URL, to a
  temporary name beside the destination, verifies its checksum (``md5:<hex>`` or
  ``sha256:<hex>``) and only then renames it into place (`os.replace`), so a
  half-finished or corrupt file never appears under the destination name.
* Converters into the one predictions format ([`holdout.predictions`][holdout.predictions]):
  [`convert_cifar10_1_predictions`][holdout.data.core.convert_cifar10_1_predictions] (the published per-image
  predictions of the
  30 CIFAR-10 models of Recht et al. 2018, Table 1),
  [`convert_imagenet_testbed`][holdout.data.core.convert_imagenet_testbed]
  (top-1 of the 67 models of the ImageNetV2 testbed, Mania et al. 2019 Sec. 5.1) and
  [`convert_user_predictions`][holdout.data.core.convert_user_predictions] (a user's own models, CSV or NPY).
* [`load_cifar10`][holdout.data.core.load_cifar10] reads the python-pickle CIFAR-10 archive (Krizhevsky 2009).

Fetching lives in [`holdout.data.fetch`][holdout.data.fetch], the user converters in
[`holdout.data.user`][holdout.data.user],
the errors in [`holdout.data.errors`][holdout.data.errors]; this module re-exports their names.
"""

from __future__ import annotations

import io
import json
import logging
import pickle
import tarfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from holdout.data.errors import LOG, ChecksumError, DataError, FetchError
from holdout.data.fetch import (
    checksum_of,
    fetch,
    parse_checksum,
    remove_stale_partials,
    resolve_url,
    source_of,
    verify_checksum,
)
from holdout.data.user import convert_user_predictions, read_user_labels, read_user_predictions
from holdout.predictions import Predictions

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
        values = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise DataError(f"{path}: unreadable predictions json ({exc}); fetch it again") from exc
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise DataError(f"{path}: expected a flat JSON list of integer class indices")
    return _check_class_ids(arr, path, 10)


def _check_class_ids(arr: np.ndarray, path: str | Path, num_classes: int) -> np.ndarray:
    """``arr`` when every class id lies in [0, num_classes); DataError naming the file and the first bad id."""
    bad = np.flatnonzero((arr < 0) | (arr >= num_classes))
    if bad.size:
        raise DataError(
            f"{path}: class id {arr.flat[bad[0]]} at position {bad[0]} is outside 0..{num_classes - 1} "
            f"({bad.size} such); this file is damaged: fetch it again"
        )
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
    n = int(_check_class_ids(np.asarray(labels), labels_source, 10).shape[0])  # damaged labels: their file named
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
    bad = sorted(w for w, c in cid.items() if not 0 <= c < 1000)
    if bad:
        raise DataError(
            f"{class_info_json}: class id {cid[bad[0]]} of {bad[0]} is outside 0..999 ({len(bad)} such); "
            "this file is damaged: fetch it again"
        )
    try:
        return np.array([cid[wnid] for _, wnid in images], dtype=np.int64)
    except KeyError as exc:
        raise DataError(f"{dataset_json}: wnid {exc.args[0]} not in {class_info_json}") from exc
    except (TypeError, ValueError) as exc:
        raise DataError(f"{dataset_json}: 'image_filenames' must hold [file, wnid] pairs ({exc})") from exc


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
        except (OSError, ValueError, EOFError) as exc:
            raise DataError(f"{path}: unreadable .npy ({exc}); fetch it again") from exc
        if top5.ndim != 2 or top5.shape[0] != n or top5.dtype.kind not in "iu":
            raise DataError(f"{path}: expected an integer ({n}, 5) top-5 array, got {top5.dtype} {top5.shape}")
        preds[k] = _check_class_ids(top5[:, 0], path, 1000)
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
