"""Every pair of K models on the same n items at once: the paired tests of ``_paired`` vectorized.

One matrix product of the K x n correctness matrix X gives everything: with s = X 1 (each model's
total) and S = X X^T, for models i, j the items both get right are a = S_ij, only i: b = s_i - S_ij,
only j: c = s_j - S_ij, and the per-item differences d = x_i - x_j have sum s_i - s_j and sum of
squares S_ii + S_jj - 2 S_ij. For pass rates (entries in [0, 1]) b and c are the expected counts of
items where one sampled answer of i is right and one of j wrong (and the reverse), so b - c is still
the summed difference s_i - s_j.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from holdout.stats._multiple import holm
from holdout.stats._paired import mcnemar_log_pvalue, newcombe_paired_ci, paired_t_from_sums, sign_flip_test

__all__ = ["PAIR_COLUMNS", "PairCounts", "pair_counts", "paired_comparisons", "pairs_memory_bytes"]

#: the columns of [`paired_comparisons`][holdout.stats.paired.paired_comparisons] (and of the audit's pairs.csv)
PAIR_COLUMNS = (
    "model_a",
    "model_b",
    "n",
    "b",
    "c",
    "diff",
    "diff_low",
    "diff_high",
    "p_value",
    "log10_p_value",
    "p_holm",
    "test",
    "interval",
)

#: below this many items on which two models' pass rates differ, the paired t test is replaced by the
#: exact sign-flip test (the t test's size is 0.125 at 4 differing items, 0.07 at 8)
SIGN_FLIP_BELOW = 30
#: beyond this many such pairs, the exact sign test (vectorized) replaces the sign-flip test (a loop)
SIGN_FLIP_MAX_PAIRS = 10_000

#: bytes per pair of the comparison table (a dozen 8-byte columns and their temporaries)
_BYTES_PER_PAIR = 200


def pairs_memory_bytes(num_models: int, num_items: int) -> int:
    """Peak memory of [`paired_comparisons`][holdout.stats.paired.paired_comparisons], to say before the work:
    the K x n matrix (float64), the K x K products and about 200 bytes per pair."""
    k = int(num_models)
    return 8 * k * int(num_items) + 3 * 8 * k * k + _BYTES_PER_PAIR * k * (k - 1) // 2


@dataclass(frozen=True)
class PairCounts:
    """``totals`` s (each model's sum over items), ``cross`` S = X X^T, ``n`` items, ``binary`` 0/1."""

    totals: np.ndarray
    cross: np.ndarray
    n: int
    binary: bool


def pair_counts(x: np.ndarray) -> PairCounts:
    """s and S of a K x n matrix of entries in [0, 1]; exact integers for 0/1 entries (float32
    products are exact below 2^24 items, float64 is used beyond)."""
    x = np.asarray(x)
    if x.ndim != 2 or 0 in x.shape:
        raise ValueError(f"pair_counts needs a K x n matrix, got shape {x.shape}")
    binary = bool(((x == 0) | (x == 1)).all())
    if binary and x.shape[1] < 2**24:
        xf = x.astype(np.float32)
        cross = (xf @ xf.T).astype(np.float64)
    else:
        xf = x.astype(np.float64)
        cross = xf @ xf.T
    return PairCounts(xf.sum(axis=1, dtype=np.float64), cross, int(x.shape[1]), binary)


def _signs(x: np.ndarray, i: np.ndarray, j: np.ndarray, block: int = 2**22) -> tuple[np.ndarray, np.ndarray]:
    """How many items model i scores above / below model j, pair by pair (in blocks of ``block`` cells)."""
    above, below = np.empty(i.size, dtype=np.int64), np.empty(i.size, dtype=np.int64)
    step = max(1, block // x.shape[1])
    for s in range(0, i.size, step):
        d = x[i[s : s + step]] - x[j[s : s + step]]
        above[s : s + step], below[s : s + step] = (d > 0).sum(axis=1), (d < 0).sum(axis=1)
    return above, below


def _sign_flip_pairs(
    x: np.ndarray,
    pairs: tuple[np.ndarray, np.ndarray],
    sum_d2: np.ndarray,
    flat: np.ndarray,
    log_p: np.ndarray,
    test: np.ndarray,
) -> None:
    """Where a pair of pass-rate rows differs on fewer than ``SIGN_FLIP_BELOW`` items, or its
    differences have no spread (``flat``: the t statistic is infinite), its log p (in place) is the
    sign-flip test's (exact up to 2^16 sign patterns or with equal |d|, else 65,535 random ones;
    about 10 ms a pair). Beyond ``SIGN_FLIP_MAX_PAIRS`` such pairs, all of them get the exact sign
    test instead (the binomial test of how many items each model scores higher on: exact, valid
    under the same symmetry, less powerful, and vectorized)."""
    i, j = pairs
    cand = np.union1d(np.flatnonzero(sum_d2 < SIGN_FLIP_BELOW), np.flatnonzero(flat))  # |d| <= 1
    above, below = _signs(x, i[cand], j[cand])
    keep = (above + below < SIGN_FLIP_BELOW) | flat[cand]
    few, above, below = cand[keep], above[keep], below[keep]
    if few.size > SIGN_FLIP_MAX_PAIRS:
        log_p[few] = mcnemar_log_pvalue(above, below)
        test[few] = "sign test (exact)"
        return
    for p in few:
        r = sign_flip_test(x[i[p]], x[j[p]], n_resamples=2**16 - 1, seed=0)
        log_p[p] = np.log(r.pvalue)
        test[p] = "sign-flip (exact)" if r.exact else "sign-flip (65,535 random signs)"


def _agree(
    low: np.ndarray, high: np.ndarray, log_p: np.ndarray, alpha: float, name: str, test: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The interval made to agree with the test: where the test does not reject but the interval
    excludes 0, it is widened to reach 0 (a superset of a 1 - alpha interval keeps its coverage);
    where the test rejects but the interval holds 0 (possible with mid-p, never seen with the exact
    test), the label says they disagree. ``name``: the interval's, ``test``: the test's in words.
    An interval of zero width is no interval (NaN)."""
    keeps = log_p > np.log(alpha)
    excludes = (low > 0) | (high < 0)
    widen = keeps & excludes
    low, high = np.where(widen, np.minimum(low, 0.0), low), np.where(widen, np.maximum(high, 0.0), high)
    label = np.full(low.size, f"{name}; per comparison, unadjusted", dtype=object)
    label[widen] = f"{name}, widened to 0 (the {test} does not reject); per comparison, unadjusted"
    label[~keeps & ~excludes] = f"{name}; per comparison, unadjusted; holds 0 although the {test} rejects"
    flat = high - low <= 1e-9 * np.maximum(np.abs(low), np.abs(high))
    label[flat] = "none: the items' differences have no spread"
    return np.where(flat, np.nan, low), np.where(flat, np.nan, high), label


def _pair_stats(
    x: np.ndarray, pc: PairCounts, i: np.ndarray, j: np.ndarray, alpha: float, mid_p: bool
) -> tuple[np.ndarray, ...]:
    """b, c, diff, low, high, log p of the pairs (i, j), the test's and the interval's names."""
    s_ij = pc.cross[i, j]
    b, c = pc.totals[i] - s_ij, pc.totals[j] - s_ij
    if pc.binary:
        d = pc.n - s_ij - b - c
        low, high = newcombe_paired_ci(s_ij, b, c, d, alpha)
        log_p = mcnemar_log_pvalue(np.round(b), np.round(c), mid_p=mid_p)
        test = np.full(i.size, "McNemar mid-p" if mid_p else "exact McNemar", dtype=object)
        low, high, label = _agree(low, high, log_p, alpha, "Newcombe", "mid-p test" if mid_p else "exact test")
        label[(b + c == 0)] = "Newcombe; per comparison, unadjusted"  # identical rows: [0, 0] is exact
        low[b + c == 0] = high[b + c == 0] = 0.0
        return b, c, (b - c) / pc.n, low, high, log_p, test, label
    sum_d2 = pc.cross[i, i] + pc.cross[j, j] - 2 * s_ij
    diff, se, _, log_p, low, high = paired_t_from_sums(b - c, sum_d2, pc.n, alpha)
    test = np.full(i.size, "paired t", dtype=object)
    flat = se <= 1e-9 * np.abs(diff)  # every item differs by the same amount (to float noise)
    _sign_flip_pairs(x, (i, j), sum_d2, flat & (diff != 0), log_p, test)
    low, high, label = _agree(low, high, log_p, alpha, "paired t", "test")
    same = np.abs(sum_d2) < 1e-12  # identical rows: the difference is 0, exactly
    low[same], high[same], label[same] = 0.0, 0.0, "paired t; per comparison, unadjusted"
    return b, c, diff, low, high, log_p, test, label


def paired_comparisons(
    x: np.ndarray,
    names: Sequence[str] | None = None,
    *,
    alpha: float = 0.05,
    mid_p: bool = False,
    counts: PairCounts | None = None,
) -> pd.DataFrame:
    """One row per pair of models, the more accurate first (``diff`` >= 0; equal rounded totals keep
    input order).

    0/1 entries: ``p_value`` from the exact two-sided McNemar test (mid-p with ``mid_p``) and
    ``diff_low`` / ``diff_high`` Newcombe's hybrid score interval; pass rates: the paired t test over
    items and its t interval, except where the two models differ on fewer than ``SIGN_FLIP_BELOW``
    items: there the exact sign-flip test (the exact sign test beyond ``SIGN_FLIP_MAX_PAIRS`` such
    pairs; ``test`` names which, row by row). The interval is made to agree with
    the test: where the test does not reject at ``alpha`` it reaches 0 (widened if needed), and
    ``interval`` names the interval, whether it was widened, and that it is per comparison
    (unadjusted); an interval of zero width (every differing item differs by the same amount) is
    NaN. ``p_value`` is raw (per comparison); ``p_holm`` Holm-adjusted over all K(K-1)/2 pairs.
    ``b`` / ``c``: items only model_a / only model_b gets right (expected counts for pass rates, see
    the module). ``log10_p_value`` keeps p-values below 1e-308. Accuracies and intervals are fractions.
    """
    x = np.asarray(x)
    k = x.shape[0]
    names = [str(m) for m in (names if names is not None else range(k))]
    if len(names) != k or k < 2:
        raise ValueError(f"paired_comparisons needs K >= 2 models and one name each, got {k} rows, {len(names)} names")
    pc = counts if counts is not None else pair_counts(x)
    order = np.argsort(-np.round(pc.totals, 9), kind="stable")
    iu, ju = np.triu_indices(k, k=1)
    i, j = order[iu], order[ju]
    b, c, diff, low, high, log_p, test, interval = _pair_stats(x, pc, i, j, alpha, mid_p)
    labels = pd.Categorical.from_codes(np.concatenate([i, j]), categories=pd.Index(names))
    return pd.DataFrame(
        {
            "model_a": labels[: i.size],
            "model_b": labels[i.size :],
            "n": pc.n,
            "b": b,
            "c": c,
            "diff": diff,
            "diff_low": low,
            "diff_high": high,
            "p_value": np.exp(log_p),
            "log10_p_value": log_p / np.log(10.0),
            "p_holm": np.exp(holm(log_p)),
            "test": pd.Categorical(test),
            "interval": pd.Categorical(interval),
        },
        columns=list(PAIR_COLUMNS),
    )
