"""Paired comparisons (exact McNemar for 0/1 results, paired t for pass rates) and simultaneous rank intervals."""

from __future__ import annotations

from holdout.audit.engines.pairs_lens import pairs_lens
from holdout.audit.evidence import Evidence, LensResult
from holdout.audit.lenses._common import pairs_columns
from holdout.audit.report.verdicts import pairs_verdict
from holdout.audit.result import AuditOptions

__all__ = ["lens"]


def lens(e: Evidence, options: AuditOptions) -> LensResult | None:
    """Every pair of models on the same items (None for one model)."""
    if e.matrix is None or len(e.model_ids) < 2:
        return None
    r = pairs_lens(e.matrix, e.model_ids, alpha=options.alpha, mid_p=options.mid_p, resamples=options.rank_resamples)
    return LensResult("pairs", "measured", pairs_verdict(r), pairs_columns(r.pairs, e), r)
