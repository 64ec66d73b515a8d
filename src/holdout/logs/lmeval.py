"""lm-evaluation-harness ``--log_samples`` output: ``<model>/samples_<task>_<timestamp>.jsonl``.

One JSON object per line and per (``doc_id``, ``filter``): the document, the prompts
(``arguments``), the responses, and one top-level key per metric (``acc``, ``exact_match`` ...),
listed in ``metrics``. Files written before lm-eval 0.4.3 or so have neither ``filter`` nor
``metrics``: their metrics are the remaining numeric keys and their filter is ``none``. A task
with two filters (gsm8k: ``strict-match`` and ``flexible-extract``) has two rows per document.
The model's name is in the ``results_<timestamp>.json`` beside the samples file (``model_name``,
else ``pretrained=`` of ``config.model_args``), else in the folder name (``org__model``).

The file is streamed one line at a time with the standard library's ``json``, keeping only each
row's id, filter and metric values: a 400 MB run is read without holding its prompts, well above
50 MB per CPU second (measured by ``benchmarks/bench_logs.py``; the evaluation logs page shows it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from holdout.logs.base import (
    ANY,
    LogError,
    RunScores,
    Selection,
    check_scores,
    check_unique,
    choose,
    first_line,
    jsonl_rows,
)

__all__ = ["is_lmeval_row", "read_lmeval"]

#: keys of a samples row that are not metrics
_NOT_METRICS = frozenset(
    {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics"}
    | {"doc_hash", "prompt_hash", "target_hash", "task_name"}
)
_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<stamp>\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d(?:\.\d+)?)\.jsonl$")


def is_lmeval_row(row: object) -> bool:
    """A parsed first line that is an lm-eval samples row (a ``doc_id`` and a document)."""
    return isinstance(row, dict) and "doc_id" in row and ("doc" in row or "resps" in row)


def _scan(path: Path) -> dict[str, list[tuple[str, dict[str, object]]]]:
    """filter -> [(doc_id, {metric: value})], keeping only the metrics of each row (not its prompts)."""
    table: dict[str, list[tuple[str, dict[str, object]]]] = {}
    for row in jsonl_rows(path, lambda r: isinstance(r, dict) and "doc_id" in r, "an lm-eval samples row (no doc_id)"):
        names = row.get("metrics")
        if not isinstance(names, list):
            names = [k for k, v in row.items() if k not in _NOT_METRICS and isinstance(v, (int, float))]
        flt = row.get("filter", "none")
        table.setdefault(str(flt), []).append((str(row["doc_id"]), {m: row.get(m) for m in names}))
    if not table:
        raise LogError(f"{path}: no rows (an empty run)")
    return table


def _results(path: Path, task: str) -> tuple[str, str | None, int | None]:
    """The model name from the results file beside ``path`` (else the folder name), the run's
    timestamp from the file name, and the number of samples the results file counts for ``task``."""
    m = _NAME.match(path.name)
    stamp = m.group("stamp") if m else None
    results = path.with_name(f"results_{stamp}.json") if stamp else None
    model, effective = path.parent.name.replace("__", "/"), None
    if results is not None and results.is_file():
        try:
            data = json.loads(results.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        args = str(data.get("config", {}).get("model_args") or "")
        pretrained = re.search(r"(?:^|,)\s*(?:pretrained|model)=([^,]+)", args)
        model = str(data.get("model_name") or (pretrained.group(1) if pretrained else model))
        effective = ((data.get("n-samples") or {}).get(task) or {}).get("effective")
    date = None
    if stamp:
        day, clock = stamp.split("T")
        date = f"{day}T{clock.split('.')[0].replace('-', ':')}"
    return model, date, effective


def read_lmeval(path: str | Path, select: Selection = ANY) -> list[RunScores]:
    """One samples file as a run (none when ``select.task`` names another task). The filter and
    metric are the only ones in the file or those selected; several is a LogError listing them."""
    path = Path(path)
    m = _NAME.match(path.name)
    task = m.group("task") if m else path.stem
    if select.task is not None and select.task != task:
        return []
    first_line(path)
    table = _scan(path)
    flt = choose(table, select.filter, "filter", "--filter", path)
    rows = table[flt]
    metrics = {name for _, values in rows for name in values}
    metric = choose(metrics, select.metric, "metric", "--metric", path)
    ids = [doc for doc, _ in rows]
    check_unique(ids, path, f" under filter {flt!r}")
    values = [v.get(metric) for _, v in rows]
    for doc, v in zip(ids, values):
        if not isinstance(v, (int, float)):  # bool is an int
            raise LogError(
                f"{path}: metric {metric!r} of doc_id {doc} is {type(v).__name__}, not a number "
                "(a corpus-level metric has no per-item score; choose another with --metric)"
            )
    scores = check_scores(values, ids, f"metric {metric!r}", path)
    model, date, effective = _results(path, task)
    notes = ()
    if isinstance(effective, int) and effective != len(ids):
        notes = (f"{path.name}: its results file counts {effective} samples of {task}, the file has {len(ids)}",)
    return [RunScores(model, task, metric, flt, tuple(ids), scores, str(path), "lm-eval", date, notes=notes)]
