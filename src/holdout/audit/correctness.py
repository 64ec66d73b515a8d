"""``holdout audit FILE --correctness``: the audit of a K x n correctness matrix (0/1 or pass rates).

Every lens that needs only correctness (holdout.leaderboards): accuracy with intervals, similarity
against independent errors, covering numbers, difficulty, the three bounds of Mania et al., Rip van
Winkle's Razor on the selected model and (0/1 matrices, ``--adaptive``) the adaptive analyst lens.
With ``--item-dates``, ``--model-dates`` and ``--split`` also the contamination lens
([`contamination`][holdout.leaderboards.contamination]). The result is an ordinary
[`AuditResult`][holdout.audit.run.AuditResult], written by [`write_audit`][holdout.audit.run.write_audit].
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from holdout.audit.applicable import _adaptive_or_reason, _bounds_or_reason
from holdout.audit.engines.best_of import best_of_n_lens
from holdout.audit.engines.core import AuditError, RvwLens, SimilarityLens
from holdout.audit.engines.pairs_lens import PairsLens, pairs_lens
from holdout.audit.output import contamination_entry
from holdout.audit.report.verdicts import contamination_verdict
from holdout.audit.result import LENSES, AuditOptions, AuditResult
from holdout.leaderboards import Contamination, CorrectnessError, CorrectnessMatrix, contamination, read_correctness
from holdout.leaderboards.correctness import accuracy_intervals
from holdout.leaderboards.dates import parse_date, read_dates_utc
from holdout.leaderboards.lenses import correctness_lenses, ranked_by_correct
from holdout.predictions import Predictions
from holdout.rvw.bound import rvw_bound

__all__ = [
    "contamination_of",
    "contamination_verdict",
    "correctness_result",
    "load_correctness",
    "write_contamination_lens",
]


class _Size(NamedTuple):
    """What the predictions audit's bounds lens reads of its input: n and K."""

    num_examples: int
    num_models: int


def load_correctness(
    path: str, model_names: list[str] | None, samples: int | None, rows: str | None = None
) -> CorrectnessMatrix:
    """[`read_correctness`][holdout.leaderboards.read_correctness], its error as an AuditError line."""
    try:
        return read_correctness(path, model_names, samples, rows)
    except CorrectnessError as exc:
        raise AuditError(str(exc)) from None


def _as_predictions(c: CorrectnessMatrix, test_set: str) -> Predictions:
    """A 0/1 matrix as two-class predictions (label 0 everywhere, prediction 1 where wrong)."""
    labels = np.zeros(c.shape[1], dtype=np.int64)
    wrong = (c.values < 0.5).astype(np.int64)
    return Predictions.create(wrong, labels, c.model_names, num_classes=2, test_set=test_set)


def _rvw(acc: pd.DataFrame, options: AuditOptions) -> RvwLens | None:
    if options.rvw_bits is None:
        return None
    row = acc.iloc[0] if options.selected is None else acc[acc["model"] == options.selected].squeeze()
    if options.selected is not None and acc[acc["model"] == options.selected].empty:
        raise AuditError(f"--selected {options.selected}: no such model")
    n, err = int(row["n"]), 1.0 - float(row["correct"]) / int(row["n"])
    bound = float(rvw_bound(err, options.rvw_bits, n, C=options.rvw_C, delta=options.delta))
    return RvwLens(str(row["model"]), err, n, options.rvw_bits, options.rvw_detail, options.rvw_C, options.delta, bound)


#: below this many items the audit warns that its intervals, tests and bounds say little
FEW_ITEMS = 20

#: the lenses that compare models, skipped (with a note) for one model
NEEDS_TWO = ("pairs", "similarity", "bounds")


def few_items_warning(n: int) -> list[str]:
    """A ``Warning: ...`` note when the test set has fewer than ``FEW_ITEMS`` items."""
    if n >= FEW_ITEMS:
        return []
    return [
        f"Warning: only {n} item{'s' * (n != 1)}: every accuracy interval is wide, the paired tests can "
        "reject nothing or little, and the rank sets and bounds rest on large-sample arguments; read this audit "
        "as a check of the files, not as evidence about the models."
    ]


def _dates_note(options: AuditOptions, dates: Contamination | None, item_dates_known: bool) -> list[str]:
    """What the split by date needs, said only where it would apply: the input dates its items, or the
    new-test-set lens was asked for by name (not only by the default of every lens)."""
    if dates is not None or "new" not in options.lenses:
        return []
    if item_dates_known:
        return ["New test set: the items are dated; give --model-dates and --split for the split by date."]
    if tuple(options.lenses) != LENSES:
        return ["New test set: give --item-dates, --model-dates and --split for the split by date."]
    return []


def _one_model(c: CorrectnessMatrix, options: AuditOptions, source: str, notes: list[str]) -> AuditResult:
    """The audit of one model: its accuracy with its interval (and Rip van Winkle's Razor); a note names
    the lenses skipped because they compare models."""
    acc = ranked_by_correct(accuracy_intervals(c, options.alpha))
    skipped = [name for name in NEEDS_TWO if name in options.lenses]
    skipped += ["best_of_n"] if options.variants or options.families else []
    if skipped:
        notes.append(f"Skipped: {', '.join(skipped)}: these lenses compare models and need at least 2 models.")
    rvw = _rvw(acc, options) if "rvw" in options.lenses else None
    return AuditResult(source, Path(source).stem, options, acc, rvw=rvw, notes=tuple(notes), pass_rates=not c.binary)


def correctness_result(
    c: CorrectnessMatrix,
    options: AuditOptions,
    source: str,
    dates: Contamination | None = None,
    *,
    item_dates_known: bool = False,
) -> AuditResult:
    """Every correctness lens of ``options.lenses`` as an [`AuditResult`][holdout.audit.run.AuditResult],
    with the split by date ``dates`` (from [`contamination_of`][holdout.audit.correctness.contamination_of])
    when given (``item_dates_known``: the input dates its items, so only the models' dates are missing).
    One model: the accuracy (and Rip van Winkle's Razor) only, the lenses that compare models skipped
    with a note; few items: a warning note (``Warning: ...``)."""
    notes = [
        f"Correctness matrix: {c.shape[0]} model(s) x {c.shape[1]} item(s), "
        + (
            "0/1 entries (exact Clopper-Pearson intervals)."
            if c.binary
            else f"pass rates{'' if c.samples is None else f' over {c.samples} samples'} (intervals: Beta "
            "quantiles of the real-valued count; similarity: expected agreement of the 0-1 losses)."
        ),
        *few_items_warning(c.shape[1]),
    ]
    if c.shape[0] < 2:
        return _one_model(c, options, source, notes)
    lenses = correctness_lenses(c, options.etas, options.eps, options.delta, options.alpha)
    s = lenses.summary
    bounds = None
    if "bounds" in options.lenses:  # the predictions audit's lens: eps needed, supported models, or why not
        bounds, why = _bounds_or_reason(_Size(c.shape[1], c.shape[0]), s, options)  # type: ignore[arg-type]
        notes.extend([f"Testable models (bounds): not applicable because {why}."] if why else [])
    notes.extend(_dates_note(options, dates, item_dates_known))
    adaptive = None
    if options.adaptive and c.binary:
        adaptive, why = _adaptive_or_reason(_as_predictions(c, Path(source).stem))
        notes.extend([f"Adaptive analyst: not applicable because {why}."] if adaptive is None else why)
    elif options.adaptive:
        notes.append("Adaptive analyst lens: not run (it needs 0/1 correctness, not pass rates).")
    sim = SimilarityLens(s, lenses.pairs, lenses.covering, lenses.difficulty, items=True)
    return AuditResult(
        source,
        Path(source).stem,
        options,
        lenses.accuracy,
        similarity=sim if "similarity" in options.lenses else None,
        bounds=bounds,
        rvw=_rvw(lenses.accuracy, options) if "rvw" in options.lenses else None,
        notes=tuple(notes),
        adaptive=adaptive,
        pass_rates=not c.binary,
        contamination=dates,
        pairs=_pairs(c, options),
        best_of_n=best_of_n_lens(
            c.values,
            list(c.model_names),
            variants=options.variants,
            families=options.families,
            delta=options.delta,
            pass_rates=not c.binary,
        ),
    )


def _pairs(c: CorrectnessMatrix, options: AuditOptions) -> PairsLens | None:
    """The paired lens (exact McNemar for 0/1, paired t for pass rates), when asked for."""
    if "pairs" not in options.lenses:
        return None
    return pairs_lens(
        c.values, c.model_names, alpha=options.alpha, mid_p=options.mid_p, resamples=options.rank_resamples
    )


def contamination_of(c: CorrectnessMatrix, args: argparse.Namespace) -> Contamination | None:
    """The split by date of ``--item-dates``, ``--model-dates``, ``--split`` (None without them),
    computed before anything is written."""
    given = [args.item_dates, args.model_dates, args.split]
    if all(v is None for v in given):
        if getattr(args, "date_format", None) is not None:
            raise AuditError("--date-format: reads the dates files of --item-dates and --model-dates; give them")
        return None
    if any(v is None for v in given):
        raise AuditError("--item-dates, --model-dates and --split go together (give all three)")
    items = c.item_names or tuple(str(i + 1) for i in range(c.shape[1]))
    fmt = getattr(args, "date_format", None)
    try:
        split = parse_date(args.split, "--split")
        item_dates, item_tz = read_dates_utc(args.item_dates, items, "item", fmt)
        model_dates, model_tz = read_dates_utc(args.model_dates, c.model_names, "model", fmt)
        result = contamination(c, item_dates, model_dates, split, args.alpha, args.band_level)
    except CorrectnessError as exc:
        raise AuditError(str(exc)) from None
    how = f"format {fmt}" if fmt else "ISO 8601"
    notes = [f"dates read as {how}"] + [
        f"{k} {what} dates had a UTC offset and were converted to the UTC day"
        for k, what in ((item_tz, "item"), (model_tz, "model"))
        if k
    ]
    return replace(result, notes=tuple(notes))


def write_contamination_lens(result: Contamination, source: str, out: str | Path) -> dict[str, object]:
    """The contamination figure, CSVs and JSON in ``out``; returns the ``contamination`` entry of
    ``summary.json`` (with its verdict), which is added to a ``summary.json`` already in ``out``
    (an audit writes the entry with the other lenses: [`write_audit`][holdout.audit.run.write_audit])."""
    summary = contamination_entry(result, source, Path(out))
    path = Path(out) / "summary.json"
    if path.is_file():
        full = json.loads(path.read_text())
        full["contamination"] = summary
        path.write_text(json.dumps(full, indent=2) + "\n")
    return summary
