"""EvalPlus ``eval_results.json`` (``<org>--<model>_<backend>_temp_<t>[-sanitized]_eval_results.json``).

``{"date", "hash", "eval": {task_id: [{solution, base_status, plus_status, ...}, ...]}}``: one
list element per sample. An item's score is the fraction of its samples that pass: ``plus`` (the
default, EvalPlus's headline) needs ``base_status`` and ``plus_status`` both "pass" (the base
tests are not repeated in the plus set, so a sample can fail base and pass plus); ``base`` needs
``base_status`` "pass". The model name is the file name without the backend, temperature and
suffixes, ``--`` read as ``/``; the task is the dataset named by the task ids (HumanEval, Mbpp).
No answers, keys or item fields (the samples are programs graded by tests); ``config``: the
dataset ``hash``, and the backend and temperature from the file name.
"""

from __future__ import annotations

import re
from pathlib import Path

from holdout.logs.base import ANY, LogError, RunScores, Selection, check_scores, choose, load_json, no_filter

__all__ = ["METRICS", "read_evalplus"]

#: the two scores of a sample, and what each needs
METRICS = {"plus": ("base_status", "plus_status"), "base": ("base_status",)}


def _model(path: Path) -> str:
    stem = path.stem
    if stem == "eval_results":  # older layout: <model folder>/eval_results.json
        stem = path.parent.name
    stem = re.sub(r"(-sanitized)?_eval_results$", "", stem)
    stem = re.sub(r"(_[A-Za-z]+)?_temp_[0-9.]+(-sanitized)?$", "", stem)
    return stem.replace("--", "/")


_RUN = re.compile(r"_(?P<backend>[A-Za-z]+)_temp_(?P<temperature>[0-9.]+)")


def _config(path: Path, data: dict) -> dict[str, object]:
    out: dict[str, object] = {"hash": data["hash"]} if data.get("hash") else {}
    m = _RUN.search(path.name)
    if m:
        out |= {"backend": m.group("backend"), "temperature": float(m.group("temperature"))}
    return out


def read_evalplus(path: str | Path, select: Selection = ANY) -> list[RunScores]:
    """One EvalPlus run (pass rates per task; ``select.metric``: plus or base)."""
    path = Path(path)
    no_filter(select, path, "EvalPlus")
    data = load_json(path)
    ev = data.get("eval") if isinstance(data, dict) else None
    if not isinstance(ev, dict) or not ev:
        raise LogError(f"{path}: no 'eval' results in this EvalPlus file (an empty run)")
    ids = list(ev)
    task = ids[0].split("/")[0].lower()
    if select.task is not None and select.task != task:
        return []
    metric = choose(METRICS, select.metric or "plus", "metric", "--metric", path)
    keys = METRICS[metric]
    values, sizes = [], set()
    for tid in ids:
        samples = ev[tid]
        if not isinstance(samples, list) or not samples:
            raise LogError(f"{path}: task {tid!r} has no samples")
        for j, sample in enumerate(samples):
            missing = [k for k in keys if not isinstance(sample, dict) or k not in sample]
            if missing:
                raise LogError(
                    f"{path}: sample {j} of task {tid!r} has no {missing[0]} (not evaluated?)"
                    f"{'; --metric base reads base_status only' if missing == ['plus_status'] else ''}"
                )
        values.append(sum(all(s.get(k) == "pass" for k in keys) for s in samples) / len(samples))
        sizes.add(len(samples))
    scores = check_scores(values, ids, f"{metric} pass rate", path)
    m = sizes.pop() if len(sizes) == 1 else None
    date = str(data.get("date")).replace(" ", "T") if data.get("date") else None
    return [
        RunScores(
            _model(path),
            task,
            metric,
            None,
            tuple(ids),
            scores,
            str(path),
            "evalplus",
            date,
            samples=m if m and m > 1 else None,
            config=_config(path, data),
        )
    ]
