"""Concatenate the per-model prediction files of a trained study (numpy only: the workflow's
``predict_gather`` jobs need no torch). [`holdout.training.inference`][holdout.training.inference] re-exports it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from holdout.predictions import Predictions

__all__ = ["gather_predictions"]


def gather_predictions(parts: Sequence[Predictions], test_set: str) -> Predictions:
    """Concatenate the checkpoints of several models on one test set (labels must agree)."""
    if not parts:
        raise ValueError(f"gather_predictions: no predictions for {test_set}")
    labels = parts[0].labels
    for p in parts:
        if p.test_set != test_set or not np.array_equal(p.labels, labels):
            raise ValueError(f"gather_predictions: {p.model_names[:1]} is not on {test_set} with the same labels")
    scores = None
    if all(p.scores is not None for p in parts):
        scores = np.concatenate([p.scores for p in parts])  # type: ignore[misc]
    return Predictions.create(
        np.concatenate([p.predictions for p in parts]),
        labels,
        [m for p in parts for m in p.model_names],
        num_classes=parts[0].num_classes,
        test_set=test_set,
        metadata=[m for p in parts for m in p.metadata],
        scores=scores,
        source=test_set,
    )
