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
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from holdout.audit.accuracy_table import run_accuracy_table
from holdout.audit.cli_checks import (
    _NOT_FOR_TABLES,
    _TABLES_ONLY,
    _note,
    _owned_out,
    _refuse_unused,
    audit_options,
    typed_options,
)
from holdout.audit.clusters import clustered_result, item_clusters, refuse_for_tables
from holdout.audit.correctness import contamination_of, correctness_result, load_correctness
from holdout.audit.engines.core import AuditError
from holdout.audit.inputs import check_input_path, check_memory, peek_shape
from holdout.audit.options import add_leaderboard_arguments
from holdout.audit.output import atomic_folder
from holdout.audit.reference_lens import (
    prepare_item_reference_lens,
    run_item_reference_lens,
)
from holdout.audit.run import _write_all
from holdout.audit.samples import with_samples

__all__ = ["add_leaderboard_arguments", "run_leaderboard_audit", "typed_options"]


def _matrix_shape(path: Path) -> tuple[int, int] | None:
    """(K, n) of a correctness matrix without reading it (a CSV: one row per model, one column per item)."""
    shape = peek_shape(path)
    if shape is None or path.suffix.lower() != ".csv":
        return shape
    return shape[1], shape[0] - 1


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
        refuse_for_tables(args)
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
    clusters, where = item_clusters(args, c.item_names or [str(j) for j in range(c.shape[1])])
    result = correctness_result(c, audit_options(args, translations=False), str(path), dates)
    if clusters is not None:
        result = clustered_result(result, c.values, c.model_names, clusters, where)
    result = with_samples(result, c.values, c.model_names, c.samples)
    if c.read_as:
        result = replace(result, notes=(f"Read {path.name}: {c.read_as}.", *result.notes))
    with atomic_folder(out, on_fail, _note) as folder:
        extra = {"reference": run_item_reference_lens(args, prepared, folder)} if prepared is not None else None
        return _write_all(result, folder, extra)  # every lens in summary.json, the report and summary.md
