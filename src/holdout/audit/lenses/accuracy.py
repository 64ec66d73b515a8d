"""Accuracy with exact Clopper-Pearson intervals (Recht et al. 2018, Sec. 3.2); pass rates: Beta quantiles."""

from __future__ import annotations

from holdout.audit.engines.core import accuracy_lens
from holdout.audit.evidence import Evidence, LensResult
from holdout.audit.lenses._common import accuracy_columns
from holdout.audit.report.verdicts import accuracy_verdict
from holdout.audit.result import AuditOptions
from holdout.leaderboards.lenses import correctness_lenses

__all__ = ["lens"]


def lens(e: Evidence, options: AuditOptions) -> LensResult:
    """Per model: correct, n, accuracy and its interval (percent), best first."""
    if e.predictions is not None:
        frame = accuracy_lens(e.predictions, options.alpha)
    else:
        frame = correctness_lenses(e.correctness(), options.etas, options.eps, options.delta, options.alpha).accuracy
    verdict = accuracy_verdict(frame, options.alpha, None, pass_rates=not e.binary)
    frame = accuracy_columns(frame, e)  # se, se_clustered, design_effect with item clusters
    return LensResult("accuracy", "measured", verdict, frame)
