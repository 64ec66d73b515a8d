"""Inspect AI eval logs (``.eval`` zip archives and ``.json``), read with ``inspect_ai`` itself.

``inspect_ai.log.read_eval_log`` (the header) and ``read_eval_log_sample_summaries`` (each sample's
``id``, ``epoch``, ``input``, ``choices``, ``target``, ``metadata`` and ``scores``, without its
messages and events) read both layouts. ``scores`` has one entry per scorer, ``value`` a number, a
bool, Inspect's letters C / I / P / N or words such as ``correct`` / ``incorrect``, read by
[`score_value`][holdout.logs.base.score_value] (1, 0, 0.5, 0; any other text is refused, never
read as 0). Several epochs of an item give its mean, a pass rate over the epochs. A log that ended
in error with no scored sample is one line with its error message. ``inspect_ai`` is the optional
extra ``logs`` (``pip install 'holdout[logs]'``); without it, reading an Inspect log is one line
saying so.

Fields read for the item lenses (the first epoch of each item): ``answers``, the score's
``answer``; ``keys``, the sample's ``target`` (several targets joined by ``|``), both stripped; ``item_text``, the
sample's ``input`` (its messages' text when it is a conversation) and ``choices``, normalised;
``item_fields``, the sample's ``metadata`` keys with short scalar values. ``config``: the task's
version, the source revision (``revision.commit``), the ``inspect_ai`` version, the task and model
arguments, and every generation setting the plan or the eval config set (temperature, max_tokens,
top_p, seed ...), plus ``limit`` and ``epochs``.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from holdout.logs.base import (
    ANY,
    LogError,
    RunScores,
    Selection,
    check_scores,
    choose,
    fields_of,
    no_filter,
    normalise_text,
    scalar_fields,
    score_value,
)

__all__ = ["EXTRA", "read_inspect"]

#: how to install what this reader needs
EXTRA = "pip install 'holdout[logs]' (or: pip install inspect-ai)"


def _inspect_api(path: Path):  # noqa: ANN202 (two functions of an optional package)
    try:
        from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries
    except ImportError:
        raise LogError(f"{path}: an Inspect log; reading it needs the optional extra logs: {EXTRA}") from None
    return read_eval_log, read_eval_log_sample_summaries


def _per_item(samples: list, scorer: str, path: Path) -> tuple[dict[str, list[float]], int, dict[str, object]]:
    """item id -> scores over its epochs, the number of samples without a score, and item id -> the
    first scored sample (for its answer, target, input and metadata)."""
    per_item: dict[str, list[float]] = defaultdict(list)
    first: dict[str, object] = {}
    unscored = 0
    seen: set[tuple[str, int]] = set()
    for s in samples:
        key = (str(s.id), int(s.epoch))
        if key in seen:
            raise LogError(f"{path}: item id {key[0]!r} appears twice in epoch {key[1]}; one score per item and epoch")
        seen.add(key)
        score = (s.scores or {}).get(scorer)
        if score is None:
            unscored += 1
            continue
        if isinstance(score.value, (dict, list)):
            raise LogError(f"{path}: scorer {scorer!r} gives several values per sample; choose one scorer")
        per_item[key[0]].append(score_value(score.value, f"{path}: scorer {scorer!r} of item {key[0]!r}"))
        first.setdefault(key[0], s)
    return per_item, unscored, first


def _text(value: object) -> object:
    if isinstance(value, list):  # a conversation: its messages' text
        return [getattr(m, "text", None) or str(getattr(m, "content", "")) for m in value]
    return value


def _stripped(values: list[object]) -> tuple[str | None, ...] | None:
    out = tuple(None if v is None else str(v).strip() for v in values)
    return out if any(v for v in out) else None


def _lenses(ids: list[str], first: dict[str, object], scorer: str) -> dict[str, object]:
    samples = [first[i] for i in ids]
    answers = [getattr(s.scores[scorer], "answer", None) for s in samples]
    keys = [("|".join(map(str, s.target)) if isinstance(s.target, list) else s.target) for s in samples]
    text = [normalise_text(_text(s.input), s.choices or []) for s in samples]
    too_long: set[str] = set()
    meta = [scalar_fields(s.metadata or {}, too_long) for s in samples]
    return {
        "answers": _stripped(answers),
        "keys": _stripped(keys),
        "item_text": tuple(text) if any(t is not None for t in text) else None,
        "item_fields": fields_of(meta, too_long),
    }


#: eval-config keys kept in RunScores.config besides the generation settings
_EVAL_CONFIG = ("limit", "epochs", "epochs_reducer", "sample_id", "message_limit", "token_limit", "time_limit")


def _config(log) -> dict[str, object]:  # noqa: ANN001 (an inspect_ai EvalLog)
    ev = log.eval
    out: dict[str, object] = {"task_version": ev.task_version}
    if ev.revision is not None:
        out["revision"] = ev.revision.commit
    out |= {f"package.{k}": v for k, v in (ev.packages or {}).items()}
    out |= {f"task_arg.{k}": v for k, v in (ev.task_args or {}).items()}
    out |= {f"model_arg.{k}": v for k, v in (ev.model_args or {}).items()}
    for cfg in (ev.model_generate_config, getattr(log.plan, "config", None)):
        if cfg is not None:
            out |= {k: v for k, v in cfg.model_dump(exclude_none=True).items() if not isinstance(v, dict)}
    conf = ev.config.model_dump(exclude_none=True) if ev.config is not None else {}
    out |= {k: conf[k] for k in _EVAL_CONFIG if k in conf}
    return {k: v for k, v in out.items() if v is not None}


def _read(path: Path) -> tuple[object, list]:
    read_eval_log, read_summaries = _inspect_api(path)
    try:
        return read_eval_log(str(path), header_only=True), list(read_summaries(str(path)))
    except Exception as exc:  # noqa: BLE001 (inspect_ai raises many kinds on a broken file)
        raise LogError(f"{path}: not a readable Inspect log ({' '.join(str(exc).split())[:200]})") from None


def _ended_in_error(log, path: Path) -> LogError:  # noqa: ANN001
    message = " ".join(str(getattr(log.error, "message", "") or "no message").split())[:200]
    return LogError(
        f"{path}: the run ended in error ({message}) before any sample was scored; rerun it or leave it out"
    )


def read_inspect(path: str | Path, select: Selection = ANY) -> list[RunScores]:
    """One Inspect log as a run (none when ``select.task`` names another task); the scorer is the
    only one or ``select.metric``."""
    path = Path(path)
    no_filter(select, path, "Inspect")
    log, samples = _read(path)
    task = str(log.eval.task)
    if select.task is not None and select.task != task:
        return []
    scorers = {name for s in samples for name in (s.scores or {})}
    if log.status == "error" and not scorers:
        raise _ended_in_error(log, path)
    if not samples:
        raise LogError(f"{path}: no samples in this Inspect log (an empty run, or written with --no-log-samples)")
    scorer = choose(scorers, select.metric, "scorer", "--metric", path)
    per_item, unscored, first = _per_item(samples, scorer, path)
    ids = sorted(per_item)
    epochs = {len(v) for v in per_item.values()}
    values = [sum(per_item[i]) / len(per_item[i]) for i in ids]
    scores = check_scores(values, ids, f"scorer {scorer!r}", path)
    notes = []
    if log.status != "success":
        error = f": {' '.join(str(log.error.message).split())[:120]}" if log.error is not None else ""
        notes.append(f"{path.name}: the log's status is {log.status!r}{error} ({len(ids)} items scored)")
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
            config=_config(log),
            **_lenses(ids, first, scorer),
        )
    ]
