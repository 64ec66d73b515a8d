"""Contamination by date: the models with a cut-off before every item give the line of fresh-item accuracy
on original-item accuracy; a later model far below it is consistent with contamination (a heuristic test,
one-sided, Holm)."""

from __future__ import annotations

from holdout.audit.errors import AuditError
from holdout.audit.evidence import Evidence, LensResult
from holdout.audit.registry import LensOptions
from holdout.audit.report.verdicts import contamination_verdict
from holdout.leaderboards import CorrectnessError, contamination
from holdout.leaderboards.dates import parse_date
from holdout.leaderboards.outputs import contamination_summary

__all__ = ["lens"]


def lens(e: Evidence, options: LensOptions) -> LensResult | None:
    """Every model's place against the line (one row per model); None without ``options.split``."""
    if options.split is None or e.item_dates is None or e.model_dates is None:
        return None
    try:
        split = parse_date(options.split, "--split")
        r = contamination(e.correctness(), e.item_dates, e.model_dates, split, options.alpha, options.band_level)
    except CorrectnessError as exc:
        raise AuditError(str(exc)) from None
    return LensResult("contamination", "heuristic", contamination_verdict(contamination_summary(r)), r.models, r)
