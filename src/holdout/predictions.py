"""One on-disk format for "the predictions of K models on one test set".

Every analysis in holdout reads only this format; published predictions, the
ImageNet testbed, our own trained models and user-supplied models are all
converted into it.

File format (``.npz``, readable with plain ``numpy.load(path)``):

==================  ==========================  =======================================
key                 dtype / shape               meaning
==================  ==========================  =======================================
``predictions``     int16, (K, n)               predicted class of model k on example i
``labels``          int16, (n,)                 true class of example i
``model_names``     unicode, (K,)               unique model names
``num_classes``     int64, ()                   number of classes C (labels in [0, C))
``test_set``        unicode, ()                 name of the test set (e.g. ``cifar10_1_v4``)
``metadata``        unicode, ()                 JSON list of K dicts (source, checkpoint, ...)
``scores``          float32, (K, n, C), opt.    logits or probabilities, when known
==================  ==========================  =======================================
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "Predictions",
    "PredictionsError",
    "align_models",
    "load_predictions",
    "save_predictions",
]


#: Largest number of classes: class indices are stored as int16, or int32 beyond 32,767 classes.
_MAX_CLASSES = int(np.iinfo(np.int32).max)


class PredictionsError(ValueError):
    """Raised when predictions or labels are malformed (message names the source)."""


@dataclass(frozen=True)
class Predictions:
    """Predicted labels of K models on one test set of n examples.

    Construct through [`create`][holdout.predictions.Predictions.create] (which validates) or
    [`load_predictions`][holdout.predictions.load_predictions].
    """

    predictions: np.ndarray
    labels: np.ndarray
    model_names: tuple[str, ...]
    num_classes: int
    test_set: str
    metadata: tuple[dict[str, Any], ...] = field(default=())
    scores: np.ndarray | None = None

    @classmethod
    def create(
        cls,
        predictions: Any,
        labels: Any,
        model_names: Sequence[str],
        *,
        num_classes: int | None = None,
        test_set: str = "",
        metadata: Sequence[Mapping[str, Any]] | None = None,
        scores: Any | None = None,
        source: str = "<memory>",
    ) -> Predictions:
        """Validate and build. ``source`` names the origin in error messages."""
        preds = np.asarray(predictions)
        labs = np.asarray(labels)
        names = tuple(str(m) for m in model_names)
        if preds.ndim == 1:
            preds = preds[None, :]
        if preds.ndim != 2:
            raise PredictionsError(f"{source}: predictions must be a K x n matrix, got shape {preds.shape}")
        if labs.ndim != 1:
            raise PredictionsError(f"{source}: labels must be a vector, got shape {labs.shape}")
        for what, arr in (("predictions", preds), ("labels", labs)):
            if arr.dtype.kind == "f":
                if not np.isfinite(arr).all():
                    raise PredictionsError(f"{source}: {what} contain NaN or infinity")
                if not np.all(arr == np.round(arr)):
                    raise PredictionsError(f"{source}: {what} must be whole class indices")
            elif arr.dtype.kind not in "iu":
                raise PredictionsError(f"{source}: {what} must be integers, got dtype {arr.dtype}")
        k, n = preds.shape
        if n == 0:
            raise PredictionsError(f"{source}: no test examples (n = 0); accuracies would be undefined")
        if labs.shape[0] != n:
            raise PredictionsError(
                f"{source}: {n} predictions per model but {labs.shape[0]} labels (lengths must match)"
            )
        if len(names) != k:
            raise PredictionsError(f"{source}: {k} models but {len(names)} model names")
        seen: set[str] = set()
        dups = sorted({m for m in names if m in seen or seen.add(m)})  # type: ignore[func-returns-value]
        if dups:
            raise PredictionsError(f"{source}: duplicate model names: {', '.join(dups)}")
        if num_classes is None:
            num_classes = int(max(preds.max(initial=0), labs.max(initial=0))) + 1
        if isinstance(num_classes, bool) or int(num_classes) != num_classes or not 1 <= num_classes <= _MAX_CLASSES:
            raise PredictionsError(
                f"{source}: number of classes must be an integer in [1, {_MAX_CLASSES}], got {num_classes!r} "
                "(a class index that large is a data error)"
            )
        num_classes = int(num_classes)
        for what, arr in (("predictions", preds), ("labels", labs)):
            if arr.size and (arr.min() < 0 or arr.max() >= num_classes):
                raise PredictionsError(
                    f"{source}: {what} out of range [0, {num_classes}): min {arr.min()}, max {arr.max()}"
                )
        meta = tuple(dict(m) for m in metadata) if metadata is not None else tuple({} for _ in names)
        if len(meta) != k:
            raise PredictionsError(f"{source}: {k} models but {len(meta)} metadata entries")
        sc = None
        if scores is not None:
            sc = np.asarray(scores, dtype=np.float32)
            if sc.shape != (k, n, num_classes):
                raise PredictionsError(f"{source}: scores must have shape {(k, n, num_classes)}, got {sc.shape}")
            if np.isnan(sc).any():
                raise PredictionsError(f"{source}: scores contain NaN")
        dtype = np.int16 if num_classes <= np.iinfo(np.int16).max else np.int32
        return cls(
            predictions=preds.astype(dtype),
            labels=labs.astype(dtype),
            model_names=names,
            num_classes=int(num_classes),
            test_set=str(test_set),
            metadata=meta,
            scores=sc,
        )

    @property
    def num_models(self) -> int:
        return self.predictions.shape[0]

    @property
    def num_examples(self) -> int:
        return self.predictions.shape[1]

    def errors(self) -> np.ndarray:
        """0/1 loss matrix, bool (K, n): True where model k misclassifies example i."""
        return self.predictions != self.labels[None, :]

    def correct_counts(self) -> np.ndarray:
        """Number of correctly classified examples per model, int (K,)."""
        return (~self.errors()).sum(axis=1)

    def accuracies(self) -> np.ndarray:
        """Accuracy per model, float (K,)."""
        return self.correct_counts() / self.num_examples

    def subset(self, names: Sequence[str]) -> Predictions:
        """The models ``names`` (in that order); unknown names raise ``KeyError``."""
        index = {m: i for i, m in enumerate(self.model_names)}
        missing = [m for m in names if m not in index]
        if missing:
            raise KeyError(f"unknown model names: {', '.join(missing)}")
        rows = [index[m] for m in names]
        return Predictions(
            predictions=self.predictions[rows],
            labels=self.labels,
            model_names=tuple(names),
            num_classes=self.num_classes,
            test_set=self.test_set,
            metadata=tuple(self.metadata[r] for r in rows),
            scores=None if self.scores is None else self.scores[rows],
        )

    def drop(self, names: Sequence[str]) -> Predictions:
        """All models except ``names`` (names absent from the set are ignored)."""
        drop = set(names)
        return self.subset([m for m in self.model_names if m not in drop])


def save_predictions(path: str | Path, preds: Predictions) -> None:
    """Write ``preds`` to ``path`` (.npz, uncompressed for fast loading)."""
    arrays: dict[str, Any] = {
        "predictions": preds.predictions,
        "labels": preds.labels,
        "model_names": np.array(preds.model_names, dtype=str),
        "num_classes": np.int64(preds.num_classes),
        "test_set": np.array(preds.test_set),
        "metadata": np.array(json.dumps(list(preds.metadata))),
    }
    if preds.scores is not None:
        arrays["scores"] = preds.scores
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, **arrays)
    tmp.replace(path)


def align_models(original: Predictions, new: Predictions, source: str) -> Predictions:
    """``new`` reordered to the models of ``original``; the two must hold the same model names
    (else [`PredictionsError`][holdout.predictions.PredictionsError] naming ``source``)."""
    missing = [m for m in original.model_names if m not in new.model_names]
    extra = [m for m in new.model_names if m not in original.model_names]
    if missing or extra:
        raise PredictionsError(
            f"{source}: model names differ from the original predictions (missing {missing[:5]}, extra {extra[:5]})"
        )
    return new.subset(list(original.model_names))


def load_predictions(path: str | Path) -> Predictions:
    """Read and validate a predictions file written by [`save_predictions`][holdout.predictions.save_predictions].

    Every problem raises [`PredictionsError`][holdout.predictions.PredictionsError] naming the file
    and the field."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            missing = {"predictions", "labels", "model_names"} - set(z.files)
            if missing:
                raise PredictionsError(f"{path}: missing arrays {sorted(missing)}; {_remedy(path)}")
            fields = {key: _field(z, key, path) for key in z.files}
    except PredictionsError:
        raise
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile) as exc:
        raise PredictionsError(
            f"{path}: not a readable predictions file ({type(exc).__name__}: {exc}); {_remedy(path)}"
        ) from exc
    names = fields["model_names"]
    if names.ndim != 1:
        raise PredictionsError(f"{path}: model_names must be a vector of K names, got shape {names.shape}")
    return Predictions.create(
        fields["predictions"],
        fields["labels"],
        [str(m) for m in names],
        num_classes=_whole_number(fields["num_classes"], path) if "num_classes" in fields else None,
        test_set=_one_string(fields, "test_set", path),
        metadata=_metadata(fields, len(names), path),
        scores=_floats(fields["scores"], "scores", path) if "scores" in fields else None,
        source=str(path),
    )


def _remedy(path: Path) -> str:
    """What to do about a bad predictions file: the workflow rebuilds its own (under resources/);
    a user's file is theirs to write again, never to delete."""
    try:
        ours = path.resolve().is_relative_to(Path.cwd().resolve() / "resources")
    except OSError:
        ours = False
    return (
        "the workflow made it: delete it and rerun to rebuild it"
        if ours
        else ("write it again with holdout.predictions.save_predictions")
    )


def _field(z: Any, key: str, path: Path) -> np.ndarray:
    """One array of the .npz, the field named when it cannot be read."""
    try:
        return z[key]
    except ValueError as exc:
        if "allow_pickle" in str(exc):
            raise PredictionsError(
                f"{path}: field {key!r} is an object array (pickled), which is not read: store it as plain "
                f"strings or numbers (np.array(..., dtype=str)); {_remedy(path)}"
            ) from None
        raise PredictionsError(f"{path}: field {key!r} is unreadable ({exc}); {_remedy(path)}") from None
    except (OSError, EOFError, zipfile.BadZipFile) as exc:
        raise PredictionsError(f"{path}: field {key!r} is unreadable ({type(exc).__name__}); {_remedy(path)}") from None


def _whole_number(arr: np.ndarray, path: Path) -> int:
    if arr.ndim != 0 or arr.dtype.kind not in "iuf" or (arr.dtype.kind == "f" and not float(arr).is_integer()):
        raise PredictionsError(
            f"{path}: field 'num_classes' must be one whole number, got {arr.dtype} of shape {arr.shape}"
        )
    return int(arr)


def _one_string(fields: Mapping[str, np.ndarray], key: str, path: Path) -> str:
    if key not in fields:
        return ""
    arr = fields[key]
    if arr.ndim != 0:
        raise PredictionsError(f"{path}: field {key!r} must be one string, got shape {arr.shape}")
    return str(arr)


def _floats(arr: np.ndarray, key: str, path: Path) -> np.ndarray:
    if arr.dtype.kind not in "iuf":
        raise PredictionsError(f"{path}: field {key!r} must hold numbers, got dtype {arr.dtype}")
    return arr


def _metadata(fields: Mapping[str, np.ndarray], k: int, path: Path) -> list[dict[str, Any]] | None:
    """The ``metadata`` field: one JSON string holding a list of K objects (one per model)."""
    if "metadata" not in fields:
        return None
    arr = fields["metadata"]
    what = f"{path}: field 'metadata' must be one JSON string holding a list of {k} objects (one per model)"
    if arr.ndim != 0 or arr.dtype.kind not in "US":
        raise PredictionsError(f"{what}, got {arr.dtype} of shape {arr.shape}")
    text = arr.item()
    try:
        meta = json.loads(text.decode() if isinstance(text, bytes) else text)
    except ValueError as exc:
        raise PredictionsError(f"{what}; it is not JSON ({exc})") from None
    if not isinstance(meta, list) or not all(isinstance(m, dict) for m in meta):
        raise PredictionsError(
            f"{what}, got {type(meta).__name__}{'' if not isinstance(meta, list) else ' of other values'}"
        )
    return meta
