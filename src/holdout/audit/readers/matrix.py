"""A correctness matrix (K x n: 0/1 results or pass rates; .csv or .npy) as the audit's evidence."""

from __future__ import annotations

from pathlib import Path

from holdout.audit.errors import AuditError
from holdout.audit.evidence import Evidence
from holdout.leaderboards import CorrectnessError, CorrectnessMatrix, read_correctness

__all__ = ["evidence_from_matrix", "load_correctness", "read_matrix"]


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
    path: str | Path, *, model_names: list[str] | None = None, samples: int | None = None, rows: str | None = None
) -> Evidence:
    """A K x n correctness matrix file (CSV with a header row and the model name first, or .npy with
    ``model_names``) as evidence; ``rows="items"`` reads a file with one column per model."""
    return evidence_from_matrix(load_correctness(str(path), model_names, samples, rows), str(path))
