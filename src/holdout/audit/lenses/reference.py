"""ConStat's reference-benchmark test (Dekoninck et al. 2024) on an accuracy table: a curve through the
reference models' (reference, benchmark) accuracies; a model far above it scores more on the benchmark
than its reference accuracy predicts (heuristic: the curve assumes the reference models are clean)."""

from __future__ import annotations

import numpy as np

from holdout.audit.errors import AuditError
from holdout.audit.evidence import Evidence, LensResult
from holdout.audit.reference_lens import read_reference_models
from holdout.audit.registry import LensOptions
from holdout.contamination.reference import binomial_draws, reference_lens

__all__ = ["lens"]


def lens(e: Evidence, options: LensOptions) -> LensResult | None:
    """One row per tested model (delta, its interval, p and Holm's p); None without
    ``options.reference_models`` or the table's sizes. The table's columns: REFERENCE, BENCHMARK."""
    if options.reference_models is None or e.accuracies is None or e.sizes is None:
        return None
    t = e.accuracies
    ref, bench = t.columns[1], t.columns[2]
    is_ref = read_reference_models(options.reference_models, t["model"], e.sources[0] if e.sources else None)
    x, y = t[ref].to_numpy(float), t[bench].to_numpy(float)
    draws = binomial_draws(
        x[is_ref], y[is_ref], x[~is_ref], y[~is_ref], e.sizes, options.n_bootstrap, np.random.default_rng(0)
    )
    try:
        r = reference_lens(t["model"], x, y, is_ref, draws, options.fit, options.chance, options.alpha)
    except ValueError as exc:
        raise AuditError(f"--reference-models {options.reference_models}: {exc}") from None
    m = r.models
    verdict = (
        f"{int(m['significant'].sum())} of {len(m)} models above the curve through {r.n_reference} reference "
        f"models (Holm, alpha = {r.alpha:g}; {r.bootstrap}, heuristic: the curve assumes the reference "
        "models are uncontaminated)"
    )
    return LensResult("reference", "heuristic", verdict, m, r)
