"""Readers of the files evaluation harnesses write, aligned by item id into a correctness matrix.

Each reader turns one run's file(s) into a [`RunScores`][holdout.logs.RunScores]: the model, the
task, the metric and filter it read, and one score in [0, 1] per item id;
[`align_runs`][holdout.logs.align_runs] puts K runs into one K x n
[`LogMatrix`][holdout.logs.LogMatrix] (a [`CorrectnessMatrix`][holdout.leaderboards.CorrectnessMatrix]
with item ids), the leaderboard format every correctness lens of the audit reads.

Formats (one module each; each reader also sits in ``FORMATS`` and is importable from here)
-------------------------------------------------------------------------------------
- [`read_lmeval`][holdout.logs.lmeval.read_lmeval]          lm-evaluation-harness ``samples_<task>_<time>.jsonl``
  (streamed; one row per doc_id and filter).
- [`read_inspect`][holdout.logs.inspect_log.read_inspect]         Inspect AI ``.eval`` / ``.json`` logs (optional extra
  ``logs``: ``inspect_ai``).
- [`read_helm`][holdout.logs.helm.read_helm]            HELM ``per_instance_stats.json`` + ``run_spec.json``.
- [`read_eee`][holdout.logs.eee.read_eee]             Every Eval Ever instance-level JSONL.
- [`read_evalplus`][holdout.logs.evalplus.read_evalplus]        EvalPlus ``eval_results.json`` (plus / base pass rates).
- [`read_livecodebench`][holdout.logs.livecodebench.read_livecodebench]   LiveCodeBench ``*_eval_all.json``
  (pass rates, contest dates).

Finding and aligning runs
-------------------------
- ``FORMATS``                          format name -> reader; [`detect_format`][holdout.logs.detect_format]
  finds it from a file's content.
- [`read_runs`][holdout.logs.read_runs]            every run in files, folders (recursive) and globs.
- [`align_runs`][holdout.logs.align_runs]           K runs -> [`LogMatrix`][holdout.logs.LogMatrix] by item id.
- [`read_logs`][holdout.logs.read_logs]            both in one call (the Python form of ``holdout audit --logs``).
- [`cluster_labels`][holdout.logs.cluster_labels]       each item's value of a per-item field
  (``--cluster-by``).
- [`config_differences`][holdout.logs.config_differences]   per model, the configuration keys that differ
  between its runs.
- [`RunScores`][holdout.logs.RunScores], [`Selection`][holdout.logs.Selection] (task, metric, filter),
  [`LogError`][holdout.logs.LogError] (bad input, one line naming the file).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from holdout.logs.align import LogMatrix, align_runs
from holdout.logs.base import LogError, RunScores, Selection
from holdout.logs.detect import FORMATS, detect_format, read_runs
from holdout.logs.eee import read_eee as read_eee  # re-exported
from holdout.logs.evalplus import read_evalplus as read_evalplus  # re-exported
from holdout.logs.fields import cluster_labels, config_differences
from holdout.logs.helm import read_helm as read_helm  # re-exported
from holdout.logs.inspect_log import read_inspect as read_inspect  # re-exported
from holdout.logs.livecodebench import read_livecodebench as read_livecodebench  # re-exported
from holdout.logs.lmeval import read_lmeval as read_lmeval  # re-exported

__all__ = [
    "FORMATS",
    "LogError",
    "LogMatrix",
    "RunScores",
    "Selection",
    "align_runs",
    "cluster_labels",
    "config_differences",
    "detect_format",
    "read_logs",
    "read_runs",
]


def read_logs(
    paths: str | Path | Sequence[str | Path],
    *,
    format: str | None = None,  # noqa: A002 (the CLI's --format)
    task: str | None = None,
    metric: str | None = None,
    filter: str | None = None,  # noqa: A002 (the CLI's --filter)
    strict: bool = False,
    model_names: Sequence[str] | None = None,
) -> LogMatrix:
    """The K x n correctness matrix of the runs in ``paths`` (files, folders searched recursively,
    globs), aligned by item id. ``format`` overrides detection; ``task``, ``metric``, ``filter``
    choose where a log holds several (a LogError lists them); ``strict`` refuses items missing from
    some runs instead of dropping them; ``model_names`` overrides the names from the logs."""
    given = [paths] if isinstance(paths, (str, Path)) else list(paths)
    runs, notes = read_runs(given, format, Selection(task, metric, filter))
    m = align_runs(runs, strict=strict, model_names=model_names)
    return replace(m, notes=(*notes, *m.notes))
