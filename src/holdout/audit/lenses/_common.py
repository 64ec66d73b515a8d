"""What several lenses share: the evidence as predictions (a 0/1 matrix as two-class predictions)."""

from __future__ import annotations

import numpy as np

from holdout.audit.evidence import Evidence
from holdout.predictions import Predictions

__all__ = ["as_predictions"]


def as_predictions(e: Evidence) -> Predictions:
    """The evidence's predictions, or its 0/1 matrix as two-class predictions (label 0 everywhere,
    prediction 1 where wrong: the same errors, so the same accuracies and similarities)."""
    if e.predictions is not None:
        return e.predictions
    if e.matrix is None:
        raise ValueError("no per-item results")
    labels = np.zeros(e.matrix.shape[1], dtype=np.int64)
    wrong = (e.matrix < 0.5).astype(np.int64)
    return Predictions.create(wrong, labels, e.model_ids, num_classes=2, test_set=e.test_set or "matrix")
