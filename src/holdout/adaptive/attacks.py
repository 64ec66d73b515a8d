"""Adaptive analysts: the queries they ask and the classifier they submit, a pure function of the answers.

Each attack has two halves. ``*_queries`` builds the k queries (classifiers, as predicted labels on
every test point) from public information only: a base model's predictions, the published models'
predictions and a seeded generator; none of them looks at labels. ``*_submit`` turns the answers of
a mechanism into the submitted classifier, for every prefix k of the query sequence at once (the
queries do not depend on earlier answers, so the attack with k queries is the prefix of length k).

Which answers count as "better": ``rule="above_base"`` keeps query i when its answer exceeds the
answer to query 0 (the base); ``rule="above_midpoint"`` keeps query i >= 2 when its answer exceeds
(answer 0 + answer 1) / 2, the expected answer of a random half-flip between query 0 and query 1;
``rule="improved"`` keeps it when its answer exceeds the previous
answer, the only signal a Ladder gives (Blum & Hardt's ``attacks.jl`` keeps "all variables that
lowered the score in the ladder mechanism"). Unanswered queries (``nan``) are never kept.

- Boosting attack (Blum & Hardt 2015, Sec. 5): random perturbations of a base, majority vote of
  those that scored above the base. Multiclass construction (ours): each test point x gets, once,
  an alternative label a(x) drawn uniformly from the C - 1 classes other than the base's f0(x);
  query 0 is f0, query 1 is a (every point flipped), query i >= 2 predicts a(x) where u_i(x) = 1 and
  f0(x) elsewhere, u_i(x) ~ Bernoulli(1/2) independent. A half-flip scores far below f0, so "above
  the base" would keep nothing: the analyst keeps the queries that score above the midpoint of
  answers 0 and 1 (``above_midpoint``), the expected score of a random half-flip; with C = 2 and a
  random f0 the midpoint is 1/2, B&H's threshold "loss <= 1/2". The submission takes a(x) where at
  least half of the kept queries did (B&H's majority,
  ``U * b .>= countnz(b)/2``), f0(x) elsewhere; with C = 2 this is exactly their attack on the
  flip vector. No query kept: the base.
- Selective ensembling (Mania et al. 2019, Sec. 1): plurality votes of random subsets of the
  published models; keep those that scored better than the vote of all models (query 0); submit
  the plurality vote of the kept votes (none kept: query 0).
- Greedy selection: query k models (or checkpoints) in a random order, submit the one with the
  highest answer (earliest on ties; for the Ladder, the current leader).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

__all__ = [
    "Rule",
    "boosting_queries",
    "boosting_submit",
    "canonical_labels",
    "ensemble_queries",
    "ensemble_submit",
    "kept_queries",
    "plurality",
    "selection_submit",
]

Rule = Literal["above_base", "above_midpoint", "improved"]


def kept_queries(answers: np.ndarray, rule: Rule) -> np.ndarray:
    """Which of queries 1..k-1 the analyst keeps (query 0, the base, never): boolean (k,)."""
    a = np.asarray(answers, dtype=np.float64)
    if a.ndim != 1 or a.size == 0:
        raise ValueError(f"answers must be a non-empty vector, got shape {a.shape}")
    kept = np.zeros(a.shape, dtype=bool)
    if rule == "above_base":
        kept[1:] = a[1:] > a[0]
    elif rule == "above_midpoint":
        if a.size > 2:
            kept[2:] = a[2:] > (a[0] + a[1]) / 2.0
    elif rule == "improved":
        kept[1:] = a[1:] > a[:-1]
    else:
        raise ValueError(f"unknown rule {rule!r} (above_base, above_midpoint or improved)")
    return kept & ~np.isnan(a)


def _check_grid(ks: Sequence[int], k_max: int) -> np.ndarray:
    grid = np.asarray(ks, dtype=np.int64)
    if grid.ndim != 1 or grid.size == 0 or (grid < 1).any() or (grid > k_max).any() or (np.diff(grid) <= 0).any():
        raise ValueError(f"k grid must be increasing integers in [1, {k_max}], got {list(ks)}")
    return grid


def boosting_queries(
    base: np.ndarray, num_classes: int, k: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The flip indicators U (k x n bool; row 0 all False: the base; row 1 all True) and the alternatives a (n,)."""
    f0 = np.asarray(base, dtype=np.int64)
    if num_classes < 2:
        raise ValueError(f"the boosting attack needs at least 2 classes, got {num_classes}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    alt = (f0 + rng.integers(1, num_classes, size=f0.shape)) % num_classes
    # fair coins u_i(x) from random bytes, 8 per byte (an eighth of the generator's work)
    flips = np.unpackbits(rng.integers(0, 256, size=(k, -(-f0.size // 8)), dtype=np.uint8), axis=1)
    flips = flips[:, : f0.size].astype(bool)
    flips[0] = False
    if k > 1:
        flips[1] = True
    return flips, alt


def boosting_submit(flips: np.ndarray, kept: np.ndarray, ks: Sequence[int]) -> np.ndarray:
    """Where the submission takes a(x), for each k of ``ks``: boolean (len(ks), n).

    Majority of the kept queries among the first k: count(u_i(x) = 1) >= |kept| / 2, as in
    Blum & Hardt's ``attacks.jl``; with no query kept, the base (no flip). The counts of the
    prefixes are built segment by segment (each kept query added once).
    """
    grid = _check_grid(ks, flips.shape[0])
    idx = np.flatnonzero(kept[: grid[-1]])
    n_kept = np.searchsorted(idx, grid)  # kept queries among the first k, for each k
    sel = np.asarray(flips, dtype=bool)[idx]
    segments = np.zeros((grid.size, sel.shape[1]), dtype=np.int64)
    for g, (lo, hi) in enumerate(zip(np.r_[0, n_kept[:-1]], n_kept, strict=True)):
        segments[g] = np.count_nonzero(sel[lo:hi], axis=0)
    votes = np.cumsum(segments, axis=0)
    return (2 * votes >= n_kept[:, None]) & (n_kept[:, None] > 0)


def canonical_labels(predictions: np.ndarray) -> np.ndarray:
    """For K x n predictions, canon[j, x] = the first model j' with the same label as model j at x.

    Plurality votes over the models' labels can then be counted over K values per point
    (instead of C classes).
    """
    p = np.asarray(predictions)
    canon = np.empty(p.shape, dtype=np.int32)
    for j in range(p.shape[0]):
        same = p[: j + 1] == p[j][None, :]
        canon[j] = np.argmax(same, axis=0)
    return canon


def plurality(canon_rows: np.ndarray, num_models: int, weights: np.ndarray | None = None) -> np.ndarray:
    """Plurality vote per point of rows of canonical indices (m x n); ties go to the lowest index."""
    rows = np.asarray(canon_rows, dtype=np.int64)
    m, n = rows.shape
    w = np.ones(m) if weights is None else np.asarray(weights, dtype=np.float64)
    flat = rows + (np.arange(n, dtype=np.int64) * num_models)[None, :]
    counts = np.bincount(flat.ravel(), weights=np.repeat(w, n), minlength=n * num_models)
    return np.argmax(counts.reshape(n, num_models), axis=1).astype(np.int32)


def ensemble_queries(canon: np.ndarray, k: int, subset_size: int, rng: np.random.Generator) -> np.ndarray:
    """Query 0: the plurality vote of all K models; queries 1..k-1: votes of random subsets.

    Returns the k x n canonical indices of the queries' labels (map back with the predictions).
    """
    num_models = canon.shape[0]
    if not 1 <= subset_size <= num_models:
        raise ValueError(f"subset size must lie in [1, {num_models}], got {subset_size}")
    queries = np.empty((k, canon.shape[1]), dtype=np.int32)
    queries[0] = plurality(canon, num_models)
    for i in range(1, k):
        members = np.sort(rng.choice(num_models, size=subset_size, replace=False))
        queries[i] = plurality(canon[members], num_models)
    return queries


def ensemble_submit(queries: np.ndarray, kept: np.ndarray, ks: Sequence[int], num_models: int) -> np.ndarray:
    """Canonical labels of the submission for each k: the plurality vote of the kept queries (none: query 0)."""
    grid = _check_grid(ks, queries.shape[0])
    out = np.empty((grid.size, queries.shape[1]), dtype=np.int32)
    for g, k in enumerate(grid):
        chosen = np.flatnonzero(kept[:k])
        out[g] = queries[0] if chosen.size == 0 else plurality(queries[chosen], num_models)
    return out


def selection_submit(answers: np.ndarray, ks: Sequence[int]) -> np.ndarray:
    """Index of the submitted query for each k: the highest answer among the first k (earliest on ties)."""
    a = np.asarray(answers, dtype=np.float64)
    grid = _check_grid(ks, a.size)
    filled = np.where(np.isnan(a), -np.inf, a)
    return np.array([int(np.argmax(filled[:k])) for k in grid], dtype=np.int64)
