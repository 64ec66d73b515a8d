"""The same models on a newer test set: gap, Delta Rank, error ratio and the linear fit (Recht et al. 2018,
Tables 1 and 4, Eq. 3, Figure 2)."""

from __future__ import annotations

from holdout.audit.accuracy_table import table_verdict
from holdout.audit.engines.core import align_models, new_set_lens
from holdout.audit.evidence import Evidence, LensResult
from holdout.audit.report.verdicts import new_set_verdict
from holdout.audit.result import AuditOptions
from holdout.leaderboards import accuracy_table_audit

__all__ = ["lens"]


def lens(e: Evidence, options: AuditOptions) -> LensResult | None:
    """Table 1 of the two sets (one row per model); None without labelled predictions on both."""
    if e.accuracies is not None and e.sizes is not None:  # an accuracy table: ORIG and NEW columns
        t = e.accuracies
        orig, later = t.columns[1], t.columns[2]
        a = accuracy_table_audit(t["model"], t[orig], t[later], *e.sizes, options.alpha, options.band_level)
        return LensResult("new_set", "measured", table_verdict(a), a.models, a)
    new = e.new
    if e.predictions is None or new is None or new.predictions is None:
        return None
    later = align_models(e.predictions, new.predictions, new.sources[0] if new.sources else "new")
    r = new_set_lens(e.predictions, later, options.alpha, options.band_level)
    return LensResult("new_set", "measured", new_set_verdict(r), r.table, r)
