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
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.leaderboards.correctness import CorrectnessError, CorrectnessMatrix, check_correctness
from holdout.logs.base import LogError, RunScores, clean_name, natural_key
from holdout.logs.fields import align_fields, config_differences, config_text

__all__ = ["LogMatrix", "align_runs", "item_fingerprint"]


@dataclass(frozen=True, eq=False)
class LogMatrix(CorrectnessMatrix):
    """A [`CorrectnessMatrix`][holdout.leaderboards.CorrectnessMatrix] read from evaluation logs,
    with its item ids (columns), one row per run in ``runs`` (name, model, task, metric, filter,
    format, date, items, accuracy, source, config, config_differs), what alignment did
    (``notes``) and, where the logs carry them, each item's release date (``item_dates``,
    ``datetime64[D]``).

    Optional fields for the item lenses (None where no run's format records them; see each
    reader): ``answers`` (K x n object array of text, None where a run gives no answer),
    ``keys``, ``item_text`` (normalised question and choices) and ``item_fields`` (field name ->
    one text value per item, for [`cluster_labels`][holdout.logs.cluster_labels]), each one entry
    per column; ``configs``: each row's run configuration
    ([`config_differences`][holdout.logs.config_differences] lists what differs within a model)."""

    item_ids: tuple[str, ...] = ()
    runs: pd.DataFrame = field(default_factory=pd.DataFrame)
    notes: tuple[str, ...] = ()
    item_dates: np.ndarray | None = None
    answers: np.ndarray | None = None
    keys: tuple[str | None, ...] | None = None
    item_text: tuple[str | None, ...] | None = None
    item_fields: dict[str, tuple[str | None, ...]] | None = None
    configs: tuple[dict[str, object], ...] = ()

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


def _one_reading(runs: Sequence[RunScores], task: str) -> None:
    """Refuse runs of one task read with different metrics or filters (not one matrix)."""
    readings = Counter((r.metric, r.filter) for r in runs)
    if len(readings) < 2:
        return
    first = {(r.metric, r.filter): r.source for r in reversed(runs)}
    listed = ", ".join(
        f"{m}{'' if f in (None, 'none') else f' / filter {f}'} ({k} run{'s' * (k > 1)}, e.g. {first[(m, f)]})"
        for (m, f), k in sorted(readings.items(), key=str)
    )
    option = "--metric" if len({m for m, _ in readings}) > 1 else "--filter"
    raise LogError(
        f"runs of {task} read with {len(readings)} different metrics or filters: {listed}; choose one with {option}"
    )


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
            f"{len(dropped)} items not scored in every run (first: {', '.join(map(clean_name, dropped[:5]))}; "
            f"runs with extra items: {', '.join(short[:5])})"
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
    _one_reading(runs, task)
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
            "config": [config_text(r.config) for r in runs],
        }
    )
    extra, key_notes = align_fields(runs, items)
    own = [n for r in runs for n in r.notes]
    all_notes = tuple(own + notes + dropped + key_notes)
    m = LogMatrix(c.model_names, c.values, c.samples, tuple(items), table, all_notes, item_dates, **extra)
    return _with_drift(m)


def _with_drift(m: LogMatrix) -> LogMatrix:
    """The matrix with ``config_differs`` per run in ``runs`` and a note per model whose runs differ."""
    diff = config_differences(m)
    by_model = diff.groupby("model", sort=False)["key"].apply(list).to_dict() if len(diff) else {}
    table = m.runs.assign(config_differs=["; ".join(by_model.get(model, [])) for model in m.runs["model"]])
    notes = [
        f"runs of {model} differ in configuration: {', '.join(keys[:6])}{' ...' * (len(keys) > 6)} (see logs.csv)"
        for model, keys in by_model.items()
    ]
    return replace(m, runs=table, notes=(*m.notes, *notes))
