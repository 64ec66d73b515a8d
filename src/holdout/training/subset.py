"""The seeded subset of training images a study trains (or evaluates) on."""

from __future__ import annotations

import numpy as np

__all__ = ["train_subset"]


def train_subset(n_total: int, size: int | None, seed: int) -> np.ndarray:
    """Sorted int64 indices of ``size`` distinct images out of ``n_total`` (None: all), from ``seed``."""
    if size is None or size == n_total:
        return np.arange(n_total, dtype=np.int64)
    if not 1 <= size <= n_total:
        raise ValueError(f"train_subset: size must be in [1, {n_total}], got {size}")
    idx = np.random.default_rng(seed).choice(n_total, size=size, replace=False)
    return np.sort(idx).astype(np.int64)
