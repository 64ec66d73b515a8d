"""Similarity of the models' mistakes, covering numbers and difficulty (Mania et al. 2019, Sec. 5.1)."""

from __future__ import annotations

from dataclasses import replace

from holdout.audit.engines.core import similarity_lens
from holdout.audit.evidence import Evidence, LensResult
from holdout.audit.lenses._common import as_predictions
from holdout.audit.report.verdicts import similarity_verdict
from holdout.audit.result import AuditOptions

__all__ = ["lens"]


def lens(e: Evidence, options: AuditOptions) -> LensResult | None:
    """The pairs' similarity (one row per pair); None with fewer than 2 models or pass rates."""
    if len(e.model_ids) < 2 or not e.binary:
        return None
    r = similarity_lens(as_predictions(e), options.etas, e.test_set)
    r = r if e.predictions is not None else replace(r, items=True)
    return LensResult("similarity", "measured", similarity_verdict(r), r.pairs, r)
