"""Every lens that needs only correctness, on one K x n matrix (0/1 or pass rates).

[`correctness_lenses`][holdout.leaderboards.lenses.correctness_lenses] computes accuracy with
intervals, the similarity matrix and its summary against independent errors, greedy covering
numbers (Mania et al. 2019, Definition 1), the difficulty distribution, and the number of
testable models under the union bound (2), the similarity bound (3)+(8) and the naive-Bayes bound
(A1) at the measured n, mean accuracy and mean similarity
([`testable_model_counts`][holdout.bounds.study.testable_model_counts]).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from holdout.bounds.study import testable_model_counts
from holdout.leaderboards.correctness import (
    CorrectnessMatrix,
    accuracy_intervals,
    difficulty,
    similarity_matrix,
    similarity_summary,
)
from holdout.similarity.core import (
    SimilaritySummary,
    covering_numbers,
    independent_similarity_matrix,
    upper_pairs,
)
from holdout.stats._ranks import TOTAL_DECIMALS

__all__ = ["CorrectnessLenses", "correctness_lenses", "ranked_by_correct"]


@dataclass(frozen=True)
class CorrectnessLenses:
    """``accuracy``: model, rank, correct, n, accuracy, ci_low, ci_high (percent, best first);
    ``pairs``: model_i, model_j, similarity, independent; ``covering``: eta, covering_number;
    ``difficulty``: m, fraction_at_most; ``testable``: (union_k, similarity_k, naive_bayes_k),
    the last two None when the models are less similar than independent errors, all three None
    where the bounds do not apply (every model right or wrong everywhere, identical models)."""

    accuracy: pd.DataFrame
    summary: SimilaritySummary
    pairs: pd.DataFrame
    covering: pd.DataFrame
    difficulty: pd.DataFrame
    testable: tuple[int | None, int | None, int | None]
    eps: float
    delta: float


def _testable(
    n: int, error: float, similarity: float, eps: float, delta: float
) -> tuple[int | None, int | None, int | None]:
    """[`testable_model_counts`][holdout.bounds.study.testable_model_counts], or three None where the
    bounds do not apply: no error rate strictly between 0 and 1, identical models (similarity 1), or
    models so nearly identical that the count overflows (as good as unlimited)."""
    if not 0.0 < error < 1.0 or similarity >= 1.0:
        return None, None, None
    try:
        return testable_model_counts(n, error, similarity, eps, delta)
    except OverflowError:
        return None, None, None


def ranked_by_correct(acc: pd.DataFrame) -> pd.DataFrame:
    """``acc`` best first with a ``rank`` column (second): competition ranks (1, 1, 3) of the counts
    ``correct`` rounded to ``TOTAL_DECIMALS`` decimals, so tied models rank alike (as in the rank
    sets' ``ranks.csv``) whatever their order in the input or the float noise of a pass-rate sum."""
    counts = np.round(acc["correct"].to_numpy(dtype=float), TOTAL_DECIMALS)
    acc = acc.iloc[np.argsort(-counts, kind="stable")].reset_index(drop=True)
    acc.insert(1, "rank", rankdata(-np.sort(counts)[::-1], method="min").astype(int))
    return acc


def correctness_lenses(
    c: CorrectnessMatrix, etas: Sequence[float], eps: float, delta: float, alpha: float = 0.05
) -> CorrectnessLenses:
    """All correctness-only lenses (K >= 2)."""
    acc = accuracy_intervals(c, alpha)
    acc = ranked_by_correct(acc)
    sim = similarity_matrix(c)
    summary = similarity_summary(c, sim)
    mu = 1.0 - c.values.mean(axis=1)
    iu, ju = np.triu_indices(c.shape[0], k=1)
    names = pd.Index(c.model_names)  # unique: the pairs' names as codes into it, not K(K-1) strings
    pairs = pd.DataFrame(
        {
            "model_i": pd.Categorical.from_codes(iu, names),
            "model_j": pd.Categorical.from_codes(ju, names),
            # float32 (7 digits) in the pairs table and its CSV: K(K-1)/2 rows, a third less to format
            "similarity": upper_pairs(sim).astype(np.float32),
            "independent": upper_pairs(independent_similarity_matrix(mu)).astype(np.float32),
        }
    )
    etas = np.asarray(etas, dtype=float)
    covering = pd.DataFrame({"eta": etas, "covering_number": covering_numbers(sim, mu, etas)})
    frac = difficulty(c)
    diff = pd.DataFrame({"m": np.arange(frac.size), "fraction_at_most": frac})
    testable = _testable(c.shape[1], float(mu.mean()), summary.mean_similarity, eps, delta)
    return CorrectnessLenses(acc, summary, pairs, covering, diff, testable, float(eps), float(delta))
