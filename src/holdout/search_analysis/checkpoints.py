"""Checkpoint names of our random search: ``<model>@e<epoch:03d>`` (the predict rule's contract).

One row per checkpoint, the accuracy filter of Mania et al. (2019) Sec. 5.2 (50% in the paper) and
each model's final checkpoint. Pure functions over [`holdout.predictions.Predictions`][holdout.predictions.Predictions].
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import pandas as pd

from holdout.predictions import Predictions

__all__ = ["checkpoint_table", "filter_by_accuracy", "final_checkpoints", "split_checkpoint_name"]

_CHECKPOINT = re.compile(r"^(?P<model>.+)@e(?P<epoch>\d+)$")


def split_checkpoint_name(name: str) -> tuple[str, int]:
    """``"m007@e012"`` -> ``("m007", 12)``: the model and epoch of a checkpoint's name."""
    m = _CHECKPOINT.match(str(name))
    if m is None:
        raise ValueError(f"checkpoint name {name!r} is not of the form <model>@e<epoch>, e.g. m007@e012")
    return m.group("model"), int(m.group("epoch"))


def checkpoint_table(preds: Predictions) -> pd.DataFrame:
    """One row per checkpoint: name, model, epoch, number of correct predictions and accuracy."""
    parts = [split_checkpoint_name(m) for m in preds.model_names]
    return pd.DataFrame(
        {
            "checkpoint": list(preds.model_names),
            "model": [p[0] for p in parts],
            "epoch": [p[1] for p in parts],
            "correct": preds.correct_counts(),
            "accuracy": preds.accuracies(),
        }
    )


def filter_by_accuracy(preds: Predictions, min_accuracy: float = 0.5) -> Predictions:
    """The checkpoints with accuracy >= ``min_accuracy`` (Mania et al. Sec. 5.2: 50%), in file order."""
    if not 0.0 <= min_accuracy <= 1.0:
        raise ValueError(f"min_accuracy must lie in [0, 1], got {min_accuracy}")
    keep = preds.accuracies() >= min_accuracy
    return preds.subset([m for m, k in zip(preds.model_names, keep) if k])


def final_checkpoints(names: Sequence[str]) -> list[str]:
    """The last checkpoint (highest epoch) of every model, in the order of first appearance."""
    best: dict[str, tuple[int, str]] = {}
    for name in names:
        model, epoch = split_checkpoint_name(name)
        if model not in best or epoch > best[model][0]:
            best[model] = (epoch, str(name))
    return [best[m][1] for m in best]
