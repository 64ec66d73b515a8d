"""The coupling of Mania et al. (2019), Appendix B, as a type: built by
[`pair_coupling`][holdout.bounds.core.pair_coupling], read by the binomial tails of
``holdout.bounds._binomial`` (a module of its own, so that neither imports the other for it)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PairCoupling"]


@dataclass(frozen=True)
class PairCoupling:
    """Independent Bernoulli X_1, X_2, W with (X_1 W, X_2 W) ~ (q_1(z), q_2(z)) (Appendix B).

    ``p_w`` = P(W = 1) (W = 0: an "easy" example both models get right),
    ``p_x1`` = P(X_1 = 1), ``p_x2`` = P(X_2 = 1).
    """

    p_w: float
    p_x1: float
    p_x2: float
