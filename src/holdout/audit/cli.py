"""The ``holdout`` command line: ``holdout audit PREDICTIONS --labels LABELS --out DIR``.

Bad input stops with one line on stderr naming the file (or option) and the problem, exit code 2.
"""

from __future__ import annotations

import argparse
import logging
import math
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import NoReturn

import numpy as np

from holdout.audit.aline_lens import read_unlabeled, write_aline
from holdout.audit.cli_groups import group_options
from holdout.audit.core import MAX_SEARCH_SIZE, AuditError, align_models, load_audit_predictions, selection_bits
from holdout.audit.inputs import (
    chance_warnings,
    check_input_path,
    check_label_base,
    check_memory,
    check_out_dir,
    one_line,
    peek_shape,
    read_array_predictions,
    user_input,
)
from holdout.audit.leaderboard_cli import add_leaderboard_arguments, run_leaderboard_audit, typed_options
from holdout.audit.logs_cli import add_logs_arguments, run_logs_audit
from holdout.audit.output import atomic_folder, check_owned_out
from holdout.audit.run import LENSES, AuditOptions, _write_all, run_audit, write_audit
from holdout.predictions import Predictions
from holdout.training.plan import add_plan_parser

__all__ = ["build_parser", "main"]

EPILOG = """\
formats: .csv (header row of model names, one row per test point, one column per model),
.npy (K x n integer array, one row per model; or K x n x C scores / K x n x k top-k, see --scores
and --topk) or holdout's .npz predictions format (labels inside).
Labels: .npy vector or one-column .csv. Outputs in --out: summary.json, CSVs of every number,
PNG/PDF figures and report.html (self-contained). Every option with an example: docs/audit.md.

examples:
  holdout audit config/examples/user_predictions.csv --labels config/examples/user_labels.npy --out /tmp/audit
  holdout audit config/examples/user_predictions.csv --labels config/examples/user_labels.npy \\
      --search-size 64 --lenses accuracy,bounds,rvw --eps 0.05 --out /tmp/audit_rvw
  holdout audit original.csv --labels labels.npy --new-predictions new_unlabeled.csv --out /tmp/aline
  holdout audit --accuracies table.csv --columns mathqa gsm8k --sizes 2000 1319 \\
      --reference-models reference_models.txt --chance 0.25 0 --out /tmp/reference
  holdout audit --logs lm_eval_results/ --task arc_easy --metric acc_norm --out /tmp/arc
  holdout audit --logs 'logs/*.eval' --out /tmp/inspect
  holdout audit config/examples/user_predictions.csv --labels config/examples/user_labels.npy \\
      --lenses accuracy,pairs --mid-p --out /tmp/audit_pairs
"""


class _Defaults(argparse.ArgumentDefaultsHelpFormatter):
    """Show ``(default: ...)`` for options that have one (not for those defaulting to None)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        return action.help if action.default is None else super()._get_help_string(action)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        """Wrap each paragraph of the epilog; keep the examples' lines as written."""
        fill = super()._fill_text
        blocks = text.split("\n\n")
        kept = [
            "\n".join(indent + ln for ln in b.splitlines()) if b.startswith("examples:") else fill(b, width, indent)
            for b in blocks
        ]
        return "\n\n".join(kept)


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _add_audit_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("predictions", nargs="?", help="predictions of the K models on the test set (.csv, .npy or .npz)")
    p.add_argument("--labels", help="true labels of the test set (.npy or .csv; optional for .npz)")
    p.add_argument("--out", default="audit", help="output folder")
    p.add_argument(
        "--new-predictions",
        help="the same models' predictions on a second, newer test set (.csv and .npz by name; a .npy's rows are "
        "PREDICTIONS' models in order); without --new-labels: agreement on the line",
    )
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
    p.add_argument(
        "--model-names", type=_names, help="comma-separated model names for .npy predictions (any text, numbers too)"
    )
    p.add_argument("--num-classes", type=int, help="number of classes (default: largest label or prediction + 1)")
    p.add_argument(
        "--lenses",
        type=_names,
        default=",".join(LENSES),
        help="comma-separated lenses to run, from: " + ",".join(LENSES),
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="write into an --out folder that holds files no audit wrote (they are moved aside to "
        "<out>.replaced-<time>, not deleted), and run inputs estimated not to fit in memory",
    )


def _add_pairs_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--mid-p",
        action="store_true",
        help="paired comparisons of 0/1 results: McNemar mid-p values instead of the exact (conservative) ones",
    )
    p.add_argument(
        "--rank-resamples",
        type=int,
        metavar="B",
        default=1000,
        help="bootstrap resamples of the simultaneous rank intervals (paired lens)",
    )
    p.add_argument(
        "--variants",
        type=int,
        metavar="N",
        help="the most accurate model is the best of N variants tried on this test set: how much that pick can "
        "inflate its score (Mania et al.'s bounds)",
    )
    p.add_argument(
        "--families",
        metavar="FILE.csv",
        help="CSV (model, family): each family's most accurate model is the best of its models; the inflation "
        "of that pick from their measured similarity and by resampling",
    )


def _add_adaptive_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--adaptive",
        action="store_true",
        help="also run the adaptive analyst study on your models (writes <out>/adaptive/; minutes on large sets)",
    )


class _Parser(argparse.ArgumentParser):
    """An option error is one line, like every other bad input (``--help`` shows the usage)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """``holdout`` with its ``audit`` subcommand (every option's default shown in --help)."""
    parser = _Parser(prog="holdout", description="holdout: audits of test-set reuse.")
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
    _add_pairs_arguments(audit)
    _add_adaptive_argument(audit)
    add_leaderboard_arguments(audit)
    add_logs_arguments(audit)
    group_options(audit)  # --help by input kind (holdout.audit.cli_groups), as docs/audit.md
    add_plan_parser(sub)  # `holdout plan`: holdout.training.plan (torch only when run)
    return parser


def _audit(args: argparse.Namespace, on_fail: Callable[[str], None]) -> dict[str, object]:
    args.search_size = _search_size(args.search_size)  # one check for every input
    if (logs := run_logs_audit(args, on_fail)) is not None:
        return logs
    if (leaderboard := run_leaderboard_audit(args, on_fail)) is not None:
        return leaderboard
    if args.predictions is None:
        raise AuditError("give the PREDICTIONS file (or --accuracies TABLE.csv)")
    search_size = _search_size(args.search_size)
    if not (math.isfinite(args.rvw_C) and args.rvw_C >= 1):
        raise AuditError(f"--rvw-C must be a finite number of bits >= 1 (the paper: 5000), got {args.rvw_C}")
    bits, detail = (None, "")
    if args.rvw_description is not None or search_size is not None:
        bits, detail = selection_bits(args.rvw_description, search_size)
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
        mid_p=bool(getattr(args, "mid_p", False)),
        rank_resamples=getattr(args, "rank_resamples", 1000),
        variants=getattr(args, "variants", None),
        families=getattr(args, "families", None),
    )
    inputs = [x for x in (args.predictions, args.labels, args.new_predictions, args.new_labels) if x]
    inputs += [x for x in (args.translations, args.rvw_description, getattr(args, "families", None)) if x]
    check_owned_out(args.out, inputs, force=args.force)  # before minutes of work
    check_out_dir(args.out)
    if (shape := peek_shape(args.predictions)) is not None:
        check_memory(*shape, args.force, str(args.predictions))  # before reading it whole
    with user_input("--predictions", args.predictions):
        preds, read_as = _load(args, args.predictions, args.labels, "predictions")
    new = unlabeled = None
    new_args = _new_set_args(args, preds)
    if args.new_predictions is not None and args.new_labels is None and not _is_npz(args.new_predictions):
        with user_input("--new-predictions", args.new_predictions):  # no labels: agreement on the line only
            unlabeled = read_unlabeled(args.new_predictions, preds, new_args.model_names)
    elif args.new_predictions is not None:
        with user_input("--new-predictions", args.new_predictions):
            new, _ = _load(new_args, args.new_predictions, args.new_labels, "--new-predictions")
    elif args.new_labels is not None:
        raise AuditError("--new-labels given without --new-predictions")
    check_memory(preds.num_models, preds.num_examples, args.force, str(args.predictions))
    with user_input("the audit of", args.predictions):
        result = run_audit(preds, options, source=str(args.predictions), new=new, new_source=str(args.new_predictions))
    result = replace(result, inputs=read_as, warnings=tuple(chance_warnings(preds)))
    kept = lambda note: print(f"holdout audit: note: {note}", file=sys.stderr)  # noqa: E731
    if new is None and unlabeled is None:
        return write_audit(result, args.out, inputs=inputs, force=args.force, on_fail=on_fail, on_kept=kept)
    with atomic_folder(check_owned_out(args.out, inputs, force=args.force), on_fail, kept) as folder:
        summary = _write_all(result, folder)
        aligned = None if new is None else align_models(preds, new, str(args.new_predictions))
        matrix, labels = (unlabeled, None) if aligned is None else (aligned.predictions, aligned.labels)
        summary["aline"] = write_aline(preds, matrix, labels, folder)
    return summary


def _is_npz(path: str) -> bool:
    return Path(path).suffix.lower() == ".npz"


def _new_set_args(args: argparse.Namespace, preds: Predictions) -> argparse.Namespace:
    """The options as they apply to --new-predictions: a .npy has no names (its rows are PREDICTIONS'
    models, in order); a .npz holds its names and classes (--model-names, --scores, --topk are
    PREDICTIONS' options there)."""
    new = args.new_predictions or ""
    names = list(preds.model_names) if Path(new).suffix.lower() == ".npy" else args.model_names
    if _is_npz(new):
        return argparse.Namespace(
            **{**vars(args), "model_names": None, "num_classes": None, "scores": False, "topk": False}
        )
    return argparse.Namespace(**{**vars(args), "model_names": names})


def _search_size(text: str | None) -> int | None:
    """--search-size as a whole number in [1, 1e300] (``1e6`` accepted); AuditError otherwise."""
    if text is None:
        return None
    try:
        value = int(text)
    except ValueError:
        try:
            f = float(text)
        except ValueError:
            f = float("nan")
        value = int(f) if math.isfinite(f) and f.is_integer() else 0
    if not 1 <= value <= MAX_SEARCH_SIZE:
        raise AuditError(f"--search-size must be a whole number of configurations in [1, 1e300], got {text}")
    return value


def _load(args: argparse.Namespace, path: str, labels: str | None, option: str) -> tuple[Predictions, tuple[str, ...]]:
    """One predictions input (2-D classes, 3-D scores / top-k, or .npz), checked for 1-based labels;
    returns it and what was read (for the report)."""
    p = check_input_path(path, option)
    kind = "scores" if args.scores else "topk" if args.topk else "auto"
    if p.suffix.lower() == ".npz":
        given = [o for o, v in (("--model-names", args.model_names), ("--num-classes", args.num_classes)) if v]
        if given or kind != "auto":
            flags = ", ".join(given + (["--scores / --topk"] if kind != "auto" else []))
            raise AuditError(f"{option} {p}: {flags} do not apply to a .npz file (names and classes are inside)")
    with _data_warnings() as notices:
        preds, what = _read(args, p, labels, option, kind)
    for notice in notices:
        print(f"holdout audit: note: {notice}", file=sys.stderr)
    return preds, tuple(x for x in (what, *notices) if x)


def _read(args: argparse.Namespace, p: Path, labels: str | None, option: str, kind: str) -> tuple[Predictions, str]:
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
    return preds, what


@contextmanager
def _data_warnings() -> Iterator[list[str]]:
    """The data stage's warnings while reading (an index column dropped, ...), collected for the report."""
    notes: list[str] = []

    class _Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            notes.append(record.getMessage())

    handler, logger = _Collect(logging.WARNING), logging.getLogger("holdout.data.core")
    logger.addHandler(handler)
    try:
        yield notes
    finally:
        logger.removeHandler(handler)


def _ndim(path: Path) -> int:
    try:
        return int(np.load(path, mmap_mode="r", allow_pickle=False).ndim)
    except (OSError, ValueError):
        return -1  # the reader names the problem


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM (``kill``, a scheduler's time limit) handled like Ctrl-C: the partial output removed
    and what was left said, instead of a silent ``.out.partial-*`` folder."""

    def _raise(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, _raise)
    except ValueError:  # not the main thread: the default handling stays
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``holdout`` console script; returns the exit code (2: bad input, 130: interrupted)."""
    args = build_parser().parse_args(argv)
    if args.command == "plan":
        return args.func(args)
    args.typed = typed_options(build_parser, None if argv is None else list(argv))  # told from defaults
    start = time.perf_counter()
    left: list[str] = []
    try:
        with _sigterm_as_interrupt():
            summary = _audit(args, left.append)
    except AuditError as exc:
        print(f"holdout audit: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"holdout audit: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except MemoryError:
        print(
            f"holdout audit: error: out of memory on {args.predictions}: audit fewer models or test points "
            f"at a time{'; ' + left[0] if left else ''}",
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        print(f"holdout audit: interrupted: {left[0] if left else f'{args.out}: nothing written'}", file=sys.stderr)
        return 130
    for lens in (*LENSES, "best_of_n", "adaptive", "contamination"):  # adaptive: the opt-in lens
        if lens in summary:
            print(f"[{lens}] {summary[lens]['verdict']}")  # type: ignore[index]
    print(f"wrote {args.out}/report.html and every number beside it in {time.perf_counter() - start:.1f} s")
    return 0
