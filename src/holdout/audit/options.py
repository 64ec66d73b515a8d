"""The options of ``holdout audit`` that the leaderboard, logs and reference inputs add (their names,
types, defaults and help); [`holdout.audit.parser`][holdout.audit.parser] groups them for ``--help``."""

from __future__ import annotations

import argparse

from holdout.contamination.reference import FITS
from holdout.leaderboards.correctness import ROWS
from holdout.logs import FORMATS

__all__ = ["SCALES", "add_leaderboard_arguments", "add_logs_arguments", "add_reference_arguments"]

#: the units ``--scale`` names: 75 = 75% (percent) or 0.75 = 75% (fraction)
SCALES = ("percent", "fraction")


def add_leaderboard_arguments(p: argparse.ArgumentParser) -> None:
    """``--correctness``, ``--samples``, ``--accuracies``, ``--columns``, ``--sizes``, the date options."""
    g = p.add_argument_group("leaderboards (no per-item predictions or labels)")
    g.add_argument(
        "--correctness",
        action="store_true",
        help="PREDICTIONS is a K x n correctness matrix: CSV with a header row, the model name in the first "
        "column and one column per item, or .npy (with --model-names); entries 0/1 or pass rates in [0, 1]",
    )
    g.add_argument("--samples", type=int, help="the pass rates are over m samples per item (checked: multiples of 1/m)")
    g.add_argument(
        "--rows",
        choices=ROWS,
        help="what the matrix's rows are: models (as documented) or items (one column per model, the predictions "
        "audit's layout: read transposed); without it a matrix with more rows than columns is refused",
    )
    g.add_argument(
        "--accuracies",
        metavar="TABLE.csv",
        help="audit a table of accuracies instead: a 'model' column and one column per test set (percent or fractions)",
    )
    g.add_argument(
        "--scale",
        choices=SCALES,
        help="the accuracies' unit (needed when the table cannot tell: every value at most 1, or a column "
        "without values above 1 beside one with; default: percent when every column has values above 1)",
    )
    g.add_argument("--columns", nargs=2, metavar=("ORIG", "NEW"), help="the original and the new test set's columns")
    g.add_argument("--sizes", nargs=2, type=int, metavar=("N_ORIG", "N_NEW"), help="the two test sets' sizes")
    g.add_argument("--item-dates", help="CSV (item, date): each item's release date (with --correctness)")
    g.add_argument("--model-dates", help="CSV (model, date): each model's training cut-off")
    g.add_argument("--split", help="YYYY-MM-DD: items before it are the original set, items from it on the new one")
    add_reference_arguments(g)
    g.add_argument(
        "--date-format",
        metavar="FMT",
        help="how the dates files write their dates, as strftime (e.g. %%d/%%m/%%Y); default ISO 8601 "
        "(YYYY-MM-DD, or with a time: a UTC offset is converted to the UTC day)",
    )


def add_logs_arguments(p: argparse.ArgumentParser) -> None:
    """``--logs`` and what chooses among the runs, metrics and filters of the logs."""
    g = p.add_argument_group("evaluation logs (lm-eval, Inspect, HELM, Every Eval Ever, EvalPlus, LiveCodeBench)")
    g.add_argument(
        "--logs",
        nargs="+",
        metavar="PATH",
        help="audit the per-item results in these evaluation logs (files, folders searched recursively, or "
        "globs), aligned by item id into a K x n correctness matrix",
    )
    g.add_argument("--format", choices=list(FORMATS), help="read every log as this format (default: from content)")
    g.add_argument("--task", help="audit the runs of this task only (needed when the logs hold several)")
    g.add_argument("--metric", help="the per-item metric or scorer to read (needed when a log has several)")
    g.add_argument("--filter", help="the lm-eval filter (or HELM split) to read (needed when a log has several)")
    g.add_argument("--strict", action="store_true", help="refuse items missing from some runs instead of dropping them")


def add_reference_arguments(g: argparse._ArgumentGroup) -> None:
    """``--reference-models``, ``--fit``, ``--chance``, ``--n-bootstrap`` (with ``--accuracies``)."""
    g.add_argument(
        "--reference-models",
        metavar="FILE",
        help="with --accuracies: one model name per line, the reference models (>= 5) of ConStat's test, or "
        "column:NAME, the rows whose NAME column says 'reference'; --columns is then REFERENCE BENCHMARK and every "
        "other model is tested (writes reference_lens.csv)",
    )
    g.add_argument(
        "--fit",
        choices=FITS,
        help="curve through the reference models: spline (default; ConStat's smoothing spline with the "
        "random-guess point) or probit (our line on chance-normalised probit axes)",
    )
    g.add_argument(
        "--chance",
        nargs=2,
        type=float,
        metavar=("R", "B"),
        help="random-guess accuracy (fraction) on the reference benchmark and on the benchmark (default 0 0)",
    )
    g.add_argument("--n-bootstrap", type=int, help="bootstrap replicates of the reference lens (default 1000)")
    g.add_argument(
        "--reference-correctness",
        metavar="FILE",
        help="with --correctness and --reference-models: the same models' correctness matrix on the reference "
        "benchmark: the reference lens with ConStat's item bootstrap (PREDICTIONS is the benchmark's matrix)",
    )
