"""The audit's leaderboard inputs on the command line: ``--correctness``, ``--accuracies``, dates.

[`add_leaderboard_arguments`][holdout.audit.leaderboard_cli.add_leaderboard_arguments] adds the
options to ``holdout audit``; [`run_leaderboard_audit`][holdout.audit.leaderboard_cli.run_leaderboard_audit]
runs the audit they ask for (None when they ask for none, and the predictions audit runs), into an
atomic, owned ``--out`` folder like the predictions audit
([`atomic_folder`][holdout.audit.output.atomic_folder],
[`check_owned_out`][holdout.audit.output.check_owned_out]).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from holdout.audit.accuracy_table import SCALES, run_accuracy_table
from holdout.audit.core import AuditError, selection_bits
from holdout.audit.correctness import contamination_of, correctness_result, load_correctness
from holdout.audit.inputs import check_input_path, check_memory, check_out_dir, peek_shape
from holdout.audit.output import atomic_folder, check_owned_out
from holdout.audit.reference_lens import (
    add_reference_arguments,
    prepare_item_reference_lens,
    run_item_reference_lens,
)
from holdout.audit.run import AuditOptions, _write_all
from holdout.leaderboards.correctness import ROWS

__all__ = ["add_leaderboard_arguments", "run_leaderboard_audit", "typed_options"]


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


def _options(args: argparse.Namespace) -> AuditOptions:
    """The lens options (--search-size parsed by the CLI; --rvw-C checked as in the predictions audit)."""
    search_size = args.search_size
    if not (math.isfinite(args.rvw_C) and args.rvw_C >= 1):
        raise AuditError(f"--rvw-C must be a finite number of bits >= 1 (the paper: 5000), got {args.rvw_C}")
    bits, detail = (None, "")
    if args.rvw_description is not None or search_size is not None:
        bits, detail = selection_bits(args.rvw_description, search_size)
    lenses = args.lenses.split(",") if isinstance(args.lenses, str) else args.lenses
    return AuditOptions(
        eps=args.eps,
        delta=args.delta,
        alpha=args.alpha,
        band_level=args.band_level,
        lenses=tuple(x.strip() for x in lenses if x.strip()),
        rvw_bits=bits,
        rvw_detail=detail,
        rvw_C=args.rvw_C,
        selected=args.selected,
        adaptive=bool(getattr(args, "adaptive", False)),
        mid_p=bool(getattr(args, "mid_p", False)),
        rank_resamples=getattr(args, "rank_resamples", 1000),
        variants=getattr(args, "variants", None),
        families=getattr(args, "families", None),
    )


def _note(text: str) -> None:
    print(f"holdout audit: note: {text}", file=sys.stderr)


def _owned_out(args: argparse.Namespace, inputs: list[str | None]) -> Path:
    """``--out`` checked before any work: not holding an input, no foreign files (unless --force), writable."""
    given = [x for x in (*inputs, args.rvw_description) if x]
    out = check_owned_out(args.out, given, force=args.force)
    check_out_dir(out)
    return out


def _matrix_shape(path: Path) -> tuple[int, int] | None:
    """(K, n) of a correctness matrix without reading it (a CSV: one row per model, one column per item)."""
    shape = peek_shape(path)
    if shape is None or path.suffix.lower() != ".csv":
        return shape
    return shape[1], shape[0] - 1


#: options of the predictions audit that neither leaderboard input reads (option, argparse name)
_PREDICTIONS_ONLY = (
    ("--labels", "labels"),
    ("--new-predictions", "new_predictions"),
    ("--new-labels", "new_labels"),
    ("--translations", "translations"),
    ("--scores", "scores"),
    ("--topk", "topk"),
    ("--num-classes", "num_classes"),
)


#: options of the correctness audit that an accuracy table has no use for
_NOT_FOR_TABLES = (
    ("--item-dates", "item_dates"),
    ("--model-dates", "model_dates"),
    ("--split", "split"),
    ("--date-format", "date_format"),
    ("--samples", "samples"),
    ("--rows", "rows"),
    ("--lenses", "lenses"),
    ("--eps", "eps"),
    ("--delta", "delta"),
    ("--rvw-C", "rvw_C"),
)

#: options of the accuracy-table audit that a correctness matrix has no use for
_TABLES_ONLY = (("--columns", "columns"), ("--sizes", "sizes"), ("--scale", "scale"))


def typed_options(make_parser: Callable[[], argparse.ArgumentParser], argv: list[str] | None) -> frozenset[str]:
    """The destinations of the options typed in ``argv`` (``argv`` parsed again with every default
    suppressed), so that an option given at its default value is told from one not given."""
    parser = make_parser()
    stack = [parser]
    while stack:
        for action in stack.pop()._actions:
            action.default = argparse.SUPPRESS
            if isinstance(action, argparse._SubParsersAction):
                stack.extend(action.choices.values())
    return frozenset(vars(parser.parse_args(argv)))


def _typed(args: argparse.Namespace, name: str) -> bool:
    """Whether option ``name`` was typed (``args.typed`` from the CLI; else: set to something true)."""
    typed = getattr(args, "typed", None)
    return name in typed if typed is not None else bool(getattr(args, name, None))


def _refuse_unused(args: argparse.Namespace, mode: str, extra: tuple[tuple[str, str], ...] = ()) -> None:
    """An option that does not apply to ``mode`` is refused in one line, not ignored."""
    given = [opt for opt, name in _PREDICTIONS_ONLY if getattr(args, name, None)]
    if given:
        raise AuditError(f"{', '.join(given)}: not read by {mode} (options of the predictions audit); leave them out")
    given = [opt for opt, name in extra if _typed(args, name)]
    if given:
        raise AuditError(f"{', '.join(given)}: not read by {mode}; leave them out")


def run_leaderboard_audit(
    args: argparse.Namespace, on_fail: Callable[[str], None] | None = None
) -> dict[str, object] | None:
    """The accuracy-table or correctness audit of ``args`` (its summary), or None for neither.
    ``on_fail`` is told what an interrupted or failed write left in ``--out``."""
    dated = any(x is not None for x in (args.item_dates, args.model_dates, args.split, args.date_format))
    if args.accuracies is not None:
        if args.predictions is not None or args.correctness:
            raise AuditError("--accuracies audits a table on its own: give no PREDICTIONS / --correctness with it")
        if getattr(args, "adaptive", False):
            raise AuditError("--adaptive needs per-item results (PREDICTIONS or --correctness), not --accuracies")
        no_rvw = (
            ("--rvw-description", "rvw_description"),
            ("--search-size", "search_size"),
            ("--selected", "selected"),
        )
        no_items = (("--model-names", "model_names"), ("--reference-correctness", "reference_correctness"))
        _refuse_unused(args, "--accuracies", (*no_items, *no_rvw, *_NOT_FOR_TABLES))
        out = _owned_out(args, [args.accuracies])
        with atomic_folder(out, on_fail, _note) as folder:
            return run_accuracy_table(argparse.Namespace(**(vars(args) | {"out": str(folder)})))
    reference = ("--reference-models", "--fit", "--chance", "--n-bootstrap", "--reference-correctness")
    given = [o for o in reference if getattr(args, o[2:].replace("-", "_"), None) is not None]
    item_level = args.correctness and args.reference_correctness and args.reference_models
    if given and not item_level:
        raise AuditError(
            f"{given[0]}: the reference-benchmark lens needs --accuracies TABLE.csv --reference-models FILE, or "
            "--correctness with --reference-correctness FILE --reference-models FILE"
        )
    if not args.correctness:
        if args.samples is not None or dated or args.columns or args.sizes or args.rows or args.scale:
            raise AuditError(
                "--samples, --rows, --columns, --sizes, --scale and the date options need --correctness or --accuracies"
            )
        return None
    if args.predictions is None:
        raise AuditError("--correctness: give the correctness matrix file (PREDICTIONS)")
    _refuse_unused(args, "--correctness", _TABLES_ONLY)
    path = check_input_path(args.predictions, "correctness")
    out = _owned_out(args, [args.predictions, args.item_dates, args.model_dates, args.reference_correctness])
    if (shape := _matrix_shape(path)) is not None:
        check_memory(*shape, args.force, str(path))  # before reading it whole
    c = load_correctness(str(path), args.model_names, args.samples, args.rows)
    if c.read_as:
        _note(f"{path}: {c.read_as}")
    dates = contamination_of(c, args)
    prepared = prepare_item_reference_lens(args, c) if item_level else None
    result = correctness_result(c, _options(args), str(path), dates)
    if c.read_as:
        result = replace(result, notes=(f"Read {path.name}: {c.read_as}.", *result.notes))
    with atomic_folder(out, on_fail, _note) as folder:
        extra = {"reference": run_item_reference_lens(args, prepared, folder)} if prepared is not None else None
        return _write_all(result, folder, extra)  # every lens in summary.json, the report and summary.md
