"""Werpachowski et al. 2019's adversarial overfitting test, from each model's predictions on every
translation of every test image (``options.translations``)."""

from __future__ import annotations

from holdout.audit.engines.adversarial_lens import adversarial_lens, adversarial_verdict
from holdout.audit.evidence import Evidence, LensResult
from holdout.audit.result import AuditOptions

__all__ = ["lens"]


def lens(e: Evidence, options: AuditOptions) -> LensResult | None:
    """The pairwise tests (one row per model and attack); None without a translations file."""
    if options.translations is None:
        return None
    r = adversarial_lens(options.translations, e.predictions, alpha=options.alpha)
    return LensResult("adversarial", "measured", adversarial_verdict(r), r.pairwise, r)
