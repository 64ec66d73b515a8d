"""The lenses that do not apply to every input: the bounds (an error rate strictly between 0 and 1, models
not identical) and the adaptive analyst (two models or more), each with the reason when it does not."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from holdout.audit.engines.adaptive_lens import AUDIT_PARAMS, AdaptiveLens, adaptive_lens
from holdout.audit.engines.core import BoundsLens, bounds_lens
from holdout.predictions import Predictions
from holdout.similarity.core import SimilaritySummary

if TYPE_CHECKING:
    from holdout.audit.result import AuditOptions

__all__ = ["_adaptive_or_reason", "_bounds_or_reason"]


def _bounds_or_reason(
    preds: Predictions, summary: SimilaritySummary, options: AuditOptions
) -> tuple[BoundsLens | None, str]:
    """The bounds lens, or None and why it does not apply (degenerate but valid inputs)."""
    acc, sim = summary.mean_accuracy, summary.mean_similarity
    if acc >= 1.0 or acc <= 0.0:
        return None, (
            f"every model is {'right' if acc >= 1 else 'wrong'} on every test point (mean accuracy "
            f"{100 * acc:.0f}%): the bounds need an error rate strictly between 0 and 1"
        )
    if sim >= 1.0:
        return None, "the models make identical mistakes (similarity 1): identical models can be tested without limit"
    try:
        lens = bounds_lens(preds.num_examples, acc, sim, options.eps, options.delta, preds.num_models)
    except OverflowError:
        return None, (
            f"the models are nearly identical (mean similarity {sim:.6f}): the number of testable models is "
            "beyond 2^1020, as good as unlimited"
        )
    return lens, ""


def _adaptive_or_reason(preds: Predictions) -> tuple[AdaptiveLens | None, list[str] | str]:
    """The adaptive lens with the ensembles shrunk to K models where K is below the subset size
    (a note says so), or None and why it does not apply."""
    if preds.num_models < 2:
        return None, "the audit holds 1 model (the attacks combine or select among several)"
    params, notes = AUDIT_PARAMS, []
    if preds.num_models < params.subset_size:
        params = replace(params, subset_size=preds.num_models)
        notes.append(
            f"Adaptive analyst: the selective-ensembling attack votes over all {preds.num_models} models "
            f"(fewer than its usual {AUDIT_PARAMS.subset_size} per ensemble)."
        )
    return adaptive_lens(preds, params), notes
