"""The ``holdout`` command line: ``holdout audit PREDICTIONS --labels LABELS --out DIR``.

Bad input stops with one line on stderr naming the file (or option) and the problem, exit code 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from holdout.audit.core import AuditError, load_audit_predictions, selection_bits
from holdout.audit.inputs import (
    chance_warnings,
    check_input_path,
    check_label_base,
    check_out_dir,
    read_array_predictions,
)
from holdout.audit.leaderboard_cli import add_leaderboard_arguments, run_leaderboard_audit
from holdout.audit.run import LENSES, AuditOptions, run_audit, write_audit
from holdout.predictions import Predictions

__all__ = ["build_parser", "main"]

EPILOG = """\
formats: .csv (header row of model names, one row per test point, one column per model),
.npy (K x n integer array, one row per model; or K x n x C scores / K x n x k top-k, see --scores
and --topk) or holdout's .npz predictions format (labels inside).
Labels: .npy vector or one-column .csv. Outputs in --out: summary.json, CSVs of every number,
PNG/PDF figures and report.html (self-contained).
"""


class _Defaults(argparse.ArgumentDefaultsHelpFormatter):
    """Show ``(default: ...)`` for options that have one (not for those defaulting to None)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        return action.help if action.default is None else super()._get_help_string(action)


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _add_audit_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("predictions", nargs="?", help="predictions of the K models on the test set (.csv, .npy or .npz)")
    p.add_argument("--labels", help="true labels of the test set (.npy or .csv; optional for .npz)")
    p.add_argument("--out", default="audit", help="output folder")
    p.add_argument("--new-predictions", help="the same models' predictions on a second, newer test set")
    p.add_argument("--new-labels", help="labels of the newer test set")
    p.add_argument("--eps", type=float, default=0.01, help="accuracy tolerance of the bounds, in (0, 1)")
    p.add_argument("--delta", type=float, default=0.05, help="failure probability of the bounds, in (0, 1)")
    p.add_argument("--alpha", type=float, default=0.05, help="1 - confidence of the Clopper-Pearson intervals")
    p.add_argument("--band-level", type=float, default=0.95, help="confidence level of the linear fit's band")
    p.add_argument(
        "--rvw-description",
        help="description file (holdout.rvw format) of how the selected model was made, for Rip van Winkle's Razor",
    )
    p.add_argument(
        "--search-size",
        type=int,
        help="the selected model is the best of a search over a grid of G configurations: adds ceil(log2 G) bits",
    )
    p.add_argument("--rvw-C", type=float, default=5000.0, help="largest description length covered (bits)")
    p.add_argument("--selected", help="model the RvW bound is for (default: the most accurate)")
    p.add_argument(
        "--translations",
        help="each model's predictions on every translation of every test image (.npz, see the docs): "
        "runs Werpachowski et al.'s adversarial overfitting test without the models",
    )
    kind = p.add_mutually_exclusive_group()
    kind.add_argument(
        "--scores",
        action="store_true",
        help="the .npy holds K x n x C scores (probabilities or logits): predicted class = argmax "
        "(default for a 3-D float array)",
    )
    kind.add_argument(
        "--topk",
        action="store_true",
        help="the .npy holds K x n x k top-k classes, top-1 in column 0 (default for a 3-D integer array)",
    )
    p.add_argument("--model-names", type=_names, help="comma-separated model names for .npy predictions")
    p.add_argument("--num-classes", type=int, help="number of classes (default: largest label or prediction + 1)")
    p.add_argument(
        "--lenses",
        type=_names,
        default=",".join(LENSES),
        help="comma-separated lenses to run, from: " + ",".join(LENSES),
    )


def _add_adaptive_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--adaptive",
        action="store_true",
        help="also run the adaptive analyst study on your models (writes <out>/adaptive/; minutes on large sets)",
    )


def build_parser() -> argparse.ArgumentParser:
    """``holdout`` with its ``audit`` subcommand (every option's default shown in --help)."""
    parser = argparse.ArgumentParser(prog="holdout", description="holdout: audits of test-set reuse.")
    sub = parser.add_subparsers(dest="command", required=True)
    audit = sub.add_parser(
        "audit",
        formatter_class=_Defaults,
        epilog=EPILOG,
        help="every lens of the four papers on your own models, in one report",
        description="How much can you trust your test accuracies after all the evaluations "
        "you made, and is there evidence that you overfit the test set?",
    )
    _add_audit_arguments(audit)
    _add_adaptive_argument(audit)
    add_leaderboard_arguments(audit)
    return parser


def _audit(args: argparse.Namespace) -> dict[str, object]:
    if (leaderboard := run_leaderboard_audit(args)) is not None:
        return leaderboard
    if args.predictions is None:
        raise AuditError("give the PREDICTIONS file (or --accuracies TABLE.csv)")
    bits, detail = (None, "")
    if args.rvw_description is not None or args.search_size is not None:
        bits, detail = selection_bits(args.rvw_description, args.search_size)
    options = AuditOptions(
        eps=args.eps,
        delta=args.delta,
        alpha=args.alpha,
        band_level=args.band_level,
        lenses=tuple(_names(args.lenses) if isinstance(args.lenses, str) else args.lenses),
        rvw_bits=bits,
        rvw_detail=detail,
        rvw_C=args.rvw_C,
        selected=args.selected,
        translations=args.translations,
        adaptive=bool(getattr(args, "adaptive", False)),
    )
    preds, read_as = _load(args, args.predictions, args.labels, "predictions")
    new = None
    if args.new_predictions is not None:
        new, _ = _load(args, args.new_predictions, args.new_labels, "--new-predictions")
    elif args.new_labels is not None:
        raise AuditError("--new-labels given without --new-predictions")
    check_out_dir(args.out)
    result = run_audit(preds, options, source=str(args.predictions), new=new, new_source=str(args.new_predictions))
    result = replace(result, inputs=read_as, warnings=tuple(chance_warnings(preds)))
    return write_audit(result, args.out)


def _load(args: argparse.Namespace, path: str, labels: str | None, option: str) -> tuple[Predictions, tuple[str, ...]]:
    """One predictions input (2-D classes, 3-D scores / top-k, or .npz), checked for 1-based labels;
    returns it and what was read (for the report)."""
    p = check_input_path(path, option)
    kind = "scores" if args.scores else "topk" if args.topk else "auto"
    if p.suffix.lower() == ".npy" and labels is not None and (kind != "auto" or _ndim(p) == 3):
        preds, what = read_array_predictions(
            p, labels, kind, model_names=args.model_names, num_classes=args.num_classes
        )
    else:
        if kind != "auto":
            raise AuditError(f"{option} {p}: --scores / --topk need a 3-D .npy array (with --labels)")
        preds = load_audit_predictions(p, labels, model_names=args.model_names, num_classes=args.num_classes)
        what = ""
    check_label_base(preds, str(labels or p))
    return preds, (what,) if what else ()


def _ndim(path: Path) -> int:
    try:
        return int(np.load(path, mmap_mode="r", allow_pickle=False).ndim)
    except (OSError, ValueError):
        return -1  # the reader names the problem


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``holdout`` console script; returns the exit code."""
    args = build_parser().parse_args(argv)
    start = time.perf_counter()
    try:
        summary = _audit(args)
    except (AuditError, OSError) as exc:
        print(f"holdout audit: error: {exc}", file=sys.stderr)
        return 2
    for lens in (*LENSES, "adaptive", "contamination"):  # adaptive: the opt-in lens
        if lens in summary:
            print(f"[{lens}] {summary[lens]['verdict']}")  # type: ignore[index]
    print(f"wrote {args.out}/report.html and every number beside it in {time.perf_counter() - start:.1f} s")
    return 0
