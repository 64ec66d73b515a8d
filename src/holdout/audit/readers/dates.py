"""Item and model dates (two-column CSVs: name, date) added to the audit's evidence."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from holdout.audit.errors import AuditError
from holdout.audit.evidence import Evidence
from holdout.leaderboards import CorrectnessError
from holdout.leaderboards.dates import read_dates

__all__ = ["with_dates"]


def with_dates(
    evidence: Evidence,
    item_dates: str | Path | None = None,
    model_dates: str | Path | None = None,
    date_format: str | None = None,
) -> Evidence:
    """``evidence`` with each item's release date and each model's training cut-off read from CSVs
    (item, date) and (model, date); a name missing from a file is an AuditError naming it."""
    try:
        items = evidence.item_dates
        if item_dates is not None:
            items = read_dates(item_dates, evidence.item_ids, "item", date_format)
        models = None if model_dates is None else read_dates(model_dates, evidence.model_ids, "model", date_format)
    except CorrectnessError as exc:
        raise AuditError(str(exc)) from None
    extra = tuple(str(p) for p in (item_dates, model_dates) if p is not None)
    return replace(evidence, item_dates=items, model_dates=models, sources=(*evidence.sources, *extra))
