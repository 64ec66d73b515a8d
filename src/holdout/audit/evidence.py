"""The one object every reader of the audit returns and every lens starts from.

[`Evidence`][holdout.audit.evidence.Evidence] holds what an input says about K models on n items: the
K x n matrix of correctness (0/1) or pass rates, the predictions where there are any, the ids, the
dates, the files read and what reading them decided (``notes``); the optional fields are filled by
readers that have them (``answers`` / ``keys`` from predictions and labels). A lens names the parts it
needs ([`holdout.audit.registry`][holdout.audit.registry]); [`LensResult`][holdout.audit.evidence.LensResult]
is what it returns. Nothing here imports a reader or a lens.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from holdout.leaderboards import CorrectnessMatrix
from holdout.predictions import Predictions

__all__ = ["LABELS", "Evidence", "LensResult"]

#: what a lens's number is: measured on the data, a theorem's bound, or a heuristic
LABELS = ("measured", "theorem", "heuristic")


@dataclass(frozen=True)
class Evidence:
    """What one input says about K models on n items (``matrix`` None only for an accuracy table)."""

    matrix: np.ndarray | None  # K x n correctness (0/1) or pass rates in [0, 1]
    model_ids: tuple[str, ...]
    item_ids: tuple[str, ...] = ()
    predictions: Predictions | None = None  # each model's predicted class, with the labels
    accuracies: pd.DataFrame | None = None  # an accuracy table: 'model' and one column per test set
    sizes: tuple[int, ...] | None = None  # the accuracy table's test-set sizes
    item_dates: np.ndarray | None = None  # datetime64[D], one per item
    model_dates: np.ndarray | None = None  # datetime64[D], one per model (training cut-off)
    samples: int | None = None  # pass rates over m samples per item
    test_set: str = ""
    sources: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    new: Evidence | None = None  # the same models on a newer test set
    answers: np.ndarray | None = None  # K x n: each model's chosen answer (str / object, or class ints)
    keys: np.ndarray | None = None  # n answer keys
    item_text: tuple[str | None, ...] | None = None
    clusters: np.ndarray | None = None  # n cluster labels
    run_config: dict[str, dict[str, Any]] | None = field(default=None, compare=False)

    @property
    def shape(self) -> tuple[int, int]:
        """(K, n): models and items (n = 0 for an accuracy table)."""
        return (len(self.model_ids), 0 if self.matrix is None else int(self.matrix.shape[1]))

    @property
    def binary(self) -> bool:
        """Every entry of the matrix 0 or 1 (False without a matrix)."""
        return self.matrix is not None and bool(((self.matrix == 0) | (self.matrix == 1)).all())

    @property
    def provides(self) -> frozenset[str]:
        """The parts present, by the names lenses give as their needs."""
        parts = {
            "correctness": self.matrix,
            "predictions": self.predictions,
            "accuracies": self.accuracies,
            "item_dates": self.item_dates,
            "model_dates": self.model_dates,
            "new": self.new if self.accuracies is None else self.accuracies,  # a table: two test sets
            "answers": self.answers,
            "keys": self.keys,
            "item_text": self.item_text,
            "clusters": self.clusters,
            "run_config": self.run_config,
        }
        return frozenset(k for k, v in parts.items() if v is not None) | ({"binary"} if self.binary else set())

    def correctness(self) -> CorrectnessMatrix:
        """The matrix as the leaderboards' [`CorrectnessMatrix`][holdout.leaderboards.CorrectnessMatrix]."""
        if self.matrix is None:
            raise ValueError(f"{self.test_set or 'the evidence'}: no per-item results (an accuracy table)")
        return CorrectnessMatrix(self.model_ids, self.matrix, self.samples, item_names=self.item_ids or None)


@dataclass(frozen=True)
class LensResult:
    """One lens on one evidence: its table, its verdict in words and what kind of number it is."""

    lens: str
    label: Literal["measured", "theorem", "heuristic"]
    verdict: str
    frame: pd.DataFrame
    detail: object = field(default=None, compare=False)  # the lens's own result object, for figures
