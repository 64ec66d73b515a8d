"""The audit in a notebook: [`read_logs`][holdout.logs.read_logs] gives the K x n correctness matrix
of the logs, [`audit`][holdout.audit.notebook.audit] runs every correctness lens on it and returns an
[`AuditResult`][holdout.audit.AuditResult] whose parts are pandas DataFrames (``accuracy``,
``similarity.pairs``, ``verdicts()``) and which a notebook shows as its verdicts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from holdout.audit.core import selection_bits
from holdout.audit.correctness import correctness_result
from holdout.audit.result import AuditOptions, AuditResult
from holdout.leaderboards import CorrectnessMatrix
from holdout.logs import LogMatrix, read_logs

__all__ = ["audit", "read_logs"]

#: the lenses that need only correctness
CORRECTNESS_LENSES = ("accuracy", "pairs", "similarity", "bounds", "rvw")


def audit(
    matrix: CorrectnessMatrix,
    *,
    lenses: Sequence[str] = CORRECTNESS_LENSES,
    eps: float = 0.01,
    delta: float = 0.05,
    alpha: float = 0.05,
    search_size: int | None = None,
    selected: str | None = None,
    name: str | None = None,
) -> AuditResult:
    """Every lens of ``lenses`` on a correctness matrix (as ``holdout audit --logs`` / ``--correctness``):
    accuracy with intervals, similarity, the bounds at ``eps`` / ``delta`` and, with ``search_size``
    (the selected model is the best of that many configurations), Rip van Winkle's Razor."""
    bits, detail = selection_bits(None, search_size) if search_size is not None else (None, "")
    options = AuditOptions(
        eps=eps, delta=delta, alpha=alpha, lenses=tuple(lenses), rvw_bits=bits, rvw_detail=detail, selected=selected
    )
    task = str(matrix.runs["task"].iloc[0]) if isinstance(matrix, LogMatrix) and len(matrix.runs) else None
    title = name or task or "correctness matrix"
    result = correctness_result(matrix, options, title)
    extra = matrix.notes if isinstance(matrix, LogMatrix) else ()
    return replace(result, test_set=title, notes=(*result.notes, *extra))
