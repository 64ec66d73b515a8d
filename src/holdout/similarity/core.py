"""Model similarity (Mania et al. 2019, Sections 2, 3, 5 and Appendix C).

The *similarity* of two classifiers f_i, f_j on a test set is the fraction of
test points on which their 0/1 losses agree (Mania et al., Sec. 2)::

    sim_ij = P(1{f_i(x) != y} = 1{f_j(x) != y}).

If the two losses were independent with error rates mu_i, mu_j, the similarity
would be ``mu_i mu_j + (1 - mu_i)(1 - mu_j)`` (Sec. 5.1, the baseline of Fig. 1a).

The similarity covering number N_eta of Definition 1: a query set M is an
eta-similarity cover of F when for every q in F there are q', q'' in M with
E[q'] <= E[q] <= E[q''] and P(q' = q) >= eta, P(q'' = q) >= eta. We bound
N_eta from above by a greedy set cover whose candidates are the measured
models themselves (M subset of F; the definition allows any queries, so the
minimum over subsets of F is itself an upper bound on N_eta).

The difficulty distribution of Appendix C (Fig. 4): the fraction of test points
misclassified by at most m of the K models, for m = 0, ..., K.

All quantities are empirical: population error rates and similarities are
replaced by their test-set estimates, as in the paper.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from holdout.stats import independent_similarity as _independent_similarity

__all__ = [
    "SimilaritySummary",
    "agreement_counts",
    "covering_numbers",
    "difficulty_distribution",
    "greedy_similarity_cover",
    "independent_similarity",
    "independent_similarity_matrix",
    "is_similarity_cover",
    "min_similarity_cover_size",
    "pairwise_similarity",
    "resolve_subset",
    "summarize_similarity",
    "upper_pairs",
]

Method = Literal["matmul", "packbits"]

#: float32 represents every integer up to 2**24 exactly, so a float32 Gram
#: matrix of 0/1 rows is exact while n stays below this; longer rows are chunked.
_FLOAT32_EXACT = 1 << 24
#: Tolerance when comparing a measured similarity (a ratio of counts) with eta.
_ETA_TOL = 1e-12


def _as_errors(errors: np.ndarray) -> np.ndarray:
    e = np.asarray(errors)
    if e.ndim != 2:
        raise ValueError(f"errors must be a K x n 0/1 matrix, got shape {e.shape}")
    if e.dtype != bool:
        if not np.isin(e, (0, 1)).all():
            raise ValueError("errors must contain only 0/1 (or bool) entries")
        e = e.astype(bool)
    if e.shape[1] == 0:
        raise ValueError("errors must have at least one test point (n >= 1)")
    return e


def _gram_matmul(e: np.ndarray) -> np.ndarray:
    """Both-wrong counts G_ij = sum_x e_i(x) e_j(x) by float32 matmul (exact)."""
    k, n = e.shape
    gram = np.zeros((k, k), dtype=np.int64)
    for start in range(0, n, _FLOAT32_EXACT - 1):
        block = e[:, start : start + _FLOAT32_EXACT - 1].astype(np.float32)
        gram += np.rint(block @ block.T).astype(np.int64)
    return gram


def _disagreements_packbits(e: np.ndarray, block_rows: int = 64) -> np.ndarray:
    """Disagreement counts popcount(e_i xor e_j) on bit-packed rows."""
    k, n = e.shape
    packed = np.packbits(e, axis=1)
    pad = (-packed.shape[1]) % 8
    if pad:
        packed = np.pad(packed, ((0, 0), (0, pad)))
    words = np.ascontiguousarray(packed).view(np.uint64)
    out = np.empty((k, k), dtype=np.int64)
    for start in range(0, k, block_rows):
        rows = words[start : start + block_rows]
        xor = np.bitwise_xor(rows[:, None, :], words[None, :, :])
        out[start : start + block_rows] = np.bitwise_count(xor).sum(axis=2, dtype=np.int64)
    return out


def agreement_counts(errors: np.ndarray, method: Method = "matmul") -> np.ndarray:
    """Number of test points where the 0/1 losses of models i and j agree, int64 (K, K).

    ``errors`` is the K x n 0/1 loss matrix (``Predictions.errors()``).
    ``method="matmul"`` uses agreements = n - |e_i| - |e_j| + 2 e_i . e_j with a
    float32 Gram matrix (exact integer counts); ``"packbits"`` counts the bits of
    e_i xor e_j on bit-packed rows. Both give identical integers.
    """
    e = _as_errors(errors)
    n = e.shape[1]
    if method == "matmul":
        gram = _gram_matmul(e)
        wrong = np.diag(gram).copy()
        return n - wrong[:, None] - wrong[None, :] + 2 * gram
    if method == "packbits":
        return n - _disagreements_packbits(e)
    raise ValueError(f"unknown method {method!r} (use 'matmul' or 'packbits')")


def pairwise_similarity(errors: np.ndarray, method: Method = "matmul") -> np.ndarray:
    """Empirical similarity matrix P(1{f_i(x) != y} = 1{f_j(x) != y}), float64 (K, K).

    Mania et al. (2019), Sec. 2: the agreement of the 0/1 losses of two models.
    The diagonal is 1.
    """
    e = _as_errors(errors)
    return agreement_counts(e, method) / e.shape[1]


def independent_similarity_matrix(error_rates: np.ndarray) -> np.ndarray:
    """Similarity of every pair of models with independent mistakes: mu_i mu_j + (1 - mu_i)(1 - mu_j).

    Mania et al. (2019), Sec. 5.1 (the baseline of Fig. 1a). ``error_rates`` is
    the vector of K error rates mu_i in [0, 1]; the K x K matrix of
    [`holdout.stats.independent_similarity`][holdout.stats.independent_similarity] over all pairs.
    """
    mu = np.asarray(error_rates, dtype=np.float64)
    if mu.ndim != 1:
        raise ValueError(f"error_rates must be a vector, got shape {mu.shape}")
    return _independent_similarity(mu[:, None], mu[None, :])


#: The old name of [`independent_similarity_matrix`][holdout.similarity.core.independent_similarity_matrix] (kept for
#: compatibility).
independent_similarity = independent_similarity_matrix


def upper_pairs(matrix: np.ndarray) -> np.ndarray:
    """The entries i < j of a square matrix (one per unordered model pair), row-major."""
    m = np.asarray(matrix)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise ValueError(f"expected a square matrix, got shape {m.shape}")
    return m[np.triu_indices(m.shape[0], k=1)]


@dataclass(frozen=True)
class SimilaritySummary:
    """Summary over the K(K-1)/2 model pairs i < j (Mania et al. Sec. 5.1)."""

    num_models: int
    n: int
    num_pairs: int
    mean_accuracy: float
    mean_similarity: float
    mean_independent_similarity: float
    min_similarity: float
    max_similarity: float
    #: quantile level -> quantile of the empirical similarities
    similarity_quantiles: dict[float, float] = field(default_factory=dict)
    #: quantile level -> quantile of the independent-errors similarities
    independent_quantiles: dict[float, float] = field(default_factory=dict)
    #: fraction of pairs whose empirical similarity exceeds the independent one
    fraction_above_independent: float = float("nan")


def summarize_similarity(
    errors: np.ndarray,
    similarity: np.ndarray | None = None,
    quantiles: Sequence[float] = (0.05, 0.25, 0.5, 0.75, 0.95),
) -> SimilaritySummary:
    """Mean accuracy, mean and quantiles of empirical and independent similarity over pairs i < j.

    ``similarity`` may be passed when already computed (from the same ``errors``).
    Needs K >= 2 models.
    """
    e = _as_errors(errors)
    k, n = e.shape
    if k < 2:
        raise ValueError(f"need at least 2 models for pairwise similarity, got {k}")
    qs = [float(q) for q in quantiles]
    if any(not 0 <= q <= 1 for q in qs):
        raise ValueError(f"quantiles must lie in [0, 1], got {qs}")
    sim = pairwise_similarity(e) if similarity is None else np.asarray(similarity, dtype=np.float64)
    if sim.shape != (k, k):
        raise ValueError(f"similarity must be {k} x {k}, got {sim.shape}")
    if not ((sim >= 0.0) & (sim <= 1.0)).all():  # NaN fails too
        raise ValueError("similarity must lie in [0, 1] (no NaN)")
    return summary_from_rates(e.mean(axis=1), sim, n, qs)


def summary_from_rates(
    error_rates: np.ndarray, similarity: np.ndarray, n: int, quantiles: Sequence[float]
) -> SimilaritySummary:
    """[`SimilaritySummary`][holdout.similarity.core.SimilaritySummary] of the pairs i < j of a checked
    K x K ``similarity`` against the independent-errors baseline mu_i mu_j + (1 - mu_i)(1 - mu_j)
    (Mania et al. Sec. 5.1) at the K error rates mu; shared by 0/1 errors and expected (pass-rate)
    similarities."""
    mu = np.asarray(error_rates, dtype=np.float64)
    qs = list(quantiles)
    s = upper_pairs(similarity)
    b = upper_pairs(independent_similarity_matrix(mu))
    return SimilaritySummary(
        num_models=int(mu.size),
        n=n,
        num_pairs=int(s.size),
        mean_accuracy=float(1.0 - mu.mean()),
        mean_similarity=float(s.mean()),
        mean_independent_similarity=float(b.mean()),
        min_similarity=float(s.min()),
        max_similarity=float(s.max()),
        similarity_quantiles={q: float(v) for q, v in zip(qs, np.quantile(s, qs))},
        independent_quantiles={q: float(v) for q, v in zip(qs, np.quantile(b, qs))},
        fraction_above_independent=float(np.mean(s > b)),
    )


# ---------------------------------------------------------------------------
# Similarity covering numbers (Definition 1)
# ---------------------------------------------------------------------------


def _check_cover_inputs(similarity: np.ndarray, error_rates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    sim = np.asarray(similarity, dtype=np.float64)
    err = np.asarray(error_rates, dtype=np.float64)
    if sim.ndim != 2 or sim.shape[0] != sim.shape[1]:
        raise ValueError(f"similarity must be a square K x K matrix, got shape {sim.shape}")
    if err.shape != (sim.shape[0],):
        raise ValueError(f"error_rates must have shape ({sim.shape[0]},), got {err.shape}")
    for name, arr in (("similarity", sim), ("error_rates", err)):
        if arr.size == 0 or (arr.min() >= 0.0 and arr.max() <= 1.0):  # min/max are NaN if any NaN
            continue
        outside = np.argwhere(~((arr >= 0.0) & (arr <= 1.0)))  # NaN is outside too
        if outside.size:
            first = tuple(int(i) for i in outside[0])
            raise ValueError(
                f"{name} must lie in [0, 1]: {len(outside)} value(s) do not, first {arr[first]} at {first}"
            )
    return sim, err


def _check_eta(eta: float) -> None:
    if not 0.0 <= eta <= 1.0:  # also true for NaN
        raise ValueError(f"eta must lie in [0, 1], got {eta}")


def _cover_relation(sim: np.ndarray, err: np.ndarray, eta: float) -> tuple[np.ndarray, np.ndarray]:
    """below[m, q]: m may serve as q' for q; above[m, q]: m may serve as q'' for q."""
    close = sim >= eta - _ETA_TOL
    below = close & (err[:, None] <= err[None, :])
    above = close & (err[:, None] >= err[None, :])
    return below, above


def is_similarity_cover(cover: Sequence[int], similarity: np.ndarray, error_rates: np.ndarray, eta: float) -> bool:
    """True when the models ``cover`` (indices) form an eta-similarity cover (Definition 1).

    Every model q needs q' in the cover with error <= error(q) and similarity >= eta,
    and q'' in the cover with error >= error(q) and similarity >= eta.
    """
    sim, err = _check_cover_inputs(similarity, error_rates)
    idx = np.asarray(list(cover), dtype=np.int64)
    if idx.size == 0:
        return sim.shape[0] == 0
    below, above = _cover_relation(sim, err, eta)
    return bool(below[idx].any(axis=0).all() and above[idx].any(axis=0).all())


def greedy_similarity_cover(similarity: np.ndarray, error_rates: np.ndarray, eta: float) -> np.ndarray:
    """An eta-similarity cover (Definition 1) drawn from the measured models, by greedy set cover.

    Each model q brings two requirements (a q' below and a q'' above it, both with
    similarity >= eta); a candidate m meets those it can serve. Requirements that
    only one candidate meets force that candidate; then the candidate meeting most
    open requirements is taken until all are met (ties: lowest index); finally
    redundant members are dropped in reverse order of choice. Its size is an upper
    bound on N_eta (the greedy factor to the minimum over subsets is at most
    H(2K)). Returns the sorted model indices.
    """
    sim, err = _check_cover_inputs(similarity, error_rates)
    _check_eta(eta)
    return _greedy_cover(sim, err, eta)


def _greedy_cover(sim: np.ndarray, err: np.ndarray, eta: float) -> np.ndarray:
    """[`greedy_similarity_cover`][holdout.similarity.core.greedy_similarity_cover] on checked inputs."""
    k = sim.shape[0]
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    below, above = _cover_relation(sim, err, eta)
    # requirement-major layout: rows = 2K requirements, columns = K candidates
    req = np.ascontiguousarray(np.concatenate([below.T, above.T], axis=0))
    cand = np.ascontiguousarray(req.T)  # candidate-major copy for row reads
    gains = req.sum(axis=0, dtype=np.int64)
    open_req = np.ones(2 * k, dtype=bool)
    chosen: list[int] = []

    def take(m: int) -> None:
        new = open_req & cand[m]
        if new.any():
            open_req[new] = False
            gains[:] -= req[new].sum(axis=0, dtype=np.int64)
        chosen.append(m)

    # forced: a requirement met by a single candidate (e.g. the most accurate model's q')
    num_coverers = req.sum(axis=1)
    for m in np.unique(req[num_coverers == 1].argmax(axis=1)):
        take(int(m))
    while open_req.any():
        m = int(np.argmax(gains))
        take(m)
    # drop members whose requirements are all met by the others
    count = req[:, chosen].sum(axis=1, dtype=np.int64)
    kept = list(chosen)
    for m in reversed(chosen):
        mine = cand[m]
        if (count[mine] >= 2).all():
            count[mine] -= 1
            kept.remove(m)
    return np.array(sorted(kept), dtype=np.int64)


def covering_numbers(similarity: np.ndarray, error_rates: np.ndarray, etas: Sequence[float]) -> np.ndarray:
    """Upper bounds on N_eta (Definition 1) for every eta in ``etas``, int64 (len(etas),).

    Each is the size of [`greedy_similarity_cover`][holdout.similarity.core.greedy_similarity_cover]; 1 <= N_eta <= K.
    """
    sim, err = _check_cover_inputs(similarity, error_rates)
    etas = [float(eta) for eta in etas]
    for eta in etas:
        _check_eta(eta)
    return np.array([_greedy_cover(sim, err, eta).size for eta in etas], dtype=np.int64)


def min_similarity_cover_size(similarity: np.ndarray, error_rates: np.ndarray, eta: float, max_models: int = 16) -> int:
    """The exact minimum size of an eta-similarity cover drawn from the K models (brute force).

    Tries all subsets by increasing size (2**K subsets): for checking the greedy
    bound on small cases only; ``K > max_models`` raises.
    """
    sim, err = _check_cover_inputs(similarity, error_rates)
    k = sim.shape[0]
    if k > max_models:
        raise ValueError(f"brute force over 2**{k} subsets refused (K > max_models={max_models})")
    _check_eta(eta)
    if k == 0:
        return 0
    below, above = _cover_relation(sim, err, eta)
    weights = 1 << np.arange(k, dtype=np.int64)
    below_mask = [int(x) for x in (below * weights[None, :]).sum(axis=1)]
    above_mask = [int(x) for x in (above * weights[None, :]).sum(axis=1)]
    full = (1 << k) - 1
    for size in range(1, k + 1):
        for subset in itertools.combinations(range(k), size):
            lo = hi = 0
            for m in subset:
                lo |= below_mask[m]
                hi |= above_mask[m]
            if lo == full and hi == full:
                return size
    raise AssertionError("unreachable: the set of all models always covers itself")


# ---------------------------------------------------------------------------
# Difficulty distribution (Appendix C, Figure 4)
# ---------------------------------------------------------------------------


def difficulty_distribution(errors: np.ndarray) -> np.ndarray:
    """Fraction of test points misclassified by at most m of the K models, m = 0..K (float64, K + 1).

    Mania et al. (2019), Appendix C, Fig. 4: entry 0 is the fraction classified
    correctly by every model; 1 - entry K-1 the fraction misclassified by all;
    entry K is 1.
    """
    e = _as_errors(errors)
    k, n = e.shape
    wrong_per_point = e.sum(axis=0)
    return np.cumsum(np.bincount(wrong_per_point, minlength=k + 1)) / n


# ---------------------------------------------------------------------------
# Model subsets and the gains in testable models (Mania et al. Table 1)
# ---------------------------------------------------------------------------


def _whole(value: object, what: str) -> int:
    """``value`` as an int when it is a whole number (2000 or 2000.0, not 2.5, NaN or True)."""
    number = float("nan") if isinstance(value, (bool, np.bool_)) else float(value)  # type: ignore[arg-type]
    if not number.is_integer():
        raise ValueError(f"{what} must be a whole number, got {value!r}")
    return int(number)


def resolve_subset(model_names: Sequence[str], accuracies: np.ndarray, spec: dict) -> list[str]:
    """The model names chosen by a subset ``spec`` (one row of a Mania-Table-1-like table).

    ``spec`` has a ``name`` and exactly one of: ``models`` (a list of names; unknown
    names raise), ``top`` (the ``top`` most accurate models, ties by name),
    ``random`` (that many models drawn without replacement with ``seed``, default 0;
    the analogue of the paper's "20 Random"), or ``match`` (a regular expression
    searched in each name). Names are returned in the order of ``model_names``.
    """
    import re

    names = [str(m) for m in model_names]
    acc = np.asarray(accuracies, dtype=np.float64)
    label = spec.get("name", "<unnamed>")
    kinds = [key for key in ("models", "top", "random", "match") if key in spec]
    if len(kinds) != 1:
        raise ValueError(f"subset {label!r}: give exactly one of models, top, random, match (got {kinds})")
    kind = kinds[0]
    if kind == "models":
        unknown = [m for m in spec["models"] if m not in names]
        if unknown:
            raise ValueError(f"subset {label!r}: unknown model names {unknown}; known: {names}")
        wanted = set(spec["models"])
    elif kind == "top":
        count = _whole(spec["top"], f"subset {label!r}: top")
        if not 1 <= count <= len(names):
            raise ValueError(f"subset {label!r}: top={count} outside [1, {len(names)}]")
        order = sorted(range(len(names)), key=lambda i: (-acc[i], names[i]))
        wanted = {names[i] for i in order[:count]}
    elif kind == "random":
        count = _whole(spec["random"], f"subset {label!r}: random")
        if not 1 <= count <= len(names):
            raise ValueError(f"subset {label!r}: random={count} outside [1, {len(names)}]")
        rng = np.random.default_rng(int(spec.get("seed", 0)))
        wanted = {names[i] for i in rng.choice(len(names), size=count, replace=False)}
    else:
        pattern = re.compile(str(spec["match"]))
        wanted = {m for m in names if pattern.search(m)}
        if not wanted:
            raise ValueError(f"subset {label!r}: no model name matches {spec['match']!r}")
    return [m for m in names if m in wanted]
