"""Model similarity (Mania et al. 2019, Sections 2, 3, 5 and Appendix C).

Similarity (Sec. 2, Sec. 5.1, Fig. 1a)
--------------------------------------
- [`agreement_counts`][holdout.similarity.agreement_counts]               per pair of models, the points where their 0/1
  losses agree.
- [`pairwise_similarity`][holdout.similarity.pairwise_similarity]            the K x K similarity matrix.
- [`independent_similarity_matrix`][holdout.similarity.independent_similarity_matrix]  the same for independent mistakes
  at the models' error rates.
- [`upper_pairs`][holdout.similarity.upper_pairs]                    the entries i < j of a square matrix (one per
  pair).
- [`summarize_similarity`][holdout.similarity.summarize_similarity]           mean accuracy, mean and quantiles of the
  two similarities.

Similarity covers (Definition 1)
--------------------------------
- [`is_similarity_cover`][holdout.similarity.is_similarity_cover]            whether a set of models is an
  eta-similarity cover.
- [`greedy_similarity_cover`][holdout.similarity.greedy_similarity_cover]        a greedy cover (an upper bound on
  N_eta).
- [`covering_numbers`][holdout.similarity.covering_numbers]               that bound for each eta.
- [`min_similarity_cover_size`][holdout.similarity.min_similarity_cover_size]      the exact minimum for small K.

Difficulty (Appendix C, Fig. 4)
-------------------------------
- [`difficulty_distribution`][holdout.similarity.difficulty_distribution]        the fraction of points misclassified by
  at most m models.

The workflow's per-test-set analysis: [`holdout.similarity.study`][holdout.similarity.study]
([`analyse_set`][holdout.similarity.study.analyse_set]).
The same analyses of our own search's checkpoints are [`holdout.search_analysis`][holdout.search_analysis]. The scalar
independent-errors baseline is [`holdout.stats.independent_similarity`][holdout.stats.independent_similarity].
"""

from holdout.similarity.core import (
    agreement_counts,
    covering_numbers,
    difficulty_distribution,
    greedy_similarity_cover,
    independent_similarity_matrix,
    is_similarity_cover,
    min_similarity_cover_size,
    pairwise_similarity,
    summarize_similarity,
    upper_pairs,
)

__all__ = [
    "agreement_counts",
    "covering_numbers",
    "difficulty_distribution",
    "greedy_similarity_cover",
    "independent_similarity_matrix",
    "is_similarity_cover",
    "min_similarity_cover_size",
    "pairwise_similarity",
    "summarize_similarity",
    "upper_pairs",
]
