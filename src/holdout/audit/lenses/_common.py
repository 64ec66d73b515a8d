"""What several lenses share: the evidence as predictions (a 0/1 matrix as two-class predictions), and
the clustered columns the accuracy and pairs lenses add when the evidence has item clusters (Miller
2024, App. A; [`holdout.stats.clustered`][holdout.stats.clustered]; without clusters their tables are
unchanged)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from holdout.audit.evidence import Evidence
from holdout.predictions import Predictions
from holdout.stats.clustered import MIN_CLUSTERS_NORMAL, clustered_many

__all__ = ["FORM", "accuracy_columns", "as_predictions", "pairs_columns"]


def as_predictions(e: Evidence) -> Predictions:
    """The evidence's predictions, or its 0/1 matrix as two-class predictions (label 0 everywhere,
    prediction 1 where wrong: the same errors, so the same accuracies and similarities)."""
    if e.predictions is not None:
        return e.predictions
    if e.matrix is None:
        raise ValueError("no per-item results")
    labels = np.zeros(e.matrix.shape[1], dtype=np.int64)
    wrong = (e.matrix < 0.5).astype(np.int64)
    return Predictions.create(wrong, labels, e.model_ids, num_classes=2, test_set=e.test_set or "matrix")


#: the clustered standard error reported: Miller's form times sqrt(C / (C - 1))
FORM = "finite-cluster (C / (C - 1))"


def accuracy_columns(frame: pd.DataFrame, e: Evidence) -> pd.DataFrame:
    """``frame`` (one row per model, column ``model``) with ``se``, ``se_clustered`` (finite-cluster
    form; percent, the unit of ``accuracy``), ``design_effect`` and ``n_clusters``."""
    if e.clusters is None or e.matrix is None:
        return frame
    many = clustered_many(e.matrix, e.clusters)
    row = frame["model"].map({m: i for i, m in enumerate(e.model_ids)}).to_numpy()
    return frame.assign(
        se=100 * many.se[row],
        se_clustered=100 * many.se_clustered_finite[row],
        design_effect=many.design_effect[row],
        n_clusters=many.n_clusters,
    )


def _flip_pvalues(matrix: np.ndarray, clusters: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    from holdout.stats._clustered import _FlipTest, cluster_codes

    codes, n_clusters = cluster_codes(clusters, matrix.shape[1])
    totals = np.zeros((matrix.shape[0], n_clusters))
    np.add.at(totals.T, codes, matrix.T)
    sizes = np.bincount(codes, minlength=n_clusters).astype(float)
    exact = 2**n_clusters <= 9999
    if exact:
        signs = 1.0 - 2.0 * ((np.arange(2**n_clusters)[:, None] >> np.arange(n_clusters)) & 1)
    else:
        signs = np.random.default_rng(0).choice([-1.0, 1.0], size=(9999, n_clusters))
    return np.array([_FlipTest(signs, exact, totals[i] - totals[j], sizes).pvalue(0.0) for i, j in zip(a, b)])


def pairs_columns(frame: pd.DataFrame, e: Evidence) -> pd.DataFrame:
    """``frame`` (one row per pair, ``model_a`` / ``model_b``) with ``se_diff``, ``se_diff_clustered``
    (finite-cluster form, percentage points), ``design_effect``, ``p_clustered`` and ``clustered_test``
    (which test): the normal test with 30 clusters or more, the cluster sign-flip randomization test
    below (exact when 2^C <= 9999),
    as [`clustered_paired_test`][holdout.stats.clustered.clustered_paired_test] computes them."""
    from scipy import stats

    if e.clusters is None or e.matrix is None or frame.empty:
        return frame
    many = clustered_many(e.matrix, e.clusters)
    index = {m: i for i, m in enumerate(e.model_ids)}
    a, b = frame["model_a"].map(index).to_numpy(), frame["model_b"].map(index).to_numpy()
    se = many.se_diff_clustered_finite[a, b]
    if many.n_clusters >= MIN_CLUSTERS_NORMAL:
        diff = np.abs(many.mean[a] - many.mean[b])
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(se > 0, diff / se, np.where(diff > 0, np.inf, 0.0))
        p = np.minimum(1.0, 2 * stats.norm.sf(z))
    else:
        p = _flip_pvalues(e.matrix, e.clusters, a, b)
    return frame.assign(
        se_diff=100 * many.se_diff[a, b],
        se_diff_clustered=100 * se,
        design_effect=many.design_effect_diff[a, b],
        p_clustered=p,
        clustered_test="normal" if many.n_clusters >= MIN_CLUSTERS_NORMAL else "randomization",
    )
