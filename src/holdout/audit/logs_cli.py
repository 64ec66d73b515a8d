"""``holdout audit --logs PATH [PATH ...]``: the correctness audit of the files evaluation harnesses
write (lm-eval samples, Inspect logs, HELM runs, Every Eval Ever, EvalPlus, LiveCodeBench).

The logs are read and aligned by item id ([`read_logs`][holdout.logs.read_logs]) into a K x n
correctness matrix, which gets every lens the ``--correctness`` audit runs
([`correctness_result`][holdout.audit.correctness.correctness_result]) and, where the logs carry
each item's date (LiveCodeBench) or ``--item-dates`` gives them, the contamination lens with
``--model-dates`` and ``--split``. Beside the usual outputs: ``correctness.csv`` (the matrix
built, model name first, one column per item id) and ``logs.csv`` (one row per run read).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

from holdout.audit.cli_checks import _TABLES_ONLY, _note, _owned_out, _refuse_unused, audit_options
from holdout.audit.clusters import clustered_result, item_clusters
from holdout.audit.correctness import correctness_result
from holdout.audit.errors import AuditError
from holdout.audit.lenses.items import items_lens
from holdout.audit.options import add_logs_arguments
from holdout.audit.output import atomic_folder, check_out_outside
from holdout.audit.result import AuditResult
from holdout.audit.run import _write_all
from holdout.audit.samples import with_samples
from holdout.items.summary import ItemReport
from holdout.leaderboards import Contamination, CorrectnessError, contamination
from holdout.leaderboards.dates import parse_date, read_dates
from holdout.logs import LogError, LogMatrix, read_logs

__all__ = ["add_logs_arguments", "logs_summary", "run_logs_audit"]

#: the reference-benchmark lens's options: they need an accuracy table or two correctness matrices
REFERENCE_OPTIONS = ("--reference-models", "--reference-correctness", "--fit", "--chance", "--n-bootstrap")


def _read(args: argparse.Namespace) -> LogMatrix:
    try:
        return read_logs(
            args.logs,
            format=args.format,
            task=args.task,
            metric=args.metric,
            filter=args.filter,
            strict=args.strict,
            model_names=args.model_names,
        )
    except LogError as exc:
        raise AuditError(str(exc)) from None


def _dates(m: LogMatrix, args: argparse.Namespace) -> Contamination | None:
    """The split by date: item dates from the logs (or --item-dates), --model-dates, --split."""
    given = {"--model-dates": args.model_dates, "--split": args.split}
    if args.item_dates is None and all(v is None for v in given.values()):
        return None
    if args.item_dates is None and m.item_dates is None:
        raise AuditError("--model-dates / --split: these logs carry no item dates; give --item-dates CSV (item, date)")
    missing = [k for k, v in given.items() if v is None]
    if missing:
        raise AuditError(f"the contamination lens needs {' and '.join(missing)} too (item dates, model dates, split)")
    try:
        fmt = getattr(args, "date_format", None)
        items = m.item_dates if args.item_dates is None else read_dates(args.item_dates, m.item_ids, "item", fmt)
        models = read_dates(args.model_dates, m.model_names, "model", fmt)
        return contamination(m, items, models, parse_date(args.split, "--split"), args.alpha, args.band_level)
    except CorrectnessError as exc:
        raise AuditError(str(exc)) from None


def logs_summary(m: LogMatrix) -> dict[str, object]:
    """What ``summary.json`` says of the logs: task, metrics, filters, formats, runs, item fingerprint."""
    r = m.runs
    return {
        "task": str(r["task"].iloc[0]),
        "metrics": sorted(set(r["metric"])),
        "filters": sorted({str(f) for f in r["filter"] if f is not None}),
        "formats": sorted(set(r["format"])),
        "runs": [{"name": n, "source": s, "items": int(k)} for n, s, k in zip(r["name"], r["source"], r["items"])],
        "item_fingerprint": m.fingerprint,
    }


def run_logs_audit(args: argparse.Namespace, on_fail: Callable[[str], None] | None = None) -> dict[str, object] | None:
    """The audit of ``--logs`` (its summary), or None when ``--logs`` is not given."""
    if not getattr(args, "logs", None):
        chosen = [o for o in ("format", "task", "metric", "filter", "strict") if getattr(args, o, None)]
        if chosen:
            raise AuditError(f"--{chosen[0]}: an option of --logs; give the logs with --logs PATH ...")
        return None
    if args.predictions is not None or args.correctness or args.accuracies:
        raise AuditError("--logs is an input on its own: give no PREDICTIONS, --correctness or --accuracies with it")
    _refuse_unused(args, "--logs", (("--samples", "samples"), ("--rows", "rows"), *_TABLES_ONLY))
    reference = [o for o in REFERENCE_OPTIONS if getattr(args, o[2:].replace("-", "_"), None) is not None]
    if reference:
        raise AuditError(
            f"{reference[0]}: not read by --logs; the reference-benchmark lens needs --accuracies TABLE.csv "
            "--reference-models FILE, or --correctness with --reference-correctness FILE --reference-models FILE"
        )
    check_out_outside(args.out, args.logs)  # before --force could move a run's logs aside
    out = _owned_out(args, [*args.logs, args.item_dates, args.model_dates])
    m = _read(args)
    task = str(m.runs["task"].iloc[0])
    dates = _dates(m, args)
    clusters, where = item_clusters(args, m.item_ids, getattr(m, "item_fields", None))
    # the contamination lens written and reported with the rest
    result = correctness_result(
        m, audit_options(args, translations=False), task, dates, item_dates_known=m.item_dates is not None
    )
    if clusters is not None:
        result = clustered_result(result, m.values, m.model_names, clusters, where)
    result = with_samples(result, m.values, m.model_names, m.samples)
    for note in m.notes:
        _note(note)
    read = f"Read {m.shape[0]} runs of {task} from {', '.join(sorted(set(m.runs['format'])))} logs."
    result = replace(result, test_set=task, notes=(*result.notes, *m.notes, *_items_note(m, result)), inputs=(read,))
    result = replace(result, items=_items(m, result))
    with atomic_folder(out, on_fail, _note) as folder:
        summary = _write_all(result, folder)
        m.to_frame().to_csv(folder / "correctness.csv")
        m.runs.to_csv(folder / "logs.csv", index=False)
        summary["logs"] = logs_summary(m)
        summary["item_fingerprint"] = m.fingerprint
        path = Path(folder) / "summary.json"
        path.write_text(
            json.dumps(json.loads(path.read_text()) | {k: summary[k] for k in ("logs", "item_fingerprint")}, indent=2)
            + "\n"
        )
    return summary


def _items(m: LogMatrix, result: AuditResult) -> ItemReport | None:
    """The item screen of logs that kept each run's chosen answer and the keys (None elsewhere)."""
    if "items" not in result.options.lenses or m.answers is None or m.keys is None:
        return None
    keys = np.asarray(m.keys, dtype=object)
    return items_lens(m.answers, keys, m.model_names, m.values, item_ids=m.item_ids, item_text=m.item_text)


def _items_note(m: LogMatrix, result: AuditResult) -> list[str]:
    if "items" not in result.options.lenses or (m.answers is not None and m.keys is not None):
        return []
    return [
        "Which items are wrong (items): not run because these logs record no chosen answers or keys "
        "(lm-eval multiple-choice and generative tasks, Inspect, HELM with scenario_state.json and "
        "Every Eval Ever do)."
    ]
