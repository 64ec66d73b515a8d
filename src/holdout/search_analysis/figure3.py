"""Mania et al. (2019) Figure 3 for the checkpoints of our own random search (Sec. 5.2).

The similarity of every pair of checkpoints whose accuracy is at least ``min_accuracy`` (the paper:
50%; the CPU default run: 25%) against the independent-errors baseline mu_i mu_j + (1 - mu_i)(1 - mu_j),
and the greedy upper bound on the similarity covering number N_eta of Definition 1 for each eta (the
paper keeps 1,235 of its 3,200 checkpoints). Pure functions; no torch.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from holdout.predictions import Predictions
from holdout.runlog import timed
from holdout.search_analysis.checkpoints import filter_by_accuracy, split_checkpoint_name
from holdout.similarity.core import (
    covering_numbers,
    independent_similarity_matrix,
    pairwise_similarity,
    summarize_similarity,
)

__all__ = ["Figure3", "eta_grid", "figure3", "search_figure3"]


@dataclass(frozen=True)
class Figure3:
    """The values of Mania et al. Figure 3 for one test set.

    ``pairs``: one row per pair i < j of kept checkpoints (names, accuracies, empirical and
    independent-errors similarity); ``covering``: eta and the greedy upper bound on N_eta;
    ``summary``: counts (checkpoints before and after the accuracy filter) and means.
    """

    pairs: pd.DataFrame
    covering: pd.DataFrame
    summary: dict[str, object]


def figure3(preds: Predictions, min_accuracy: float, etas: Sequence[float]) -> Figure3:
    """Mania et al. Fig. 3: pair similarities vs independent errors and N_eta of the kept checkpoints.

    Keeps the checkpoints with accuracy >= ``min_accuracy``; similarity as in Sec. 2,
    P(1{f_i(x) != y} = 1{f_j(x) != y}); the baseline as in Sec. 5.1; N_eta bounded from
    above by [`holdout.similarity.core.covering_numbers`][holdout.similarity.core.covering_numbers] (greedy cover,
    Definition 1).
    Needs at least two kept checkpoints.
    """
    kept = filter_by_accuracy(preds, min_accuracy)
    if kept.num_models < 2:
        raise ValueError(
            f"{preds.test_set}: {kept.num_models} of {preds.num_models} checkpoints reach accuracy "
            f">= {min_accuracy}; Figure 3 needs at least 2 (train longer or lower the threshold)"
        )
    errors = kept.errors()
    mu = errors.mean(axis=1)
    sim = pairwise_similarity(errors)
    indep = independent_similarity_matrix(mu)
    names = np.array(kept.model_names)
    iu, ju = np.triu_indices(len(names), k=1)
    pairs = pd.DataFrame(
        {
            "checkpoint_i": names[iu],
            "checkpoint_j": names[ju],
            "accuracy_i": 1 - mu[iu],
            "accuracy_j": 1 - mu[ju],
            "similarity": sim[iu, ju],
            "independent_similarity": indep[iu, ju],
        }
    )
    etas = np.asarray(etas, dtype=float)
    covering = pd.DataFrame(
        {
            "eta": etas,
            "covering_number_upper_bound": covering_numbers(sim, mu, etas),
            "num_checkpoints": kept.num_models,
        }
    )
    s = summarize_similarity(errors, sim)
    summary: dict[str, object] = {
        "test_set": preds.test_set,
        "n": preds.num_examples,
        "min_accuracy": float(min_accuracy),
        "num_checkpoints": preds.num_models,
        "num_kept": kept.num_models,
        "num_models": len({split_checkpoint_name(m)[0] for m in preds.model_names}),
        "best_accuracy": float(preds.accuracies().max()),
        "num_pairs": s.num_pairs,
        "mean_accuracy": s.mean_accuracy,
        "mean_similarity": s.mean_similarity,
        "mean_independent_similarity": s.mean_independent_similarity,
        "fraction_pairs_above_independent": s.fraction_above_independent,
    }
    return Figure3(pairs=pairs, covering=covering, summary=summary)


def eta_grid(eta: Mapping[str, Any]) -> np.ndarray:
    """The etas of Figure 3 (right) from ``search_analysis.eta`` (``min``, ``max``, ``num``), rounded to 1e-10."""
    if eta["min"] > eta["max"]:
        raise ValueError(f"config search_analysis.eta: min={eta['min']} is above max={eta['max']}")
    return np.round(np.linspace(eta["min"], eta["max"], eta["num"]), 10)


def search_figure3(
    preds: Predictions, min_accuracy: float, etas: Sequence[float], log: logging.Logger | None = None
) -> Figure3:
    """[`figure3`][holdout.search_analysis.figure3.figure3] of our search's checkpoints, timed and summarised in ``log``
    (paper: 1,235 of 3,200 kept)."""
    log = log or logging.getLogger("holdout")
    with timed(log, f"similarities of {preds.num_models} checkpoints and {len(etas)} covering numbers"):
        f3 = figure3(preds, min_accuracy, etas)
    s = f3.summary
    log.info(
        "%d of %d checkpoints (%d models) have accuracy >= %g (paper: 1,235 of 3,200); best %.4f",
        *(s["num_kept"], s["num_checkpoints"], s["num_models"], min_accuracy, s["best_accuracy"]),
    )
    log.info(
        "mean similarity %.4f vs independent errors %.4f; %.1f%% of %d pairs above independent",
        *(s["mean_similarity"], s["mean_independent_similarity"]),
        *(100 * s["fraction_pairs_above_independent"], s["num_pairs"]),  # type: ignore[operator]
    )
    return f3
