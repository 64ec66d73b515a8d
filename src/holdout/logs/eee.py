"""Every Eval Ever instance-level JSONL (``<id>_samples.jsonl``, schema 0.2 / 0.3).

One JSON object per line and per sample: ``model_id``, ``evaluation_name`` (the task),
``sample_id`` (the item id), ``evaluation: {score, is_correct, ...}``, and the input, output and
messages. The score is ``is_correct`` (as 0/1) where every row has it, else ``score``;
``--metric score`` / ``--metric is_correct`` chooses. A file may hold several models or tasks:
one run per (model, task).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from holdout.logs.base import (
    ANY,
    RunScores,
    Selection,
    check_scores,
    check_unique,
    choose,
    first_line,
    jsonl_rows,
    no_filter,
)

__all__ = ["is_eee_row", "read_eee"]

_METRICS = ("is_correct", "score")


def is_eee_row(row: object) -> bool:
    """A parsed first line that is an Every Eval Ever instance row."""
    return isinstance(row, dict) and "sample_id" in row and "evaluation" in row and "schema_version" in row


def _scan(path: Path) -> dict[tuple[str, str], list[tuple[str, dict]]]:
    runs: dict[tuple[str, str], list[tuple[str, dict]]] = defaultdict(list)
    for row in jsonl_rows(path, is_eee_row, "an Every Eval Ever instance row (no sample_id)"):
        ev = row.get("evaluation") or {}
        runs[(str(row.get("model_id")), str(row.get("evaluation_name")))].append((str(row["sample_id"]), ev))
    return runs


def _metric(rows: list[tuple[str, dict]], given: str | None, path: Path) -> str:
    present = [m for m in _METRICS if all(ev.get(m) is not None for _, ev in rows)]
    if given is None and present:
        return present[0]
    return choose(present, given, "metric", "--metric", path)


def read_eee(path: str | Path, select: Selection = ANY) -> list[RunScores]:
    """One run per (model, task) in the file (those of ``select.task`` only, when given)."""
    path = Path(path)
    no_filter(select, path, "Every Eval Ever")
    first_line(path)
    out = []
    for (model, task), rows in sorted(_scan(path).items()):
        if select.task is not None and select.task != task:
            continue
        metric = _metric(rows, select.metric, path)
        ids = [i for i, _ in rows]
        check_unique(ids, path, f" for {model} on {task}")
        values = [float(ev[metric]) for _, ev in rows]
        scores = check_scores(values, ids, f"evaluation.{metric}", path)
        out.append(RunScores(model, task, metric, None, tuple(ids), scores, str(path), "eee"))
    return out
