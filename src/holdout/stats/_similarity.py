"""The independent-errors similarity baseline (Mania et al. 2019, Sec. 5.1, Fig. 1a)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["independent_similarity"]


def independent_similarity(error_1: ArrayLike, error_2: ArrayLike | None = None) -> Any:
    """Similarity of two models that err independently: mu_1 mu_2 + (1 - mu_1)(1 - mu_2).

    The baseline of Figure 1a (Sec. 5.1); at this similarity the coupling of Appendix B
    ([`holdout.bounds.core.pair_coupling`][holdout.bounds.core.pair_coupling]) has
    P(W = 1) = 1 and the similarity and naive-Bayes bounds reduce to the union bound.
    Vectorised: error rates broadcast (``mu[:, None], mu[None, :]`` gives every pair, as
    [`holdout.similarity.independent_similarity_matrix`][holdout.similarity.independent_similarity_matrix] does); a
    float for scalars.
    """
    e1 = _check_unit_array("error_1", error_1)
    e2 = e1 if error_2 is None else _check_unit_array("error_2", error_2)
    out = e1 * e2 + (1.0 - e1) * (1.0 - e2)
    return float(out) if out.ndim == 0 else out


def _check_unit_array(name: str, values: ArrayLike) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.size and (np.isnan(arr).any() or arr.min() < 0.0 or arr.max() > 1.0):
        raise ValueError(f"{name} must lie in [0, 1], got {values!r}")
    return arr
