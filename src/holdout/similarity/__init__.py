"""Pairwise model similarity, covering numbers and difficulty (Mania et al. 2019, Sec. 4, Fig. 1a, Fig. 4)."""

from holdout.similarity.core import (
    agreement_counts,
    pairwise_similarity,
    independent_similarity,
    upper_pairs,
    SimilaritySummary,
    summarize_similarity,
    is_similarity_cover,
    greedy_similarity_cover,
    covering_numbers,
    min_similarity_cover_size,
    difficulty_distribution,
    resolve_subset,
)

__all__ = [
    "agreement_counts",
    "pairwise_similarity",
    "independent_similarity",
    "upper_pairs",
    "SimilaritySummary",
    "summarize_similarity",
    "is_similarity_cover",
    "greedy_similarity_cover",
    "covering_numbers",
    "min_similarity_cover_size",
    "difficulty_distribution",
    "resolve_subset",
]
