"""A table of accuracies (a 'model' column and one column per test set, percent or fractions) as the
audit's evidence: no per-item results, so only the table lenses run on it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from holdout.audit.evidence import Evidence

__all__ = ["read_accuracies"]


def read_accuracies(
    path: str | Path, columns: Sequence[str], sizes: Sequence[int] | None = None, *, scale: str | None = None
) -> Evidence:
    """The table's ``columns`` (original and new test set), as fractions (``scale``: 'percent' or
    'fraction' where the table cannot tell), with the test sets' ``sizes``."""
    from holdout.audit.accuracy_table import read_accuracy_table  # the table reader and its checks

    table, read_as = read_accuracy_table(path, list(columns), scale)
    return Evidence(
        matrix=None,
        model_ids=tuple(str(m) for m in table["model"]),
        accuracies=table,
        sizes=None if sizes is None else tuple(int(s) for s in sizes),
        test_set=Path(path).stem,
        sources=(str(path),),
        notes=(f"{Path(path).name}: accuracies read as {read_as}.",) if read_as else (),
    )
