"""Rip van Winkle's Razor on the selected model (Arora & Zhang 2021, Theorem 3.1): its test error is
within the bound of its true error, given the description length of how it was chosen."""

from __future__ import annotations

import pandas as pd

from holdout.audit.engines.core import accuracy_lens, rvw_lens
from holdout.audit.evidence import Evidence, LensResult
from holdout.audit.lenses._common import as_predictions
from holdout.audit.report.verdicts import rvw_verdict
from holdout.audit.result import AuditOptions

__all__ = ["lens"]


def lens(e: Evidence, options: AuditOptions) -> LensResult | None:
    """The bound for ``options.selected`` (default the most accurate); None without ``options.rvw_bits``
    (a description file or a search size) or with pass rates."""
    if options.rvw_bits is None or not e.binary:
        return None
    accuracy = accuracy_lens(as_predictions(e), options.alpha)
    r = rvw_lens(
        accuracy, options.rvw_bits, options.rvw_detail, C=options.rvw_C, delta=options.delta, selected=options.selected
    )
    return LensResult("rvw", "theorem", rvw_verdict(r), pd.DataFrame([vars(r)]), r)
