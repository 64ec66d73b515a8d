"""Evaluation logs (lm-eval, Inspect, HELM, Every Eval Ever, EvalPlus, LiveCodeBench) as the audit's
evidence: [`holdout.logs.read_logs`][holdout.logs.read_logs] aligns them by item id."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from holdout.audit.evidence import Evidence
from holdout.audit.readers.matrix import evidence_from_matrix
from holdout.logs import read_logs as _read_logs
from holdout.logs.fields import cluster_labels

__all__ = ["read_logs"]


def read_logs(paths: str | Path | Sequence[str | Path], *, cluster_by: str | None = None, **how: object) -> Evidence:
    """The per-item results in ``paths`` (files, folders, globs) as evidence, one model per run; ``how``:
    ``format``, ``task``, ``metric``, ``filter``, ``strict``, ``model_names`` as
    [`holdout.logs.read_logs`][holdout.logs.read_logs] takes them. Item dates come along where the
    logs carry them (LiveCodeBench); the answers, keys, item text and run configurations where the
    format records them; with ``cluster_by``, each item's value of that per-item field as its cluster."""
    m = _read_logs(paths, **how)  # type: ignore[arg-type]
    task = str(m.runs["task"].iloc[0]) if len(m.runs) else "logs"
    e = evidence_from_matrix(m, "", m.notes)
    sources = tuple(str(s) for s in m.runs["source"]) if "source" in m.runs else ()
    keys = None if m.keys is None else np.asarray(m.keys, dtype=object)
    configs = dict(zip(m.model_names, m.configs, strict=True)) if len(m.configs) == len(m.model_names) else None
    clusters = None if cluster_by is None else cluster_labels(m, cluster_by)
    return replace(
        e,
        test_set=task,
        sources=sources,
        answers=m.answers,
        keys=keys,
        item_text=m.item_text,
        clusters=clusters,
        run_config=configs,
    )
