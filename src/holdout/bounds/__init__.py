"""Mania et al. (2019), *Model similarity mitigates test set overuse*: the bounds, exact.

Union bound (2)
---------------
- [`deviation_thresholds`][holdout.bounds.deviation_thresholds]          integer thresholds of one model's deviation
  events.
- [`union_bound_probability`][holdout.bounds.union_bound_probability]       k times the two tails of one model's error
  count.
- [`union_bound_k`][holdout.bounds.union_bound_k]                 the largest k with failure probability at most delta.

Similarity bound (3) + (8) and the coupling of Appendix B
---------------------------------------------------------
- [`pair_coupling`][holdout.bounds.pair_coupling]                 the coupling (13)-(14) of two losses with given
  similarity.
- [`pair_tail_probability`][holdout.bounds.pair_tail_probability]         probability (8) that two similar models both
  deviate.
- [`similarity_bound_probability`][holdout.bounds.similarity_bound_probability]  bound (3) with (8).
- [`similarity_bound_k`][holdout.bounds.similarity_bound_k]            its largest k.

Naive-Bayes bound (Assumption A1, Appendix B)
---------------------------------------------
- [`naive_bayes_probability`][holdout.bounds.naive_bayes_probability]       the bound under A1.
- [`naive_bayes_bound_k`][holdout.bounds.naive_bayes_bound_k]           its largest k.

Closed forms (Theorem 2, Corollary 4)
-------------------------------------
- [`theorem2_probability`][holdout.bounds.theorem2_probability]          right-hand side of (4) for a similarity cover
  of size N_eta.
- [`theorem2_eps`][holdout.bounds.theorem2_eps]                  the eps at which (4) equals delta.
- [`corollary4`][holdout.bounds.corollary4]                    adaptive analyst, trivial mechanism (eq. 7).

Testable models (Sec. 5.1, Table 1, Figure 2)
---------------------------------------------
- [`count_testable_models`][holdout.bounds.count_testable_models]         the k of the three bounds at (n, error,
  similarity, eps, delta).
- [`testable_model_counts`][holdout.bounds.testable_model_counts]         the same for measured models (similarity and
  naive-Bayes
  counts None below the independent-errors similarity).

The implementations: [`holdout.bounds.core`][holdout.bounds.core] (the bounds; log-space binomial numerics in
``_binomial``, Theorem 2 and Corollary 4 in ``_theorem2``) and [`holdout.bounds.study`][holdout.bounds.study] (the
tables and grids of the workflow). The independent-errors baseline is
[`holdout.stats.independent_similarity`][holdout.stats.independent_similarity].
"""

from holdout.bounds.core import (
    corollary4,
    deviation_thresholds,
    naive_bayes_bound_k,
    naive_bayes_probability,
    pair_coupling,
    pair_tail_probability,
    similarity_bound_k,
    similarity_bound_probability,
    theorem2_eps,
    theorem2_probability,
    union_bound_k,
    union_bound_probability,
)
from holdout.bounds.study import count_testable_models, testable_model_counts

__all__ = [
    "corollary4",
    "count_testable_models",
    "deviation_thresholds",
    "naive_bayes_bound_k",
    "naive_bayes_probability",
    "pair_coupling",
    "pair_tail_probability",
    "similarity_bound_k",
    "similarity_bound_probability",
    "testable_model_counts",
    "theorem2_eps",
    "theorem2_probability",
    "union_bound_k",
    "union_bound_probability",
]
