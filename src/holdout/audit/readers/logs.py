"""Evaluation logs (lm-eval, Inspect, HELM, Every Eval Ever, EvalPlus, LiveCodeBench) as the audit's
evidence: [`holdout.logs.read_logs`][holdout.logs.read_logs] aligns them by item id."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from holdout.audit.evidence import Evidence
from holdout.audit.readers.matrix import evidence_from_matrix
from holdout.logs import read_logs as _read_logs

__all__ = ["read_logs"]


def read_logs(paths: str | Path | Sequence[str | Path], **how: object) -> Evidence:
    """The per-item results in ``paths`` (files, folders, globs) as evidence, one model per run; ``how``:
    ``format``, ``task``, ``metric``, ``filter``, ``strict``, ``model_names`` as
    [`holdout.logs.read_logs`][holdout.logs.read_logs] takes them. Item dates come along where the
    logs carry them (LiveCodeBench)."""
    m = _read_logs(paths, **how)  # type: ignore[arg-type]
    task = str(m.runs["task"].iloc[0]) if len(m.runs) else "logs"
    e = evidence_from_matrix(m, "", m.notes)
    sources = tuple(str(s) for s in m.runs["source"]) if "source" in m.runs else ()
    return Evidence(**{**e.__dict__, "test_set": task, "sources": sources})
