"""What the leaderboard and logs audits check of their options before any work: the lens options,
options that do not apply to the input, an owned and writable ``--out``."""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path

from holdout.audit.engines.core import MAX_SEARCH_SIZE, selection_bits
from holdout.audit.errors import AuditError
from holdout.audit.inputs import check_out_dir
from holdout.audit.output import check_owned_out
from holdout.audit.result import AuditOptions
from holdout.audit.safe_text import terminal_text

__all__ = ["PATH_OPTIONS", "audit_options", "expand_paths", "search_size", "typed_options"]


def search_size(text: str | int | None) -> int | None:
    """--search-size as a whole number in [1, 1e300] (``1e6`` accepted; a number already parsed is
    checked again and kept); AuditError otherwise."""
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


def audit_options(args: argparse.Namespace, *, translations: bool) -> AuditOptions:
    """The lens options of every audit from parsed arguments: --search-size checked, --rvw-C checked,
    the Rip van Winkle bits counted (reading --rvw-description), --lenses split.

    ``translations``: whether this audit reads --translations. The predictions audit does (the
    adversarial lens needs each model's predictions of the translated images); a correctness matrix,
    an accuracy table or evaluation logs hold no predictions to translate, so their audits refuse the
    option (``_refuse_unused``) and leave ``AuditOptions.translations`` at None."""
    size = search_size(args.search_size)
    if not (math.isfinite(args.rvw_C) and args.rvw_C >= 1):
        raise AuditError(f"--rvw-C must be a finite number of bits >= 1 (the paper: 5000), got {args.rvw_C}")
    bits, detail = (None, "")
    if args.rvw_description is not None or size is not None:
        bits, detail = selection_bits(args.rvw_description, size)
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
        translations=args.translations if translations else None,
        adaptive=bool(getattr(args, "adaptive", False)),
        mid_p=bool(getattr(args, "mid_p", False)),
        rank_resamples=getattr(args, "rank_resamples", 1000),
        all_pairs=bool(getattr(args, "all_pairs", False)),
        variants=getattr(args, "variants", None),
        families=getattr(args, "families", None),
    )


def _note(text: str) -> None:
    print(f"holdout audit: note: {terminal_text(text)}", file=sys.stderr)


#: the options (argparse names) that name a file or folder: ``~`` there is the home folder
PATH_OPTIONS = (
    "predictions",
    "labels",
    "out",
    "new_predictions",
    "new_labels",
    "rvw_description",
    "translations",
    "families",
    "accuracies",
    "item_dates",
    "model_dates",
    "reference_models",
    "reference_correctness",
)


def expand_paths(args: argparse.Namespace) -> None:
    """``~`` and ``~user`` expanded in every path option (a quoted ``'~/x'`` reaches us as typed, and
    would otherwise be a folder named ``~``), and the same ``--logs`` path given twice (``logs``,
    ``./logs/``, its absolute path) kept once."""
    for name in PATH_OPTIONS:
        value = getattr(args, name, None)
        if isinstance(value, str) and value.startswith("~"):
            setattr(args, name, os.path.expanduser(value))
    logs = getattr(args, "logs", None)
    if logs:
        seen: dict[str, str] = {}
        for path in (os.path.expanduser(x) for x in logs):
            seen.setdefault(os.path.realpath(path), path)
        args.logs = list(seen.values())


def _owned_out(args: argparse.Namespace, inputs: list[str | None]) -> Path:
    """``--out`` checked before any work: not holding an input, no foreign files (unless --force), writable."""
    given = [x for x in (*inputs, args.rvw_description) if x]
    out = check_owned_out(args.out, given, force=args.force)
    check_out_dir(out)
    return out


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
