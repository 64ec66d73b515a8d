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
from holdout.stats._paired import mcnemar_log_pvalue, newcombe_paired_ci, paired_t_from_sums

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
)

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


def _pair_stats(
    pc: PairCounts, i: np.ndarray, j: np.ndarray, alpha: float, mid_p: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, str]:
    """b, c, diff, low, high, log p of the pairs (i, j), and the test's name."""
    s_ij = pc.cross[i, j]
    b, c = pc.totals[i] - s_ij, pc.totals[j] - s_ij
    if pc.binary:
        d = pc.n - s_ij - b - c
        low, high = newcombe_paired_ci(s_ij, b, c, d, alpha)
        log_p = mcnemar_log_pvalue(np.round(b), np.round(c), mid_p=mid_p)
        return b, c, (b - c) / pc.n, low, high, log_p, "McNemar mid-p" if mid_p else "exact McNemar"
    sum_d2 = pc.cross[i, i] + pc.cross[j, j] - 2 * s_ij
    diff, _, _, log_p, low, high = paired_t_from_sums(b - c, sum_d2, pc.n, alpha)
    return b, c, diff, low, high, log_p, "paired t"


def paired_comparisons(
    x: np.ndarray,
    names: Sequence[str] | None = None,
    *,
    alpha: float = 0.05,
    mid_p: bool = False,
    counts: PairCounts | None = None,
) -> pd.DataFrame:
    """One row per pair of models, the more accurate first (``diff`` >= 0; ties keep input order).

    0/1 entries: ``p_value`` from the exact two-sided McNemar test (mid-p with ``mid_p``) and
    ``diff_low`` / ``diff_high`` Newcombe's hybrid score interval; pass rates: the paired t test over
    items and its t interval. ``b`` / ``c``: items only model_a / only model_b gets right (expected
    counts for pass rates, see the module). ``p_holm``: Holm-adjusted over all K(K-1)/2 pairs.
    ``log10_p_value`` keeps p-values below 1e-308. Accuracies and intervals are fractions.
    """
    x = np.asarray(x)
    k = x.shape[0]
    names = [str(m) for m in (names if names is not None else range(k))]
    if len(names) != k or k < 2:
        raise ValueError(f"paired_comparisons needs K >= 2 models and one name each, got {k} rows, {len(names)} names")
    pc = counts if counts is not None else pair_counts(x)
    order = np.argsort(-pc.totals, kind="stable")
    iu, ju = np.triu_indices(k, k=1)
    i, j = order[iu], order[ju]
    b, c, diff, low, high, log_p, test = _pair_stats(pc, i, j, alpha, mid_p)
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
            "test": test,
        },
        columns=list(PAIR_COLUMNS),
    )
