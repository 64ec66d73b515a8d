"""How many models the test set can check at once: the union, similarity and naive-Bayes bounds (Mania et
al. 2019, bounds (2), (3)+(8), (A1)) at the measured accuracy and similarity."""

from __future__ import annotations

import pandas as pd

from holdout.audit.engines.core import AuditError, bounds_lens, similarity_lens
from holdout.audit.evidence import Evidence, LensResult
from holdout.audit.lenses._common import as_predictions
from holdout.audit.report.verdicts import bounds_verdict
from holdout.audit.result import AuditOptions

__all__ = ["lens"]


def lens(e: Evidence, options: AuditOptions) -> LensResult | None:
    """The testable models at ``options.eps`` / ``options.delta``; None where the bounds do not apply."""
    if e.matrix is None or len(e.model_ids) < 2 or not e.binary:
        return None
    s = similarity_lens(as_predictions(e), options.etas, e.test_set).summary
    try:
        r = bounds_lens(e.shape[1], s.mean_accuracy, s.mean_similarity, options.eps, options.delta, e.shape[0])
    except (AuditError, OverflowError):
        return None
    row = {k: v for k, v in vars(r).items() if v is None or isinstance(v, int | float | str)}
    return LensResult("bounds", "theorem", bounds_verdict(r), pd.DataFrame([row]), r)
