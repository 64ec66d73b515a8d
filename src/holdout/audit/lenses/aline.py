"""Agreement on the line (Baek et al. 2022): each model's accuracy on a newer, unlabeled test set
estimated from the models' agreement there (``evidence.new``; its labels, when there, give the errors)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from holdout.audit.engines.aline_lens import MIN_MODELS, degenerate_line
from holdout.audit.evidence import Evidence, LensResult
from holdout.audit.result import AuditOptions
from holdout.contamination.aline import aline

__all__ = ["lens"]


def lens(e: Evidence, options: AuditOptions) -> LensResult | None:
    """One row per model (original accuracy, the ALine-S and ALine-D estimates); None without
    predictions on both sets or with fewer models than the line needs; no rows and the reason in the
    verdict where the agreement line is degenerate
    ([`degenerate_line`][holdout.audit.engines.aline_lens.degenerate_line])."""
    new = e.new
    if e.predictions is None or new is None or new.answers is None or len(e.model_ids) < MIN_MODELS:
        return None
    p = e.predictions
    why = degenerate_line(p, np.asarray(new.answers))
    if why is not None:  # no line to fit: the reason instead of estimates
        return LensResult("aline", "heuristic", f"Agreement on the line: no estimate, because {why}.", pd.DataFrame())
    r = aline(p.model_names, p.predictions, p.labels, new.answers, new.keys)
    verdict = (
        f"Agreement on the line estimates the {len(e.model_ids)} models' accuracy on the newer set from their "
        f"agreement there (slope {r.agreement.slope:.2f}, R^2 {r.agreement.r2:.2f} on probit axes): a heuristic."
    )
    return LensResult("aline", "heuristic", verdict, r.models, r)
