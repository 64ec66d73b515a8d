"""A correctness matrix (K x n: 0/1 results or pass rates; .csv or .npy) as the audit's evidence."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from holdout.audit.errors import AuditError
from holdout.audit.evidence import Evidence
from holdout.leaderboards import CorrectnessError, CorrectnessMatrix, read_correctness

__all__ = ["evidence_from_matrix", "load_correctness", "read_clusters_csv", "read_matrix"]


def load_correctness(
    path: str, model_names: list[str] | None, samples: int | None, rows: str | None = None
) -> CorrectnessMatrix:
    """[`read_correctness`][holdout.leaderboards.read_correctness], its error as an AuditError line."""
    try:
        return read_correctness(path, model_names, samples, rows)
    except CorrectnessError as exc:
        raise AuditError(str(exc)) from None


def evidence_from_matrix(c: CorrectnessMatrix, source: str = "", notes: tuple[str, ...] = ()) -> Evidence:
    """A [`CorrectnessMatrix`][holdout.leaderboards.CorrectnessMatrix] (or a log matrix) as evidence."""
    items = c.item_names or getattr(c, "item_ids", None) or tuple(str(i + 1) for i in range(c.shape[1]))
    read_as = (f"Read {Path(source).name}: {c.read_as}.",) if c.read_as else ()
    return Evidence(
        matrix=c.values,
        model_ids=tuple(c.model_names),
        item_ids=tuple(items),
        samples=c.samples,
        test_set=Path(source).stem if source else "correctness matrix",
        sources=(source,) if source else (),
        notes=(*read_as, *notes),
        item_dates=getattr(c, "item_dates", None),
    )


def read_matrix(
    path: str | Path,
    *,
    model_names: list[str] | None = None,
    samples: int | None = None,
    rows: str | None = None,
    clusters: str | Path | None = None,
) -> Evidence:
    """A K x n correctness matrix file (CSV with a header row and the model name first, or .npy with
    ``model_names``) as evidence; ``rows="items"`` reads a file with one column per model;
    ``clusters``: a CSV of (item id, cluster) rows (``--clusters``; items without ids by position)."""
    e = evidence_from_matrix(load_correctness(str(path), model_names, samples, rows), str(path))
    if clusters is None:
        return e
    ids = list(e.item_ids) or [str(j) for j in range(e.matrix.shape[1])]
    return replace(e, clusters=read_clusters_csv(str(clusters), ids))


def read_clusters_csv(path: str, item_ids: Sequence[str]) -> np.ndarray:
    """Each item's cluster from a CSV of (item id, cluster) rows (a header row allowed): one per item of
    ``item_ids``; AuditError (one line) for ids that are not items or items without a cluster."""
    from holdout.commands._shared import UsageError, _read_cluster_csv

    try:
        table = _read_cluster_csv(Path(path))
    except UsageError as exc:
        raise AuditError(str(exc)) from None
    known = set(item_ids)
    first = next(iter(table), None)
    if first is not None and first not in known:  # a header row (item, cluster)
        del table[first]
    unknown = [i for i in table if i not in known]
    if unknown:
        raise AuditError(
            f"--clusters {path}: {len(unknown):,} item id(s) are not items of this input (first: {unknown[0]!r}; "
            f"first item here: {item_ids[0]!r}); give one row per item of this test set"
        )
    missing = [i for i in item_ids if i not in table]
    if missing:
        raise AuditError(
            f"--clusters {path}: {len(missing):,} of {len(item_ids):,} items have no cluster "
            f"(first: {missing[0]!r}); give every item one"
        )
    return np.asarray([table[i] for i in item_ids], dtype=object)
