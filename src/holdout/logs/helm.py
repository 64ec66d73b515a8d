"""HELM run folders: ``per_instance_stats.json`` with ``run_spec.json`` beside it.

``per_instance_stats.json`` is a list with one entry per (instance, training trial): its
``instance_id``, ``train_trial_index``, optional ``perturbation`` and ``stats``, a list of
``{name: {name, split, [sub_split], [perturbation]}, count, sum, mean, ...}``. An item's score is
the ``mean`` of the chosen stat (default ``exact_match``, HELM's correctness of a multiple-choice
answer), averaged over its trials (a pass rate over the trials when there are several).
Perturbed copies are left out. The split (``test``, ``valid``) plays the part of lm-eval's filter:
all splits are read unless ``--filter`` names one. The model is ``adapter_spec.model`` of
``run_spec.json``; the task is the run's name without its ``model=`` part.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from holdout.logs.base import ANY, LogError, RunScores, Selection, check_scores, choose, load_json

__all__ = ["DEFAULT_METRIC", "read_helm"]

#: the stat read when --metric is not given
DEFAULT_METRIC = "exact_match"


def _run_spec(stats_path: Path) -> tuple[str, str]:
    """(model, task) from the run_spec.json beside ``stats_path`` (else from the folder name)."""
    spec_path = stats_path.with_name("run_spec.json")
    name = stats_path.parent.name
    model = (re.search(r"model=([^,]+)", name) or [None, name])[1]
    if spec_path.is_file():
        spec = load_json(spec_path)
        if isinstance(spec, dict):
            name = str(spec.get("name") or name)
            model = str((spec.get("adapter_spec") or {}).get("model") or model)
    task = re.sub(r",?model=[^,]*", "", name).rstrip(",")
    return model, task


def _stat_means(entries: list, path: Path) -> dict[tuple[str, str], dict[str, list[float]]]:
    """(stat name, split) -> instance id -> means over trials, unperturbed entries and stats only."""
    out: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for e in entries:
        if not isinstance(e, dict) or "instance_id" not in e or not isinstance(e.get("stats"), list):
            raise LogError(f"{path}: an entry without instance_id and stats (not HELM per_instance_stats)")
        if e.get("perturbation"):
            continue
        for s in e["stats"]:
            name = s.get("name") or {}
            if name.get("perturbation") or "mean" not in s:
                continue
            out[(str(name.get("name")), str(name.get("split")))][str(e["instance_id"])].append(float(s["mean"]))
    return out


def read_helm(path: str | Path, select: Selection = ANY) -> list[RunScores]:
    """One HELM run (``path``: its folder or its per_instance_stats.json)."""
    path = Path(path)
    if path.is_dir():
        path = path / "per_instance_stats.json"
    model, task = _run_spec(path)
    if select.task is not None and select.task != task:
        return []
    entries = load_json(path)
    if not isinstance(entries, list) or not entries:
        raise LogError(f"{path}: no instances (an empty run)")
    means = _stat_means(entries, path)
    names = {n for n, _ in means}
    metric = select.metric or (DEFAULT_METRIC if DEFAULT_METRIC in names else None)
    metric = choose(names, metric, "stat", "--metric", path)
    splits = sorted({sp for n, sp in means if n == metric})
    if select.filter is not None:
        splits = [choose(splits, select.filter, "split", "--filter", path)]
    per_item: dict[str, list[float]] = {}
    for sp in splits:
        for item, values in means[(metric, sp)].items():
            if item in per_item:
                raise LogError(f"{path}: instance {item!r} is in splits {', '.join(splits)}: choose one with --filter")
            per_item[item] = values
    ids = sorted(per_item)
    trials = {len(v) for v in per_item.values()}
    scores = check_scores([sum(v) / len(v) for v in (per_item[i] for i in ids)], ids, f"stat {metric!r}", path)
    m = trials.pop() if len(trials) == 1 else None
    flt = "+".join(splits)
    note = (f"{path.parent.name}: splits {flt} read together",) if len(splits) > 1 else ()
    return [
        RunScores(
            model,
            task,
            metric,
            flt,
            tuple(ids),
            scores,
            str(path),
            "helm",
            None,
            samples=m if m and m > 1 else None,
            notes=note,
        )
    ]
