"""Generated predictions files in the search study's contract (no training needed).

``results/search/predictions/{test_set}.npz``: holdout.predictions format, logits in ``scores``,
checkpoint names ``m<index:03d>@e<epoch:03d>``, metadata naming the sampled config and epoch.
"""

from __future__ import annotations

import numpy as np
import pytest

from holdout.predictions import Predictions


def make_search_predictions(
    test_set: str,
    num_models: int = 6,
    epochs: tuple[int, ...] = (2, 4, 6, 8),
    n: int = 500,
    num_classes: int = 10,
    seed: int = 0,
    difficulty_shift: float = 0.0,
) -> Predictions:
    """Checkpoints that share which examples are hard (errors correlated beyond independence),
    get better with the epoch, and one model stays below 50% accuracy at every checkpoint.
    ``difficulty_shift`` > 0 makes every example harder (a "new" test set)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, num_classes, n)
    hardness = rng.uniform(0, 1, n) + difficulty_shift
    names, preds, metas, scores = [], [], [], []
    for i in range(num_models):
        skill = 0.35 if i == num_models - 1 else 0.7 + 0.05 * i
        for j, e in enumerate(epochs):
            level = skill * (0.6 + 0.4 * (j + 1) / len(epochs))
            wrong = hardness + 0.25 * rng.uniform(0, 1, n) > level + 0.1
            p = np.where(wrong, (labels + rng.integers(1, num_classes, n)) % num_classes, labels)
            logits = rng.normal(0, 1, (n, num_classes)).astype(np.float32)
            logits[np.arange(n), p] += 5.0
            names.append(f"m{i:03d}@e{e:03d}")
            preds.append(p)
            scores.append(logits)
            metas.append({"model": f"m{i:03d}", "epoch": e, "config": {"base_channels": 4 * (i + 1)}})
    return Predictions.create(
        np.array(preds),
        labels,
        names,
        num_classes=num_classes,
        test_set=test_set,
        metadata=metas,
        scores=np.array(scores),
    )


@pytest.fixture(scope="session")
def search_predictions():
    """The generator above (call it with a test set name and options)."""
    return make_search_predictions
