"""lm-evaluation-harness ``--log_samples`` output: ``<model>/samples_<task>_<timestamp>.jsonl``.

One JSON object per line and per (``doc_id``, ``filter``): the document, the prompts
(``arguments``), the responses, and one top-level key per metric (``acc``, ``exact_match`` ...),
listed in ``metrics``. Files written before lm-eval 0.4.3 or so have neither ``filter`` nor
``metrics``: their metrics are the remaining numeric keys and their filter is ``none``. A task
with two filters (gsm8k: ``strict-match`` and ``flexible-extract``) has two rows per document.
The model's name is in the ``results_<timestamp>.json`` beside the samples file (``model_name``,
else ``pretrained=`` of ``config.model_args``), else in the folder name (``org__model``).

Fields read for the item lenses (each row's, per filter):

- ``answers``: multiple choice (``filtered_resps`` a list of ``[log-likelihood, is_greedy]``, one
  per choice): the 0-based index of the choice with the highest log-likelihood, as text; a
  generative task (``filtered_resps`` text): the filtered response; a single log-likelihood (one
  continuation, no choice made): None.
- ``keys``: ``target``; for multiple choice written as the choice's index, so that answers and
  keys compare: a target that is one of the choices' continuations (``arguments``) as that
  choice's index, a letter A, B, ... as its position.
- ``item_text``: the document's question and choices (``doc`` fields named question, query,
  problem, input, prompt, text, body, context, passage, sentence, ctx, goal, premise, hypothesis,
  choices, endings, options ...), else all its text values and lists of text less the fields that
  hold the answer (names with answer, label, target, gold, solution), normalised.
- ``item_fields``: the document's short scalar values (``--cluster-by`` a ``doc`` key; a key whose
  text runs over 100 characters for any document is item text, not a label, and left out).
- ``config``: from the results file, for the task: ``version``, ``n_shot``, ``task_hash``,
  ``output_type``, ``generation_kwargs``, and the run's ``lm_eval_version`` (else ``git_hash``),
  ``transformers_version``, ``model_args``, ``model_sha``, ``model_dtype``, ``gen_kwargs``,
  ``limit``, ``batch_size`` (padding moves log-likelihoods), ``random_seed``, ``fewshot_seed``,
  ``chat_template_sha``, ``system_instruction_sha``.

The file is streamed one line at a time with the standard library's ``json``, keeping only each
row's id, filter, metric values and the short fields above: a 400 MB run is read without holding
its prompts, well above 50 MB per CPU second (measured by ``benchmarks/bench_logs.py``; the
evaluation logs page shows it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import NamedTuple

from holdout.logs.base import (
    ANY,
    LogError,
    RunScores,
    Selection,
    check_scores,
    check_unique,
    choose,
    fields_of,
    first_line,
    jsonl_rows,
    normalise_text,
    scalar_fields,
)

__all__ = ["is_lmeval_row", "read_lmeval"]

#: keys of a samples row that are not metrics
_NOT_METRICS = frozenset(
    {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics"}
    | {"doc_hash", "prompt_hash", "target_hash", "task_name"}
)
_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<stamp>\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d(?:\.\d+)?)\.jsonl$")
#: document fields that hold the answer, left out of the item text
_KEY_FIELD = re.compile(r"answer|label|target|gold|solution", re.IGNORECASE)
#: document fields that hold the question or the choices (the item text, where a document has any)
_TEXT_FIELD = re.compile(
    r"^(question|query|problem|input|prompt|text|body|context|passage|sentence\d?|ctx(_[ab])?|goal|premise|"
    r"hypothesis|choices|endings|options|sol\d|option\d|choice\d)$",
    re.IGNORECASE,
)


class _Row(NamedTuple):
    doc_id: str
    metrics: dict[str, object]
    answer: str | None
    key: str | None
    text: str | None
    fields: dict[str, str]


def is_lmeval_row(row: object) -> bool:
    """A parsed first line that is an lm-eval samples row (a ``doc_id`` and a document)."""
    return isinstance(row, dict) and "doc_id" in row and ("doc" in row or "resps" in row)


def _loglikelihoods(resps: list) -> list[float] | None:
    """The per-choice log-likelihoods of a log-likelihood row (``[log-likelihood, is_greedy]`` per
    request, the numbers possibly as text; or bare numbers); None when it is not one."""
    out = []
    for r in resps:
        if isinstance(r, list) and len(r) == 2 and str(r[1]) in ("True", "False"):
            r = r[0]
        elif not isinstance(r, (int, float)):
            return None
        try:
            out.append(float(r))
        except (TypeError, ValueError):
            return None
    return out


def _choices(arguments: object) -> list[str]:
    """The continuations of a multiple-choice row's requests (``arg_1``, or the second of a pair)."""
    args = list(arguments.values()) if isinstance(arguments, dict) else arguments
    if not isinstance(args, list):
        return []
    out = []
    for a in args:
        cont = a.get("arg_1") if isinstance(a, dict) else (a[1] if isinstance(a, list) and len(a) > 1 else None)
        if not isinstance(cont, str):
            return []
        out.append(cont.strip())
    return out


def _answer_key(row: dict) -> tuple[str | None, str | None]:
    """The model's answer (choice index or filtered response) and the key (``target``)."""
    resps = row.get("filtered_resps")
    target = row.get("target")
    key = None if target is None else str(target)
    if isinstance(resps, str):
        return resps.strip(), key
    if not isinstance(resps, list) or not resps:
        return None, key
    if all(isinstance(r, str) for r in resps):
        return resps[0].strip(), key
    lls = _loglikelihoods(resps)
    if lls is None:  # a generative task with repeats: [[response, ...]]
        first = resps[0][0] if isinstance(resps[0], list) and resps[0] else None
        return (first.strip() if isinstance(first, str) else None), key
    if len(lls) < 2:
        return None, key
    answer = str(max(range(len(lls)), key=lls.__getitem__))
    return answer, _choice_key(target, row.get("arguments"), len(lls))


def _choice_key(target: object, arguments: object, n_choices: int) -> str | None:
    """A multiple-choice key as the choice's index: an index as it is, the text of one of the
    choices' continuations as its index, a letter A, B, ... as its position."""
    if target is None:
        return None
    text = str(target).strip()
    if isinstance(target, (int, float)) or text.isdigit():
        return text
    choices = _choices(arguments)
    if text in choices:
        return str(choices.index(text))
    if len(text) == 1 and "A" <= text <= "Z" and ord(text) - ord("A") < n_choices:
        return str(ord(text) - ord("A"))
    return text


def _item_text(doc: object) -> str | None:
    if isinstance(doc, dict):
        named = [v for k, v in doc.items() if _TEXT_FIELD.match(str(k))]
        return normalise_text(*(named or [v for k, v in doc.items() if not _KEY_FIELD.search(str(k))]))
    return normalise_text(doc) if isinstance(doc, str) else None


def _row(row: dict, names: list, too_long: set[str]) -> _Row:
    answer, key = _answer_key(row)
    doc = row.get("doc")
    metrics = {m: row.get(m) for m in names}
    return _Row(str(row["doc_id"]), metrics, answer, key, _item_text(doc), scalar_fields(doc, too_long))


def _scan(path: Path, too_long: set[str]) -> dict[str, list[_Row]]:
    """filter -> rows, keeping only the metrics and short fields of each row (not its prompts);
    the names of document fields too long to be cluster labels are added to ``too_long``."""
    table: dict[str, list[_Row]] = {}
    for row in jsonl_rows(path, lambda r: isinstance(r, dict) and "doc_id" in r, "an lm-eval samples row (no doc_id)"):
        names = row.get("metrics")
        if not isinstance(names, list):
            names = [k for k, v in row.items() if k not in _NOT_METRICS and isinstance(v, (int, float))]
        flt = row.get("filter", "none")
        table.setdefault(str(flt), []).append(_row(row, names, too_long))
    if not table:
        raise LogError(f"{path}: no rows (an empty run)")
    return table


#: run-level keys of a results file's ``config`` kept in RunScores.config
_RUN_CONFIG = ("model_args", "model_sha", "model_revision", "model_dtype", "gen_kwargs", "limit", "batch_size")
_RUN_CONFIG += ("random_seed", "numpy_seed", "torch_seed", "fewshot_seed")
_TOP_CONFIG = ("lm_eval_version", "git_hash", "transformers_version", "chat_template_sha", "system_instruction_sha")
_TOP_CONFIG += ("fewshot_as_multiturn",)


def _config(data: dict, task: str) -> dict[str, object]:
    """What a results file says about the run's configuration, for ``task``."""
    out: dict[str, object] = {}
    for key, name in (("versions", "version"), ("n-shot", "n_shot"), ("task_hashes", "task_hash")):
        table = data.get(key)
        if isinstance(table, dict) and task in table:
            out[name] = table[task]
    task_cfg = (data.get("configs") or {}).get(task) or {}
    for key in ("output_type", "num_fewshot", "generation_kwargs", "dataset_path", "dataset_name", "repeats"):
        if key in task_cfg:
            out[key] = task_cfg[key]
    run = data.get("config") or {}
    out |= {k: run[k] for k in _RUN_CONFIG if isinstance(run, dict) and run.get(k) is not None}
    out |= {k: data[k] for k in _TOP_CONFIG if data.get(k) is not None}
    return out


def _results(path: Path, task: str) -> tuple[str, str | None, int | None, dict[str, object], list[str]]:
    """The model name from the results file beside ``path`` (else the folder name), the run's
    timestamp from the file name, the number of samples the results file counts for ``task``, the
    run's configuration, and notes (a results file that is not JSON)."""
    m = _NAME.match(path.name)
    stamp = m.group("stamp") if m else None
    results = path.with_name(f"results_{stamp}.json") if stamp else None
    model, effective, config, notes = path.parent.name.replace("__", "/"), None, {}, []
    if results is not None and results.is_file():
        try:
            data = json.loads(results.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None
        if not isinstance(data, dict):
            notes.append(f"results file {results.name} is not JSON: the model named from the folder ({model})")
            data = {}
        args = str((data.get("config") or {}).get("model_args") or "")
        pretrained = re.search(r"(?:^|,)\s*(?:pretrained|model)=([^,]+)", args)
        model = str(data.get("model_name") or (pretrained.group(1) if pretrained else model))
        effective = ((data.get("n-samples") or {}).get(task) or {}).get("effective")
        config = _config(data, task)
    date = None
    if stamp:
        day, clock = stamp.split("T")
        date = f"{day}T{clock.split('.')[0].replace('-', ':')}"
    return model, date, effective, config, notes


def _optional(rows: list[_Row], attr: str) -> tuple[str | None, ...] | None:
    values = tuple(getattr(r, attr) for r in rows)
    return values if any(v is not None for v in values) else None


def read_lmeval(path: str | Path, select: Selection = ANY) -> list[RunScores]:
    """One samples file as a run (none when ``select.task`` names another task). The filter and
    metric are the only ones in the file or those selected; several is a LogError listing them."""
    path = Path(path)
    m = _NAME.match(path.name)
    task = m.group("task") if m else path.stem
    if select.task is not None and select.task != task:
        return []
    first_line(path)
    too_long: set[str] = set()
    table = _scan(path, too_long)
    flt = choose(table, select.filter, "filter", "--filter", path)
    rows = table[flt]
    metrics = {name for r in rows for name in r.metrics}
    metric = choose(metrics, select.metric, "metric", "--metric", path)
    ids = [r.doc_id for r in rows]
    check_unique(ids, path, f" under filter {flt!r}")
    values = [r.metrics.get(metric) for r in rows]
    for doc, v in zip(ids, values):
        if not isinstance(v, (int, float)):  # bool is an int
            raise LogError(
                f"{path}: metric {metric!r} of doc_id {doc} is {type(v).__name__}, not a number "
                "(a corpus-level metric has no per-item score; choose another with --metric)"
            )
    scores = check_scores(values, ids, f"metric {metric!r}", path)
    model, date, effective, config, notes = _results(path, task)
    if isinstance(effective, int) and effective != len(ids):
        notes.append(f"{path.name}: its results file counts {effective} samples of {task}, the file has {len(ids)}")
    return [
        RunScores(
            model,
            task,
            metric,
            flt,
            tuple(ids),
            scores,
            str(path),
            "lm-eval",
            date,
            notes=tuple(notes),
            answers=_optional(rows, "answer"),
            keys=_optional(rows, "key"),
            item_text=_optional(rows, "text"),
            item_fields=fields_of([r.fields for r in rows], too_long),
            config=config,
        )
    ]
