"""Every Eval Ever instance-level JSONL (``<id>_samples.jsonl``, schema 0.2 / 0.3).

One JSON object per line and per sample: ``model_id``, ``evaluation_name`` (the task),
``sample_id`` (the item id), ``evaluation: {score, is_correct, ...}``, and the input, output and
messages. The score is ``is_correct`` (as 0/1) where every row has it, else ``score``;
``--metric score`` / ``--metric is_correct`` chooses. A file may hold several models or tasks:
one run per (model, task). ``is_correct`` may be a bool or text (``"true"``/``"false"``);
[`score_value`][holdout.logs.base.score_value] reads both, and refuses anything else.

Fields read for the item lenses: ``answers``, the terminal ``answer_attribution`` entry's
``extracted_value``; ``keys``, ``input.reference`` (several joined by ``|``), written as the
choice's letter when the input lists ``choices`` and the answer is a letter, so that the two
compare; ``item_fields``, the row's ``metadata`` keys with short scalar values. ``item_text`` is
None: ``input.raw`` is the whole prompt (few-shot examples included), not the item.
``config``: the ``schema_version``.
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
    scalar_fields,
    score_value,
)

__all__ = ["is_eee_row", "read_eee"]

_METRICS = ("is_correct", "score")


def is_eee_row(row: object) -> bool:
    """A parsed first line that is an Every Eval Ever instance row."""
    return isinstance(row, dict) and "sample_id" in row and "evaluation" in row and "schema_version" in row


def _answer(row: dict) -> str | None:
    steps = [a for a in row.get("answer_attribution") or [] if isinstance(a, dict)]
    terminal = [a for a in steps if a.get("is_terminal")] or steps
    value = terminal[-1].get("extracted_value") if terminal else None
    return None if value is None else str(value).strip()


def _key(row: dict, answer: str | None) -> str | None:
    inp = row.get("input") if isinstance(row.get("input"), dict) else {}
    ref, choices = inp.get("reference"), inp.get("choices")
    refs = [str(r) for r in ref] if isinstance(ref, list) else ([] if ref is None else [str(ref)])
    if not refs:
        return None
    letter = answer is not None and len(answer) == 1 and answer.isalpha()
    if letter and isinstance(choices, list) and len(refs) == 1 and refs[0] in map(str, choices):
        return chr(ord("A") + [str(c) for c in choices].index(refs[0]))
    return "|".join(refs)


def _scan(path: Path) -> dict[tuple[str, str], list[tuple]]:
    """(model, task) -> rows of (sample id, evaluation, answer, key, fields, schema version)."""
    runs: dict[tuple[str, str], list] = defaultdict(list)
    for row in jsonl_rows(path, is_eee_row, "an Every Eval Ever instance row (no sample_id)"):
        ev = row.get("evaluation") or {}
        answer = _answer(row)
        fields = scalar_fields(row.get("metadata") or {})
        key = (str(row.get("model_id")), str(row.get("evaluation_name")))
        runs[key].append((str(row["sample_id"]), ev, answer, _key(row, answer), fields, row.get("schema_version")))
    return runs


def _metric(rows: list, given: str | None, path: Path) -> str:
    present = [m for m in _METRICS if all(r[1].get(m) is not None for r in rows)]
    if given is None and present:
        return present[0]
    return choose(present, given, "metric", "--metric", path)


def _lenses(rows: list) -> dict[str, object]:
    answers = tuple(r[2] for r in rows)
    keys = tuple(r[3] for r in rows)
    names = dict.fromkeys(k for r in rows for k in r[4])
    return {
        "answers": answers if any(a is not None for a in answers) else None,
        "keys": keys if any(k is not None for k in keys) else None,
        "item_fields": {k: tuple(r[4].get(k) for r in rows) for k in names} or None,
    }


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
        ids = [r[0] for r in rows]
        check_unique(ids, path, f" for {model} on {task}")
        values = [score_value(r[1][metric], f"{path}: evaluation.{metric} of sample {r[0]!r}") for r in rows]
        scores = check_scores(values, ids, f"evaluation.{metric}", path)
        versions = sorted({str(r[5]) for r in rows if r[5] is not None})
        config = {"schema_version": "|".join(versions)} if versions else {}
        out.append(
            RunScores(model, task, metric, None, tuple(ids), scores, str(path), "eee", config=config, **_lenses(rows))
        )
    return out
