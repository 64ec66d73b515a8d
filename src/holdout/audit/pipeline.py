"""The predictions audit of one command line, from parsed options to the written ``--out`` folder (the
logs and leaderboard audits are ``logs_cli`` and ``leaderboard_cli``; ``cli`` runs the one that applies)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from holdout.audit.cli_checks import audit_options, search_size
from holdout.audit.clusters import clustered_result, item_clusters
from holdout.audit.engines.aline_lens import read_unlabeled, write_aline
from holdout.audit.engines.core import AuditError, align_models
from holdout.audit.inputs import chance_warnings, check_memory, check_out_dir, peek_shape, user_input
from holdout.audit.output import atomic_folder, check_owned_out
from holdout.audit.readers.predictions import is_npz, load_predictions_input, new_set_args
from holdout.audit.run import _write_all, run_audit, write_audit
from holdout.audit.safe_text import terminal_text

__all__ = ["audit_from_args", "search_size"]

#: the report's note on a newer test set given without its labels
UNLABELED_NOTE = (
    "New test set: given without --new-labels, so its accuracies and the gap are not measured; agreement "
    "on the line estimates them from the predictions alone (a heuristic)."
)


def audit_from_args(args: argparse.Namespace, on_fail: Callable[[str], None]) -> dict[str, object]:
    if args.predictions is None:
        raise AuditError("give the PREDICTIONS file (or --accuracies TABLE.csv)")
    options = audit_options(args, translations=True)
    inputs = [x for x in (args.predictions, args.labels, args.new_predictions, args.new_labels) if x]
    inputs += [x for x in (args.translations, args.rvw_description, getattr(args, "families", None)) if x]
    for option, value in (("--translations", args.translations), ("--families", getattr(args, "families", None))):
        if value is not None and not Path(value).is_file():  # read only by their lens: checked before any
            raise AuditError(f"{option} {value}: file not found")
    check_owned_out(args.out, inputs, force=args.force)  # before minutes of work
    check_out_dir(args.out)
    if (shape := peek_shape(args.predictions)) is not None:
        check_memory(*shape, args.force, str(args.predictions))  # before reading it whole
    with user_input("--predictions", args.predictions):
        preds, read_as = load_predictions_input(args, args.predictions, args.labels, "predictions")
    new = unlabeled = None
    new_args = new_set_args(args, preds)
    if args.new_predictions is not None and args.new_labels is None and not is_npz(args.new_predictions):
        with user_input("--new-predictions", args.new_predictions):  # no labels: agreement on the line only
            unlabeled = read_unlabeled(args.new_predictions, preds, new_args.model_names)
    elif args.new_predictions is not None:
        with user_input("--new-predictions", args.new_predictions):
            new, _ = load_predictions_input(new_args, args.new_predictions, args.new_labels, "--new-predictions")
    elif args.new_labels is not None:
        raise AuditError("--new-labels given without --new-predictions")
    check_memory(preds.num_models, preds.num_examples, args.force, str(args.predictions))
    clusters, where = item_clusters(args, [str(i) for i in range(preds.num_examples)])  # ids: 0-based positions
    with user_input("the audit of", args.predictions):
        result = run_audit(preds, options, source=str(args.predictions), new=new, new_source=str(args.new_predictions))
    if clusters is not None:
        result = clustered_result(result, (~preds.errors()).astype(float), preds.model_names, clusters, where)
    result = replace(result, inputs=read_as, warnings=tuple(chance_warnings(preds)))
    kept = lambda note: print(f"holdout audit: note: {terminal_text(note)}", file=sys.stderr)  # noqa: E731
    if new is None and unlabeled is None:
        return write_audit(result, args.out, inputs=inputs, force=args.force, on_fail=on_fail, on_kept=kept)
    if unlabeled is not None:  # the newer set without labels: agreement on the line instead of the gap
        kept_notes = tuple(n for n in result.notes if not n.startswith("New test set: not run"))
        result = replace(result, notes=(*kept_notes, UNLABELED_NOTE))
    with atomic_folder(check_owned_out(args.out, inputs, force=args.force), on_fail, kept) as folder:
        aligned = None if new is None else align_models(preds, new, str(args.new_predictions))
        matrix, labels = (unlabeled, None) if aligned is None else (aligned.predictions, aligned.labels)
        summary = _write_all(result, folder, {"aline": write_aline(preds, matrix, labels, folder)})
    return summary
