"""Ranks with honest uncertainty: who is tied with the best, and simultaneous confidence sets for ranks.

* [`tied_with_best`][holdout.stats.ranks.tied_with_best]: the paired test of every model against the most
  accurate one, Holm over the K - 1 comparisons.
* [`rank_confidence_sets`][holdout.stats.rank_confidence_sets]: Mogstad, Romano, Shaikh & Wilhelm
  (2024, "Inference for ranks with applications to mobility across neighbourhoods and academic
  achievement across countries", Rev. Econ. Stud. 91(1):476-518, Sec. 3.3), simultaneous sets from
  all paired differences and a bootstrap of their studentized maximum.
* [`tie_groups`][holdout.stats.ranks.tie_groups]: the leaderboard cut into groups, each led by its most
  accurate model and holding the rest that are not significantly worse than it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from holdout.stats._multiple import holm
from holdout.stats._paired import resample_counts
from holdout.stats._pairs import PairCounts, pair_counts

__all__ = ["RankSets", "rank_confidence_sets", "tie_groups", "tied_with_best"]


def tied_with_best(log_p_vs_best: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """True where the paired test against the best model does not reject after Holm (1979) over the
    K - 1 comparisons at level ``alpha``; ``log_p_vs_best`` holds the K - 1 log p-values of the other
    models, the result has K entries with the best (first) one True."""
    log_p = np.asarray(log_p_vs_best, dtype=float)
    tied = np.exp(holm(log_p)) > alpha if log_p.size else np.zeros(0, dtype=bool)
    return np.concatenate([[True], tied])


def tie_groups(log_p: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """Group number (1, 2, ...) of each of K models ordered best first, from the K x K matrix of
    paired log p-values: group 1 is the best model and every model it does not beat (Holm over the
    comparisons with it, as [`tied_with_best`][holdout.stats.ranks.tied_with_best]); group 2 is led by the
    best model left, and so on. A reading aid, not a simultaneous statement (use the rank sets)."""
    log_p = np.asarray(log_p, dtype=float)
    k = log_p.shape[0]
    group = np.zeros(k, dtype=int)
    left = np.arange(k)
    g = 0
    while left.size:
        g += 1
        lead, rest = left[0], left[1:]
        tied = tied_with_best(log_p[lead, rest], alpha)
        group[left[tied]] = g
        left = left[~tied]
    return group


@dataclass(frozen=True)
class RankSets:
    """Per model (input order): ``rank`` (1 = most accurate, ties share the best rank), the
    simultaneous 1 - alpha set [``rank_low``, ``rank_high``], and the bootstrap critical value."""

    rank: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    critical_value: float
    alpha: float
    resamples: int


def _bootstrap_deviations(x: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """K x B: each model's mean on B item resamples minus its mean on the items (items drawn with
    replacement, the same draw for every model: the pairing is kept)."""
    k, n = x.shape
    xf = x.astype(np.float32 if k * n > 10**7 else np.float64)
    out = np.empty((k, resamples))
    for start in range(0, resamples, 64):
        size = min(64, resamples - start)
        w = resample_counts(rng, n, size).astype(xf.dtype)
        out[:, start : start + size] = (xf @ w.T) / n
    return out - x.mean(axis=1, dtype=np.float64)[:, None]


def _max_studentized(dev: np.ndarray, inv_se: np.ndarray, block_bytes: int = 2**25) -> np.ndarray:
    """For each resample b: max over pairs j < k of |dev_jb - dev_kb| / se_jk (inv_se 0 where se is 0).

    Rows j in blocks, only the columns k > j, float32, in place: about K^2 B / 2 of each of three
    passes (difference, absolute value times 1 / se, maximum), at most ``block_bytes`` at a time."""
    k, b = dev.shape
    dev32, inv32 = np.ascontiguousarray(dev, dtype=np.float32), inv_se.astype(np.float32)
    out = np.zeros(b, dtype=np.float32)
    rows = max(1, block_bytes // (4 * k * b))
    for j0 in range(0, k - 1, rows):
        j1 = min(k - 1, j0 + rows)
        cols = dev32[j0 + 1 :]  # every k > j0: the pairs with k <= j are masked by inv_se = 0 below
        gaps = dev32[j0:j1, None, :] - cols[None, :, :]
        np.abs(gaps, out=gaps)
        weight = np.triu(inv32[j0:j1, j0 + 1 :], k=0)  # keep k > j only
        gaps *= weight[:, :, None]
        np.maximum(out, gaps.max(axis=(0, 1)), out=out)
    return out.astype(np.float64)


def rank_confidence_sets(
    x: np.ndarray,
    alpha: float = 0.05,
    *,
    resamples: int = 1000,
    seed: int | np.random.Generator = 0,
    counts: PairCounts | None = None,
) -> RankSets:
    """Simultaneous 1 - alpha confidence sets for the ranks of all K models (K x n matrix ``x``).

    Mogstad, Romano, Shaikh & Wilhelm (2024), Sec. 3.3: with Delta_jk = mean_j - mean_k and its
    paired standard error se_jk, the critical value c is the 1 - alpha quantile of the bootstrap
    max_{j != k} |Delta*_jk - Delta_jk| / se_jk; j is declared better than k where
    Delta_jk > c se_jk. Then rank_low_j = 1 + #{k better than j} and rank_high_j = K - #{k worse
    than j}. Guarantee (their Theorem 3.4): P(every true rank lies in its set) >= 1 - alpha
    asymptotically in n for fixed K (bootstrap-consistent means); with tied true accuracies the sets
    are conservative. Cost: one B x n resampling product and B passes over the K^2 pairs.
    """
    x = np.asarray(x)
    pc = counts if counts is not None else pair_counts(x)
    k, n = x.shape
    rng = np.random.default_rng(seed)
    s = pc.totals
    sum_d2 = np.diag(pc.cross)[:, None] + np.diag(pc.cross)[None, :] - 2 * pc.cross
    diff = (s[:, None] - s[None, :]) / n
    se = np.sqrt(np.maximum(sum_d2 - n * diff**2, 0.0) / (n - 1) / n)  # as in paired_t_from_sums
    inv_se = np.where(se > 0, 1.0 / np.where(se > 0, se, 1.0), 0.0)
    crit = float(np.quantile(_max_studentized(_bootstrap_deviations(x, resamples, rng), inv_se), 1 - alpha))
    better = diff > crit * se + 1e-12  # better[j, k]: j significantly more accurate than k
    np.fill_diagonal(better, False)
    rank = 1 + (s[None, :] > s[:, None]).sum(axis=1)
    return RankSets(
        rank.astype(int), 1 + better.sum(axis=0), k - better.sum(axis=1), crit, float(alpha), int(resamples)
    )
