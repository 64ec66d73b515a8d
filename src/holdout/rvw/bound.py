"""Rip van Winkle's Razor (Arora & Zhang 2021), Theorem 3.1: the bound on the population error."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

__all__ = [
    "rvw_bound",
    "rvw_fixed_point_map",
]


# ---------------------------------------------------------------------------
# Theorem 3.1
# ---------------------------------------------------------------------------


def _rvw_a(bits: npt.ArrayLike, n: npt.ArrayLike, C: float, delta: float) -> np.ndarray:
    """``a = 2 ln2 (|f|_r + log2(C/delta)) / N``, the factor under the square root of T(p)."""
    return 2.0 * math.log(2.0) * (np.asarray(bits, dtype=float) + math.log2(C / delta)) / np.asarray(n, dtype=float)


def _check_bound_args(test_error: np.ndarray, bits: np.ndarray, n: np.ndarray, C: float, delta: float) -> None:
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must lie in (0, 1), got {delta}")
    if not C >= 1:
        raise ValueError(f"C (the largest description length, in bits) must be >= 1, got {C}")
    if np.any(~np.isfinite(test_error)) or np.any((test_error < 0) | (test_error > 1)):
        raise ValueError(f"test_error must lie in [0, 1], got {test_error}")
    if np.any(~np.isfinite(bits)) or np.any(bits < 0):
        raise ValueError(f"bits must be finite and >= 0, got {bits}")
    if np.any(bits > C):
        raise ValueError(f"bits ({bits}) exceed C = {C}: Theorem 3.1 covers descriptions of at most C bits; raise C")
    if np.any(~np.isfinite(n)) or np.any(n < 1) or np.any(n != np.floor(n)):
        raise ValueError(f"n (the test set size N) must be >= 1 and a whole number, got {n}")


def rvw_fixed_point_map(
    p: npt.ArrayLike,
    test_error: npt.ArrayLike,
    bits: npt.ArrayLike,
    n: npt.ArrayLike,
    C: float = 5000,
    delta: float = 0.05,
) -> np.ndarray | float:
    """The map ``T(p) = p_hat + sqrt(2 ln2 p(1-p) (|f|_r + log2(C/delta)) / N)`` of Theorem 3.1."""
    p = np.asarray(p, dtype=float)
    out = np.asarray(test_error, dtype=float) + np.sqrt(_rvw_a(bits, n, C, delta) * p * (1.0 - p))
    return float(out) if out.ndim == 0 else out


def rvw_bound(
    test_error: npt.ArrayLike,
    bits: npt.ArrayLike,
    n: npt.ArrayLike,
    C: float = 5000,
    delta: float = 0.05,
) -> np.ndarray | float:
    """Upper bound on the population error by Rip van Winkle's Razor (Theorem 3.1).

    With probability at least ``1 - delta`` over the test set ``S ~ D^N``, every
    classifier ``f`` with a description of ``|f|_r <= C`` bits satisfies
    ``L_D(f) <= p*``, where ``p*`` is the fixed point ``p* = T(p*)`` of

        T(p) = p_hat + sqrt( 2 ln2 * p (1 - p) * (|f|_r + log2(C / delta)) / N ),

    ``p_hat = L_S(f)`` the test error, ``|f|_r`` = ``bits``, ``N`` = ``n``.

    How it is solved (exactly, no iteration). Write
    ``a = 2 ln2 (|f|_r + log2(C/delta)) / N``. Squaring ``p - p_hat = sqrt(a p (1-p))``
    gives the quadratic ``(1 + a) p^2 - (2 p_hat + a) p + p_hat^2 = 0`` whose
    discriminant is ``a (a + 4 p_hat (1 - p_hat)) >= 0``. Its two roots satisfy
    ``p1 <= p_hat <= p2``; only ``p2`` solves the unsquared equation
    (``T(p) - p_hat >= 0`` forces ``p >= p_hat``), and ``T(p) <= p`` for every
    ``p >= p2``, so ``p2`` is the smallest ``p`` with ``T(p) <= p`` (the proof of
    Theorem 3.1). We return

        p* = p2 = (2 p_hat + a + sqrt(a (a + 4 p_hat (1 - p_hat)))) / (2 (1 + a)),

    written with the discriminant in that form so that nothing cancels. ``p* <= 1``
    always (``T(1) = p_hat <= 1``). Inputs broadcast (numpy); a scalar in gives a float.

    Scope: the proof's Chernoff step (Claims A.1-A.2) uses ``KL(p - eps || p) >=
    eps^2 / (2 p (1 - p))``, shown for ``p <= 1/2``; the guarantee is thus for population
    errors up to 1/2 (every case of interest). Outside it the formula is still evaluated.

    Defaults are the paper's ``C = 5000`` and ``delta = 0.05`` (Sec. 3.3). Example:
    ``rvw_bound(0.0449, 426, 50_000)`` = 0.07388 (Table 1, ResNet-152: 7.39%).
    """
    p_hat = np.asarray(test_error, dtype=float)
    k = np.asarray(bits, dtype=float)
    nn = np.asarray(n, dtype=float)
    _check_bound_args(p_hat, k, nn, C, delta)
    a = _rvw_a(k, nn, C, delta)
    p_star = (2.0 * p_hat + a + np.sqrt(a * (a + 4.0 * p_hat * (1.0 - p_hat)))) / (2.0 * (1.0 + a))
    p_star = np.minimum(p_star, 1.0)  # guards the last ulp; mathematically p* <= 1
    return float(p_star) if p_star.ndim == 0 else p_star
