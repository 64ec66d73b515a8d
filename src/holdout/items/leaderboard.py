"""The leaderboard recomputed without the flagged items, beside the original.

Does removing the items the screen flags change the order of the models, or which models are tied
with the best? Accuracy on all items and on the unflagged ones, the rank (1 + the number of models
strictly more accurate; equal accuracies share a rank) and the group tied with the best: the models
whose exact McNemar test against the most accurate one does not reject after Holm's correction at
level ``alpha``
([`tied_with_best`][holdout.stats.ranks.tied_with_best], as in the audit's paired lens).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from holdout.stats.ranks import rank_confidence_sets, tied_with_best

__all__ = ["LeaderboardChange", "leaderboard_without_flagged"]


@dataclass(frozen=True)
class LeaderboardChange:
    """``table``: per model (input order) accuracy, rank and tied-with-best, on all items and without the
    flagged ones; ``order_changed``: some pair of models swaps order (one strictly ahead before, strictly behind
    after); ``top_group_changed``: the tied-with-best set differs."""

    table: pd.DataFrame
    items_dropped: int
    order_changed: bool
    top_group_changed: bool


def _ranks_and_top(x: np.ndarray, names: list[str], alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    acc = x.mean(axis=1) if x.shape[1] else np.full(x.shape[0], np.nan)
    order = np.argsort(-acc, kind="stable")
    rank = 1 + (acc[None, :] > acc[:, None]).sum(axis=1)
    top = np.zeros(len(names), dtype=bool)
    if len(names) < 2 or not x.shape[1]:
        top[order[:1]] = True
        return acc, rank, top
    # the rank sets' tie set (interval reaching 1), as the audit's pairs lens
    top[:] = tied_with_best(rank_confidence_sets(x, alpha, seed=0))
    return acc, rank, top


def leaderboard_without_flagged(
    correct: np.ndarray, names: Sequence[str], flagged: np.ndarray, *, alpha: float = 0.05
) -> LeaderboardChange:
    """Accuracy, rank and tied-with-best of K models on all n items and on the items not flagged."""
    x = np.asarray(correct, dtype=float)
    keep = ~np.asarray(flagged, dtype=bool)
    names = [str(n) for n in names]
    acc, rank, top = _ranks_and_top(x, names, alpha)
    acc2, rank2, top2 = _ranks_and_top(x[:, keep], names, alpha)
    table = pd.DataFrame(
        {
            "model": names,
            "accuracy": 100 * acc,
            "rank": rank,
            "tied_with_best": top,
            "accuracy_without_flagged": 100 * acc2,
            "rank_without_flagged": rank2,
            "tied_with_best_without_flagged": top2,
        }
    )
    return LeaderboardChange(
        table=table,
        items_dropped=int((~keep).sum()),
        order_changed=bool(((acc[:, None] > acc[None, :]) & (acc2[:, None] < acc2[None, :])).any()),
        top_group_changed=bool((top != top2).any()),
    )
