"""HELM run folders: ``per_instance_stats.json`` with ``run_spec.json`` beside it.

``per_instance_stats.json`` is a list with one entry per (instance, training trial): its
``instance_id``, ``train_trial_index``, optional ``perturbation`` and ``stats``, a list of
``{name: {name, split, [sub_split], [perturbation]}, count, sum, mean, ...}``. An item's score is
the ``mean`` of the chosen stat (default ``exact_match``, HELM's correctness of a multiple-choice
answer), averaged over its trials (a pass rate over the trials when there are several); an
instance whose mean is ``null`` has no score and is left out, with a note.
Perturbed copies are left out. The split (``test``, ``valid``) plays the part of lm-eval's filter:
all splits are read unless ``--filter`` names one. The model is ``adapter_spec.model`` of
``run_spec.json``; the task is the run's name without its ``model=`` part.

Fields read for the item lenses, from the files HELM writes beside (None when none is there; the
per-instance stats alone carry no answers or text), the first trial of each instance:

- ``answers``: ``display_predictions.json``'s ``mapped_output`` (the chosen choice's text, for a
  multiple-choice run) else its ``predicted_text``; or, from ``scenario_state.json``, the first
  completion mapped through the request's ``output_mapping``.
- ``keys``: the text of the reference tagged ``correct`` (``instances.json`` or
  ``scenario_state.json``).
- ``item_text``: the instance's ``input.text`` and its references' texts, normalised.
- ``item_fields``: the instance's short scalar fields (``split``, ``sub_split`` ...).
- ``config``: ``run_spec.json``'s ``adapter_spec`` (method, model deployment, temperature,
  max_tokens, few-shot count ``max_train_instances``, trials ...; a value over 200 characters as the
  first 12 hex digits of its sha256) and the scenario's class and arguments.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from pathlib import Path

from holdout.logs.base import (
    ANY,
    LogError,
    RunScores,
    Selection,
    check_scores,
    choose,
    load_json,
    normalise_text,
    scalar_fields,
)

__all__ = ["DEFAULT_METRIC", "read_helm"]

#: the stat read when --metric is not given
DEFAULT_METRIC = "exact_match"


def _short(value: object) -> object:
    text = json.dumps(value, sort_keys=True, default=str)
    return value if len(text) <= 200 else "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:12]


def _run_spec(stats_path: Path) -> tuple[str, str, dict[str, object]]:
    """(model, task, config) from the run_spec.json beside ``stats_path`` (else from the folder name)."""
    spec_path = stats_path.with_name("run_spec.json")
    name = stats_path.parent.name
    model = (re.search(r"model=([^,]+)", name) or [None, name])[1]
    config: dict[str, object] = {}
    if spec_path.is_file():
        spec = load_json(spec_path)
        if isinstance(spec, dict):
            name = str(spec.get("name") or name)
            adapter = spec.get("adapter_spec") or {}
            model = str(adapter.get("model") or model)
            config = {k: _short(v) for k, v in adapter.items() if k != "model" and v not in (None, "", [])}
            scenario = spec.get("scenario_spec") or {}
            if isinstance(scenario, dict) and scenario:
                config["scenario"] = scenario.get("class_name")
                config |= {f"scenario.{k}": _short(v) for k, v in (scenario.get("args") or {}).items()}
    task = re.sub(r",?model=[^,]*", "", name).rstrip(",")
    return model, task, config


def _key(instance: dict) -> str | None:
    for ref in instance.get("references") or []:
        if isinstance(ref, dict) and "correct" in (ref.get("tags") or []):
            return str((ref.get("output") or {}).get("text"))
    return None


def _instance(instance: object) -> tuple[str | None, str | None, dict[str, str]] | None:
    """(key, normalised text, fields) of one HELM instance record."""
    if not isinstance(instance, dict) or "id" not in instance:
        return None
    refs = [str((r.get("output") or {}).get("text")) for r in instance.get("references") or [] if isinstance(r, dict)]
    text = normalise_text((instance.get("input") or {}).get("text"), refs)
    fields = {k: v for k, v in scalar_fields(instance).items() if k != "id"}
    return _key(instance), text, fields


def _from_state(folder: Path) -> tuple[dict[str, str], dict[str, tuple]]:
    """answers and instance records from scenario_state.json (first trial, unperturbed)."""
    answers, instances = {}, {}
    state = load_json(folder / "scenario_state.json")
    for rs in (state.get("request_states") or []) if isinstance(state, dict) else []:
        inst = rs.get("instance") or {}
        if not isinstance(inst, dict) or inst.get("perturbation") or rs.get("train_trial_index", 0):
            continue
        record = _instance(inst)
        if record is None:
            continue
        iid = str(inst["id"])
        instances[iid] = record
        completions = (rs.get("result") or {}).get("completions") or []
        if completions:
            text = str(completions[0].get("text", "")).strip()
            answers[iid] = str((rs.get("output_mapping") or {}).get(text, text))
    return answers, instances


def _beside(stats_path: Path) -> tuple[dict[str, str], dict[str, tuple]]:
    """item id -> answer, and item id -> (key, text, fields), from the files beside the stats."""
    folder = stats_path.parent
    answers: dict[str, str] = {}
    instances: dict[str, tuple] = {}
    if (folder / "scenario_state.json").is_file():
        answers, instances = _from_state(folder)
    if (folder / "display_predictions.json").is_file():
        preds = load_json(folder / "display_predictions.json")
        for p in preds if isinstance(preds, list) else []:
            if (
                isinstance(p, dict)
                and "instance_id" in p
                and not p.get("perturbation")
                and not p.get("train_trial_index")
            ):
                value = p.get("mapped_output") or p.get("predicted_text")
                if value is not None:
                    answers[str(p["instance_id"])] = str(value).strip()
    if (folder / "instances.json").is_file():
        records = load_json(folder / "instances.json")
        for inst in records if isinstance(records, list) else []:
            record = _instance(inst)
            if record is not None and not inst.get("perturbation"):
                instances[str(inst["id"])] = record
    return answers, instances


def _item_lenses(ids: list[str], stats_path: Path) -> dict[str, object]:
    """The optional RunScores fields for ``ids`` (None where the files beside say nothing)."""
    answers, instances = _beside(stats_path)
    out: dict[str, object] = {"answers": None, "keys": None, "item_text": None, "item_fields": None}
    if answers:
        out["answers"] = tuple(answers.get(i) for i in ids)
    if instances:
        rec = [instances.get(i) or (None, None, {}) for i in ids]
        out["keys"] = tuple(r[0] for r in rec) if any(r[0] is not None for r in rec) else None
        out["item_text"] = tuple(r[1] for r in rec) if any(r[1] is not None for r in rec) else None
        names = dict.fromkeys(k for r in rec for k in r[2])
        out["item_fields"] = {k: tuple(r[2].get(k) for r in rec) for k in names} or None
    return out


def _stat_means(entries: list, path: Path) -> dict[tuple[str, str], dict[str, list[float | None]]]:
    """(stat name, split) -> instance id -> means over trials (None for ``"mean": null``),
    unperturbed entries and stats only."""
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
            mean = s["mean"]
            if mean is not None and not isinstance(mean, (int, float)):
                raise LogError(f"{path}: stat {name.get('name')!r} of instance {e['instance_id']!r} has mean {mean!r}")
            out[(str(name.get("name")), str(name.get("split")))][str(e["instance_id"])].append(mean)
    return out


def read_helm(path: str | Path, select: Selection = ANY) -> list[RunScores]:
    """One HELM run (``path``: its folder or its per_instance_stats.json)."""
    path = Path(path)
    if path.is_dir():
        path = path / "per_instance_stats.json"
    model, task, config = _run_spec(path)
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
    null = sorted(i for i, v in per_item.items() if any(x is None for x in v))
    per_item = {i: v for i, v in per_item.items() if i not in null}
    if not per_item:
        raise LogError(f"{path}: stat {metric!r} is null for every instance (no score): choose another with --metric")
    ids = sorted(per_item)
    trials = {len(v) for v in per_item.values()}
    scores = check_scores([sum(v) / len(v) for v in (per_item[i] for i in ids)], ids, f"stat {metric!r}", path)
    m = trials.pop() if len(trials) == 1 else None
    flt = "+".join(splits)
    note = (f"{path.parent.name}: splits {flt} read together",) if len(splits) > 1 else ()
    if null:
        note += (f"{path.parent.name}: {len(null)} instances with a null {metric!r} left out ({', '.join(null[:3])})",)
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
            config=config,
            **_item_lenses(ids, path),
        )
    ]
