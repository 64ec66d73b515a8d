"""Ranks with honest uncertainty: simultaneous confidence sets for ranks, and who is tied with the best.

* [`rank_confidence_sets`][holdout.stats.rank_confidence_sets]: Mogstad, Romano, Shaikh & Wilhelm
  (2024, "Inference for ranks with applications to mobility across neighbourhoods and academic
  achievement across countries", Rev. Econ. Stud. 91(1):476-518, Sec. 3.3), single-step
  simultaneous sets from all paired differences and a bootstrap of their studentized maximum.
* [`tied_with_best`][holdout.stats.ranks.tied_with_best]: the models whose simultaneous rank set
  reaches 1 (no model is significantly more accurate than they are).
* [`tie_groups`][holdout.stats.ranks.tie_groups]: the leaderboard cut into groups by the same
  simultaneous comparisons.
* [`best_models`][holdout.stats.ranks.best_models]: every model tied at the top of the counts.
* [`holm_vs_best`][holdout.stats.ranks.holm_vs_best]: Holm over the K - 1 tests against the model
  that scored highest in the sample (a confidence set for a unique best; not a tie set, see there).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from holdout.stats._multiple import holm
from holdout.stats._paired import resample_counts
from holdout.stats._pairs import PairCounts, pair_counts

__all__ = [
    "RankSets",
    "best_models",
    "holm_vs_best",
    "rank_confidence_sets",
    "rounded_totals",
    "tie_groups",
    "tied_with_best",
]

#: totals are compared after rounding to this many decimals: pass rates k / m summed in different
#: orders differ in the last bits (1.6 and 1.5999999999999999), never in the 9th decimal
TOTAL_DECIMALS = 9


def rounded_totals(x: np.ndarray) -> np.ndarray:
    """Each model's total over items (row sums of the K x n matrix ``x``), rounded to
    ``TOTAL_DECIMALS`` decimals so that equal accuracies compare equal whatever the summation order."""
    return np.round(np.asarray(x, dtype=float).sum(axis=1), TOTAL_DECIMALS)


def best_models(x: np.ndarray) -> np.ndarray:
    """Indices (ascending) of every model with the highest total in the K x n matrix ``x``: all the
    models tied at the top, compared on rounded totals (never input order or float noise)."""
    s = rounded_totals(x)
    return np.flatnonzero(s == s.max())


def holm_vs_best(log_p_vs_best: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """True where the paired test against the sample's most accurate model does not reject after Holm
    (1979) over the K - 1 comparisons; ``log_p_vs_best`` holds the K - 1 log p-values of the other
    models, the result has K entries with the best (first) one True.

    What it guarantees: when one model is truly the most accurate, it is excluded with probability at
    most about alpha (a confidence set for the best). What it does not: the reference is chosen from
    the same data, so the largest gap it tests is a range statistic, and with K models all equally
    accurate some model is called significantly worse far more often than alpha (about 0.12 at
    K = 10, 0.34 at K = 45, 0.51 at K = 134). For "tied with the best" use
    [`tied_with_best`][holdout.stats.ranks.tied_with_best] on the rank sets."""
    log_p = np.asarray(log_p_vs_best, dtype=float)
    tied = np.exp(holm(log_p)) > alpha if log_p.size else np.zeros(0, dtype=bool)
    return np.concatenate([[True], tied])


def _old_form(name: str) -> None:
    warnings.warn(
        f"{name}(log p-values, alpha) is Holm against the sample's best, which does not control the error "
        f"when models are tied; call holm_vs_best for that rule, or {name}(rank_confidence_sets(x))",
        DeprecationWarning,
        stacklevel=3,
    )


def tied_with_best(sets: RankSets | np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """True for each model (input order) whose simultaneous rank set reaches 1 (``rank_low == 1``): no
    model is significantly more accurate than it in the max-t comparison of all pairs.

    Guarantee: with probability at least 1 - alpha (asymptotically in n, the rank sets' guarantee)
    every model that is truly among the most accurate is in this set; in particular, when all K
    models are equally accurate, the probability of calling any of them significantly worse than the
    best is at most alpha (the all-tied configuration is the least favourable one, where it is
    attained). Every model tied at the top of the counts is in it. Passing the K - 1 log p-values
    against the sample's best (and ``alpha``) is the old Holm rule, see
    [`holm_vs_best`][holdout.stats.ranks.holm_vs_best]; it warns."""
    if isinstance(sets, RankSets):
        return sets.rank_low == 1
    _old_form("tied_with_best")
    return holm_vs_best(sets, alpha)


def _groups_from_better(better: np.ndarray, totals: np.ndarray) -> np.ndarray:
    k = better.shape[0]
    group = np.zeros(k, dtype=int)
    left = np.ones(k, dtype=bool)
    g = 0
    while left.any():
        g += 1
        # the models no remaining model is significantly better than (never empty: the top of the rest)
        top = left & ~(better & left[:, None]).any(axis=0)
        top |= left & (totals == totals[left].max())
        group[top] = g
        left &= ~top
    return group


def _groups_holm(log_p: np.ndarray, alpha: float) -> np.ndarray:
    k = log_p.shape[0]
    group = np.zeros(k, dtype=int)
    left = np.arange(k)
    g = 0
    while left.size:
        g += 1
        lead, rest = left[0], left[1:]
        tied = holm_vs_best(log_p[lead, rest], alpha)
        group[left[tied]] = g
        left = left[~tied]
    return group


def tie_groups(sets: RankSets | np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """Group number (1, 2, ...) of each model (input order) from the rank sets' simultaneous
    comparisons: group 1 is every model that no model is significantly better than (the models
    [`tied_with_best`][holdout.stats.ranks.tied_with_best]); group 2 the same among the models left,
    and so on. Within a group no model is significantly better than another; a model is placed below
    a group only because some model of an earlier group is significantly better than it. All these
    statements come from one max-t family, so they hold together with probability at least 1 - alpha
    (with all models equally accurate, more than one group appears with probability at most alpha).

    The old form (a K x K matrix of paired log p-values, models ordered best first: Holm against each
    group's leader) warns; it inherits [`holm_vs_best`][holdout.stats.ranks.holm_vs_best]'s error."""
    if isinstance(sets, RankSets):
        return _groups_from_better(sets.better, sets.totals)
    _old_form("tie_groups")
    return _groups_holm(np.asarray(sets, dtype=float), alpha)


@dataclass(frozen=True)
class RankSets:
    """Per model (input order): ``rank`` (1 = most accurate, equal rounded totals share the best
    rank), the simultaneous 1 - alpha set [``rank_low``, ``rank_high``], the bootstrap critical
    value; ``better[j, k]``: model j significantly more accurate than model k (the comparisons behind
    the sets); ``totals``: the rounded totals the ranks come from."""

    rank: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    critical_value: float
    alpha: float
    resamples: int
    better: np.ndarray
    totals: np.ndarray


def _exact_in_float32(x: np.ndarray) -> bool:
    """True when a resampled sum of ``x`` is exact in float32: 0/1 entries and n < 2^24."""
    return x.shape[1] < 2**24 and bool(((x == 0) | (x == 1)).all())


def _first_seen_codes(clusters: object, n: int) -> tuple[np.ndarray, int]:
    """Cluster codes 0..C-1 numbered in the order the clusters first appear among the items (so
    one item per cluster gives codes 0..n-1, the items' own order) and C."""
    from holdout.stats._clustered import cluster_codes

    codes, c = cluster_codes(clusters, n)
    first = np.full(c, n)
    np.minimum.at(first, codes, np.arange(n))
    renumber = np.empty(c, dtype=np.intp)
    renumber[np.argsort(first, kind="stable")] = np.arange(c)
    return renumber[codes], c


def _bootstrap_deviations(
    x: np.ndarray, resamples: int, rng: np.random.Generator, codes: np.ndarray | None = None
) -> np.ndarray:
    """K x B: each model's mean on B item resamples minus its mean on the items (items drawn with
    replacement, the same draw for every model: the pairing is kept; with cluster ``codes``, whole
    clusters are drawn, each item weighted by its cluster's count). The resampled counts are
    integers, so the product is done in float32 only where it is exact (0/1 entries, n < 2^24);
    everything after it is float64."""
    k, n = x.shape
    xf = x.astype(np.float32 if k * n > 10**7 and _exact_in_float32(x) else np.float64)
    out = np.empty((k, resamples))
    units = n if codes is None else int(codes.max()) + 1
    for start in range(0, resamples, 64):
        size = min(64, resamples - start)
        w = resample_counts(rng, units, size)
        w = (w if codes is None else w[:, codes]).astype(xf.dtype)
        out[:, start : start + size] = (xf @ w.T).astype(np.float64) / n
    return out - x.mean(axis=1, dtype=np.float64)[:, None]


def _max_studentized(dev: np.ndarray, inv_se: np.ndarray, block_bytes: int = 2**26) -> np.ndarray:
    """For each resample b: max over pairs j < k of |dev_jb - dev_kb| / se_jk (inv_se 0 where se is 0).

    Rows j in blocks, only the columns k > j, float64 (a critical value is compared with observed
    statistics to the last bit: float32 here once turned a tie into a difference), in place: about
    K^2 B / 2 of each of three passes, at most ``block_bytes`` at a time."""
    k, b = dev.shape
    dev = np.ascontiguousarray(dev, dtype=np.float64)
    out = np.zeros(b)
    rows = max(1, block_bytes // (8 * k * b))
    for j0 in range(0, k - 1, rows):
        j1 = min(k - 1, j0 + rows)
        cols = dev[j0 + 1 :]  # every k > j0: the pairs with k <= j are masked by inv_se = 0 below
        gaps = dev[j0:j1, None, :] - cols[None, :, :]
        np.abs(gaps, out=gaps)
        weight = np.triu(inv_se[j0:j1, j0 + 1 :], k=0)  # keep k > j only
        gaps *= weight[:, :, None]
        np.maximum(out, gaps.max(axis=(0, 1)), out=out)
    return out


def rank_confidence_sets(
    x: np.ndarray,
    alpha: float = 0.05,
    *,
    resamples: int = 1000,
    seed: int | np.random.Generator = 0,
    counts: PairCounts | None = None,
    clusters: object | None = None,
) -> RankSets:
    """Simultaneous 1 - alpha confidence sets for the ranks of all K models (K x n matrix ``x``).

    Mogstad, Romano, Shaikh & Wilhelm (2024), Sec. 3.3 (single-step): with Delta_jk = mean_j - mean_k
    over the per-item differences d_t and the scale se_jk = sqrt(sum_t d_t^2) / n (the paired
    standard error under no difference: sqrt(b + c) / n for 0/1 results, McNemar's), the critical
    value c is the 1 - alpha quantile of the bootstrap max_{j != k} |Delta*_jk - Delta_jk| / se_jk;
    j is declared better than k where Delta_jk > c se_jk (a statistic equal to c, to 1e-9 relative,
    is not beyond it). Then rank_low_j = 1 + #{k better than j} and rank_high_j = K - #{k worse than j}.
    The centred standard error shrinks exactly where |Delta_jk| is large, which made the observed
    maximum heavier-tailed than its bootstrap: with 45 equally accurate models on 400 items, 0.068
    of simulated leaderboards showed a false difference, 0.048 with this scale.

    Guarantee (their Theorem 3.4, which holds for any scale with a positive limit):
    P(every true rank lies in its set) >= 1 - alpha asymptotically in n for fixed K. The least
    favourable case is all models equally accurate (every true rank 1), where the coverage is close
    to 1 - alpha (the slow tests measure it at K = 10, 45, 134); the more the models are separated,
    the more conservative the sets (coverage near 1). Cost: one B x n resampling product and B
    passes over the K^2 pairs.

    With ``clusters`` (one label per item) the sets are cluster-robust: se_jk = sqrt(sum_c D_c^2) / n
    over the clusters' summed differences D_c (Miller 2024, App. A, uncentred as above) and the
    bootstrap draws whole clusters with replacement (Cameron, Gelbach & Miller 2008, the pairs
    cluster bootstrap). With one item per cluster this is the item bootstrap, draw for draw.
    """
    x = np.asarray(x)
    pc = counts if counts is not None else pair_counts(x)
    k, n = x.shape
    rng = np.random.default_rng(seed)
    s = np.round(pc.totals, TOTAL_DECIMALS)
    codes = None if clusters is None else _first_seen_codes(clusters, n)[0]
    cross = pc.cross if codes is None else _cluster_cross(x, codes)
    sum_d2 = np.diag(cross)[:, None] + np.diag(cross)[None, :] - 2 * cross
    diff = (s[:, None] - s[None, :]) / n
    se = np.sqrt(np.maximum(sum_d2, 0.0)) / n  # the standard error under no difference
    inv_se = np.where(se > 0, 1.0 / np.where(se > 0, se, 1.0), 0.0)
    dev = _bootstrap_deviations(x, resamples, rng, codes)
    crit = float(np.quantile(_max_studentized(dev, inv_se), 1 - alpha))
    better = diff > crit * se * (1 + 1e-9) + 1e-12  # better[j, k]: j significantly more accurate than k
    np.fill_diagonal(better, False)
    rank = 1 + (s[None, :] > s[:, None]).sum(axis=1)
    return RankSets(
        rank.astype(int),
        1 + better.sum(axis=0),
        k - better.sum(axis=1),
        crit,
        float(alpha),
        int(resamples),
        better,
        s,
    )


def _cluster_cross(x: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """K x K sums over clusters of T_j T_k, T the K x C cluster totals (T = x for one item per cluster)."""
    totals = np.zeros((x.shape[0], int(codes.max()) + 1))
    np.add.at(totals.T, codes, np.asarray(x, dtype=float).T)
    return totals @ totals.T
