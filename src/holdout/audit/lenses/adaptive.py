"""An adaptive analyst against your models (Mania et al. 2019 Sec. 4; Blum & Hardt's boosting attack): how
far attacks that see only the test score overfit it, beside the alpha = 0 bound (a theorem)."""

from __future__ import annotations

from dataclasses import replace

from holdout.audit.engines.adaptive_lens import AUDIT_PARAMS, adaptive_lens, adaptive_summary
from holdout.audit.evidence import Evidence, LensResult
from holdout.audit.lenses._common import as_predictions
from holdout.audit.result import AuditOptions

__all__ = ["lens"]


def lens(e: Evidence, options: AuditOptions) -> LensResult | None:
    """The study's table (one row per mechanism and attack); None unless ``options.adaptive`` and >= 2 models."""
    if not options.adaptive or len(e.model_ids) < 2:
        return None
    params = AUDIT_PARAMS
    if len(e.model_ids) < params.subset_size:  # ensembles of every model
        params = replace(params, subset_size=len(e.model_ids))
    r = adaptive_lens(as_predictions(e), params)
    return LensResult("adaptive", "heuristic", str(adaptive_summary(r)["verdict"]), r.table, r)
