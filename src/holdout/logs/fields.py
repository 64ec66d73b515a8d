"""The optional per-item fields of K runs, aligned on the matrix's items, and what they give:
each item's cluster label for a field (``--cluster-by``) and the configuration keys that differ
between the runs of one model.

Which field each format fills, and from where, is in each reader's docstring: ``answers`` (the
chosen answer), ``keys`` (the answer key), ``item_text`` (question and choices, normalised),
``item_fields`` (short scalar fields per item), ``config`` (per run).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pandas as pd

from holdout.logs.base import LogError, RunScores, clean_name

__all__ = ["align_fields", "cluster_labels", "config_differences", "config_text"]


def _positions(run: RunScores, items: Sequence[str]) -> np.ndarray:
    return pd.Series(np.arange(len(run.item_ids)), index=list(run.item_ids)).loc[list(items)].to_numpy()


def _first_per_item(columns: list[np.ndarray]) -> np.ndarray:
    """Per item, the first non-None value over the runs' columns (object arrays of length n)."""
    out = columns[0].copy()
    for col in columns[1:]:
        empty = np.array([v is None for v in out], dtype=bool)
        out[empty] = col[empty]
    return out


def _column(values: Sequence[str | None], pos: np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=object)[pos]


def _keys(runs: Sequence[RunScores], positions: list[np.ndarray], items: Sequence[str]):  # noqa: ANN202
    cols = [_column(r.keys, p) for r, p in zip(runs, positions) if r.keys is not None]
    if not cols:
        return None, []
    keys = _first_per_item(cols)
    differ = [i for j, i in enumerate(items) if len({c[j] for c in cols if c[j] is not None}) > 1]
    notes = []
    if differ:
        notes.append(
            f"the runs' answer keys differ on {len(differ)} items (first: {', '.join(map(clean_name, differ[:5]))}); "
            "keys from the first run"
        )
    return tuple(keys), notes


def _item_fields(runs: Sequence[RunScores], positions: list[np.ndarray]) -> dict[str, tuple] | None:
    names = dict.fromkeys(k for r in runs if r.item_fields for k in r.item_fields)
    out = {}
    for name in names:
        cols = [
            _column(r.item_fields[name], p) for r, p in zip(runs, positions) if r.item_fields and name in r.item_fields
        ]
        out[name] = tuple(_first_per_item(cols))
    return out or None


def align_fields(runs: Sequence[RunScores], items: Sequence[str]) -> tuple[dict[str, object], list[str]]:
    """The optional fields of ``runs`` on ``items`` (LogMatrix keyword arguments: ``answers`` K x n
    object array, ``keys``, ``item_text``, ``item_fields``, ``configs``) and notes (keys that differ
    between runs)."""
    positions = [_positions(r, items) for r in runs]
    answers = None
    if any(r.answers is not None for r in runs):
        answers = np.full((len(runs), len(items)), None, dtype=object)
        for k, (r, p) in enumerate(zip(runs, positions)):
            if r.answers is not None:
                answers[k] = _column(r.answers, p)
    keys, notes = _keys(runs, positions, items)
    texts = [_column(r.item_text, p) for r, p in zip(runs, positions) if r.item_text is not None]
    out = {
        "answers": answers,
        "keys": keys,
        "item_text": tuple(_first_per_item(texts)) if texts else None,
        "item_fields": _item_fields(runs, positions),
        "configs": tuple(dict(r.config) for r in runs),
    }
    return out, notes


def cluster_labels(matrix, field: str) -> np.ndarray:  # noqa: ANN001 (a LogMatrix)
    """Each item's value of ``field`` (``--cluster-by FIELD``): an array of text, one per column of
    the matrix. A field the logs do not carry, or one missing for some items, is a LogError naming
    the fields there are."""
    fields = getattr(matrix, "item_fields", None) or {}
    if field not in fields:
        shown = ", ".join(sorted(fields)) if fields else "none (these logs carry no per-item fields)"
        raise LogError(f"--cluster-by {field}: no such per-item field in these logs; available: {shown}")
    values = np.asarray(fields[field], dtype=object)
    missing = [i for i, v in zip(matrix.item_ids, values) if v is None]
    if missing:
        raise LogError(
            f"--cluster-by {field}: {len(missing)} of {len(values)} items have no {field} "
            f"(first: {', '.join(map(clean_name, missing[:5]))}); choose a field every item has, "
            "or give --clusters FILE"
        )
    return values.astype(str)


def config_text(config: dict[str, object]) -> str:
    """A run's configuration as one line of JSON (keys sorted), for ``logs.csv``."""
    return json.dumps(config, sort_keys=True, default=str, ensure_ascii=True)


def _shown(value: object) -> str:
    return "(absent)" if value is _ABSENT else json.dumps(value, sort_keys=True, default=str)


_ABSENT = object()


def config_differences(matrix) -> pd.DataFrame:  # noqa: ANN001 (a LogMatrix)
    """Per model with several runs in the matrix, the configuration keys whose values differ
    between its runs: one row per (model, key) with the runs' names and their values (``(absent)``
    where a run's file does not record the key). Empty (same columns) when nothing differs."""
    runs, configs = matrix.runs, matrix.configs
    rows = []
    if len(configs) == len(runs):
        for model, idx in runs.groupby("model", sort=False).indices.items():
            if len(idx) < 2:
                continue
            chosen = [configs[i] for i in idx]
            keys = dict.fromkeys(k for c in chosen for k in c)
            for key in keys:
                values = [c.get(key, _ABSENT) for c in chosen]
                if len({_shown(v) for v in values}) > 1:
                    names = " | ".join(str(runs["name"].iloc[i]) for i in idx)
                    rows.append({"model": model, "key": key, "runs": names, "values": " | ".join(map(_shown, values))})
    return pd.DataFrame(rows, columns=["model", "key", "runs", "values"])
