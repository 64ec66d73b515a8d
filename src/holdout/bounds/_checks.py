"""Argument checks shared by the bounds of Mania et al. (2019): one clear ValueError per bad value."""

from __future__ import annotations

import math

import numpy as np

# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------


def _check_n(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n (test-set size) must be a positive integer, got {n!r}")
    return int(n)


def _check_open_unit(name: str, value: float) -> float:
    value = float(value)
    if not (0.0 < value < 1.0) or math.isnan(value):
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {value!r}")
    return value


def _check_unit(name: str, value: float) -> float:
    value = float(value)
    if not (0.0 <= value <= 1.0) or math.isnan(value):
        raise ValueError(f"{name} must lie in [0, 1], got {value!r}")
    return value


def _check_eps(eps: float) -> float:
    return _check_open_unit("eps", eps)


def _check_k(k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k (number of models) must be a positive integer, got {k!r}")
    return int(k)


def _check_k_real(k: float) -> float:
    """k of Theorem 2 and Corollary 4, a real number (e.g. a log-scale count) that is finite and >= 1."""
    k_value = math.nan if isinstance(k, bool) else float(k)
    if not (math.isfinite(k_value) and k_value >= 1):
        raise ValueError(f"k (number of models) must be a finite number >= 1, got {k!r}")
    return k_value


def _check_cover(cover_size: float) -> float:
    cover_size = float(cover_size)
    if not (cover_size >= 1 and math.isfinite(cover_size)):
        raise ValueError(f"cover_size (N_eta) must be at least 1, got {cover_size!r}")
    return cover_size


def _check_delta(delta: float) -> float:
    return _check_open_unit("delta", delta)
