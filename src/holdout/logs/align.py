"""K runs into one K x n correctness matrix by item id (the leaderboard format the audit reads).

Items scored in some runs only are dropped with a count and the first ids (refused with
``strict``); two runs of one model are kept apart as ``<model>@<run date>`` (``<model>@<k>``
when the dates do not tell them apart) and said so; runs of several tasks are refused with the
list of tasks. The item set's fingerprint (sha256 of the sorted ids) lets two audits be compared.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.leaderboards.correctness import CorrectnessError, CorrectnessMatrix, check_correctness
from holdout.logs.base import LogError, RunScores, natural_key

__all__ = ["LogMatrix", "align_runs", "item_fingerprint"]


@dataclass(frozen=True, eq=False)
class LogMatrix(CorrectnessMatrix):
    """A [`CorrectnessMatrix`][holdout.leaderboards.CorrectnessMatrix] read from evaluation logs,
    with its item ids (columns), one row per run in ``runs`` (name, model, task, metric, filter,
    format, date, items, accuracy, source), what alignment did (``notes``) and, where the logs
    carry them, each item's release date (``item_dates``, ``datetime64[D]``)."""

    item_ids: tuple[str, ...] = ()
    runs: pd.DataFrame = field(default_factory=pd.DataFrame)
    notes: tuple[str, ...] = ()
    item_dates: np.ndarray | None = None

    @property
    def fingerprint(self) -> str:
        """sha256 of the sorted item ids, one per line: equal for two audits of the same items."""
        return item_fingerprint(self.item_ids)

    def to_frame(self) -> pd.DataFrame:
        """The matrix as a DataFrame: one row per run (index ``model``), one column per item id."""
        return pd.DataFrame(self.values, index=pd.Index(self.model_names, name="model"), columns=list(self.item_ids))


def item_fingerprint(item_ids: Sequence[str]) -> str:
    """sha256 (hex) of the item ids sorted, joined by newlines."""
    return hashlib.sha256("\n".join(sorted(item_ids)).encode("utf-8")).hexdigest()


def _one_task(runs: Sequence[RunScores]) -> str:
    tasks = Counter(r.task for r in runs)
    if len(tasks) > 1:
        first = {r.task: r.source for r in reversed(runs)}
        listed = ", ".join(f"{t} ({k} run{'s' * (k > 1)}, e.g. {first[t]})" for t, k in sorted(tasks.items()))
        raise LogError(f"runs of {len(tasks)} tasks: {listed}; choose one with --task")
    return next(iter(tasks))


def _same_bytes(a: str, b: str) -> bool:
    pa, pb = Path(a), Path(b)
    if not (pa.is_file() and pb.is_file()) or pa.stat().st_size != pb.stat().st_size:
        return False
    digest = [hashlib.sha256(p.read_bytes()).hexdigest() for p in (pa, pb)]
    return digest[0] == digest[1]


def _names(runs: Sequence[RunScores]) -> tuple[list[str], list[str]]:
    """One distinct name per run, and a note for each model with several runs."""
    groups: dict[str, list[int]] = defaultdict(list)
    for k, r in enumerate(runs):
        groups[r.model].append(k)
    names, notes = [r.model for r in runs], []
    for model, ks in groups.items():
        if len(ks) == 1:
            continue
        dates = [runs[k].date for k in ks]
        by_date = all(dates) and len(set(dates)) == len(dates)
        for j, k in enumerate(ks, 1):
            names[k] = f"{model}@{runs[k].date if by_date else j}"
        notes.append(f"{len(ks)} runs of {model}, kept apart as {', '.join(names[k] for k in ks)}")
        twins = [(a, b) for i, a in enumerate(ks) for b in ks[i + 1 :] if _same_bytes(runs[a].source, runs[b].source)]
        notes += [f"{names[a]} and {names[b]} are byte-identical files (one run copied?)" for a, b in twins]
    return names, notes


def _common_items(runs: Sequence[RunScores], names: list[str], strict: bool) -> tuple[list[str], list[str]]:
    sets = [set(r.item_ids) for r in runs]
    common = set.intersection(*sets)
    every = set.union(*sets)
    if not common:
        raise LogError("the runs share no item id: are they runs of the same task and items?")
    dropped = sorted(every - common, key=natural_key)
    notes = []
    if dropped:
        short = [
            f"{names[k]} ({len(r.item_ids) - len(common)})" for k, r in enumerate(runs) if len(r.item_ids) > len(common)
        ]
        text = (
            f"{len(dropped)} items not scored in every run (first: {', '.join(dropped[:5])}; runs with "
            f"extra items: {', '.join(short[:5])})"
        )
        if strict:
            raise LogError(f"{text}: --strict refuses to drop them")
        notes.append(f"dropped {text}; {len(common)} items kept")
    return sorted(common, key=natural_key), notes


def align_runs(runs: Sequence[RunScores], strict: bool = False, model_names: Sequence[str] | None = None) -> LogMatrix:
    """The runs' K x n matrix on the items every run scored (rows in the runs' order)."""
    if not runs:
        raise LogError("no runs to align")
    task = _one_task(runs)
    names, notes = _names(runs)
    if model_names is not None:
        if len(model_names) != len(runs):
            raise LogError(f"--model-names: {len(model_names)} names for {len(runs)} runs ({', '.join(names)})")
        names = [str(m) for m in model_names]
    items, dropped = _common_items(runs, names, strict)
    values = np.empty((len(runs), len(items)))
    for k, r in enumerate(runs):
        pos = pd.Series(np.arange(len(r.item_ids)), index=list(r.item_ids))
        values[k] = r.scores[pos.loc[items].to_numpy()]
    samples = {r.samples for r in runs}
    try:
        c = check_correctness(values, names, f"logs of {task}", samples.pop() if len(samples) == 1 else None, items)
    except CorrectnessError as exc:
        raise LogError(str(exc)) from None
    dated = next((r for r in runs if r.item_dates is not None), None)
    item_dates = None
    if dated is not None:
        pos = pd.Series(np.arange(len(dated.item_ids)), index=list(dated.item_ids))
        item_dates = dated.item_dates[pos.loc[items].to_numpy()]
    table = pd.DataFrame(
        {
            "name": names,
            "model": [r.model for r in runs],
            "task": task,
            "metric": [r.metric for r in runs],
            "filter": [r.filter for r in runs],
            "format": [r.format for r in runs],
            "date": [r.date for r in runs],
            "items": [len(r.item_ids) for r in runs],
            "accuracy": values.mean(axis=1),
            "source": [r.source for r in runs],
        }
    )
    own = [n for r in runs for n in r.notes]
    return LogMatrix(c.model_names, c.values, c.samples, tuple(items), table, tuple(own + notes + dropped), item_dates)
