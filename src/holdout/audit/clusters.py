"""``--clusters FILE`` and ``--cluster-by FIELD`` on ``holdout audit``: items that share a passage, a
source or a template are not independent draws (Miller 2024, "Adding error bars to evals", App. A).

With clusters the accuracy table gains ``se``, ``se_clustered`` (the finite-cluster form, in the unit
of its accuracy column) and ``design_effect``; the pairs table ``se_diff``, ``se_diff_clustered``,
``p_clustered`` and ``clustered_test`` (normal from 30 clusters, the cluster sign-flip randomization
test below: ``holdout.audit.lenses._common``); ``summary.json`` gains
``clusters`` (how many, from where, which form) and the report one labelled line. Without them the
audit is unchanged. The file is read as ``holdout power`` reads it
(``holdout.commands._shared``), stricter: an id that is not an item is
refused (a file for another test set), as is an item without a cluster.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from holdout.audit.engines.pairs_lens import PairsLens, _holm
from holdout.audit.errors import AuditError
from holdout.audit.evidence import Evidence
from holdout.audit.lenses._common import FORM, accuracy_columns, pairs_columns
from holdout.audit.readers.matrix import read_clusters_csv
from holdout.stats.clustered import MIN_CLUSTERS_NORMAL
from holdout.stats.ranks import rank_confidence_sets, tie_groups, tied_with_best

if TYPE_CHECKING:
    from holdout.audit.result import AuditResult

__all__ = ["add_cluster_arguments", "clustered_result", "clustered_pairs", "item_clusters", "refuse_for_tables"]


def add_cluster_arguments(p: argparse.ArgumentParser) -> None:
    """``--clusters CSV`` (item id, cluster) and ``--cluster-by FIELD`` (logs), one of them."""
    g = p.add_argument_group("clustered items")
    x = g.add_mutually_exclusive_group()
    x.add_argument(
        "--clusters",
        metavar="CSV",
        help="CSV of item id, cluster (a header row is allowed; predictions without ids: the 0-based item "
        "position): cluster-robust standard errors, p-values and rank sets",
    )
    x.add_argument(
        "--cluster-by",
        metavar="FIELD",
        help="logs: each item's cluster from a per-item field (an lm-eval doc field, an Inspect sample's "
        "metadata key, a HELM instance field); the error lists the fields the logs carry",
    )


def item_clusters(
    args: argparse.Namespace, item_ids: Sequence[str], fields: dict | None = None
) -> tuple[np.ndarray | None, str]:
    """Each item's cluster from ``--clusters`` or ``--cluster-by`` (None without them) and where
    they came from; AuditError (one line) for a bad file or a field the logs lack."""
    path, field = getattr(args, "clusters", None), getattr(args, "cluster_by", None)
    if path is not None and field is not None:
        raise AuditError("--clusters and --cluster-by both name the clusters: give one of them")
    labels, where = _labels(path, field, item_ids, fields)
    if labels is not None and len(set(labels.tolist())) < 2:
        raise AuditError(f"clusters from {where}: every item is in one cluster; clustered errors need at least 2")
    return labels, where


def _labels(
    path: str | None, field: str | None, item_ids: Sequence[str], fields: dict | None
) -> tuple[np.ndarray | None, str]:
    if field is not None:
        from types import SimpleNamespace

        from holdout.logs import LogError, cluster_labels

        if fields is None:
            raise AuditError(f"--cluster-by {field}: only logs carry per-item fields; give --clusters FILE")
        try:
            view = SimpleNamespace(item_ids=tuple(item_ids), item_fields=fields)
            return np.asarray(cluster_labels(view, field), dtype=object), f"the item field {field!r}"
        except LogError as exc:
            raise AuditError(str(exc)) from None
    if path is None:
        return None, ""
    return read_clusters_csv(str(path), item_ids), str(path)


def clustered_result(
    result: AuditResult, matrix: np.ndarray, model_ids: Sequence[str], clusters: np.ndarray, source: str
) -> AuditResult:
    """``result`` with the clustered columns in its accuracy and pairs tables, ``clusters`` for
    ``summary.json`` and one labelled note for the report (``matrix``: K x n scores, one row per
    name of ``model_ids``; the tables' rows are matched by model name)."""
    e = Evidence(np.asarray(matrix, dtype=float), tuple(str(m) for m in model_ids), clusters=clusters)
    accuracy = accuracy_columns(result.accuracy, e)
    c = int(len(set(clusters.tolist())))
    test = "normal" if c >= MIN_CLUSTERS_NORMAL else "randomization (cluster sign-flip)"
    pairs = None if result.pairs is None else clustered_pairs(result.pairs, e, test)
    entry = {"n_clusters": c, "source": source, "form": FORM, "paired_test": test, "label": "measured"}
    if pairs is not None:
        entry["tied_with_best"] = [str(m) for m in pairs.ranks.loc[pairs.ranks["tied_with_best"], "model"]]
    note = (
        f"Clustered items (measured): {c} clusters from {source}; se_clustered (accuracy.csv) and "
        f"se_diff_clustered (pairs.csv) are cluster-robust, {FORM}; p_clustered: {test} test; the "
        "tied-with-best set and the rank sets resample whole clusters."
    )
    return replace(result, accuracy=accuracy, pairs=pairs, clusters=entry, notes=(*result.notes, note))


def clustered_pairs(lens: PairsLens, e: Evidence, test: str) -> PairsLens:
    """The pairs lens with the clustered columns, the rank sets from the cluster bootstrap
    ([`rank_confidence_sets`][holdout.stats.rank_confidence_sets] with ``clusters``) and the
    tied-with-best set and tie groups from them (rank interval reaching 1), the clustered p-values
    against the best (raw and Holm) beside them; the item-level ones stay as ``*_items``."""
    assert e.matrix is not None and e.clusters is not None
    pairs = pairs_columns(lens.pairs, e)
    r = lens.ranks
    order = [str(m) for m in r["model"]]
    rows = pairs[pairs["model_a"] == order[0]].set_index("model_b").loc[order[1:]]
    log_p = np.log(np.maximum(rows["p_clustered"].to_numpy(dtype=float), np.finfo(float).tiny))
    idx = [e.model_ids.index(m) for m in order]
    sets = rank_confidence_sets(e.matrix, lens.alpha, resamples=lens.resamples, seed=0, clusters=e.clusters)
    holm = np.exp(np.minimum(0.0, _holm(log_p)))
    ranks = r.assign(
        rank_low_items=r["rank_low"],
        rank_high_items=r["rank_high"],
        tied_with_best_items=r["tied_with_best"],
        rank_low=sets.rank_low[idx],
        rank_high=sets.rank_high[idx],
        tied_with_best=tied_with_best(sets)[idx],
        tie_group_items=r["tie_group"],
        tie_group=tie_groups(sets)[idx],
        p_clustered_vs_best=np.concatenate([[1.0], np.exp(log_p)]),
        p_holm_clustered_vs_best=np.concatenate([[1.0], holm]),
    )
    words = "rank intervals from a bootstrap over whole clusters"
    return replace(lens, pairs=pairs, ranks=ranks, resampled="whole clusters", tied_test=words)


def refuse_for_tables(args: argparse.Namespace) -> None:
    """``--clusters`` / ``--cluster-by`` with an accuracy table (no per-item results): one line."""
    for flag, dest in (("--clusters", "clusters"), ("--cluster-by", "cluster_by")):
        if getattr(args, dest, None) is not None:
            raise AuditError(f"{flag}: an accuracy table has no per-item results to cluster; give a matrix or logs")
