"""Correctness matrices: K models x n items, 0/1 or per-item pass rates in [0, 1].

What an LLM leaderboard publishes instead of predicted labels: whether each model solved each
item (0/1), or its pass@1 over m samples (a multiple of 1/m). Every lens that needs only
correctness works from it:

* accuracy with an interval ([`accuracy_intervals`][holdout.leaderboards.correctness.accuracy_intervals]):
  exact Clopper-Pearson for 0/1; for pass rates the same Beta quantiles with the real-valued
  count sum_t p_it over n items (stated and tested there);
* similarity ([`similarity_matrix`][holdout.leaderboards.correctness.similarity_matrix]): Mania et
  al.'s (2019, Sec. 2) agreement of the 0-1 losses; for pass rates its expectation
  p_i q_i + (1 - p_i)(1 - q_i) averaged over items (one sampled answer per model, independent);
* the similarity summary, covering numbers and difficulty
  ([`similarity_summary`][holdout.leaderboards.correctness.similarity_summary],
  [`difficulty`][holdout.leaderboards.correctness.difficulty]), which feed the bounds of
  [`holdout.bounds`][holdout.bounds] and Rip van Winkle's Razor ([`holdout.rvw`][holdout.rvw]).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.leaderboards.fits import clopper_pearson_many
from holdout.similarity.core import (
    SimilaritySummary,
    difficulty_distribution,
    pairwise_similarity,
    summary_from_rates,
)

__all__ = [
    "CorrectnessError",
    "CorrectnessMatrix",
    "accuracy_intervals",
    "check_correctness",
    "difficulty",
    "read_correctness",
    "similarity_matrix",
    "similarity_summary",
]


class CorrectnessError(ValueError):
    """Bad correctness input; the message is one line naming the file and the problem."""


@dataclass(frozen=True)
class CorrectnessMatrix:
    """K x n entries in [0, 1] (row = model); ``binary`` when every entry is 0 or 1; ``samples``
    m when the entries are pass rates over m samples (None when not known)."""

    model_names: tuple[str, ...]
    values: np.ndarray
    samples: int | None = None

    @cached_property
    def binary(self) -> bool:
        """Every entry 0 or 1 (computed once: a pass over K x n values)."""
        return bool(((self.values == 0.0) | (self.values == 1.0)).all())

    @property
    def shape(self) -> tuple[int, int]:
        return self.values.shape  # type: ignore[return-value]


def check_correctness(
    values: np.ndarray, model_names: list[str] | tuple[str, ...], source: str, samples: int | None = None
) -> CorrectnessMatrix:
    """Validate a K x n matrix (finite, in [0, 1], multiples of 1/m with ``samples`` m, unique
    names, K >= 1, n >= 1) and wrap it; every problem is one line
    ([`CorrectnessError`][holdout.leaderboards.correctness.CorrectnessError])."""
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 2 or 0 in v.shape:
        raise CorrectnessError(f"{source}: expected a K x n matrix (models x items), got shape {v.shape}")
    bad = np.argwhere(~np.isfinite(v))
    if bad.size:
        i, j = bad[0]
        raise CorrectnessError(f"{source}: NaN or missing value for model {model_names[i]!r}, item {j + 1}")
    bad = np.argwhere((v < 0) | (v > 1))
    if bad.size:
        i, j = bad[0]
        raise CorrectnessError(
            f"{source}: value {v[i, j]:g} for model {model_names[i]!r}, item {j + 1} is outside [0, 1] "
            "(give 0/1 or pass rates as fractions)"
        )
    if len(model_names) != v.shape[0]:
        raise CorrectnessError(f"{source}: {len(model_names)} model names for {v.shape[0]} rows")
    dup = pd.Index(model_names)[pd.Index(model_names).duplicated()]
    if len(dup):
        raise CorrectnessError(f"{source}: duplicate model name {dup[0]!r}")
    if samples is not None:
        if int(samples) < 1:
            raise CorrectnessError(f"--samples must be >= 1, got {samples}")
        off = np.abs(v * samples - np.rint(v * samples)) > 1e-6
        if off.any():
            i, j = np.argwhere(off)[0]
            raise CorrectnessError(
                f"{source}: value {v[i, j]:g} (model {model_names[i]!r}, item {j + 1}) is not a multiple "
                f"of 1/{samples} (--samples {samples})"
            )
    return CorrectnessMatrix(tuple(str(m) for m in model_names), v, None if samples is None else int(samples))


def _ragged_row(path: Path, expected: int) -> str | None:
    """'row r has m values, expected e' for the first row of another length, else None."""
    with open(path, newline="") as fh:
        for r, row in enumerate(csv.reader(fh), 1):
            if row and len(row) != expected:
                return f"row {r} has {len(row) - 1} values, expected {expected - 1}"
    return None


def _read_csv(path: Path) -> tuple[np.ndarray, list[str]]:
    with open(path, newline="") as fh:
        header = next(csv.reader(fh), None)
    if not header or len(header) < 2:
        raise CorrectnessError(f"{path}: needs a header row (model, item ids ...) and one row per model")
    try:
        df = pd.read_csv(path, dtype={header[0]: str}, index_col=0)
    except (pd.errors.ParserError, ValueError) as exc:
        raise CorrectnessError(f"{path}: {_ragged_row(path, len(header)) or str(exc).splitlines()[0]}") from None
    if df.isna().any().any() and (ragged := _ragged_row(path, len(header))):
        raise CorrectnessError(f"{path}: {ragged}")
    try:
        values = df.to_numpy(dtype=np.float64)
    except ValueError:
        raise CorrectnessError(f"{path}: every value after the model name must be a number in [0, 1]") from None
    return values, [str(m) for m in df.index]


def read_correctness(
    path: str | Path, model_names: list[str] | None = None, samples: int | None = None
) -> CorrectnessMatrix:
    """Read a correctness matrix: ``.csv`` (header row; model name in the first column, one column
    per item) or ``.npy`` (K x n, with ``model_names`` or model_1 ... model_K)."""
    path = Path(path)
    if not path.is_file():
        raise CorrectnessError(f"{path}: correctness file not found")
    if path.suffix.lower() == ".npy":
        try:
            values = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise CorrectnessError(f"{path}: not a readable .npy array ({exc})") from None
        if not np.issubdtype(values.dtype, np.number) and values.dtype != bool:
            raise CorrectnessError(f"{path}: expected a numeric K x n array, got dtype {values.dtype}")
        names = model_names or [f"model_{i + 1}" for i in range(values.shape[0] if values.ndim else 0)]
    elif path.suffix.lower() == ".csv":
        if model_names:
            raise CorrectnessError(f"{path}: --model-names is for .npy files; a CSV names its models in column 1")
        values, names = _read_csv(path)
    else:
        raise CorrectnessError(f"{path}: expected a .csv or .npy correctness matrix")
    return check_correctness(values, names, str(path), samples)


def accuracy_intervals(c: CorrectnessMatrix, alpha: float = 0.05) -> pd.DataFrame:
    """Per model: correct (sum of entries), n, accuracy and its 1 - alpha interval (percent).

    0/1 rows: exact Clopper-Pearson on the count. Pass rates p_it: the same Beta quantiles with
    the real-valued count k = sum_t p_it over n items. A rate in [0, 1] with mean p has variance
    at most p(1 - p), the binomial case, so the interval is at least as wide as an exact one on n
    0/1 items of the same mean (tested for coverage on made data).
    """
    k, n = c.values.sum(axis=1), c.shape[1]
    low, high = clopper_pearson_many(np.clip(k, 0, n), n, alpha)
    return pd.DataFrame(
        {
            "model": list(c.model_names),
            "correct": k,
            "n": n,
            "accuracy": 100 * (k / n),
            "ci_low": 100 * low,
            "ci_high": 100 * high,
        }
    )


def similarity_matrix(c: CorrectnessMatrix) -> np.ndarray:
    """K x K similarity: for 0/1 rows Mania et al.'s agreement of the 0-1 losses
    ([`pairwise_similarity`][holdout.similarity.core.pairwise_similarity]); for pass rates its
    expectation (1/n) sum_t [p_it p_jt + (1 - p_it)(1 - p_jt)] = 1 - a_i - a_j + 2 (P P^T)_ij / n
    (a: mean rates), diagonal set to 1 as for 0/1 losses."""
    if c.binary:
        return pairwise_similarity(c.values < 0.5)
    p, n = c.values, c.shape[1]
    a = p.mean(axis=1)
    p32 = p.astype(np.float32)  # float32 Gram matrix: relative error ~1e-7, twice the speed
    sim = 1.0 - a[:, None] - a[None, :] + 2.0 * (p32 @ p32.T).astype(np.float64) / n
    np.fill_diagonal(sim, 1.0)
    return np.clip(sim, 0.0, 1.0)


def similarity_summary(
    c: CorrectnessMatrix, sim: np.ndarray, quantiles: tuple[float, ...] = (0.05, 0.25, 0.5, 0.75, 0.95)
) -> SimilaritySummary:
    """[`SimilaritySummary`][holdout.similarity.core.SimilaritySummary] of the pairs i < j against the
    independent-errors baseline mu_i mu_j + (1 - mu_i)(1 - mu_j) (Mania et al. Sec. 5.1)."""
    k, n = c.shape
    if k < 2:
        raise CorrectnessError(f"{k} model: pairwise similarity needs at least 2")
    return summary_from_rates(1.0 - c.values.mean(axis=1), sim, n, quantiles)


def difficulty(c: CorrectnessMatrix) -> np.ndarray:
    """Fraction of items failed by at most m models, m = 0..K (Mania et al. App. C, Fig. 4); for
    pass rates the expected number of failing models per item, sum_i (1 - p_it), rounded."""
    if c.binary:
        return difficulty_distribution(c.values < 0.5)
    k, n = c.shape
    wrong = np.rint((1.0 - c.values).sum(axis=0)).astype(np.int64)
    return np.cumsum(np.bincount(wrong, minlength=k + 1)) / n
