"""How much a best-of-N pick inflates its score (Mania et al.'s bounds and resampling), for the most
accurate model (``options.variants``) or each family's best (``options.families``)."""

from __future__ import annotations

from holdout.audit.engines.best_of import best_of_n_lens, best_of_n_table, best_of_n_verdict
from holdout.audit.evidence import Evidence, LensResult
from holdout.audit.result import AuditOptions

__all__ = ["lens"]


def lens(e: Evidence, options: AuditOptions) -> LensResult | None:
    """One row per pick; None without ``options.variants`` or ``options.families``."""
    if e.matrix is None:
        return None
    r = best_of_n_lens(
        e.matrix,
        list(e.model_ids),
        variants=options.variants,
        families=options.families,
        delta=options.delta,
        pass_rates=not e.binary,
    )
    if not r:
        return None
    return LensResult("best_of_n", "theorem", best_of_n_verdict(r), best_of_n_table(r), r)
