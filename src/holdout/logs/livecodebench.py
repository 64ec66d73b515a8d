"""LiveCodeBench ``output/<model>/<scenario>_<n>_<temperature>_eval_all.json``.

A JSON list with one object per problem, as ``lcb_runner`` writes it: ``question_id``,
``contest_date`` (ISO), ``platform``, ``difficulty``, the prompts and ``code_list``, and
``graded_list`` (one bool per sample) with ``pass@1`` = its mean. An item's score is the fraction of
its graded samples that pass (a pass rate over n samples); its contest date is kept, for the
contamination lens. The model is the folder name; the task is the file name less ``_eval_all``.
A graded value may be a bool, 0/1 or the text ``"True"``/``"False"`` (read by
[`score_value`][holdout.logs.base.score_value]); anything else is refused, never counted as a pass.

Fields read for the item lenses: no answers or keys (the samples are programs graded by tests);
``item_fields``: ``platform``, ``difficulty``, ``contest_id``; ``config``: the scenario, the number of
samples and the temperature, from the file name ``<scenario>_<n>_<temperature>_eval_all.json``.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from holdout.logs.base import (
    ANY,
    LogError,
    RunScores,
    Selection,
    check_scores,
    check_unique,
    choose,
    load_json,
    no_filter,
    score_value,
)

__all__ = ["read_livecodebench"]

_FIELDS = ("platform", "difficulty", "contest_id")
_RUN = re.compile(r"^(?P<scenario>.+?)_(?P<n>\d+)_(?P<temperature>[0-9.]+)$")


def _graded(p: dict, path: Path) -> float:
    """The pass rate of one problem's graded samples (bools, 0/1 or "True"/"False")."""
    what = f"{path}: graded_list of problem {p['question_id']!r}"
    values = [score_value(g, what) for g in p["graded_list"]]
    if any(v not in (0.0, 1.0) for v in values):
        raise LogError(f"{what} holds {p['graded_list'][:3]!r}..., not pass/fail values")
    return sum(values) / len(values)


def _config(task: str) -> dict[str, object]:
    m = _RUN.match(task)
    if m is None:
        return {}
    return {"scenario": m.group("scenario"), "n": int(m.group("n")), "temperature": float(m.group("temperature"))}


def _problems(path: Path) -> list[dict]:
    data = load_json(path)
    if not isinstance(data, list) or not data:
        raise LogError(f"{path}: no problems in this LiveCodeBench file (an empty run)")
    for k, p in enumerate(data):
        if not isinstance(p, dict) or "question_id" not in p or not isinstance(p.get("graded_list"), list):
            raise LogError(f"{path}: problem {k} has no question_id and graded_list (not an _eval_all.json)")
        if not p["graded_list"]:
            raise LogError(f"{path}: problem {p['question_id']!r} has an empty graded_list")
    return data


def read_livecodebench(path: str | Path, select: Selection = ANY) -> list[RunScores]:
    """One LiveCodeBench run: pass rates over the graded samples, and the contest dates."""
    path = Path(path)
    no_filter(select, path, "LiveCodeBench")
    task = path.stem.removesuffix("_eval_all")
    if select.task is not None and select.task != task:
        return []
    choose(["pass@1"], select.metric or "pass@1", "metric", "--metric", path)
    problems = _problems(path)
    ids = [str(p["question_id"]) for p in problems]
    check_unique(ids, path)
    values = [_graded(p, path) for p in problems]
    scores = check_scores(values, ids, "pass rate", path)
    try:
        dates = np.array([str(p.get("contest_date"))[:10] for p in problems], dtype="datetime64[D]")
    except ValueError:
        dates = None
    sizes = {len(p["graded_list"]) for p in problems}
    m = sizes.pop() if len(sizes) == 1 else None
    off = [i for i, p, v in zip(ids, problems, values) if "pass@1" in p and abs(float(p["pass@1"]) - v) > 1e-9]
    notes = (f"{path.name}: pass@1 disagrees with graded_list for {len(off)} problems ({', '.join(off[:3])})",)
    return [
        RunScores(
            path.parent.name,
            task,
            "pass@1",
            None,
            tuple(ids),
            scores,
            str(path),
            "livecodebench",
            samples=m if m and m > 1 else None,
            item_dates=dates,
            notes=notes if off else (),
            item_fields={f: tuple(None if p.get(f) is None else str(p[f]) for p in problems) for f in _FIELDS} or None,
            config=_config(task),
        )
    ]
