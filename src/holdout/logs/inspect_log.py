"""Inspect AI eval logs (``.eval`` zip archives and ``.json``), read with ``inspect_ai`` itself.

``inspect_ai.log.read_eval_log`` (the header) and ``read_eval_log_sample_summaries`` (each sample's
``id``, ``epoch`` and ``scores``, without its messages and events) read both layouts. ``scores``
has one entry per scorer, ``value`` a number, a bool or Inspect's letters C / I / P / N, converted
with ``inspect_ai.scorer.value_to_float`` (1, 0, 0.5, 0). Several epochs of an item
give its mean, a pass rate over the epochs. ``inspect_ai`` is the optional extra ``logs``
(``pip install 'holdout[logs]'``); without it, reading an Inspect log is one line saying so.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from holdout.logs.base import ANY, LogError, RunScores, Selection, check_scores, choose, no_filter

__all__ = ["EXTRA", "read_inspect"]

#: how to install what this reader needs
EXTRA = "pip install 'holdout[logs]' (or: pip install inspect-ai)"


def _inspect_api(path: Path):  # noqa: ANN202 (two functions of an optional package)
    try:
        from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries
        from inspect_ai.scorer import value_to_float
    except ImportError:
        raise LogError(f"{path}: an Inspect log; reading it needs the optional extra logs: {EXTRA}") from None
    return read_eval_log, read_eval_log_sample_summaries, value_to_float()


def _per_item(samples: list, scorer: str, to_float, path: Path) -> tuple[dict[str, list[float]], int]:  # noqa: ANN001
    """item id -> scores over its epochs, and the number of samples without a score."""
    per_item: dict[str, list[float]] = defaultdict(list)
    unscored = 0
    seen: set[tuple[str, int]] = set()
    for s in samples:
        key = (str(s.id), int(s.epoch))
        if key in seen:
            raise LogError(f"{path}: item id {key[0]!r} appears twice in epoch {key[1]}; one score per item and epoch")
        seen.add(key)
        score = (s.scores or {}).get(scorer)
        if score is None or isinstance(score.value, (dict, list)):
            unscored += score is None
            if score is not None:
                raise LogError(f"{path}: scorer {scorer!r} gives several values per sample; choose one scorer")
            continue
        per_item[key[0]].append(float(to_float(score.value)))
    return per_item, unscored


def read_inspect(path: str | Path, select: Selection = ANY) -> list[RunScores]:
    """One Inspect log as a run (none when ``select.task`` names another task); the scorer is the
    only one or ``select.metric``."""
    path = Path(path)
    no_filter(select, path, "Inspect")
    read_eval_log, read_summaries, to_float = _inspect_api(path)
    try:
        log = read_eval_log(str(path), header_only=True)
        samples = list(read_summaries(str(path)))
    except Exception as exc:  # noqa: BLE001 (inspect_ai raises many kinds on a broken file)
        raise LogError(f"{path}: not a readable Inspect log ({' '.join(str(exc).split())[:200]})") from None
    task = str(log.eval.task)
    if select.task is not None and select.task != task:
        return []
    if not samples:
        raise LogError(f"{path}: no samples in this Inspect log (an empty run, or written with --no-log-samples)")
    scorers = {name for s in samples for name in (s.scores or {})}
    scorer = choose(scorers, select.metric, "scorer", "--metric", path)
    per_item, unscored = _per_item(samples, scorer, to_float, path)
    ids = sorted(per_item)
    epochs = {len(v) for v in per_item.values()}
    values = [sum(per_item[i]) / len(per_item[i]) for i in ids]
    scores = check_scores(values, ids, f"scorer {scorer!r}", path)
    notes = []
    if log.status != "success":
        notes.append(f"{path.name}: the log's status is {log.status!r} ({len(ids)} items scored)")
    if unscored:
        notes.append(f"{path.name}: {unscored} samples without a {scorer!r} score left out")
    date = str(log.eval.created)[:19] if log.eval.created else None
    m = epochs.pop() if len(epochs) == 1 else None
    return [
        RunScores(
            str(log.eval.model),
            task,
            scorer,
            None,
            tuple(ids),
            scores,
            str(path),
            "inspect",
            date,
            samples=m if m and m > 1 else None,
            notes=tuple(notes),
        )
    ]
